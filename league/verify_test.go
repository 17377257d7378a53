package league_test

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"testing"

	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/league"
	"github.com/league-engine/league/tiers"
)

// verifyLadder: bronze promotes the top 20% (a score of 1 at least) and
// rewards ranks 1-2; silver demotes the bottom 20%.
func verifyLadder(tb testing.TB) *tiers.Ladder {
	tb.Helper()
	l, err := tiers.NewLadder([]tiers.Tier{
		{ID: "bronze", Promote: 2000, MinPromoteScore: 1, Rewards: []tiers.Band{
			{From: 1, To: 1, Items: []tiers.Item{{ID: "gems", Qty: 100}}}, {From: 2, To: 2, Items: []tiers.Item{{ID: "gems", Qty: 50}}}}},
		{ID: "silver", Demote: 2000},
	})
	if err != nil {
		tb.Fatal(err)
	}
	return l
}

// settledBoards decides two boards of 5 as settlement does (DecidedBoard's
// rows and rewards), and returns them as the store records them, with the
// settlement's counts.
func settledBoards(l *tiers.Ladder) ([]league.RecordedBoard, []league.TierCount) {
	var (
		boards []league.RecordedBoard
		counts []league.TierCount
	)
	for i := range l.Len() {
		id := league.BoardID{Tier: l.Tier(i).ID, N: 1}
		standings := make([]tiers.Standing, 5)
		for k := range standings {
			standings[k] = tiers.Standing{Player: fmt.Sprintf("%s%d", id.Tier, k), Rank: k + 1, Score: int64(10 - k)}
		}
		b := league.RecordedBoard{ID: id, Rewards: map[string]league.EarnedReward{}}
		c := league.TierCount{Tier: id.Tier}
		for _, o := range l.Settle(i, standings) {
			b.Outcomes = append(b.Outcomes, league.Outcome{Player: o.Player, TierBefore: id.Tier, TierAfter: l.Tier(o.TierAfter).ID,
				Board: 1, Rank: o.Rank, Score: o.Score, Zone: o.Zone})
			c.Players++
			switch {
			case o.TierAfter > o.TierBefore:
				c.Promoted++
			case o.TierAfter < o.TierBefore:
				c.Demoted++
			}
			if o.Rewards != nil {
				b.Rewards[o.Player] = league.EarnedReward{Player: o.Player, Tier: id.Tier, Rank: o.Rank, Items: o.Rewards}
				c.Rewarded++
			}
		}
		boards, counts = append(boards, b), append(counts, c)
	}
	return boards, counts
}

func TestVerify(t *testing.T) {
	l := verifyLadder(t)
	bronze1 := league.BoardID{Tier: "bronze", N: 1}
	tests := []struct {
		name   string
		tamper func(boards []league.RecordedBoard, stray *[]league.EarnedReward, counts []league.TierCount)
		want   []league.Difference
	}{
		{"as settled", func([]league.RecordedBoard, *[]league.EarnedReward, []league.TierCount) {}, nil},
		{"tier after", func(b []league.RecordedBoard, _ *[]league.EarnedReward, _ []league.TierCount) {
			b[0].Outcomes[2].TierAfter = "silver"
		}, []league.Difference{{Board: bronze1, Rank: 3, Player: "bronze2", Field: "tier_after", Recorded: "silver", Expected: "bronze"}}},
		{"reward deleted", func(b []league.RecordedBoard, _ *[]league.EarnedReward, _ []league.TierCount) {
			delete(b[0].Rewards, "bronze1")
		}, []league.Difference{{Board: bronze1, Rank: 2, Player: "bronze1", Field: "reward", Recorded: "none", Expected: `[{"id":"gems","qty":50}]`}}},
		{"reward changed", func(b []league.RecordedBoard, _ *[]league.EarnedReward, _ []league.TierCount) {
			b[0].Rewards["bronze0"] = league.EarnedReward{Player: "bronze0", Tier: "bronze", Rank: 1, Items: []tiers.Item{{ID: "gems", Qty: 1000}}}
		}, []league.Difference{{Board: bronze1, Rank: 1, Player: "bronze0", Field: "reward", Recorded: `[{"id":"gems","qty":1000}]`, Expected: `[{"id":"gems","qty":100}]`}}},
		{"reward given", func(b []league.RecordedBoard, stray *[]league.EarnedReward, _ []league.TierCount) {
			b[1].Rewards["silver0"] = league.EarnedReward{Player: "silver0", Tier: "silver", Rank: 1, Items: []tiers.Item{{ID: "gems", Qty: 5}}}
			*stray = append(*stray, league.EarnedReward{Player: "ghost", Tier: "silver", Rank: 1, Items: []tiers.Item{{ID: "gems", Qty: 5}}})
		}, []league.Difference{
			{Board: league.BoardID{Tier: "silver", N: 1}, Rank: 1, Player: "silver0", Field: "reward", Recorded: `[{"id":"gems","qty":5}]`, Expected: "none"},
			{Rank: 1, Player: "ghost", Field: "reward", Recorded: `[{"id":"gems","qty":5}]`, Expected: "none: the player has no outcome in the period"},
		}},
		{"zone and count", func(b []league.RecordedBoard, _ *[]league.EarnedReward, c []league.TierCount) {
			b[1].Outcomes[4].Zone = tiers.Stay
			c[1].Demoted = 2
		}, []league.Difference{
			{Board: league.BoardID{Tier: "silver", N: 1}, Rank: 5, Player: "silver4", Field: "zone", Recorded: "stay", Expected: "demote"},
			{Field: "tiers[silver].demoted", Recorded: "2", Expected: "1"},
		}},
		{"outcome deleted", func(b []league.RecordedBoard, _ *[]league.EarnedReward, _ []league.TierCount) {
			// The board's last player gone: silver's four left demote nobody
			// (20% of 4 rounds down), and the counts no longer add up.
			b[1].Outcomes = b[1].Outcomes[:4]
		}, []league.Difference{
			{Field: "tiers[silver].players", Recorded: "5", Expected: "4"},
			{Field: "tiers[silver].demoted", Recorded: "1", Expected: "0"},
		}},
		{"rank gap", func(b []league.RecordedBoard, _ *[]league.EarnedReward, _ []league.TierCount) {
			b[1].Outcomes[3].Rank = 7
		}, []league.Difference{{Board: league.BoardID{Tier: "silver", N: 1}, Rank: 7, Player: "silver3", Field: "rank", Recorded: "7", Expected: "4"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			boards, counts := settledBoards(l)
			var stray []league.EarnedReward
			tc.tamper(boards, &stray, counts)
			v := league.Verify(l, boards, stray, counts)
			if !reflect.DeepEqual(v.Differences, tc.want) {
				t.Errorf("differences:\n got %+v\nwant %+v", v.Differences, tc.want)
			}
			if v.Boards != 2 || v.Players != len(boards[0].Outcomes)+len(boards[1].Outcomes) || v.Outcomes != v.Players {
				t.Errorf("checked %d boards, %d players, %d outcomes", v.Boards, v.Players, v.Outcomes)
			}
		})
	}
	boards, counts := settledBoards(l)
	if v := league.Verify(l, boards, nil, counts); v.Rewards != 2 {
		t.Errorf("rewards checked: got %d, want 2", v.Rewards)
	}
	// A board of a tier the rules lack cannot be re-decided: said once.
	boards[1].ID.Tier = "gold"
	if v := league.Verify(l, boards, nil, counts); len(v.Differences) != 3 || v.Differences[0].Field != "tier_before" ||
		v.Differences[1].Field != "tiers[silver].players" || v.Differences[2].Field != "tiers[silver].demoted" {
		t.Errorf("a board of a tier the rules lack: %+v", v.Differences)
	}
}

func TestVerifyLadder(t *testing.T) {
	l := verifyLadder(t)
	st := league.Settlement{League: "l", Rules: l.RulesJSON(), RulesFP: l.Fingerprint()}
	got, alone, err := league.VerifyLadder(st, l)
	if err != nil || alone || got.Fingerprint() != l.Fingerprint() {
		t.Errorf("on the configured ladder: got %v, alone %v, %v", got, alone, err)
	}
	// The config changed since: silver is gone, so the rules rebuild alone.
	short, err := tiers.NewLadder([]tiers.Tier{{ID: "bronze"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, configured := range []*tiers.Ladder{short, nil} {
		got, alone, err = league.VerifyLadder(st, configured)
		if err != nil || !alone || got.Fingerprint() != l.Fingerprint() {
			t.Errorf("rebuilt alone: got %v, alone %v, %v", got, alone, err)
		}
	}
	if _, _, err := league.VerifyLadder(league.Settlement{League: "l"}, l); !errors.Is(err, league.ErrNoRules) {
		t.Errorf("no rules recorded: %v, want ErrNoRules", err)
	}
	st.RulesFP = "0000000000000000"
	if _, _, err := league.VerifyLadder(st, l); league.ErrorCode(err) != league.Conflict {
		t.Errorf("rules changed since: %v, want a Conflict", err)
	}
}

// TestPeriodRules: the rules settlement keeps with a period are the text
// recorded with it: this engine's own until some decision records others,
// then those (another process's, from the meta hash), which rebuild alone
// to the same fingerprint.
func TestPeriodRules(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b testsvc.Backend) {
		f := newFixture(t, b)
		week := f.period()
		fillBoard(f)
		rules, fp, err := f.engine.PeriodRules(f.ctx, "weekly", week)
		if err != nil || rules != f.league.Ladder.RulesJSON() || fp != f.league.Ladder.Fingerprint() {
			t.Fatalf("before any decision: got %s %s, %v; want this config's %s", fp, rules, err, f.league.Ladder.Fingerprint())
		}
		ts := f.league.Ladder.Tiers()
		ts[0].Promote, ts[0].MinPromoteScore = tiers.RatioScale, 0
		ol, err := f.openWith(ts, "").League("weekly")
		testsvc.Must(t, err, "League")
		other := ol.Ladder
		counters := f.ns + ":{weekly}:c:" + strconv.FormatInt(week.Start.Unix(), 10)
		testsvc.Must(t, f.rdb.HSet(f.ctx, counters, "ladder", other.Fingerprint()).Err(), "record the other rules")
		rules, fp, err = f.engine.PeriodRules(f.ctx, "weekly", week)
		if err != nil || rules != other.RulesJSON() || fp != other.Fingerprint() {
			t.Fatalf("recorded by another process: got %s %s, %v; want %s %s", fp, rules, err, other.Fingerprint(), other.RulesJSON())
		}
		if alone, err := tiers.FromRules(rules); err != nil || alone.Fingerprint() != fp {
			t.Errorf("rebuilt alone: %v, %v", alone, err)
		}
	})
}
