package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/league"
	"github.com/league-engine/league/scripts"
)

// TestCorrectKilled: leaguectl correct, killed with SIGKILL at each step of
// a correction, and run again: in its Postgres transaction (nothing of it
// stays), after its commit while its Redis step is on its way (the next
// run carries it to Redis), and after Redis took it but before the store
// recorded that (the next run records it). Every write of the correction
// is there exactly once at the end, and Redis gives the corrected tiers.
func TestCorrectKilled(t *testing.T) {
	// One board of 5, low promotes 20% (score >= 1), ranks 1-2 earn gems:
	// p0 (50) is promoted. Zeroing p0 promotes p1 and moves the gems.
	path, period := settledQuick(t, t.TempDir(), "1-2", 5, func(i int) league.JoinRequest {
		id := fmt.Sprint("p", i)
		return league.JoinRequest{Player: id, Name: id}
	}, func(i int) int64 { return int64(50 - 10*i) })
	ctx, dsn := context.Background(), os.Getenv("DATABASE_URL")
	// db reads; locker holds the locks a run is stopped at (in a
	// transaction, db would see pg_stat_activity as at its start).
	db, err := pgx.Connect(ctx, dsn)
	testsvc.Must(t, err, "connect")
	t.Cleanup(func() { db.Close(context.Background()) })
	locker, err := pgx.Connect(ctx, dsn)
	testsvc.Must(t, err, "connect")
	t.Cleanup(func() { locker.Close(context.Background()) })

	bin := filepath.Join(t.TempDir(), "leaguectl")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	// The script is loaded at start (SCRIPT LOAD, by its source), and run
	// by its hash: only the run carries the hash.
	proxy := newHoldingProxy(t, scripts.Correct.Hash())
	u, err := url.Parse(testsvc.RedisURL())
	testsvc.Must(t, err, "REDIS_URL")
	u.Host = proxy.addr()
	env := append(os.Environ(), "REDIS_URL="+u.String(), "DATABASE_URL="+dsn)
	var stderr bytes.Buffer // of the last run: said when the test fails
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the last leaguectl correct said:\n%s", stderr.String())
		}
	})
	start := func() *exec.Cmd {
		t.Helper()
		cmd := exec.Command(bin, "correct", "-config", path, "-league", "quick", "-period", period.ID(), "-player", "p0", "-zero",
			"-reason", "bot")
		cmd.Env, cmd.Stdout, cmd.Stderr = env, &stderr, &stderr
		stderr.Reset()
		testsvc.Must(t, cmd.Start(), "start leaguectl correct")
		return cmd
	}
	kill := func(cmd *exec.Cmd) {
		t.Helper()
		testsvc.Must(t, cmd.Process.Kill(), "kill -9")
		_ = cmd.Wait()
	}
	// waitFor polls q (one boolean) until it is true.
	waitFor := func(what, q string, args ...any) {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			var ok bool
			testsvc.Must(t, db.QueryRow(ctx, q, args...).Scan(&ok), "%s", what)
			if ok {
				return
			}
		}
		var activity string
		_ = db.QueryRow(ctx, `SELECT string_agg(state || ' ' || coalesce(wait_event_type, '') || ': ' || left(query, 80), E'\n')
			FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND datname = current_database()`).Scan(&activity)
		t.Fatalf("no %s within 30 s; Postgres is doing:\n%s", what, activity)
	}
	state := func() string {
		t.Helper()
		var s string
		err := db.QueryRow(ctx, `SELECT concat_ws(', ',
				(SELECT string_agg(status, '') FROM corrections),
				(SELECT count(*) || ' correction.applied' FROM events WHERE type = 'correction.applied'),
				(SELECT count(*) || ' revoked' FROM reward_revocations),
				(SELECT string_agg(player || '=' || (items->0->>'qty'), ' ' ORDER BY player) FROM rewards),
				(SELECT string_agg(player || ':' || tier_after, ' ' ORDER BY player) FROM outcomes))`).Scan(&s)
		testsvc.Must(t, err, "state")
		return s
	}
	tierOf := func(player string) string { // as a join would give it now
		t.Helper()
		j := runJSON(t, "player", "-config", path, "-league", "quick", "-player", player, "-history", "1", "-o", "json")
		return j["standing"].(map[string]any)["tier"].(string)
	}
	settled := state()
	if want := "2 correction.applied"; strings.Contains(settled, want) || tierOf("p1") != "low" {
		t.Fatalf("settled: %s", settled)
	}

	// 1. Killed in its transaction: it waits for the outbox lock (held
	// here), the last step before COMMIT, all its writes done.
	_, err = locker.Exec(ctx, `SELECT pg_advisory_lock(hashtextextended(coalesce(current_schema(), '') || '/events', 0))`)
	testsvc.Must(t, err, "take the outbox lock")
	cmd := start()
	waitFor("correction waiting for the outbox lock", `SELECT count(*) > 0 FROM pg_stat_activity
		WHERE wait_event_type = 'Lock' AND query LIKE '%pg_advisory_xact_lock%/events%'`)
	kill(cmd)
	_, err = locker.Exec(ctx, `SELECT pg_advisory_unlock_all()`)
	testsvc.Must(t, err, "release the outbox lock")
	if got := state(); got != settled {
		t.Fatalf("killed in its transaction, the correction left: %s\nwant: %s", got, settled)
	}

	// 2. Killed after its commit, its Redis step held on the way.
	proxy.hold(true)
	cmd = start()
	proxy.waitHeld(t)
	kill(cmd)
	proxy.hold(false)
	committed := state()
	if !strings.HasPrefix(committed, "written, ") || tierOf("p1") != "low" {
		t.Fatalf("killed after its commit: %s, p1 %s; want written, Redis untouched", committed, tierOf("p1"))
	}

	// 3. Run again and killed after Redis, before the store records it:
	// the row it updates then is locked here.
	tx, err := locker.Begin(ctx)
	testsvc.Must(t, err, "begin")
	_, err = tx.Exec(ctx, `SELECT FROM corrections FOR UPDATE`)
	testsvc.Must(t, err, "lock the correction")
	cmd = start()
	waitFor("correction waiting to record it applied", `SELECT count(*) > 0 FROM pg_stat_activity
		WHERE wait_event_type = 'Lock' AND query LIKE 'UPDATE corrections SET status%'`)
	if tierOf("p1") != "high" {
		t.Fatal("the correction waits to record Redis's step, but Redis does not show it")
	}
	kill(cmd)
	testsvc.Must(t, tx.Rollback(ctx), "rollback")
	if got := state(); got != committed {
		t.Fatalf("killed after Redis: %s, want %s", got, committed)
	}

	// 4. Run to the end, twice: applied once, as committed.
	for i := range 2 {
		var out bytes.Buffer
		testsvc.Must(t, run(ctx, []string{"correct", "-config", path, "-league", "quick", "-period", period.ID(), "-player", "p0",
			"-zero", "-reason", "bot"}, &out), "correct, run %d", i)
	}
	want := "applied" + strings.TrimPrefix(committed, "written")
	if got := state(); got != want {
		t.Fatalf("finished: %s\nwant: %s", got, want)
	}
	if !strings.Contains(want, "1 revoked") || !strings.Contains(want, "p0:low p1:high") {
		t.Fatalf("the correction did not do what zeroing p0 does: %s", want)
	}
	for p, tier := range map[string]string{"p0": "low", "p1": "high", "p2": "low"} {
		if got := tierOf(p); got != tier {
			t.Errorf("%s's tier: %s, want %s", p, got, tier)
		}
	}
}

// holdingProxy forwards TCP connections to Redis, but, while holding,
// holds back a client's bytes that contain one of its patterns, as if
// Redis were unreachable for that command: a process sending it blocks
// there, to be killed. Held bytes are never forwarded.
type holdingProxy struct {
	ln       net.Listener
	upstream string
	patterns [][]byte
	mu       sync.Mutex
	holding  bool
	held     chan struct{}
	done     chan struct{}
}

func newHoldingProxy(t *testing.T, patterns ...string) *holdingProxy {
	u, err := url.Parse(testsvc.RedisURL())
	testsvc.Must(t, err, "REDIS_URL")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	testsvc.Must(t, err, "listen")
	p := &holdingProxy{ln: ln, upstream: u.Host, held: make(chan struct{}, 1), done: make(chan struct{})}
	for _, s := range patterns {
		p.patterns = append(p.patterns, []byte(s))
	}
	t.Cleanup(func() { close(p.done); ln.Close() })
	go p.serve()
	return p
}

func (p *holdingProxy) addr() string { return p.ln.Addr().String() }

func (p *holdingProxy) hold(on bool) { p.mu.Lock(); p.holding = on; p.mu.Unlock() }

func (p *holdingProxy) waitHeld(t *testing.T) {
	t.Helper()
	select {
	case <-p.held:
	case <-time.After(30 * time.Second):
		t.Fatal("no command held within 30 s")
	}
}

func (p *holdingProxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		go p.forward(c)
	}
}

func (p *holdingProxy) forward(c net.Conn) {
	defer c.Close()
	up, err := net.Dial("tcp", p.upstream)
	if err != nil {
		return
	}
	defer up.Close()
	go func() { _, _ = io.Copy(c, up); c.Close() }()
	buf := make([]byte, 64<<10)
	for {
		n, err := c.Read(buf)
		if n > 0 && p.holds(buf[:n]) {
			p.held <- struct{}{}
			<-p.done // never forwarded
			return
		}
		if n > 0 {
			if _, err := up.Write(buf[:n]); err != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

func (p *holdingProxy) holds(b []byte) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.holding {
		return false
	}
	for _, pat := range p.patterns {
		if bytes.Contains(b, pat) {
			return true
		}
	}
	return false
}
