package scheduler_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/league"
	"github.com/league-engine/league/scheduler"
)

// TestSeasonEndToEnd: 10,000 players over two periods. Every board's
// promoted and demoted counts match its tier's ratios exactly, every player
// has one outcome per period, the next joins see the new tiers and the
// rewards arrive once.
func TestSeasonEndToEnd(t *testing.T) {
	forEachStore(t, func(t *testing.T, k storeKind) {
		f := newFixture(t, k, 100)
		s := f.scheduler()
		const n = 10000
		week1 := f.period()
		f.play("p", n)
		f.clock.After(week1.End)
		st := f.settleNow(s)
		if st.Players != n || st.Tiers[0].Promoted != 2000 || st.Tiers[0].Rewarded != 300 {
			t.Fatalf("settlement %+v", st)
		}
		outcomes := f.checkBoards(week1, "p", n)

		second := f.play("p", n)
		rewarded := 0
		for id, p := range second {
			if want := outcomes[id].TierAfter; p.Tier != want {
				t.Fatalf("%s joined %s, settled into %s", id, p.Tier, want)
			}
			if len(p.Rewards) > 0 {
				rewarded++
				if r := outcomes[id]; r.Rank > 3 || p.Rewards[0].Rank != r.Rank || !p.Rewards[0].Earned.Equal(week1.Start) {
					t.Fatalf("%s got %+v for rank %d", id, p.Rewards, r.Rank)
				}
			}
		}
		if rewarded != 300 {
			t.Fatalf("%d joins delivered rewards, want 300 (ranks 1-3 of 100 boards)", rewarded)
		}
		week2 := f.period()
		f.clock.After(week2.End)
		st = f.settleNow(s)
		if st.Tiers[1].Players != 2000 || st.Tiers[1].Promoted != 400 || st.Tiers[1].Demoted != 400 {
			t.Fatalf("silver in week 2: %+v", st.Tiers[1])
		}
		f.checkBoards(week2, "p", n)
	})
}

// checkBoards reads every player's outcome of period p from the store and
// checks that each board moved exactly the players its ratios say.
func (f *fixture) checkBoards(p league.Period, prefix string, n int) map[string]league.HistoryEntry {
	f.t.Helper()
	out := make(map[string]league.HistoryEntry, n)
	type board struct {
		tier string
		n    int
	}
	size, up, down := map[board]int{}, map[board]int{}, map[board]int{}
	profiles := make([]league.Profile, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ { // the Postgres store answers in parallel
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += 8 {
				profiles[i], errs[i] = f.store.Profile(f.ctx, "weekly", fmt.Sprintf("%s%05d", prefix, i), 100)
			}
		}()
	}
	wg.Wait()
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("%s%05d", prefix, i)
		testsvc.Must(f.t, errs[i], "Profile %s", id)
		found := 0
		for _, h := range profiles[i].History {
			if h.Period.Equal(p.Start) {
				found++
				out[id] = h
			}
		}
		if found != 1 {
			f.t.Fatalf("%s has %d outcomes for %s, want 1", id, found, p.ID())
		}
		h := out[id]
		b := board{h.TierBefore, h.Board}
		size[b]++
		before, _ := f.league.Ladder.Index(h.TierBefore)
		after, _ := f.league.Ladder.Index(h.TierAfter)
		if after > before {
			up[b]++
		}
		if after < before {
			down[b]++
		}
	}
	for b, count := range size {
		idx, _ := f.league.Ladder.Index(b.tier)
		wantUp, wantDown := f.league.Ladder.Counts(idx, count)
		if up[b] != wantUp || down[b] != wantDown {
			f.t.Fatalf("board %s-%d of %d: %d up %d down, want %d and %d", b.tier, b.n, count, up[b], down[b], wantUp, wantDown)
		}
	}
	return out
}

// TestFaultAtEveryStep kills a settlement at each step, then runs it again:
// it completes, every player has exactly one outcome, no reward exists twice
// and no tier is applied twice.
func TestFaultAtEveryStep(t *testing.T) {
	steps := []struct {
		step  string
		after int // fail on this call of the step (read is called once per board)
	}{
		{scheduler.StepClose, 1}, {scheduler.StepRead, 3}, {scheduler.StepWrite, 1},
		{scheduler.StepApply, 1}, {scheduler.StepMark, 1}, {scheduler.StepDone, 1},
	}
	forEachStore(t, func(t *testing.T, k storeKind) {
		for _, tt := range steps {
			t.Run(tt.step, func(t *testing.T) {
				f := newFixture(t, k, 100)
				week := f.period()
				f.play("p", 500)
				f.clock.After(week.End)
				calls := 0
				crashed := errors.New("crash")
				dying := f.scheduler(scheduler.WithFault(func(step string) error {
					if step == tt.step {
						if calls++; calls == tt.after {
							return crashed
						}
					}
					return nil
				}))
				if _, err := dying.SettleNow(f.ctx, "weekly", time.Time{}); !errors.Is(err, crashed) {
					t.Fatalf("faulty run: %v, want the crash", err)
				}
				// a restart: a new engine and scheduler on the same Redis and store
				f.engine = f.open()
				st := f.settleNow(f.scheduler())
				if st.Players != 500 || st.Tiers[0].Rewarded != 15 {
					t.Fatalf("settlement after the crash: %+v", st)
				}
				outcomes := f.checkBoards(week, "p", 500)
				f.checkEvents(week, 500) // written once, whichever step died
				again := f.play("p", 500)
				delivered := 0
				for id, p := range again {
					if p.Tier != outcomes[id].TierAfter {
						t.Fatalf("%s joined %s, settled into %s", id, p.Tier, outcomes[id].TierAfter)
					}
					delivered += len(p.Rewards)
				}
				if delivered != 15 {
					t.Fatalf("%d rewards delivered, want 15", delivered)
				}
			})
		}
	})
}

// TestTwoSchedulersRace: replicas settle the same period at once; one
// settles, the other finds it busy or done, and the outcome is written once.
// When the settling replica dies mid-way, another takes over.
func TestTwoSchedulersRace(t *testing.T) {
	forEachStore(t, func(t *testing.T, k storeKind) {
		f := newFixture(t, k, 100)
		week := f.period()
		f.play("p", 1000)
		f.clock.After(week.End)
		var wg sync.WaitGroup
		results := make([]error, 4)
		for i := range results {
			s := scheduler.New(f.open(), f.store)
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, results[i] = s.SettleNow(f.ctx, "weekly", week.Start)
			}()
		}
		wg.Wait()
		ok := 0
		for _, err := range results {
			switch {
			case err == nil:
				ok++
			case !errors.Is(err, scheduler.ErrBusy):
				t.Fatalf("racing replica: %v", err)
			}
		}
		if ok == 0 {
			t.Fatal("no replica settled")
		}
		st, err := f.store.Settlement(f.ctx, "weekly", week.Start)
		testsvc.Must(t, err, "Settlement")
		if st.Status != league.StatusDone || st.Players != 1000 {
			t.Fatalf("settlement %+v", st)
		}
		f.checkBoards(week, "p", 1000)
		f.checkEvents(week, 1000)

		// Takeover: the first replica dies after writing; the second finishes.
		week2 := f.period()
		f.play("q", 300)
		f.clock.After(week2.End)
		dead := scheduler.New(f.open(), f.store, scheduler.WithFault(func(step string) error {
			if step == scheduler.StepApply {
				return errors.New("killed")
			}
			return nil
		}))
		if _, err := dead.SettleNow(f.ctx, "weekly", week2.Start); err == nil {
			t.Fatal("the dying replica finished")
		}
		st = f.settleNow(scheduler.New(f.open(), f.store))
		if !st.Period.Equal(week2.Start) || st.Players != 300 {
			t.Fatalf("takeover settled %+v", st)
		}
		f.checkEvents(week2, 300)
	})
}

// TestCatchUpThreeMissedPeriods: no process ran across three boundaries; at
// start the scheduler settles the three periods, oldest first, and tiers
// flow through all of them.
func TestCatchUpThreeMissedPeriods(t *testing.T) {
	forEachStore(t, func(t *testing.T, k storeKind) {
		f := newFixture(t, k, 10)
		var weeks []league.Period
		for w := 0; w < 3; w++ {
			weeks = append(weeks, f.period())
			// 50 players, boards of 10: p00025 scores best of all (975), so it
			// climbs bronze -> silver (top 2 of 5 boards) -> gold
			f.play("p", 50)
			f.clock.After(weeks[w].End)
		}
		s := f.scheduler(scheduler.WithPoll(time.Hour))
		s.Start()
		deadline := time.Now().Add(20 * time.Second)
		for {
			all, err := f.store.Settlements(f.ctx, "weekly", 10)
			testsvc.Must(t, err, "Settlements")
			done := 0
			for _, st := range all {
				if st.Status == league.StatusDone {
					done++
				}
			}
			if done == 3 {
				for i, st := range all { // newest first
					if !st.Period.Equal(weeks[2-i].Start) {
						t.Fatalf("settlement %d is %v, want %v", i, st.Period, weeks[2-i].Start)
					}
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%d of 3 periods settled: %+v", done, all)
			}
			time.Sleep(50 * time.Millisecond)
		}
		testsvc.Must(t, s.Stop(f.ctx), "Stop")
		prof, err := f.store.Profile(f.ctx, "weekly", "p00025", 10)
		testsvc.Must(t, err, "Profile")
		if len(prof.History) != 3 || prof.Tier != "gold" || prof.History[2].TierBefore != "bronze" ||
			prof.History[1].TierBefore != "silver" || prof.History[0].TierBefore != "gold" {
			t.Fatalf("p00025 profile %+v", prof)
		}
		if p := f.play("p", 50)["p00025"]; p.Tier != "gold" {
			t.Fatalf("p00025 joins %s after catch-up, want gold", p.Tier)
		}
	})
}

// TestRewardsExactlyOnceUnderRacingJoins: 50 concurrent joins of a rewarded
// player all carry the same rewards, the store records the claim once, and
// the next period's join does not deliver them again.
func TestRewardsExactlyOnceUnderRacingJoins(t *testing.T) {
	forEachStore(t, func(t *testing.T, k storeKind) {
		f := newFixture(t, k, 100)
		week := f.period()
		f.play("p", 100)
		f.clock.After(week.End)
		f.settleNow(f.scheduler())
		// (i*7919)%1000 is highest for i=99 (981): rank 1
		var wg sync.WaitGroup
		got := make([]league.Placement, 50)
		for i := range got {
			wg.Add(1)
			go func() {
				defer wg.Done()
				p, err := f.engine.Join(f.ctx, "weekly", league.JoinRequest{Player: "p00099", Name: "x"})
				if err != nil {
					t.Error(err)
				}
				got[i] = p
			}()
		}
		wg.Wait()
		for _, p := range got {
			if len(p.Rewards) != 1 || p.Rewards[0].Rank != 1 || p.Rewards[0].Items[0].Qty != 100 {
				t.Fatalf("racing join got %+v", p.Rewards)
			}
		}
		s := f.scheduler()
		recordAllClaims(t, f, s)
		prof, err := f.store.Profile(f.ctx, "weekly", "p00099", 5)
		testsvc.Must(t, err, "Profile")
		if len(prof.History) != 1 || prof.History[0].ClaimedAt.IsZero() || len(prof.History[0].Rewards) != 1 {
			t.Fatalf("profile %+v: want one period with rewards claimed", prof)
		}
		f.checkClaimEvents("p00099", 1)
		pending, err := f.engine.PendingRewards(f.ctx, "weekly", "p00099")
		testsvc.Must(t, err, "PendingRewards")
		if len(pending) != 0 {
			t.Fatalf("pending after the claim: %v", pending)
		}
		next := f.period()
		f.clock.After(next.End)
		p, err := f.engine.Join(f.ctx, "weekly", league.JoinRequest{Player: "p00099", Name: "x"})
		testsvc.Must(t, err, "Join")
		for _, r := range p.Rewards {
			if r.Earned.Equal(week.Start) {
				t.Fatalf("week 1 rewards delivered again: %+v", p.Rewards)
			}
		}
	})
}

func recordAllClaims(t *testing.T, f *fixture, s *scheduler.Scheduler) {
	t.Helper()
	n, err := s.RecordClaims(f.ctx, "weekly")
	testsvc.Must(t, err, "RecordClaims")
	if n == 0 {
		t.Fatal("no claims recorded")
	}
}

// TestSettleNowRefusesPeriodsNobodyJoined: an admin settle of a period no
// player joined (last week's, or one from before the league existed) says
// there is nothing to settle and records no settlement.
func TestSettleNowRefusesPeriodsNobodyJoined(t *testing.T) {
	forEachStore(t, func(t *testing.T, k storeKind) {
		f := newFixture(t, k, 10)
		week := f.period()
		f.clock.After(week.End)
		s := f.scheduler()
		for _, start := range []time.Time{{}, week.Start, time.Unix(300, 0)} {
			_, err := s.SettleNow(f.ctx, "weekly", start)
			if league.ErrorCode(err) != league.NotFound {
				t.Fatalf("SettleNow(%v): %v, want not found", start, err)
			}
		}
		if list, err := f.store.Settlements(f.ctx, "weekly", 10); err != nil || len(list) != 0 {
			t.Fatalf("settlements recorded: %+v, %v", list, err)
		}

		week2 := f.period()
		f.play("p", 15)
		f.clock.After(week2.End)
		if st := f.settleNow(s); !st.Period.Equal(week2.Start) || st.Players != 15 {
			t.Fatalf("settled %+v", st)
		}
		// Settled and forgotten by Redis, the period is still reported.
		st, err := s.SettleNow(f.ctx, "weekly", week2.Start)
		if err != nil || st.Status != league.StatusDone || st.Players != 15 {
			t.Fatalf("settling it again: %+v, %v", st, err)
		}
	})
}
