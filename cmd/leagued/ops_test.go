package main_test

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/league-engine/league/internal/testsvc"
)

// opsConfig is a one-league config for the operations tests.
const opsConfig = `
server:
  listen: %s
  request_timeout: %s
  drain_delay: %s
  max_connections_per_client: %d
  keys:
    - {name: game, role: game, secret: %s}
    - {name: ops, role: admin, secret: ` + opsSecret + `}
    - {name: rot, role: game, secret_file: %s}
redis:
  namespace: %s
settlement:
  poll: 1s
leagues:
  - id: ops
    schedule: "@weekly"
    tiers: [{id: low, promote: 0.2}, {id: high, demote: 0.2}]
`

const (
	gameSecret = "game-secret-0123456789"
	opsSecret  = "ops-secret-0123456789"
	rotSecret  = "rot-secret-0123456789"
)

// opsOptions fill opsConfig; the zero value is a leagued with a 5 s
// deadline, no drain, no cap per client, the game key gameSecret, on the
// embedded Redis and memory (env may name real ones).
type opsOptions struct {
	requestTimeout, drain string
	perClient             int
	gameSecret, namespace string
	env                   []string
}

// leagued is a running leagued for a test.
type leagued struct {
	t          *testing.T
	o          opsOptions
	cmd        *exec.Cmd
	cfgPath    string
	secretPath string // the rot key's secret_file
	addr       string
	base       string
	logs       *testsvc.Log
	exited     chan error
}

// startLeagued starts leagued on opsConfig and waits until it is ready.
func startLeagued(t *testing.T, o opsOptions) *leagued {
	t.Helper()
	if o.requestTimeout == "" {
		o.requestTimeout = "5s"
	}
	if o.drain == "" {
		o.drain = "0s"
	}
	if o.gameSecret == "" {
		o.gameSecret = gameSecret
	}
	if o.namespace == "" {
		o.namespace = "league"
	}
	addr := freeAddr(t)
	dir := t.TempDir()
	l := &leagued{t: t, o: o, cfgPath: filepath.Join(dir, "config.yaml"), secretPath: filepath.Join(dir, "rot.secret"),
		addr: addr, base: "http://" + addr, logs: &testsvc.Log{}, exited: make(chan error, 1)}
	testsvc.Must(t, os.WriteFile(l.secretPath, []byte(rotSecret+"\n"), 0o600), "write the secret file")
	l.writeConfig()
	l.cmd = exec.Command(build(t))
	l.cmd.Env = append(append(os.Environ(), "LEAGUE_CONFIG="+l.cfgPath, "REDIS_URL=", "DATABASE_URL="), o.env...)
	l.cmd.Stdout, l.cmd.Stderr = l.logs, l.logs
	testsvc.Must(t, l.cmd.Start(), "start leagued")
	go func() { l.exited <- l.cmd.Wait() }()
	t.Cleanup(func() {
		l.cmd.Process.Kill()
		if t.Failed() {
			t.Logf("leagued log:\n%s", l.logs.String())
		}
	})
	c := &client{t: t, base: l.base}
	c.waitReady(l.exited)
	return l
}

func (l *leagued) writeConfig() {
	o := l.o
	yaml := fmt.Sprintf(opsConfig, l.addr, o.requestTimeout, o.drain, o.perClient, o.gameSecret, l.secretPath, o.namespace)
	testsvc.Must(l.t, os.WriteFile(l.cfgPath, []byte(yaml), 0o600), "write config")
}

// status sends a request and returns its status (0 when it failed).
func (l *leagued) status(method, path, key, body string) int {
	req, err := http.NewRequest(method, l.base+path, strings.NewReader(body))
	testsvc.Must(l.t, err, "request")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		return 0
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

func (l *leagued) waitExit(within time.Duration) error {
	select {
	case err := <-l.exited:
		return err
	case <-time.After(within):
		l.t.Fatalf("leagued still running %v after the signal", within)
		return nil
	}
}

// rss is the resident memory of the process, from /proc.
func (l *leagued) rss() int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", l.cmd.Process.Pid))
	testsvc.Must(l.t, err, "read /proc status")
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			testsvc.Must(l.t, err, "VmRSS %q", v)
			return kb << 10
		}
	}
	l.t.Fatal("no VmRSS")
	return 0
}

// TestVersion: leagued -version prints the build, and /metrics exports it.
func TestVersion(t *testing.T) {
	out, err := exec.Command(build(t), "-version").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "league ") || !strings.Contains(string(out), " go1.") {
		t.Fatalf("leagued -version: %v\n%s", err, out)
	}
	l := startLeagued(t, opsOptions{})
	resp, err := http.Get(l.base + "/metrics")
	testsvc.Must(t, err, "GET /metrics")
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), "league_build_info{go_version=") {
		t.Fatalf("/metrics without league_build_info")
	}
}

// TestSIGHUPReloadsKeys: SIGHUP puts the config's keys in place without a
// restart (a SIGHUP's default would kill leagued, exit 129); a config that
// does not load leaves the keys in use.
func TestSIGHUPReloadsKeys(t *testing.T) {
	l := startLeagued(t, opsOptions{})
	const rotated = "rotated-secret-0123456789"
	if got := l.status("GET", "/v1/leagues", gameSecret, ""); got != http.StatusOK {
		t.Fatalf("the configured key: %d", got)
	}
	l.o.gameSecret = rotated
	l.writeConfig()
	testsvc.Must(t, l.cmd.Process.Signal(syscall.SIGHUP), "SIGHUP")
	l.waitStatus("GET", "/v1/leagues", rotated, http.StatusOK)
	if got := l.status("GET", "/v1/leagues", gameSecret, ""); got != http.StatusUnauthorized {
		t.Fatalf("the replaced key after SIGHUP: %d, want 401", got)
	}

	// A secret file rotated: old and new for a while, then the new alone.
	const rotNew = "rot-new-secret-0123456789"
	testsvc.Must(t, os.WriteFile(l.secretPath, []byte(rotSecret+"\n"+rotNew+"\n"), 0o600), "rotate")
	testsvc.Must(t, l.cmd.Process.Signal(syscall.SIGHUP), "SIGHUP")
	l.waitStatus("GET", "/v1/leagues", rotNew, http.StatusOK)
	if got := l.status("GET", "/v1/leagues", rotSecret, ""); got != http.StatusOK {
		t.Fatalf("the old secret while both are listed: %d, want 200", got)
	}

	testsvc.Must(t, os.WriteFile(l.cfgPath, []byte("leagues: [\n"), 0o600), "break the config")
	testsvc.Must(t, l.cmd.Process.Signal(syscall.SIGHUP), "SIGHUP")
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(l.logs.String(), "keys not reloaded"); {
		if time.Now().After(deadline) {
			t.Fatal("no log line for the refused reload")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if got := l.status("GET", "/v1/leagues", rotated, ""); got != http.StatusOK {
		t.Fatalf("the key in use after a refused reload: %d, want 200", got)
	}
	testsvc.Must(t, l.cmd.Process.Signal(syscall.SIGTERM), "SIGTERM")
	if err := l.waitExit(30 * time.Second); err != nil {
		t.Fatalf("exit after SIGTERM: %v", err)
	}
}

// TestShutdownDrains: on SIGTERM readiness fails at once while requests are
// still served, for the drain delay; then leagued stops and exits 0.
func TestShutdownDrains(t *testing.T) {
	l := startLeagued(t, opsOptions{drain: "3s"})
	testsvc.Must(t, l.cmd.Process.Signal(syscall.SIGTERM), "SIGTERM")
	signalled := time.Now()
	for l.status("GET", "/readyz", "", "") != http.StatusServiceUnavailable {
		if time.Since(signalled) > 2*time.Second {
			t.Fatal("/readyz still not 503 2 s after SIGTERM")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got := l.status("POST", "/v1/leagues/ops/join", gameSecret, `{"player_id":"p1","name":"P"}`); got != http.StatusOK {
		t.Fatalf("a join while draining: %d, want 200", got)
	}
	if err := l.waitExit(30 * time.Second); err != nil {
		t.Fatalf("exit after SIGTERM: %v", err)
	}
	if d := time.Since(signalled); d < 3*time.Second {
		t.Fatalf("stopped %v after SIGTERM, before the 3 s drain delay", d)
	}
}

// TestKeylessFloodCostsNoMemory: 300 connections without a key, each
// sending a 1 MiB body, leave leagued's memory where it was: each is
// refused on its headers and its body never read. (The fasthttp server
// leagued had read each body whole first: 24 MB to 337 MB.)
func TestKeylessFloodCostsNoMemory(t *testing.T) {
	l := startLeagued(t, opsOptions{}) // no cap per client: all 300 get in
	before := l.rss()
	body := bytes.Repeat([]byte("x"), 1<<20)
	var wg sync.WaitGroup
	var peak int64
	var mu sync.Mutex
	refused := 0
	for range 300 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := net.Dial("tcp", strings.TrimPrefix(l.base, "http://"))
			if err != nil {
				return
			}
			defer c.Close()
			c.SetDeadline(time.Now().Add(20 * time.Second))
			fmt.Fprintf(c, "POST /v1/leagues/ops/scores HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", len(body))
			go c.Write(body) // as far as the server lets it
			b := make([]byte, 64)
			n, _ := io.ReadAtLeast(c, b, 12)
			mu.Lock()
			defer mu.Unlock()
			if strings.HasPrefix(string(b[:n]), "HTTP/1.1 401") {
				refused++
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	for waiting := true; waiting; {
		select {
		case <-done:
			waiting = false
		case <-time.After(20 * time.Millisecond):
		}
		if r := l.rss(); r > peak {
			peak = r
		}
	}
	if refused != 300 {
		t.Errorf("%d of 300 keyless requests answered 401", refused)
	}
	time.Sleep(time.Second) // the connections closed
	after := l.rss()
	t.Logf("RSS before %d MB, peak %d MB, after %d MB", before>>20, peak>>20, after>>20)
	const bound = 40 << 20
	if peak-before > bound || after-before > bound {
		t.Fatalf("RSS grew from %d MB to a peak of %d MB (%d MB after): over %d MB for keyless requests",
			before>>20, peak>>20, after>>20, bound>>20)
	}
	if got := l.status("GET", "/v1/leagues", gameSecret, ""); got != http.StatusOK {
		t.Fatalf("a caller with a key after the flood: %d", got)
	}
}
