package scheduler_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/league-engine/league/inmem"
	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/league"
	"github.com/league-engine/league/scheduler"
)

func TestMain(m *testing.M) {
	slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil)))
	os.Exit(m.Run())
}

// downStore is a store whose database is down while down is set: every
// call fails as Postgres does when it cannot be reached.
type downStore struct {
	league.Store
	down atomic.Bool
}

var errDown = &league.Error{Code: league.Unavailable, Message: "postgres unavailable", Err: errors.New("connection refused")}

func (d *downStore) BeginSettlement(ctx context.Context, s league.Settlement) (league.Settlement, error) {
	if d.down.Load() {
		return league.Settlement{}, errDown
	}
	return d.Store.BeginSettlement(ctx, s)
}

func (d *downStore) WriteOutcomes(ctx context.Context, s league.Settlement, o []league.Outcome, r []league.EarnedReward) error {
	if d.down.Load() {
		return errDown
	}
	return d.Store.WriteOutcomes(ctx, s, o, r)
}

func (d *downStore) Advance(ctx context.Context, l string, p time.Time, from, to league.SettlementStatus) error {
	if d.down.Load() {
		return errDown
	}
	return d.Store.Advance(ctx, l, p, from, to)
}

func (d *downStore) Lock(ctx context.Context, l string, p time.Time) (func(), bool, error) {
	if d.down.Load() {
		return nil, false, errDown
	}
	return d.Store.Lock(ctx, l, p)
}

// settleWithStoreDownAt plays a week of 300 players, takes the database
// down when the settlement reaches step and settles: that must fail as
// unavailable. It returns the week and the store, still down.
func settleWithStoreDownAt(t *testing.T, f *fixture, step string) (league.Period, *downStore) {
	t.Helper()
	week := f.period()
	f.play("p", 300)
	f.clock.After(week.End)
	ds := &downStore{Store: f.store}
	f.store = ds
	s := f.scheduler(scheduler.WithFault(func(at string) error {
		if at == step {
			ds.down.Store(true)
		}
		return nil
	}))
	if _, err := s.SettleNow(f.ctx, "weekly", time.Time{}); !errors.Is(err, league.ErrUnavailable) {
		t.Fatalf("settlement with the database down at %s: %v, want unavailable", step, err)
	}
	return week, ds
}

// waitDone waits up to 15 s for the week's settlement to be done.
func waitDone(t *testing.T, f *fixture, week league.Period) league.Settlement {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		st, err := f.store.Settlement(f.ctx, "weekly", week.Start)
		if err == nil && st.Status == league.StatusDone {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("not settled after the database came back: %+v %v", st, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestStoreDownDuringSettlement: the database goes down mid-settlement. The
// settlement fails without writing half of anything, the live engine keeps
// serving joins and writes, and once the database is back the scheduler's
// retries complete the settlement.
func TestStoreDownDuringSettlement(t *testing.T) {
	forEachStore(t, func(t *testing.T, k storeKind) {
		f := newFixture(t, k, 100)
		week, ds := settleWithStoreDownAt(t, f, scheduler.StepWrite) // just before the write
		// live engine: new period joins and writes work
		if _, err := f.engine.Join(f.ctx, "weekly", league.JoinRequest{Player: "live", Name: "live"}); err != nil {
			t.Fatalf("join while the database is down: %v", err)
		}
		if _, err := f.engine.Score(f.ctx, "weekly", league.ScoreWrite{Player: "live", Value: 3}); err != nil {
			t.Fatalf("score while the database is down: %v", err)
		}
		st, err := f.store.Settlement(f.ctx, "weekly", week.Start)
		if err != nil && !errors.Is(err, league.ErrNotFound) {
			t.Fatal(err)
		}
		if st.Status != "" && st.Status != league.StatusStarted {
			t.Fatalf("half-written settlement: %+v", st)
		}

		// The scheduler's loop retries with backoff; bring the database back.
		s2 := f.scheduler(scheduler.WithPoll(200 * time.Millisecond))
		s2.Start()
		defer s2.Stop(f.ctx)
		time.Sleep(300 * time.Millisecond)
		ds.down.Store(false)
		waitDone(t, f, week)
		f.checkBoards(week, "p", 300)
	})
}

// TestStoreDownAtTheLastStep: the database fails the very last step
// (applied -> done), after Redis has its part. The period must still be
// waiting for settlement in Redis, where every replica looks for work, so
// the scheduler's retries finish it; once done it leaves that list.
func TestStoreDownAtTheLastStep(t *testing.T) {
	forEachStore(t, func(t *testing.T, k storeKind) {
		f := newFixture(t, k, 100)
		week, ds := settleWithStoreDownAt(t, f, scheduler.StepDone) // Expire runs on Redis, then Advance fails
		ds.down.Store(false)
		if st, err := f.store.Settlement(f.ctx, "weekly", week.Start); err != nil || st.Status != league.StatusApplied {
			t.Fatalf("after the failed last step: %+v %v, want applied", st, err)
		}
		waiting, err := f.engine.Unsettled(f.ctx, "weekly")
		testsvc.Must(t, err, "Unsettled")
		if len(waiting) != 1 || !waiting[0].Start.Equal(week.Start) {
			t.Fatalf("waiting for settlement: %v, want %s: no replica would ever finish it", waiting, week.ID())
		}

		s2 := f.scheduler(scheduler.WithPoll(100 * time.Millisecond))
		s2.Start()
		defer s2.Stop(f.ctx)
		if st := waitDone(t, f, week); st.LastError != "" {
			t.Errorf("done settlement keeps the error %q", st.LastError)
		}
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			waiting, err = f.engine.Unsettled(f.ctx, "weekly")
			testsvc.Must(t, err, "Unsettled")
			if len(waiting) == 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("still waiting for settlement once done: %v", waiting)
			}
		}
		f.checkBoards(week, "p", 300)
	})
}

// TestCronSettlesAtBoundary runs on real time and Redis's own clock: a league
// with a two-second cycle settles by itself after its boundary.
func TestCronSettlesAtBoundary(t *testing.T) {
	forEachStore(t, func(t *testing.T, k storeKind) {
		ns := testsvc.Namespace(t)
		rdb := testsvc.Redis(t, ns)
		sched, err := league.ParseSchedule("*/2 * * * * *")
		testsvc.Must(t, err, "schedule")
		l := &league.League{ID: "fast", BoardSize: 10, Schedule: sched, Ladder: ladder(t)}
		testsvc.Must(t, l.Init(), "Init")
		ctx := context.Background()
		e, err := league.Open(ctx, rdb, []*league.League{l}, league.WithNamespace(ns))
		testsvc.Must(t, err, "Open")
		store := k.new(t)
		s := scheduler.New(e, store, scheduler.WithPoll(time.Hour))
		s.Start()
		defer s.Stop(ctx)
		var joined league.Placement
		inPeriod := map[string]int{} // joins may straddle a boundary
		for i := 0; i < 5; i++ {
			id := string(rune('a' + i))
			if joined, err = e.Join(ctx, "fast", league.JoinRequest{Player: id, Name: id}); err != nil {
				t.Fatal(err)
			}
			inPeriod[joined.Period.ID()]++
			if _, err = e.Score(ctx, "fast", league.ScoreWrite{Player: id, Value: int64(10 - i)}); err != nil &&
				!errors.Is(err, league.ErrPeriodClosed) {
				t.Fatal(err)
			}
		}
		deadline := joined.Period.End.Add(5 * time.Second)
		for {
			st, err := store.Settlement(ctx, "fast", joined.Period.Start)
			if err == nil && st.Status == league.StatusDone && st.Players == inPeriod[joined.Period.ID()] {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("period %s not settled by cron: %+v %v", joined.Period.ID(), st, err)
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
}

// TestSettlementFailureCountedWhenRedisIsDown: with Redis down the
// scheduler cannot even list the periods waiting for settlement. That is a
// failed settlement in the metrics too, like one that fails halfway.
func TestSettlementFailureCountedWhenRedisIsDown(t *testing.T) {
	m := miniredis.RunT(t)
	rdb := redis.NewClient(&redis.Options{Addr: m.Addr(), MaxRetries: -1})
	t.Cleanup(func() { rdb.Close() })
	c := testsvc.NewClock(monday.Add(8 * 24 * time.Hour)) // the first week has ended
	e, err := league.Open(context.Background(), rdb, clusterLeagues(t, "weekly"), league.WithClock(c.Now))
	testsvc.Must(t, err, "Open")
	reg := prometheus.NewRegistry()
	s := scheduler.New(e, inmem.New(), scheduler.WithRegistry(reg))
	m.Close()
	if _, err := s.SettleNow(context.Background(), "weekly", time.Time{}); league.ErrorCode(err) != league.Unavailable {
		t.Fatalf("SettleNow with Redis down: %v, want unavailable", err)
	}
	failures := seriesOf(t, reg, "league_settlement_failures_total")
	if want := map[string]float64{"cause=unavailable league=weekly": 1}; !reflect.DeepEqual(failures, want) {
		t.Errorf("settlement failures %v, want %v", failures, want)
	}
}

// hangingStore is a store whose database stops answering at the write of
// outcomes: the call waits until its context ends, as pgx does.
type hangingStore struct{ league.Store }

func (h hangingStore) WriteOutcomes(ctx context.Context, _ league.Settlement, _ []league.Outcome, _ []league.EarnedReward) error {
	<-ctx.Done()
	return &league.Error{Code: league.Unavailable, Message: "postgres: no answer", Err: ctx.Err()}
}

// TestAttemptBoundedWhenTheStoreHangs: a database that hangs rather than
// refuses fails the attempt at its bound, the reason is recorded although
// the attempt's context has run out, and the next attempt completes it.
func TestAttemptBoundedWhenTheStoreHangs(t *testing.T) {
	forEachStore(t, func(t *testing.T, k storeKind) {
		f := newFixture(t, k, 100)
		week := f.period()
		f.play("p", 150)
		f.clock.After(week.End)
		healthy := f.store
		f.store = hangingStore{healthy}
		reg := prometheus.NewRegistry()
		s := f.scheduler(scheduler.WithAttemptTimeout(300*time.Millisecond), scheduler.WithRegistry(reg))
		if n := gaugeOf(t, reg, "league_unsettled_periods"); n != 0 {
			t.Errorf("unsettled periods before a look: %v, want 0", n)
		}
		start := time.Now()
		_, err := s.SettleNow(f.ctx, "weekly", time.Time{})
		if !errors.Is(err, league.ErrUnavailable) {
			t.Fatalf("settlement with the database hanging: %v, want unavailable", err)
		}
		if took := time.Since(start); took > 10*time.Second {
			t.Fatalf("the attempt took %s, bounded at 300ms", took)
		}
		st, err := healthy.Settlement(f.ctx, "weekly", week.Start)
		testsvc.Must(t, err, "Settlement")
		if st.Status != league.StatusStarted || !strings.Contains(st.LastError, "deadline exceeded") {
			t.Fatalf("after the hung attempt: status %q, last error %q; want started, with the deadline", st.Status, st.LastError)
		}

		if n := gaugeOf(t, reg, "league_unsettled_periods"); n != 1 {
			t.Errorf("unsettled periods after the failed attempt: %v, want 1", n)
		}

		f.store = healthy
		reg = prometheus.NewRegistry()
		if got := f.settleNow(f.scheduler(scheduler.WithRegistry(reg))); got.Status != league.StatusDone {
			t.Fatalf("next attempt: %+v", got)
		}
		if n := gaugeOf(t, reg, "league_unsettled_periods"); n != 0 {
			t.Errorf("unsettled periods once settled: %v, want 0", n)
		}
		f.checkBoards(week, "p", 150)
	})
}

// seriesOf returns the series of the counter or gauge name in reg, keyed
// by their labels ("cause=unavailable league=weekly").
func seriesOf(t *testing.T, reg *prometheus.Registry, name string) map[string]float64 {
	t.Helper()
	families, err := reg.Gather()
	testsvc.Must(t, err, "Gather")
	out := map[string]float64{}
	for _, fam := range families {
		if fam.GetName() != name {
			continue
		}
		for _, m := range fam.GetMetric() {
			var labels []string
			for _, l := range m.GetLabel() {
				labels = append(labels, l.GetName()+"="+l.GetValue())
			}
			out[strings.Join(labels, " ")] = m.GetCounter().GetValue() + m.GetGauge().GetValue()
		}
	}
	return out
}

// gaugeOf returns the value of the gauge name of league weekly in reg,
// failing when the series does not exist.
func gaugeOf(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	v, ok := seriesOf(t, reg, name)["league=weekly"]
	if !ok {
		t.Fatalf("no series %s{league=\"weekly\"}", name)
	}
	return v
}

// beginHook is a store that runs a function as a settlement begins.
type beginHook struct {
	league.Store
	hook func()
}

func (b beginHook) BeginSettlement(ctx context.Context, s league.Settlement) (league.Settlement, error) {
	b.hook()
	return b.Store.BeginSettlement(ctx, s)
}

// TestNotEndedIsNoFailure: a period Redis's clock has not left when the
// settler closes it (this host's clock ran ahead) is tried again soon; it
// is no failed settlement, in the metrics or in last_error.
func TestNotEndedIsNoFailure(t *testing.T) {
	forEachStore(t, func(t *testing.T, k storeKind) {
		f := newFixture(t, k, 100)
		week := f.period()
		f.play("p", 20)
		f.clock.After(week.End)
		healthy := f.store
		f.store = beginHook{healthy, func() { f.clock.Set(week.End.Add(-time.Second)) }} // Redis's clock says otherwise
		reg := prometheus.NewRegistry()
		if _, err := f.scheduler(scheduler.WithRegistry(reg)).SettleNow(f.ctx, "weekly", time.Time{}); !errors.Is(err, league.ErrNotEnded) {
			t.Fatalf("SettleNow before Redis's clock left the period: %v, want not ended", err)
		}
		wantNoFailure(t, reg, healthy, week)
	})
}

// wantNoFailure fails the test if an attempt at week was counted in
// league_settlement_failures_total or written to its last_error: a lost
// race or a period not yet ended is no failure.
func wantNoFailure(t *testing.T, reg *prometheus.Registry, store league.Store, week league.Period) {
	t.Helper()
	if failures := seriesOf(t, reg, "league_settlement_failures_total"); len(failures) != 0 {
		t.Errorf("counted as a failed settlement: %v", failures)
	}
	if st, err := store.Settlement(context.Background(), "weekly", week.Start); err == nil && st.LastError != "" {
		t.Errorf("recorded as a failure: %q", st.LastError)
	}
}
