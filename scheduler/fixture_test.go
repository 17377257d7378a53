package scheduler_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/league-engine/league/inmem"
	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/league"
	"github.com/league-engine/league/scheduler"
	"github.com/league-engine/league/tiers"
)

// storeKind is a Store implementation the settlement tests run against.
type storeKind struct {
	name string
	new  func(t *testing.T) league.Store
}

// stores lists the implementations; postgres_test.go adds Postgres.
var stores = []storeKind{
	{"inmem", func(*testing.T) league.Store { return inmem.New() }},
}

func forEachStore(t *testing.T, fn func(t *testing.T, k storeKind)) {
	for _, k := range stores {
		t.Run(k.name, func(t *testing.T) { fn(t, k) })
	}
}

// monday 2026-11-16 starts a week of the test league.
var monday = time.Date(2026, 11, 16, 0, 0, 0, 0, time.UTC)

// merging is ladder with min_board_size 5 on every tier: a tier's last
// board of fewer than 5 players is decided with the board before it.
func merging(tb testing.TB) *tiers.Ladder {
	tb.Helper()
	ts := ladder(tb).Tiers()
	for i := range ts {
		ts[i].MinBoardSize = 5
	}
	l, err := tiers.NewLadder(ts)
	testsvc.Must(tb, err, "NewLadder")
	return l
}

// ladder: bronze promotes 20% (score >= 1), silver promotes and demotes 20%,
// gold demotes 30%; ranks 1-3 of each board earn gems.
func ladder(tb testing.TB) *tiers.Ladder {
	tb.Helper()
	rw := []tiers.Band{
		{From: 1, To: 1, Items: []tiers.Item{{ID: "gems", Qty: 100}}},
		{From: 2, To: 3, Items: []tiers.Item{{ID: "gems", Qty: 50}}},
	}
	l, err := tiers.NewLadder([]tiers.Tier{
		{ID: "bronze", Promote: 2000, MinPromoteScore: 1, Rewards: rw},
		{ID: "silver", Promote: 2000, Demote: 2000, Rewards: rw},
		{ID: "gold", Demote: 3000, Rewards: rw},
	})
	if err != nil {
		tb.Fatal(err)
	}
	return l
}

type fixture struct {
	t      *testing.T
	ctx    context.Context
	rdb    *redis.Client
	ns     string
	clock  *testsvc.Clock
	league *league.League
	engine *league.Engine
	store  league.Store
}

func newFixture(t *testing.T, k storeKind, size int) *fixture {
	t.Helper()
	f := &fixture{t: t, ctx: context.Background(), ns: testsvc.Namespace(t), clock: testsvc.NewClock(monday.Add(time.Hour))}
	f.rdb = testsvc.Redis(t, f.ns)
	sched, err := league.ParseSchedule("0 0 * * MON")
	testsvc.Must(t, err, "schedule")
	f.league = &league.League{ID: "weekly", BoardSize: size, Schedule: sched, Ladder: ladder(t)}
	testsvc.Must(t, f.league.Init(), "Init")
	f.engine = f.open()
	f.store = k.new(t)
	return f
}

// open opens another engine on the same Redis and namespace: a second
// replica.
func (f *fixture) open() *league.Engine {
	e, err := league.Open(f.ctx, f.rdb, []*league.League{f.league}, league.WithNamespace(f.ns), league.WithClock(f.clock.Now))
	testsvc.Must(f.t, err, "Open")
	return e
}

func (f *fixture) scheduler(opts ...scheduler.Option) *scheduler.Scheduler {
	return scheduler.New(f.engine, f.store, opts...)
}

func (f *fixture) period() league.Period {
	p, err := f.engine.Current("weekly")
	testsvc.Must(f.t, err, "Current")
	return p
}

// play makes n players (ids prefix0000..) join the current period and write
// scores: player i scores (i*7919)%1000, so ranks are mixed up with join
// order and some scores are 0.
func (f *fixture) play(prefix string, n int) map[string]league.Placement {
	f.t.Helper()
	out := make(map[string]league.Placement, n)
	var mu sync.Mutex
	var wg sync.WaitGroup
	work := make(chan int)
	for g := 0; g < 32; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				id := fmt.Sprintf("%s%05d", prefix, i)
				p, err := f.engine.Join(f.ctx, "weekly", league.JoinRequest{Player: id, Name: id})
				if err == nil {
					_, err = f.engine.Score(f.ctx, "weekly", league.ScoreWrite{Player: id, Value: int64(i*7919) % 1000})
				}
				if err != nil {
					f.t.Errorf("%s: %v", id, err)
					continue
				}
				mu.Lock()
				out[id] = p
				mu.Unlock()
			}
		}()
	}
	for i := 0; i < n; i++ {
		work <- i
	}
	close(work)
	wg.Wait()
	if f.t.Failed() {
		f.t.FailNow()
	}
	return out
}

// settleNow settles the last ended period and fails the test on error.
func (f *fixture) settleNow(s *scheduler.Scheduler) league.Settlement {
	f.t.Helper()
	st, err := s.SettleNow(f.ctx, "weekly", time.Time{})
	testsvc.Must(f.t, err, "SettleNow")
	if st.Status != league.StatusDone {
		f.t.Fatalf("settlement status %s, want done", st.Status)
	}
	return st
}
