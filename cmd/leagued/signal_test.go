package main_test

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/league-engine/league/internal/testsvc"
)

// TestSignalWhileStarting: SIGTERM while leagued waits for a dependency at
// start is the stop that was asked for: exit 0, not an error blaming the
// dependency ("postgres unavailable: context canceled").
func TestSignalWhileStarting(t *testing.T) {
	bin := build(t)
	// A "Postgres" that takes connections and never answers them.
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	testsvc.Must(t, err, "listen")
	defer silent.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		if c, err := silent.Accept(); err == nil {
			accepted <- c
		}
	}()

	var logs bytes.Buffer
	cmd := exec.Command(bin)
	cmd.Dir = "../.."
	cmd.Env = append(os.Environ(), "LEAGUE_CONFIG=config.yaml", "LISTEN_ADDR="+freeAddr(t), "REDIS_URL=",
		"DATABASE_URL=postgres://"+silent.Addr().String()+"/league?sslmode=disable")
	cmd.Stdout, cmd.Stderr = &logs, &logs
	testsvc.Must(t, cmd.Start(), "start leagued")
	defer cmd.Process.Kill()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case c := <-accepted:
		defer c.Close()
	case err := <-exited:
		t.Fatalf("leagued exited before it connected to Postgres: %v\n%s", err, logs.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("leagued never connected to Postgres\n%s", logs.String())
	}

	testsvc.Must(t, cmd.Process.Signal(syscall.SIGTERM), "SIGTERM")
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("leagued stopped while starting: %v, want exit 0", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("leagued did not stop within 10 s of SIGTERM")
	}
	if out := logs.String(); strings.Contains(out, "level=ERROR") || !strings.Contains(out, "stopped by a signal before it served") {
		t.Errorf("log:\n%s", out)
	}
}
