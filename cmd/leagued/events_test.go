package main_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/league-engine/league/config"
	"github.com/league-engine/league/events"
	"github.com/league-engine/league/internal/testsvc"
)

const hookSecret = "e2e-hook-secret-0123456789"

// hookRecv is the test's webhook receiver: it checks each delivery's
// signature, takes 20 ms per event, and records what it
// accepted in order.
type hookRecv struct {
	mu       sync.Mutex
	accepted []events.Event
	bad      []string
}

func (h *hookRecv) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var e events.Event
	err := events.Verify(hookSecret, r.Header.Get(events.SignatureHeader), body, time.Now(), 0)
	if err == nil {
		err = json.Unmarshal(body, &e)
	}
	if err != nil {
		h.mu.Lock()
		h.bad = append(h.bad, err.Error())
		h.mu.Unlock()
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	time.Sleep(20 * time.Millisecond)
	h.mu.Lock()
	h.accepted = append(h.accepted, e)
	h.mu.Unlock()
}

func (h *hookRecv) got() ([]events.Event, []string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]events.Event(nil), h.accepted...), append([]string(nil), h.bad...)
}

// TestLeaguedEventsOut runs the real leagued with a webhook: a period of
// 300 players settles, leagued is killed (SIGKILL) while it delivers the
// events, and a new leagued finishes: the receiver gets every event the
// feed lists, signed, in order per player; the next joins' reward claims
// follow. The feed refuses a game key.
func TestLeaguedEventsOut(t *testing.T) {
	if testing.Short() {
		t.Skip("starts leagued and waits for a fifteen-second cycle")
	}
	bin := build(t)
	recv := &hookRecv{}
	hook := httptest.NewServer(recv)
	defer hook.Close()
	ns := testsvc.Namespace(t)
	testsvc.Redis(t, ns)
	_, dsn := testsvc.Postgres(t)
	addr := freeAddr(t)
	yaml := fmt.Sprintf(e2eConfig, addr, apiKey, adminKey, ns) + fmt.Sprintf(`
events:
  webhooks:
    - {name: game, url: "%s/league", secret: %s, concurrency: 2}
`, hook.URL, hookSecret)
	cfgPath := filepath.Join(t.TempDir(), "config.yaml")
	testsvc.Must(t, os.WriteFile(cfgPath, []byte(yaml), 0o600), "write config")
	cfg, err := config.Parse([]byte(yaml))
	testsvc.Must(t, err, "config")

	var logs bytes.Buffer
	var logsMu sync.Mutex
	start := func() (*exec.Cmd, chan error) {
		cmd := exec.Command(bin)
		cmd.Env = append(os.Environ(), "LEAGUE_CONFIG="+cfgPath, "REDIS_URL="+testsvc.RedisURL(), "DATABASE_URL="+dsn)
		w := writerFunc(func(p []byte) (int, error) { logsMu.Lock(); defer logsMu.Unlock(); return logs.Write(p) })
		cmd.Stdout, cmd.Stderr = w, w
		testsvc.Must(t, cmd.Start(), "start leagued")
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		t.Cleanup(func() { cmd.Process.Kill() })
		return cmd, exited
	}
	t.Cleanup(func() {
		if t.Failed() {
			logsMu.Lock()
			t.Logf("leagued logs:\n%s", logs.String())
			logsMu.Unlock()
		}
	})
	cmd, exited := start()
	c := &client{t: t, base: "http://" + addr}
	c.waitReady(exited)

	sched := cfg.Leagues[0].Schedule
	if p := sched.At(time.Now()); time.Until(p.End) < 10*time.Second {
		time.Sleep(time.Until(p.End) + 200*time.Millisecond)
	}
	const n = 300
	first := c.joinAll(n)
	c.each(n, func(i int) {
		c.post("/v1/leagues/e2e/scores", apiKey, map[string]any{"player_id": player(i), "value": int64(i*7919) % 1000}, http.StatusOK, nil)
	})
	period1 := first[0].Period
	c.waitSettled(period1)
	feed := c.feed(adminKey)                   // the settlement's events, all in at once
	if want := 1 + n + 90; len(feed) != want { // period.closed, 300 outcomes, ranks 1-3 of 30 boards
		t.Fatalf("the feed lists %d events, want %d", len(feed), want)
	}
	c.get("/v1/admin/events", apiKey, http.StatusForbidden, nil)

	// Killed while it delivers: some events are in, not all.
	deadline := time.Now().Add(20 * time.Second)
	for acc, _ := recv.got(); len(acc) < 40; acc, _ = recv.got() {
		if time.Now().After(deadline) {
			t.Fatalf("only %d events delivered within 20 s of the settlement", len(acc))
		}
		time.Sleep(5 * time.Millisecond)
	}
	testsvc.Must(t, cmd.Process.Signal(syscall.SIGKILL), "kill -9")
	<-exited
	if atKill, _ := recv.got(); len(atKill) >= len(feed) {
		t.Fatalf("all %d events were delivered before the kill: the test proves nothing", len(feed))
	}

	// A new leagued takes over where delivery stopped.
	_, exited = start()
	c.waitReady(exited)
	waitDelivered := func(feed []events.Event) []events.Event {
		deadline := time.Now().Add(60 * time.Second)
		for {
			acc, bad := recv.got()
			if len(bad) > 0 {
				t.Fatalf("deliveries the receiver refused: %v", bad)
			}
			seen := map[int64]bool{}
			for _, e := range acc {
				seen[e.ID] = true
			}
			missing := 0
			for _, e := range feed {
				if !seen[e.ID] {
					missing++
				}
			}
			if missing == 0 {
				return acc
			}
			if time.Now().After(deadline) {
				t.Fatalf("%d of %d events not delivered within 60 s of the restart", missing, len(feed))
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	acc := waitDelivered(feed)
	checkLanes(t, acc)
	t.Logf("%d events, %d deliveries accepted (%d again after the kill)", len(feed), len(acc), len(acc)-len(feed))

	// The next joins deliver the rewards: their claims are events too.
	c.joinAll(n)
	var claims []events.Event
	deadline = time.Now().Add(30 * time.Second)
	for len(claims) < 90 {
		if time.Now().After(deadline) {
			t.Fatalf("%d reward.claimed events in the feed, want 90", len(claims))
		}
		time.Sleep(200 * time.Millisecond)
		claims = claims[:0]
		for _, e := range c.feed(adminKey) {
			if e.Type == events.RewardClaimed {
				claims = append(claims, e)
			}
		}
	}
	acc = waitDelivered(c.feed(adminKey))
	checkLanes(t, acc)
}

// feed reads the whole pull feed.
func (c *client) feed(key string) []events.Event {
	c.t.Helper()
	var all []events.Event
	after := int64(0)
	for {
		var page struct {
			Events []events.Event `json:"events"`
			Next   int64          `json:"next"`
		}
		c.get(fmt.Sprintf("/v1/admin/events?after=%d&limit=1000", after), key, http.StatusOK, &page)
		if c.t.Failed() {
			c.t.FailNow()
		}
		all = append(all, page.Events...)
		if len(page.Events) == 0 {
			return all
		}
		after = page.Next
	}
}

// checkLanes fails the test unless each player's events were first
// accepted in the order of their ids.
func checkLanes(t *testing.T, acc []events.Event) {
	t.Helper()
	last, seen := map[string]int64{}, map[int64]bool{}
	for _, e := range acc {
		if seen[e.ID] {
			continue
		}
		seen[e.ID] = true
		if e.ID < last[e.Lane()] {
			t.Fatalf("%s: event %d first accepted after %d", strings.ReplaceAll(e.Lane(), " ", "/"), e.ID, last[e.Lane()])
		}
		last[e.Lane()] = e.ID
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
