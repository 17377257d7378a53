package main_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/league-engine/league/internal/testsvc"
)

// TestDeadlinesWhenDependenciesHang runs leagued with its Redis and its
// Postgres behind proxies that hang (accept, then answer nothing) or stop
// accepting (connect never completes), and holds every request to its
// deadline (server.request_timeout, 1 s here): a 503 with Retry-After in
// time, where Redis was needed; an answer without the history, where only
// Postgres hangs; readiness that follows Redis only. Before deadlines,
// board reads took 5, 10 and 30 s and a league read did not answer in 40 s.
func TestDeadlinesWhenDependenciesHang(t *testing.T) {
	ns := testsvc.Namespace(t)
	testsvc.Redis(t, ns) // cleans the namespace up afterwards
	_, dsn := testsvc.Postgres(t)
	redisProxy, pgProxy := testsvc.NewFaultProxy(t, hostOf(t, testsvc.RedisURL())), testsvc.NewFaultProxy(t, hostOf(t, dsn))
	l := startLeagued(t, opsOptions{requestTimeout: "1s", namespace: ns, env: []string{
		"REDIS_URL=" + withHost(t, testsvc.RedisURL(), redisProxy.Addr()),
		"DATABASE_URL=" + withHost(t, dsn, pgProxy.Addr()),
	}})
	if got := l.status("POST", "/v1/leagues/ops/join", gameSecret, `{"player_id":"p1","name":"P"}`); got != http.StatusOK {
		t.Fatalf("join: %d", got)
	}
	const within = 3 * time.Second // the 1 s deadline, and room for a busy machine

	redisRoutes := []struct{ method, path, key, body string }{
		{"POST", "/v1/leagues/ops/join", gameSecret, `{"player_id":"p2","name":"Q"}`},
		{"POST", "/v1/leagues/ops/scores", gameSecret, `{"player_id":"p1","value":5,"request_id":"r1"}`},
		{"GET", "/v1/leagues/ops/boards/low-1", gameSecret, ""},
		{"GET", "/v1/leagues/ops/players/p1", gameSecret, ""},
		{"GET", "/v1/leagues/ops", gameSecret, ""},
		{"GET", "/readyz", "", ""},
	}
	for _, outage := range []struct {
		name  string
		start func()
	}{{"redis hangs", redisProxy.Hang}, {"redis stops accepting", redisProxy.StopAccepting}} {
		t.Run(outage.name, func(t *testing.T) {
			outage.start()
			for _, r := range redisRoutes {
				status, header, took := l.timed(r.method, r.path, r.key, r.body)
				if status != http.StatusServiceUnavailable || header.Get("Retry-After") == "" || took > within {
					t.Errorf("%s %s: %d (Retry-After %q) after %v, want 503 with Retry-After within %v",
						r.method, r.path, status, header.Get("Retry-After"), took.Round(time.Millisecond), within)
				}
			}
			redisProxy.Pass()
			l.waitStatus("GET", "/v1/leagues/ops/boards/low-1", gameSecret, http.StatusOK)
		})
	}

	for _, outage := range []struct {
		name  string
		start func()
	}{{"postgres hangs", pgProxy.Hang}, {"postgres stops accepting", pgProxy.StopAccepting}} {
		t.Run(outage.name, func(t *testing.T) {
			outage.start()
			status, header, took := l.timed("GET", "/v1/admin/leagues/ops/settlements", opsSecret, "")
			if status != http.StatusServiceUnavailable || header.Get("Retry-After") == "" || took > within {
				t.Errorf("settlements: %d after %v, want 503 with Retry-After within %v", status, took, within)
			}
			start := time.Now()
			body := l.getJSON("/v1/leagues/ops/players/p1", gameSecret)
			if took := time.Since(start); body["history_unavailable"] != true || body["joined"] != true || took > within {
				t.Errorf("profile: %v after %v, want the live standing with history_unavailable within %v", body, took, within)
			}
			// Joins, writes and boards need Redis only; ready follows them.
			for _, r := range redisRoutes {
				if status, _, took := l.timed(r.method, r.path, r.key, r.body); status != http.StatusOK || took > within {
					t.Errorf("%s %s with postgres down: %d after %v, want 200", r.method, r.path, status, took)
				}
			}
			deadline := time.Now().Add(15 * time.Second)
			for l.getJSON("/readyz", "")["store"] != "unavailable" {
				if time.Now().After(deadline) {
					t.Fatal("/readyz never reported the store unavailable")
				}
				time.Sleep(200 * time.Millisecond)
			}
			pgProxy.Pass()
			l.waitStatus("GET", "/v1/admin/leagues/ops/settlements", opsSecret, http.StatusOK)
		})
	}
}

// timed sends a request and returns its status, headers and how long the
// answer took (status 0 when there was none).
func (l *leagued) timed(method, path, key, body string) (int, http.Header, time.Duration) {
	req, err := http.NewRequest(method, l.base+path, strings.NewReader(body))
	testsvc.Must(l.t, err, "request")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	start := time.Now()
	resp, err := (&http.Client{Timeout: 45 * time.Second}).Do(req)
	if err != nil {
		return 0, nil, time.Since(start)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, resp.Header, time.Since(start)
}

// getJSON GETs path and decodes the JSON reply, whatever the status.
func (l *leagued) getJSON(path, key string) map[string]any {
	req, err := http.NewRequest("GET", l.base+path, nil)
	testsvc.Must(l.t, err, "request")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := (&http.Client{Timeout: 45 * time.Second}).Do(req)
	testsvc.Must(l.t, err, "GET %s", path)
	defer resp.Body.Close()
	var out map[string]any
	testsvc.Must(l.t, json.NewDecoder(resp.Body).Decode(&out), "GET %s: decode", path)
	return out
}

// waitStatus repeats a request until it answers want (a dependency back,
// keys reloaded), failing the test after 15 s.
func (l *leagued) waitStatus(method, path, key string, want int) {
	l.t.Helper()
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		status, _, _ := l.timed(method, path, key, "")
		if status == want {
			return
		}
		if time.Now().After(deadline) {
			l.t.Fatalf("%s %s: still %d after 15 s, want %d", method, path, status, want)
		}
	}
}

// hostOf is the host:port of a service URL.
func hostOf(t *testing.T, raw string) string {
	u, err := url.Parse(raw)
	testsvc.Must(t, err, "parse %s", raw)
	return u.Host
}

// withHost is raw with its host:port replaced.
func withHost(t *testing.T, raw, host string) string {
	u, err := url.Parse(raw)
	testsvc.Must(t, err, "parse %s", raw)
	u.Host = host
	return u.String()
}
