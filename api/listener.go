package api

import (
	"errors"
	"log/slog"
	"net"
	"syscall"
	"time"
)

// patientListener retries an accept that failed for want of resources (the
// process's file descriptors all in use: one connection too many), pausing
// as net/http's server does. fasthttp's server takes such an error as the
// listener's end and returns, and leagued would stop: any client able to
// open enough connections could take the service down.
type patientListener struct {
	net.Listener
	log *slog.Logger
}

// Accept waits for the next connection; it fails only when the listener
// does.
func (l patientListener) Accept() (net.Conn, error) {
	var pause time.Duration
	for {
		c, err := l.Listener.Accept()
		if err == nil || !outOfResources(err) {
			return c, err
		}
		if pause == 0 {
			pause = 5 * time.Millisecond
			// Once per spell of failures: the pauses are short, the log is not.
			l.log.Warn("api: http server: cannot accept connections, retrying", "err", err)
		} else if pause = 2 * pause; pause > time.Second {
			pause = time.Second
		}
		time.Sleep(pause)
	}
}

// outOfResources reports an accept error that passes once connections close.
func outOfResources(err error) bool {
	return errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) ||
		errors.Is(err, syscall.ENOBUFS) || errors.Is(err, syscall.ENOMEM)
}
