package storetest

import (
	"testing"
	"time"

	"github.com/league-engine/league/league"
	"github.com/league-engine/league/tiers"
)

func testProfile(t *testing.T, s league.Store) {
	gold := []tiers.Item{{ID: "gold", Qty: 50}}
	settle(t, s, "l", 0, []league.Outcome{{Player: "ann", TierBefore: "bronze", TierAfter: "silver", Board: 3, Rank: 1, Score: 500}},
		[]league.EarnedReward{{Player: "ann", Tier: "bronze", Rank: 1, Items: gold}})
	settle(t, s, "l", 1, []league.Outcome{{Player: "ann", TierBefore: "silver", TierAfter: "silver", Board: 7, Rank: 40, Score: 120}}, nil)
	settle(t, s, "l", 2, []league.Outcome{{Player: "ann", TierBefore: "silver", TierAfter: "gold", Board: 1, Rank: 2, Score: 900}}, nil)
	claimed := week(1).Add(3 * time.Hour)
	must(t, s.RecordClaims(t.Context(), []league.Claim{claimOf("l", "ann", 0, claimed)}), "RecordClaims")

	want := []league.HistoryEntry{
		{Period: week(2), TierBefore: "silver", TierAfter: "gold", Board: 1, Rank: 2, Score: 900},
		{Period: week(1), TierBefore: "silver", TierAfter: "silver", Board: 7, Rank: 40, Score: 120},
		{Period: week(0), TierBefore: "bronze", TierAfter: "silver", Board: 3, Rank: 1, Score: 500, Rewards: gold, ClaimedAt: claimed},
	}
	for _, tc := range []struct {
		limit, entries int
	}{{0, 3}, {1, 1}, {2, 2}, {3, 3}, {10, 3}} {
		p, err := s.Profile(t.Context(), "l", "ann", tc.limit)
		must(t, err, "Profile(limit %d)", tc.limit)
		if p.League != "l" || p.Player != "ann" || p.Tier != "gold" || !p.LastPeriod.Equal(week(2)) {
			t.Errorf("Profile(limit %d): got %s/%s tier %s last %v, want l/ann tier gold last %v",
				tc.limit, p.League, p.Player, p.Tier, p.LastPeriod, week(2))
		}
		wantUTC(t, "LastPeriod", p.LastPeriod)
		if len(p.History) != tc.entries {
			t.Fatalf("Profile(limit %d): got %d entries, want %d", tc.limit, len(p.History), tc.entries)
		}
		for i, h := range p.History {
			wantEntry(t, h, want[i], "Profile history")
		}
	}

	_, err := s.Profile(t.Context(), "l", "nobody", 10)
	wantCode(t, err, league.NotFound, "Profile of an unknown player")
	_, err = s.Profile(t.Context(), "other", "ann", 10)
	wantCode(t, err, league.NotFound, "Profile in a league the player never played")
}

func testPopulations(t *testing.T, s league.Store) {
	outcomes, rewards := field(1000, "silver", "gold", "bronze")
	settle(t, s, "l", 0, outcomes, rewards)
	wantPopulations(t, s, "l", map[string]int{"gold": 100, "silver": 800, "bronze": 100})

	// Next week the first board plays again: its 10 bronze players climb.
	var next []league.Outcome
	for _, o := range outcomes[90:100] {
		next = append(next, league.Outcome{Player: o.Player, TierBefore: "bronze", TierAfter: "silver", Board: 1, Rank: 1, Score: 1})
	}
	settle(t, s, "l", 1, next, nil)
	wantPopulations(t, s, "l", map[string]int{"gold": 100, "silver": 810, "bronze": 90})
	wantPopulations(t, s, "nobody", map[string]int{})
}

func testLeaguesSeparate(t *testing.T, s league.Store) {
	// The same period and players in two leagues.
	outcomes, rewards := field(200, "silver", "gold", "bronze")
	settle(t, s, "a", 0, outcomes, rewards)
	_, err := s.Settlement(t.Context(), "b", week(0))
	wantCode(t, err, league.NotFound, "Settlement of league b after settling a")
	_, err = s.Profile(t.Context(), "b", "p00000", 0)
	wantCode(t, err, league.NotFound, "Profile in league b after settling a")
	wantPopulations(t, s, "b", map[string]int{})

	// b writes the same period and players with other tiers; a is untouched.
	other, _ := field(100, "gold", "diamond", "silver")
	settle(t, s, "b", 0, other, nil)
	must(t, s.RecordClaims(t.Context(), []league.Claim{claimOf("b", "p00000", 0, week(1))}), "RecordClaims in b")
	must(t, s.Advance(t.Context(), "b", week(0), league.StatusWritten, league.StatusApplied), "Advance b")

	wantStatus(t, s, "a", 0, league.StatusWritten)
	wantPopulations(t, s, "a", map[string]int{"gold": 20, "silver": 160, "bronze": 20})
	wantPopulations(t, s, "b", map[string]int{"diamond": 10, "gold": 80, "silver": 10})
	p, err := s.Profile(t.Context(), "a", "p00000", 0)
	must(t, err, "Profile in a")
	if len(p.History) != 1 || p.Tier != "gold" || p.History[0].TierBefore != "silver" || !p.History[0].ClaimedAt.IsZero() {
		t.Errorf("Profile in a: got tier %s, history %+v; want a's write only, unclaimed", p.Tier, p.History)
	}
	all, err := s.Settlements(t.Context(), "a", 0)
	must(t, err, "Settlements(a)")
	if len(all) != 1 || all[0].League != "a" {
		t.Errorf("Settlements(a): got %+v, want a's one", all)
	}

	releaseA, ok, err := s.Lock(t.Context(), "a", week(0))
	must(t, err, "Lock(a)")
	defer releaseA()
	releaseB, okB, err := s.Lock(t.Context(), "b", week(0))
	must(t, err, "Lock(b)")
	if !ok || !okB {
		t.Errorf("Lock of one period in two leagues: got %v and %v, want both", ok, okB)
	}
	if okB {
		releaseB()
	}
}
