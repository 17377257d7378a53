//go:build !unix

package testsvc

import (
	"errors"
	"net"
)

// setBacklog is not done here: FaultProxy.StopAccepting fails the test.
func setBacklog(*net.TCPListener, int) error { return errors.ErrUnsupported }
