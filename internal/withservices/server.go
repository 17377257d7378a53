//go:build unix

package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// A server is a throwaway server process writing its log to a file.
type server struct {
	name string
	cmd  *exec.Cmd
	log  string
	stop syscall.Signal // the signal that shuts it down cleanly
	done chan struct{}  // closed when the process has exited
}

// startServer starts cmd with its output in logPath, in a process group of its
// own so that a Ctrl-C in the terminal reaches the runner, not the server:
// the runner stops it after the command.
func startServer(name, logPath string, stop syscall.Signal, cmd *exec.Cmd) (*server, error) {
	f, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cmd.Stdout, cmd.Stderr = f, f
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	setServerAttr(cmd.SysProcAttr)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	s := &server{name: name, cmd: cmd, log: logPath, stop: stop, done: make(chan struct{})}
	go func() {
		cmd.Wait()
		close(s.done)
	}()
	return s, nil
}

// waitReady calls ready every 50ms until it succeeds, the server exits, ctx
// ends or timeout passes. Errors carry the tail of the server's log.
func (s *server) waitReady(ctx context.Context, timeout time.Duration, ready func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var last error
	for {
		attempt, cancelAttempt := context.WithTimeout(ctx, time.Second)
		last = ready(attempt)
		cancelAttempt()
		if last == nil {
			return nil
		}
		select {
		case <-s.done:
			return fmt.Errorf("%s exited while starting (%s)%s", s.name, s.cmd.ProcessState, s.logTail())
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return fmt.Errorf("%s not ready after %s: %v%s", s.name, timeout, last, s.logTail())
			}
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// shutdown stops the server with its clean-stop signal and, if it has not
// exited after 10s, kills its whole process group.
func (s *server) shutdown() {
	pid := s.cmd.Process.Pid
	syscall.Kill(pid, s.stop)
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		fmt.Fprintf(os.Stderr, "%s: did not stop in 10s, killing it\n", s.name)
		syscall.Kill(-pid, syscall.SIGKILL)
		<-s.done
	}
}

// logTail is the last lines of the server's log, for error messages.
func (s *server) logTail() string {
	b, err := os.ReadFile(s.log)
	if err != nil || len(b) == 0 {
		return ""
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > 30 {
		lines = lines[len(lines)-30:]
	}
	return fmt.Sprintf("\n--- last lines of %s ---\n%s\n---", s.log, strings.Join(lines, "\n"))
}

// freePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
