package tiers

import (
	"reflect"
	"strings"
	"testing"
)

func mustLadder(tb testing.TB, ts ...Tier) *Ladder {
	tb.Helper()
	l, err := NewLadder(ts)
	if err != nil {
		tb.Fatalf("NewLadder: %v", err)
	}
	return l
}

func threeTiers(tb testing.TB) *Ladder {
	return mustLadder(tb,
		Tier{ID: "bronze", Promote: 2000, MinPromoteScore: 1,
			Rewards: []Band{{From: 1, To: 1, Items: []Item{{"gems", 100}}}, {From: 2, To: 3, Items: []Item{{"gems", 50}}}}},
		Tier{ID: "silver", Promote: 1500, Demote: 1500},
		Tier{ID: "gold", Demote: 2900},
	)
}

func TestCounts(t *testing.T) {
	l := threeTiers(t)
	tests := []struct {
		name         string
		tier, n      int
		wantP, wantD int
	}{
		{"bottom never demotes", 0, 100, 20, 0},
		{"middle full board", 1, 100, 15, 15},
		{"top never promotes", 2, 100, 0, 29}, // 0.29*100 is exact in basis points
		{"rounds down", 1, 13, 1, 1},
		{"too small to move anyone", 1, 6, 0, 0},
		{"empty board", 1, 0, 0, 0},
		{"one player", 0, 1, 0, 0},
		{"five players at 20%", 0, 5, 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, d := l.Counts(tt.tier, tt.n)
			if p != tt.wantP || d != tt.wantD {
				t.Errorf("Counts(%d, %d) = %d, %d; want %d, %d", tt.tier, tt.n, p, d, tt.wantP, tt.wantD)
			}
		})
	}
}

// TestCountsByCountAndMinimum: counts move that many (the whole board when
// smaller, promotions first, demotions from the players left); a minimum
// raises a share's count on boards of at_least_from players or more.
func TestCountsByCountAndMinimum(t *testing.T) {
	l, err := NewLadder([]Tier{
		{ID: "bronze", PromoteCount: 10},
		{ID: "silver", PromoteCount: 10, DemoteCount: 5},
		{ID: "gold", Promote: 2000, PromoteAtLeast: 1, Demote: 1000, DemoteAtLeast: 1, AtLeastFrom: 5},
		{ID: "master", Demote: 2000, DemoteAtLeast: 2},
	})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		tier, n, promote, demote int
	}{
		{0, 100, 10, 0}, {0, 30, 10, 0}, {0, 7, 7, 0}, {0, 0, 0, 0},
		{1, 100, 10, 5}, {1, 15, 10, 5}, {1, 12, 10, 2}, {1, 10, 10, 0}, {1, 3, 3, 0},
		{2, 100, 20, 10}, {2, 9, 1, 1}, {2, 5, 1, 1}, {2, 4, 0, 0}, {2, 1, 0, 0},
		{3, 100, 0, 20}, {3, 5, 0, 2}, {3, 1, 0, 1},
	}
	for _, tt := range tests {
		p, d := l.Counts(tt.tier, tt.n)
		if p != tt.promote || d != tt.demote {
			t.Errorf("%s, %d players: got %d promoted, %d demoted; want %d, %d", l.Tier(tt.tier).ID, tt.n, p, d, tt.promote, tt.demote)
		}
		if p+d > tt.n {
			t.Errorf("%s, %d players: %d + %d move more than the board", l.Tier(tt.tier).ID, tt.n, p, d)
		}
	}
	// the rules survive recording: a period decided under them is decided
	// the same by a process that rebuilds them
	rec, err := l.Recorded(l.RulesJSON())
	if err != nil || rec.Fingerprint() != l.Fingerprint() {
		t.Fatalf("recorded rules: %v, fingerprint %s, want %s", err, rec.Fingerprint(), l.Fingerprint())
	}
	for _, tt := range tests {
		if p, d := rec.Counts(tt.tier, tt.n); p != tt.promote || d != tt.demote {
			t.Errorf("recorded %s, %d players: got %d, %d", l.Tier(tt.tier).ID, tt.n, p, d)
		}
	}
}

// TestJumps: the first jump_top ranks of the promotion zone rise
// jump_tiers tiers; the rest of the zone one; a rank kept out of the zone
// by min_promote_score does not jump. Settle and recorded rules agree.
func TestJumps(t *testing.T) {
	l, err := NewLadder([]Tier{
		{ID: "bronze", Promote: 3000, JumpTop: 2, JumpBy: 3, MinPromoteScore: 5},
		{ID: "silver", Promote: 2000},
		{ID: "gold", Promote: 1000},
		{ID: "diamond"},
	})
	if err != nil {
		t.Fatal(err)
	}
	board := []Standing{{"a", 1, 50, false}, {"b", 2, 40, false}, {"c", 3, 30, false}, {"d", 4, 3, false}, {"e", 5, 2, false}, {"f", 6, 1, false}, {"g", 7, 0, false},
		{"h", 8, 0, false}, {"i", 9, 0, false}, {"j", 10, 0, false}}
	want := []int{3, 3, 1, 0, 0, 0, 0, 0, 0, 0} // d is in the zone by rank, under min_promote_score
	rec, err := l.Recorded(l.RulesJSON())
	if err != nil {
		t.Fatal(err)
	}
	for _, ld := range []*Ladder{l, rec} {
		for k, o := range ld.Settle(0, board) {
			if o.TierAfter != want[k] {
				t.Errorf("rank %d: to %s, want %s", o.Rank, ld.Tier(o.TierAfter).ID, ld.Tier(want[k]).ID)
			}
		}
	}
	if got := l.Next(1, Promote, 1); got != 2 {
		t.Errorf("silver rank 1 promoted (no jump there): to %d, want 2", got)
	}
}

func TestZoneAndNext(t *testing.T) {
	l := threeTiers(t)
	tests := []struct {
		name          string
		tier, rank, n int
		score         int64
		want          Zone
		wantNext      int
	}{
		{"bronze top scorer climbs", 0, 1, 100, 10, Promote, 1},
		{"bronze last promoted rank", 0, 20, 100, 1, Promote, 1},
		{"bronze first stay rank", 0, 21, 100, 99, Stay, 0},
		{"bronze zero score never climbs", 0, 1, 100, 0, Stay, 0},
		{"bronze last never demotes", 0, 100, 100, 0, Stay, 0},
		{"silver demote zone", 1, 86, 100, 5, Demote, 0},
		{"silver just above demote", 1, 85, 100, 5, Stay, 1},
		{"gold never promotes", 2, 1, 100, 1000, Stay, 2},
		{"gold demote zone", 2, 72, 100, 0, Demote, 1},
		{"silver promote without min", 1, 1, 100, 0, Promote, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			z := l.Zone(tt.tier, tt.rank, tt.n, tt.score)
			if z != tt.want {
				t.Errorf("Zone = %v, want %v", z, tt.want)
			}
			if got := l.Next(tt.tier, z, tt.rank); got != tt.wantNext {
				t.Errorf("Next = %d, want %d", got, tt.wantNext)
			}
		})
	}
}

func TestSettleMatchesZones(t *testing.T) {
	l := threeTiers(t)
	for _, n := range []int{1, 7, 50, 99, 100} {
		board := make([]Standing, n)
		for i := range board {
			board[i] = Standing{Player: string(rune('a' + i%26)), Rank: i + 1, Score: int64(n - i)}
		}
		for tier := 0; tier < l.Len(); tier++ {
			out := l.Settle(tier, board)
			up, down := 0, 0
			for k, o := range out {
				if o.Zone != l.Zone(tier, o.Rank, n, o.Score) {
					t.Fatalf("n=%d tier=%d rank %d: Settle zone %v differs from Zone", n, tier, o.Rank, o.Zone)
				}
				if o.TierAfter > o.TierBefore {
					up++
				}
				if o.TierAfter < o.TierBefore {
					down++
				}
				if !reflect.DeepEqual(o.Rewards, l.Rewards(tier, k+1, o.Score)) {
					t.Fatalf("rank %d rewards %v, want %v", k+1, o.Rewards, l.Rewards(tier, k+1, o.Score))
				}
			}
			p, d := l.Counts(tier, n)
			if up != p || down != d {
				t.Errorf("n=%d tier=%d: moved %d up %d down, want %d up %d down", n, tier, up, down, p, d)
			}
		}
	}
}

func TestRewards(t *testing.T) {
	l := threeTiers(t)
	tests := []struct {
		rank int
		want []Item
	}{
		{1, []Item{{"gems", 100}}},
		{2, []Item{{"gems", 50}}},
		{3, []Item{{"gems", 50}}},
		{4, nil},
	}
	for _, tt := range tests {
		if got := l.Rewards(0, tt.rank, 0); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Rewards(bronze, %d) = %v, want %v", tt.rank, got, tt.want)
		}
	}
	if got := l.Rewards(1, 1, 0); got != nil {
		t.Errorf("silver has no rewards, got %v", got)
	}
	// With a minimum, a rank earns nothing below it, as in Settle.
	ts := l.Tiers()
	ts[0].MinRewardScore = 10
	min := mustLadder(t, ts...)
	if got := min.Rewards(0, 1, 9); got != nil {
		t.Errorf("rank 1 with 9 under a minimum of 10: %v, want nothing", got)
	}
	if got := min.Rewards(0, 1, 10); !reflect.DeepEqual(got, []Item{{"gems", 100}}) {
		t.Errorf("rank 1 with 10 under a minimum of 10: %v", got)
	}
	out := min.Settle(0, []Standing{{Player: "late", Rank: 1, Score: 0}})
	if out[0].Rewards != nil {
		t.Errorf("a lone player who never scored earned %v", out[0].Rewards)
	}
	if _, err := NewLadder([]Tier{{ID: "x", MinRewardScore: -1}}); err == nil || !strings.Contains(err.Error(), "min_reward_score") {
		t.Errorf("a negative min_reward_score: %v", err)
	}
	// A minimum of 0 leaves the rules' fingerprint as before it existed.
	if strings.Contains(l.RulesJSON(), "min_reward_score") || min.Fingerprint() == l.Fingerprint() {
		t.Errorf("rules %s: a minimum of 0 must leave them as before, 10 must change them", l.RulesJSON())
	}
}

func TestAfterAbsence(t *testing.T) {
	l := threeTiers(t)
	tests := []struct {
		tier, absent, after, want int
	}{
		{2, 5, 0, 2}, // decay off
		{2, 1, 2, 2},
		{2, 2, 2, 1},
		{2, 4, 2, 0},
		{2, 40, 2, 0}, // never below the bottom
		{0, 3, 1, 0},
	}
	for _, tt := range tests {
		if got := l.AfterAbsence(tt.tier, tt.absent, tt.after); got != tt.want {
			t.Errorf("AfterAbsence(%d, %d, %d) = %d, want %d", tt.tier, tt.absent, tt.after, got, tt.want)
		}
	}
}

func TestNewLadderRejects(t *testing.T) {
	tests := []struct {
		name string
		ts   []Tier
	}{
		{"no tiers", nil},
		{"negative promote", []Tier{{ID: "a", Promote: -1}}},
		{"promote+demote over 1", []Tier{{ID: "a", Promote: 6000, Demote: 5000}}},
		{"duplicate id", []Tier{{ID: "a"}, {ID: "a"}}},
		{"empty id", []Tier{{}}},
		{"overlapping rewards", []Tier{{ID: "a", Rewards: []Band{{1, 3, []Item{{"g", 1}}}, {3, 4, []Item{{"g", 1}}}}}}},
		{"reversed band", []Tier{{ID: "a", Rewards: []Band{{4, 3, []Item{{"g", 1}}}}}}},
		{"zero quantity", []Tier{{ID: "a", Rewards: []Band{{1, 1, []Item{{"g", 0}}}}}}},
		{"quantity past 2^53-1", []Tier{{ID: "a", Rewards: []Band{{1, 1, []Item{{"g", MaxQty + 1}}}}}}},
		{"negative min score", []Tier{{ID: "a", MinPromoteScore: -1}}},
		{"a count with a share", []Tier{{ID: "a", Promote: 2000, PromoteCount: 3}, {ID: "b"}}},
		{"a minimum without a share", []Tier{{ID: "a", PromoteAtLeast: 1}, {ID: "b"}}},
		{"at_least_from alone", []Tier{{ID: "a", AtLeastFrom: 5}, {ID: "b"}}},
		{"minimums overlapping on their smallest board", []Tier{{ID: "a"},
			{ID: "b", Promote: 2000, PromoteAtLeast: 2, Demote: 2000, DemoteAtLeast: 2, AtLeastFrom: 3}, {ID: "c"}}},
		{"a count on the top tier", []Tier{{ID: "a"}, {ID: "b", PromoteCount: 1}}},
		{"a count on the bottom tier", []Tier{{ID: "a", DemoteCount: 1}, {ID: "b"}}},
		{"a jump past the top tier", []Tier{{ID: "a"}, {ID: "b", Promote: 2000, JumpTop: 1, JumpBy: 2}, {ID: "c"}}},
		{"a jump of one tier", []Tier{{ID: "a", Promote: 2000, JumpTop: 1, JumpBy: 1}, {ID: "b"}, {ID: "c"}}},
		{"a jump on a tier that promotes nobody", []Tier{{ID: "a", Demote: 2000, JumpTop: 1, JumpBy: 2}, {ID: "b"}, {ID: "c"}}},
		{"jump_tiers without jump_top", []Tier{{ID: "a", Promote: 2000, JumpBy: 2}, {ID: "b"}, {ID: "c"}}},
		{"a count past the largest board", []Tier{{ID: "a", PromoteCount: MaxMoveCount + 1}, {ID: "b"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := NewLadder(tt.ts); err == nil {
				t.Errorf("NewLadder accepted %+v", tt.ts)
			}
		})
	}
}

func TestRatioOf(t *testing.T) {
	tests := []struct {
		in      float64
		want    Ratio
		wantErr bool
	}{
		{0.2, 2000, false},
		{0.29, 2900, false},
		{1, 10000, false},
		{0, 0, false},
		{0.12345, 0, true},
		{-0.1, 0, true},
		{1.5, 0, true},
	}
	for _, tt := range tests {
		got, err := RatioOf(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("RatioOf(%v) = %v, %v; want %v, err %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
	if s := Ratio(2900).String(); s != "0.29" {
		t.Errorf("String = %q, want 0.29", s)
	}
}
