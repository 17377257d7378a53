package storetest

import (
	"errors"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/league-engine/league/league"
	"github.com/league-engine/league/tiers"
)

func testWriteOutcomes(t *testing.T, s league.Store) {
	outcomes, rewards := field(2000, "silver", "gold", "bronze")
	settle(t, s, "l", 0, outcomes, rewards)

	for _, i := range []int{0, 2, 3, 50, 95, 1999} {
		o := outcomes[i]
		want := league.HistoryEntry{Period: week(0), TierBefore: o.TierBefore, TierAfter: o.TierAfter,
			Board: o.Board, Rank: o.Rank, Score: o.Score}
		if o.Rank <= 3 {
			want.Rewards = rewards[(o.Board-1)*3+o.Rank-1].Items
		}
		p, err := s.Profile(t.Context(), "l", o.Player, 10)
		must(t, err, "Profile(%s)", o.Player)
		if p.Tier != o.TierAfter || !p.LastPeriod.Equal(week(0)) {
			t.Errorf("Profile(%s): got tier %s last %v, want %s %v", o.Player, p.Tier, p.LastPeriod, o.TierAfter, week(0))
		}
		if len(p.History) != 1 {
			t.Fatalf("Profile(%s): got %d history entries, want 1", o.Player, len(p.History))
		}
		wantEntry(t, p.History[0], want, "Profile("+o.Player+")")
	}
	wantPopulations(t, s, "l", map[string]int{"gold": 200, "silver": 1600, "bronze": 200})
}

func testWriteOutcomesEmpty(t *testing.T, s league.Store) {
	settle(t, s, "l", 0, nil, nil)
	wantStatus(t, s, "l", 0, league.StatusWritten)
	wantPopulations(t, s, "l", map[string]int{})
}

func testWriteOutcomesTwice(t *testing.T, s league.Store) {
	outcomes, rewards := field(200, "silver", "gold", "bronze")
	st := settle(t, s, "l", 0, outcomes, rewards)

	// The same period again, with other tiers: refused, and nothing of it
	// lands.
	again, _ := field(300, "gold", "gold", "silver")
	err := s.WriteOutcomes(t.Context(), st, again, nil)
	wantCode(t, err, league.Conflict, "second WriteOutcomes")
	wantOvertaken(t, err, true, "second WriteOutcomes")
	p, err := s.Profile(t.Context(), "l", "p00000", 0)
	must(t, err, "Profile")
	if len(p.History) != 1 || p.History[0].TierBefore != "silver" {
		t.Errorf("after a second WriteOutcomes: got %d entries %+v, want the first write's one", len(p.History), p.History)
	}
	_, err = s.Profile(t.Context(), "l", "p00250", 0)
	wantCode(t, err, league.NotFound, "Profile of a player only the refused write had")
	wantPopulations(t, s, "l", map[string]int{"gold": 20, "silver": 160, "bronze": 20})

	// Past written as well.
	must(t, s.Advance(t.Context(), "l", week(0), league.StatusWritten, league.StatusApplied), "Advance")
	err = s.WriteOutcomes(t.Context(), st, outcomes, rewards)
	wantCode(t, err, league.Conflict, "WriteOutcomes of an applied settlement")
	wantOvertaken(t, err, true, "WriteOutcomes of an applied settlement")
	wantStatus(t, s, "l", 0, league.StatusApplied)
}

func testWriteOutcomesNotStarted(t *testing.T, s league.Store) {
	outcomes, rewards := field(100, "silver", "gold", "bronze")
	st := league.Settlement{League: "l", Period: week(0), PeriodEnd: week(1), Players: 100}
	err := s.WriteOutcomes(t.Context(), st, outcomes, rewards)
	wantCode(t, err, league.Conflict, "WriteOutcomes without BeginSettlement")
	wantOvertaken(t, err, false, "WriteOutcomes without BeginSettlement")
	_, err = s.Profile(t.Context(), "l", "p00000", 0)
	wantCode(t, err, league.NotFound, "Profile after a refused WriteOutcomes")
	_, err = s.Settlement(t.Context(), "l", week(0))
	wantCode(t, err, league.NotFound, "Settlement after a refused WriteOutcomes")
}

// A write that fails part way leaves nothing behind, and can be repeated.
func testWriteOutcomesAllOrNothing(t *testing.T, s league.Store) {
	outcomes, rewards := field(500, "silver", "gold", "bronze")
	st := begin(t, s, "l", 0)
	st.Players = len(outcomes)

	// Rewards are unique per player and period: two for p00001 is refused.
	twice := append(append([]league.EarnedReward(nil), rewards...), league.EarnedReward{
		Player: "p00001", Tier: "silver", Rank: 2, Items: []tiers.Item{{ID: "gem", Qty: 1}}})
	err := s.WriteOutcomes(t.Context(), st, outcomes, twice)
	wantCode(t, err, league.Invalid, "WriteOutcomes with two rewards for one player")
	wantNothingWritten(t, s, outcomes)

	dup := append(append([]league.Outcome(nil), outcomes...), outcomes[400])
	err = s.WriteOutcomes(t.Context(), st, dup, rewards)
	wantCode(t, err, league.Invalid, "WriteOutcomes with two outcomes for one player")
	wantNothingWritten(t, s, outcomes)

	must(t, s.WriteOutcomes(t.Context(), st, outcomes, rewards), "WriteOutcomes after the failed ones")
	wantPopulations(t, s, "l", map[string]int{"gold": 50, "silver": 400, "bronze": 50})
}

func wantNothingWritten(t *testing.T, s league.Store, outcomes []league.Outcome) {
	t.Helper()
	wantStatus(t, s, "l", 0, league.StatusStarted)
	for _, o := range []league.Outcome{outcomes[0], outcomes[len(outcomes)-1]} {
		_, err := s.Profile(t.Context(), "l", o.Player, 0)
		wantCode(t, err, league.NotFound, "Profile(%s) after a failed WriteOutcomes", o.Player)
	}
	wantPopulations(t, s, "l", map[string]int{})
}

// Two settlers writing one period at once: one wins, the other is refused.
func testWriteOutcomesConcurrent(t *testing.T, s league.Store) {
	outcomes, rewards := field(1000, "silver", "gold", "bronze")
	st := begin(t, s, "l", 0)
	const n = 4
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = s.WriteOutcomes(t.Context(), st, outcomes, rewards)
		}()
	}
	wg.Wait()
	won := 0
	for i, err := range errs {
		switch {
		case err == nil:
			won++
		case !errors.Is(err, league.ErrConflict):
			t.Errorf("WriteOutcomes %d: got %v, want nil or a conflict", i, err)
		}
	}
	if won != 1 {
		t.Errorf("concurrent WriteOutcomes: %d succeeded, want 1", won)
	}
	p, err := s.Profile(t.Context(), "l", "p00999", 0)
	must(t, err, "Profile")
	if len(p.History) != 1 {
		t.Errorf("Profile after concurrent writes: got %d entries, want 1", len(p.History))
	}
	wantPopulations(t, s, "l", map[string]int{"gold": 100, "silver": 800, "bronze": 100})
}

// Settling an older period after a newer one (catch-up after an outage)
// records its history but leaves standings at the newer period's tiers.
func testStandingsOnlyMoveForward(t *testing.T, s league.Store) {
	settle(t, s, "l", 2, []league.Outcome{
		{Player: "ann", TierBefore: "silver", TierAfter: "gold", Board: 1, Rank: 1, Score: 90},
	}, nil)
	settle(t, s, "l", 1, []league.Outcome{
		{Player: "ann", TierBefore: "bronze", TierAfter: "silver", Board: 1, Rank: 1, Score: 80},
		{Player: "bob", TierBefore: "bronze", TierAfter: "silver", Board: 1, Rank: 2, Score: 70},
	}, nil)

	p, err := s.Profile(t.Context(), "l", "ann", 0)
	must(t, err, "Profile(ann)")
	if p.Tier != "gold" || !p.LastPeriod.Equal(week(2)) {
		t.Errorf("Profile(ann): got tier %s of %v, want gold of %v (the newer period)", p.Tier, p.LastPeriod, week(2))
	}
	if len(p.History) != 2 || !p.History[0].Period.Equal(week(2)) || !p.History[1].Period.Equal(week(1)) {
		t.Errorf("Profile(ann): got history %+v, want weeks 2 and 1", p.History)
	}
	p, err = s.Profile(t.Context(), "l", "bob", 0)
	must(t, err, "Profile(bob)")
	if p.Tier != "silver" || !p.LastPeriod.Equal(week(1)) {
		t.Errorf("Profile(bob): got tier %s of %v, want silver of %v", p.Tier, p.LastPeriod, week(1))
	}
	wantPopulations(t, s, "l", map[string]int{"gold": 1, "silver": 1})

	// cy stays gold in week 5; week 4, settled late, moved her down: week 5
	// is the later word, though it did not change her tier.
	settle(t, s, "l", 3, []league.Outcome{{Player: "cy", TierBefore: "silver", TierAfter: "gold", Board: 1, Rank: 1, Score: 9}}, nil)
	settle(t, s, "l", 5, []league.Outcome{{Player: "cy", TierBefore: "gold", TierAfter: "gold", Board: 1, Rank: 50, Score: 5}}, nil)
	settle(t, s, "l", 4, []league.Outcome{
		{Player: "cy", TierBefore: "gold", TierAfter: "silver", Board: 1, Rank: 99, Score: 1},
		{Player: "dee", TierBefore: "bronze", TierAfter: "bronze", Board: 1, Rank: 50, Score: 1},
	}, nil)
	p, err = s.Profile(t.Context(), "l", "cy", 0)
	must(t, err, "Profile(cy)")
	if p.Tier != "gold" || !p.LastPeriod.Equal(week(5)) || len(p.History) != 3 {
		t.Errorf("Profile(cy): got tier %s of %v, %d entries; want gold of %v (week 5 stayed gold), 3 entries",
			p.Tier, p.LastPeriod, len(p.History), week(5))
	}
	p, err = s.Profile(t.Context(), "l", "dee", 0)
	must(t, err, "Profile(dee)")
	if p.Tier != "bronze" || !p.LastPeriod.Equal(week(4)) {
		t.Errorf("Profile(dee): got tier %s of %v, want bronze of %v", p.Tier, p.LastPeriod, week(4))
	}
}

func wantEntry(t *testing.T, got, want league.HistoryEntry, what string) {
	t.Helper()
	wantUTC(t, what, got.Period, got.ClaimedAt)
	if !got.Period.Equal(want.Period) || !got.ClaimedAt.Equal(want.ClaimedAt) {
		t.Errorf("%s: got period %v claimed %v, want %v claimed %v", what, got.Period, got.ClaimedAt, want.Period, want.ClaimedAt)
	}
	got.Period, got.ClaimedAt = time.Time{}, time.Time{}
	want.Period, want.ClaimedAt = time.Time{}, time.Time{}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s: got %+v, want %+v", what, got, want)
	}
}

func wantPopulations(t *testing.T, s league.Store, lg string, want map[string]int) {
	t.Helper()
	got, err := s.Populations(t.Context(), lg)
	must(t, err, "Populations(%s)", lg)
	if len(got) != len(want) || (len(want) > 0 && !reflect.DeepEqual(got, want)) {
		t.Errorf("Populations(%s): got %v, want %v", lg, got, want)
	}
}

// testWriteOutcomesKeepsRules: the rules a period was decided under are
// recorded by WriteOutcomes (what verifying it reads), not by
// BeginSettlement, and read back as written.
func testWriteOutcomesKeepsRules(t *testing.T, s league.Store) {
	ladder, err := tiers.NewLadder([]tiers.Tier{{ID: "bronze", Promote: 2000}, {ID: "silver", Demote: 1000}})
	must(t, err, "NewLadder")
	rules, fp := ladder.RulesJSON(), ladder.Fingerprint()
	st, err := s.BeginSettlement(t.Context(), league.Settlement{League: "l", Period: week(0), PeriodEnd: week(1), Rules: rules, RulesFP: fp})
	must(t, err, "BeginSettlement")
	if st.Rules != "" || st.RulesFP != "" {
		t.Errorf("BeginSettlement recorded rules %q (%s), want none before the write", st.Rules, st.RulesFP)
	}
	st.Rules, st.RulesFP = rules, fp
	must(t, s.WriteOutcomes(t.Context(), st, nil, nil), "WriteOutcomes")
	got, err := s.Settlement(t.Context(), "l", week(0))
	must(t, err, "Settlement")
	if got.Rules != rules || got.RulesFP != fp {
		t.Errorf("Settlement: got rules %q (%s), want %q (%s)", got.Rules, got.RulesFP, rules, fp)
	}
}
