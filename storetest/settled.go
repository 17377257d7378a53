package storetest

import (
	"errors"
	"reflect"
	"sort"
	"testing"
	"time"

	"github.com/league-engine/league/league"
	"github.com/league-engine/league/tiers"
)

func testEachSettledPlayer(t *testing.T, s league.Store) {
	gold := func(n int64) []tiers.Item { return []tiers.Item{{ID: "gold", Qty: n}} }
	settle(t, s, "l", 0, []league.Outcome{
		{Player: "ann", TierBefore: "bronze", TierAfter: "silver", Board: 3, Rank: 1, Score: 500},
		{Player: "bob", TierBefore: "bronze", TierAfter: "bronze", Board: 3, Rank: 5, Score: 80},
	}, []league.EarnedReward{{Player: "ann", Tier: "bronze", Rank: 1, Items: gold(50)}})
	settle(t, s, "l", 1, []league.Outcome{
		{Player: "ann", TierBefore: "silver", TierAfter: "silver", Board: 7, Rank: 2, Score: 300},
		{Player: "cat", TierBefore: "bronze", TierAfter: "silver", Board: 1, Rank: 1, Score: 900},
	}, []league.EarnedReward{
		{Player: "ann", Tier: "silver", Rank: 2, Items: gold(20)},
		{Player: "cat", Tier: "bronze", Rank: 1, Items: gold(50)},
	})
	settle(t, s, "m", 1, []league.Outcome{{Player: "dan", TierBefore: "bronze", TierAfter: "bronze", Board: 1, Rank: 1}}, nil)
	at := week(2).Add(time.Hour)
	must(t, s.RecordClaims(t.Context(), []league.Claim{
		claimOf("l", "ann", 0, week(1).Add(time.Hour)), // delivered by ann's join of week 1
		claimOf("l", "cat", 1, at),
	}), "RecordClaims")

	var got []league.SettledPlayer
	must(t, s.EachSettledPlayer(t.Context(), "l", func(p league.SettledPlayer) error {
		got = append(got, p)
		return nil
	}), "EachSettledPlayer")
	sort.Slice(got, func(i, j int) bool { return got[i].Player < got[j].Player })
	want := []league.SettledPlayer{
		{Player: "ann", Tier: "silver", LastPeriod: week(1), LastTier: "silver", LastBoard: 7,
			Reward: &league.Reward{Earned: week(1), Tier: "silver", Rank: 2, Items: gold(20)}},
		{Player: "bob", Tier: "bronze", LastPeriod: week(0), LastTier: "bronze", LastBoard: 3},
		{Player: "cat", Tier: "silver", LastPeriod: week(1), LastTier: "bronze", LastBoard: 1}, // its reward was claimed
	}
	for _, p := range got {
		wantUTC(t, "LastPeriod", p.LastPeriod)
		if p.Reward != nil {
			wantUTC(t, "Reward.Earned", p.Reward.Earned)
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("EachSettledPlayer:\n got %+v\nwant %+v", derefAll(got), derefAll(want))
	}

	stop := errors.New("stop")
	calls := 0
	err := s.EachSettledPlayer(t.Context(), "l", func(league.SettledPlayer) error { calls++; return stop })
	if !errors.Is(err, stop) || calls != 1 {
		t.Fatalf("fn's error: got %v after %d calls, want it returned after 1", err, calls)
	}
	must(t, s.EachSettledPlayer(t.Context(), "nobody", func(p league.SettledPlayer) error {
		t.Fatalf("league without settlements: %+v", p)
		return nil
	}), "EachSettledPlayer of an unknown league")
}

// derefAll prints rewards by value, for failure messages.
func derefAll(ps []league.SettledPlayer) []any {
	out := make([]any, len(ps))
	for i, p := range ps {
		out[i] = []any{p.Player, p.Tier, p.LastPeriod, p.LastTier, p.LastBoard, p.Reward}
		if p.Reward != nil {
			out[i] = append(out[i].([]any), *p.Reward)
		}
	}
	return out
}
