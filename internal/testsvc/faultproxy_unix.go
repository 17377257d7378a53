//go:build unix

package testsvc

import (
	"net"
	"syscall"
)

// setBacklog calls listen(2) again on ln's socket, which on Linux (and the
// BSDs) changes the backlog of a socket already listening, keeping it bound.
func setBacklog(ln *net.TCPListener, n int) error {
	rc, err := ln.SyscallConn()
	if err != nil {
		return err
	}
	var lerr error
	if err := rc.Control(func(fd uintptr) { lerr = syscall.Listen(int(fd), n) }); err != nil {
		return err
	}
	return lerr
}
