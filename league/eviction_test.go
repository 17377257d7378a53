package league_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/league"
)

// TestWarnsWhenRedisMayEvict: Open warns when Redis's maxmemory-policy may
// drop the league's keys, saying what would be lost, and is quiet under
// noeviction. The policy is switched on the test Redis only while it has no
// maxmemory, where no policy evicts anything.
func TestWarnsWhenRedisMayEvict(t *testing.T) {
	ctx := context.Background()
	ns := testsvc.Namespace(t) // one, deleted at the end: leftover leagues would confuse other tests
	rdb := testsvc.Redis(t, ns)
	cfg, err := rdb.ConfigGet(ctx, "maxmemory*").Result()
	testsvc.Must(t, err, "CONFIG GET")
	policies := []string{cfg["maxmemory-policy"]}
	if cfg["maxmemory"] == "0" {
		policies = []string{"noeviction", "volatile-lru", "allkeys-lfu", "volatile-ttl", "allkeys-random"}
		t.Cleanup(func() { rdb.ConfigSet(context.Background(), "maxmemory-policy", cfg["maxmemory-policy"]) })
	}
	for _, policy := range policies {
		testsvc.Must(t, rdb.ConfigSet(ctx, "maxmemory-policy", policy).Err(), "CONFIG SET")
		var log bytes.Buffer
		_, err := league.Open(ctx, rdb, []*league.League{testLeague(t)}, league.WithNamespace(ns),
			league.WithLogger(slog.New(slog.NewTextHandler(&log, nil))))
		testsvc.Must(t, err, "Open")
		warned := strings.Contains(log.String(), "maxmemory-policy="+policy)
		want := map[string]string{"volatile": "count twice", "allkeys": "vanish"}[strings.Split(policy, "-")[0]]
		switch {
		case want == "" && warned:
			t.Errorf("%s: warned: %s", policy, log.String())
		case want != "" && (!warned || !strings.Contains(log.String(), want)):
			t.Errorf("%s: log %q, want a warning saying %q", policy, log.String(), want)
		}
	}

	// miniredis reports no policy (and never evicts): no warning, no error.
	mini, _ := testsvc.Mini(t)
	var log bytes.Buffer
	_, err = league.Open(ctx, mini, []*league.League{testLeague(t)}, league.WithLogger(slog.New(slog.NewTextHandler(&log, nil))))
	testsvc.Must(t, err, "Open on miniredis")
	if strings.Contains(log.String(), "evict") {
		t.Errorf("miniredis: %s", log.String())
	}
}

// TestStandingOffALostBoard: a player of the running period whose board
// Redis lost (evicted under an allkeys policy, deleted by hand) has no
// standing to show; the read says so instead of rank 0 of a board of 0 in
// the promotion zone.
func TestStandingOffALostBoard(t *testing.T) {
	f := newFixture(t, testsvc.Backends[0])
	f.join("p1")
	boards, err := f.rdb.Keys(f.ctx, f.ns+":{weekly}:b:*").Result()
	testsvc.Must(t, err, "KEYS")
	testsvc.Must(t, f.rdb.Del(f.ctx, boards...).Err(), "DEL the board")
	st, err := f.engine.Standing(f.ctx, "weekly", "p1")
	if league.ErrorCode(err) != league.Internal || !strings.Contains(fmt.Sprint(err), "not on their board bronze-1") {
		t.Fatalf("standing %+v, %v; want an internal error naming the board", st, err)
	}
}
