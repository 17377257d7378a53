package client_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"sync"
	"testing"

	"github.com/league-engine/league/api"
	"github.com/league-engine/league/config"
	"github.com/league-engine/league/internal/connect"
	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/leaderboard"
	"github.com/league-engine/league/league"
	"github.com/league-engine/league/postgres"
	"github.com/league-engine/league/scheduler"
)

// Keys of the test service.
const (
	gameKey  = "client-game-key-0123456789"
	adminKey = "client-admin-key-0123456789"
)

// serviceConfig is leagued's configuration of the test service: a weekly
// league of boards of 10 and three tiers, an incr leaderboard with day and
// all-time boards and a catalog, and a queued one, for the examples; a
// league (cup) and a leaderboard (wins) of the tests' own, so that the
// examples' boards hold what they print.
const serviceConfig = `
server:
  api_keys: [%s]
  admin_keys: [%s]
redis:
  namespace: %s
leagues:
  - id: weekly
    schedule: "0 0 * * MON"
    board_size: 10
    max_score: 1000000
    tiers:
      - id: bronze
        promote: 0.2
        rewards: [{ranks: "1", items: {gems: 100}}]
      - id: silver
        promote: 0.2
        demote: 0.2
      - id: gold
        demote: 0.3
  - id: cup
    schedule: "0 0 * * MON"
    cohorts: [core]
    board_size: 10
    max_score: 1000
    tiers:
      - id: bronze
        promote: 0.2
      - id: silver
        demote: 0.2
leaderboards:
  - id: wins
    periods: [day, all_time]
    max_score: 1000
    catalog: true
    public_boards: true
  - id: capped
    periods: [day]
    limits: [{by: [actor], per: day, max: 1}]
  - id: kills
    periods: [day, all_time]
    max_score: 1000000
    catalog: true
  - id: peak
    periods: [day]
    queue: {max_lag: 1000}
`

// baseURL is the test service's, started by TestMain; examples call it.
var baseURL string

// TestMain starts the test service in this process, wired as cmd/leagued
// wires it (config, Redis at REDIS_URL, Postgres at DATABASE_URL migrated,
// engines, scheduler, API) behind an httptest server, for the tests and
// the examples; its keys and schema are removed afterwards.
func TestMain(m *testing.M) {
	tb := &mainTB{}
	code := func() int {
		defer tb.cleanup()
		stop, err := startService(tb)
		if err != nil {
			fmt.Fprintln(os.Stderr, "client tests: starting the service:", err)
			return 1
		}
		defer stop()
		return m.Run()
	}()
	os.Exit(code)
}

func startService(tb *mainTB) (stop func(), err error) {
	defer tb.recover(&err)
	ctx := context.Background()
	ns := testsvc.Namespace(tb)
	rdb := testsvc.Redis(tb, ns)
	_, dsn := testsvc.Postgres(tb)
	cfg, err := config.Parse(fmt.Appendf(nil, serviceConfig, gameKey, adminKey, ns))
	if err != nil {
		return nil, err
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	store, closeStore, err := connect.Store(ctx, dsn, true, quiet)
	if err != nil {
		return nil, err
	}
	tb.Cleanup(closeStore)
	engine, err := league.Open(ctx, rdb, cfg.Leagues, league.WithNamespace(ns), league.WithLogger(quiet), league.WithLostCheck(store))
	if err != nil {
		return nil, err
	}
	opts := []leaderboard.Option{leaderboard.WithNamespace(ns), leaderboard.WithLogger(quiet)}
	if a, ok := store.(leaderboard.Archive); ok {
		opts = append(opts, leaderboard.WithArchive(a))
	}
	boards, err := leaderboard.Open(ctx, rdb, cfg.Leaderboards, opts...)
	if err != nil {
		return nil, err
	}
	sched := scheduler.New(engine, store, scheduler.WithLogger(quiet), scheduler.WithLeaderboards(boards))
	var feed api.EventFeed
	if pg, ok := store.(*postgres.Store); ok {
		feed = pg
	}
	srv := api.New(api.Config{Engine: engine, Leaderboards: boards, Store: store, Settler: sched, Events: feed,
		Keys: cfg.Server.Keys, Logger: quiet})
	ts := httptest.NewServer(srv.Handler())
	baseURL = ts.URL
	return ts.Close, nil
}

// mainTB is the testing.TB of TestMain, which has none, for testsvc's
// helpers: a failure ends the start (recover), cleanups run at the end.
type mainTB struct {
	testing.TB // only the methods below are called
	mu         sync.Mutex
	cleanups   []func()
}

type fatal struct{ msg string }

func (*mainTB) Helper()      {}
func (*mainTB) Name() string { return "TestMain_client" }
func (*mainTB) Fatalf(format string, args ...any) {
	panic(fatal{fmt.Sprintf(format, args...)})
}
func (*mainTB) Errorf(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) }
func (*mainTB) Logf(format string, args ...any)   { fmt.Fprintf(os.Stderr, format+"\n", args...) }
func (t *mainTB) Cleanup(fn func()) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.cleanups = append(t.cleanups, fn)
}

func (t *mainTB) cleanup() {
	for i := len(t.cleanups) - 1; i >= 0; i-- {
		t.cleanups[i]()
	}
}

func (t *mainTB) recover(err *error) {
	if v := recover(); v != nil {
		f, ok := v.(fatal)
		if !ok {
			panic(v)
		}
		*err = fmt.Errorf("%s", f.msg)
	}
}
