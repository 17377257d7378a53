package league_test

import (
	"fmt"
	"testing"

	"github.com/league-engine/league/league"
	"github.com/league-engine/league/tiers"
)

// TestRedecide: a board decided again without (or with a zeroed) player,
// from its recorded outcomes.
func TestRedecide(t *testing.T) {
	gems := func(n int64) []tiers.Item { return []tiers.Item{{ID: "gems", Qty: n}} }
	ladder, err := tiers.NewLadder([]tiers.Tier{
		{ID: "bronze", Promote: 2000, MinPromoteScore: 1, Rewards: []tiers.Band{{From: 1, To: 1, Items: gems(100)}}},
		{ID: "silver", Demote: 2000},
	})
	if err != nil {
		t.Fatal(err)
	}
	// Ten bronze players, p0 first with 1000; p8 and p9 tie at 0. As
	// settled: p0 and p1 promoted, p0 rewarded.
	board := func() []league.RecordedOutcome {
		var b []league.RecordedOutcome
		scores := []int64{1000, 900, 800, 700, 600, 500, 400, 300, 0, 0}
		for i := range 10 {
			o := league.RecordedOutcome{Outcome: league.Outcome{Player: fmt.Sprint("p", i), TierBefore: "bronze", TierAfter: "bronze",
				Board: 1, Rank: i + 1, Score: scores[i]}}
			if i < 2 {
				o.TierAfter, o.Move, o.Zone = "silver", league.Promoted, tiers.Promote
			}
			if i == 0 {
				o.Reward = &league.EarnedReward{Player: "p0", Tier: "bronze", Rank: 1, Items: gems(100)}
			}
			b = append(b, o)
		}
		return b
	}
	changed := func(cs []league.CorrectionChange) map[string]league.CorrectionChange {
		m := map[string]league.CorrectionChange{}
		for _, c := range cs {
			m[c.Player] = c
		}
		return m
	}

	t.Run("zero", func(t *testing.T) {
		cs, err := league.Redecide(ladder, board(), nil, "p0", league.CorrectZero)
		if err != nil {
			t.Fatal(err)
		}
		m := changed(cs)
		p0, p1, p2 := m["p0"], m["p1"], m["p2"]
		if p0.After.Rank != 10 || p0.After.TierAfter != "bronze" || !p0.Revoked || p0.Granted {
			t.Errorf("p0: got %+v, want rank 10 (last among the zeros), bronze, reward revoked", p0)
		}
		if p1.After.Rank != 1 || p1.After.TierAfter != "silver" || !p1.Granted || p1.Revoked {
			t.Errorf("p1: got %+v, want rank 1, silver, reward granted", p1)
		}
		if p2.After.Rank != 2 || p2.After.TierAfter != "silver" || p2.After.Move != league.Promoted || p2.Before.Move != league.Stayed {
			t.Errorf("p2: got %+v, want rank 2, promoted (stayed before)", p2)
		}
		if len(cs) != 10 {
			t.Errorf("got %d changes, want 10 (every rank moved)", len(cs))
		}
	})
	t.Run("remove", func(t *testing.T) {
		cs, err := league.Redecide(ladder, board(), nil, "p0", league.CorrectRemove)
		if err != nil {
			t.Fatal(err)
		}
		m := changed(cs)
		// Nine players: 20% promotes one.
		if p0 := m["p0"]; p0.After.Rank != 0 || p0.After.TierAfter != "bronze" || !p0.Revoked {
			t.Errorf("p0: got %+v, want off the board, bronze, reward revoked", p0)
		}
		if p1 := m["p1"]; p1.After.Rank != 1 || p1.After.TierAfter != "silver" || !p1.Granted {
			t.Errorf("p1: got %+v, want rank 1, silver, granted", p1)
		}
		if p2 := m["p2"]; p2.After.TierAfter != "bronze" {
			t.Errorf("p2: got %+v, want bronze (nine players promote one)", p2)
		}
	})
	t.Run("last player zeroed changes only them", func(t *testing.T) {
		cs, err := league.Redecide(ladder, board(), nil, "p9", league.CorrectZero)
		if err != nil {
			t.Fatal(err)
		}
		if len(cs) != 1 || cs[0].Player != "p9" || fmt.Sprint(cs[0].After) != fmt.Sprint(cs[0].Before) {
			t.Errorf("got %+v, want p9 alone, unchanged", cs)
		}
	})
	t.Run("zeroed goes last among equal scores", func(t *testing.T) {
		cs, err := league.Redecide(ladder, board(), nil, "p8", league.CorrectZero)
		if err != nil {
			t.Fatal(err)
		}
		m := changed(cs)
		if len(cs) != 2 || m["p8"].After.Rank != 10 || m["p9"].After.Rank != 9 {
			t.Errorf("got %+v, want p8 rank 10 and p9 rank 9 alone", cs)
		}
	})
	t.Run("pruned in part", func(t *testing.T) {
		b := board()
		b = append(b[:3], b[4:]...)
		if _, err := league.Redecide(ladder, b, nil, "p0", league.CorrectZero); league.ErrorCode(err) != league.Conflict {
			t.Errorf("got %v, want a conflict", err)
		}
	})
	t.Run("unknown player", func(t *testing.T) {
		if _, err := league.Redecide(ladder, board(), nil, "nobody", league.CorrectZero); league.ErrorCode(err) != league.NotFound {
			t.Errorf("got %v, want not found", err)
		}
	})
}
