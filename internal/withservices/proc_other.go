//go:build unix && !linux

package main

import "syscall"

// setServerAttr puts a server in its own process group.
func setServerAttr(a *syscall.SysProcAttr) {
	a.Setpgid = true
}
