package main

import "syscall"

// setServerAttr puts a server in its own process group and has the kernel
// kill it if the runner dies without cleaning up (SIGKILL, OOM).
func setServerAttr(a *syscall.SysProcAttr) {
	a.Setpgid = true
	a.Pdeathsig = syscall.SIGKILL
}
