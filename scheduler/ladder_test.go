package scheduler_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/league"
	"github.com/league-engine/league/tiers"
)

// TestPeriodDecidedUnderOneLadder: two replicas with different ladder rules
// (a config change rolled out one replica at a time) decide each period
// under one set of rules, the first decider's: the settlement agrees with
// every join that decided a player's outcome early from the frozen board,
// and every reward a join delivered is one the store recorded.
func TestPeriodDecidedUnderOneLadder(t *testing.T) {
	forEachStore(t, func(t *testing.T, k storeKind) {
		f := newFixture(t, k, 10)
		// Replica b: bronze promotes half of each board and rewards ranks 1-10.
		ts := f.league.Ladder.Tiers()
		ts[0].Promote = 5000
		ts[0].Rewards = []tiers.Band{{From: 1, To: 10, Items: []tiers.Item{{ID: "coins", Qty: 7}}}}
		b := openReplica(t, f, ts)

		week1 := f.period()
		played := f.play("p", 40) // four bronze boards
		joinAll := func() map[string]league.Placement { return joinThrough(t, f, b, played) }

		// Week 1: b's joins decide first, then a's scheduler settles.
		f.clock.After(week1.End)
		placed := joinAll()
		st := f.settleNow(f.scheduler())
		if got := st.Tiers[0].Promoted; got <= 8 {
			t.Errorf("week 1 promoted %d from bronze, want b's half of each board (a's 20%% is 8)", got)
		}
		agree(t, f, week1, placed)

		// Week 2: a's settlement closes the period first; b's joins follow a.
		week2 := f.period()
		for id := range placed {
			_, err := f.engine.Score(f.ctx, "weekly", league.ScoreWrite{Player: id, Value: int64(len(id) + int(id[4]-'0'))})
			testsvc.Must(t, err, "score")
		}
		f.clock.After(week2.End)
		_, err := f.engine.Close(f.ctx, "weekly", week2)
		testsvc.Must(t, err, "Close")
		// Between the close and the settlement b predicts, under a's rules,
		// the tier each player's next join will give.
		predicted := map[string]league.Placement{}
		for id := range placed {
			s, err := b.Standing(f.ctx, "weekly", id)
			testsvc.Must(t, err, "Standing")
			predicted[id] = league.Placement{Tier: s.Tier}
		}
		st = f.settleNow(f.scheduler())
		if bronze := st.Tiers[0]; bronze.Promoted*5 > bronze.Players {
			t.Errorf("week 2 promoted %d of %d from bronze, over a's 20%%", bronze.Promoted, bronze.Players)
		}
		joined := joinAll()
		agree(t, f, week2, joined)
		for id, pl := range joined {
			if predicted[id].Tier != pl.Tier {
				t.Errorf("%s: b's standing predicted %s, the join gave %s", id, predicted[id].Tier, pl.Tier)
			}
		}
	})
}

// TestPeriodDecidedUnderRulesRecordedBeforeATierWasInserted: replica b's
// config lacks silver, which a's inserts between bronze and gold. b's joins
// decide the period first, under b's rules, where bronze promotes to gold;
// a's settlement, under the rules b recorded, promotes bronze to gold too,
// not to silver, the tier above bronze in a's own order.
func TestPeriodDecidedUnderRulesRecordedBeforeATierWasInserted(t *testing.T) {
	forEachStore(t, func(t *testing.T, k storeKind) {
		f := newFixture(t, k, 10)
		ts := f.league.Ladder.Tiers()
		b := openReplica(t, f, []tiers.Tier{ts[0], ts[2]}) // bronze, gold

		week := f.period()
		played := f.play("p", 40) // four bronze boards
		f.clock.After(week.End)
		placed := joinThrough(t, f, b, played)
		st := f.settleNow(f.scheduler())
		if st.Tiers[0].Promoted == 0 {
			t.Fatalf("nobody promoted from bronze: %+v", st.Tiers)
		}
		agree(t, f, week, placed)
		for id, pl := range placed {
			if pl.Tier == "silver" {
				t.Errorf("%s joined silver, a tier b's rules do not have", id)
			}
		}
	})
}

// openReplica opens replica b: an engine on f's league with tiers ts.
func openReplica(t *testing.T, f *fixture, ts []tiers.Tier) *league.Engine {
	t.Helper()
	rules, err := tiers.NewLadder(ts)
	testsvc.Must(t, err, "NewLadder")
	bl := &league.League{ID: "weekly", BoardSize: 10, Schedule: f.league.Schedule, Ladder: rules}
	testsvc.Must(t, bl.Init(), "Init")
	b, err := league.Open(f.ctx, f.rdb, []*league.League{bl}, league.WithNamespace(f.ns), league.WithClock(f.clock.Now))
	testsvc.Must(t, err, "Open replica b")
	return b
}

// joinThrough joins every player of played through engine b.
func joinThrough(t *testing.T, f *fixture, b *league.Engine, played map[string]league.Placement) map[string]league.Placement {
	t.Helper()
	out := map[string]league.Placement{}
	for id := range played {
		pl, err := b.Join(f.ctx, "weekly", league.JoinRequest{Player: id, Name: id})
		testsvc.Must(t, err, "join %s through b", id)
		out[id] = pl
	}
	return out
}

// agree checks every placement's tier against the tier the store says the
// period p gave the player, and the rewards the join delivered for p
// against the rewards the store recorded.
func agree(t *testing.T, f *fixture, p league.Period, placed map[string]league.Placement) {
	t.Helper()
	for id, pl := range placed {
		prof, err := f.store.Profile(f.ctx, "weekly", id, 10)
		testsvc.Must(t, err, "Profile %s", id)
		var h *league.HistoryEntry
		for i := range prof.History {
			if prof.History[i].Period.Equal(p.Start) {
				h = &prof.History[i]
			}
		}
		if h == nil {
			t.Fatalf("%s: no history of %s", id, p.ID())
		}
		var delivered []tiers.Item
		for _, r := range pl.Rewards {
			if r.Earned.Equal(p.Start) {
				delivered = r.Items
			}
		}
		if pl.Tier != h.TierAfter || !reflect.DeepEqual(delivered, h.Rewards) {
			t.Errorf("%s in %s: joined %s with %v; the store says %s with %v", id, p.ID(), pl.Tier, delivered, h.TierAfter, h.Rewards)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
}

// TestSettlementOfIncompleteBoardsIsAConflict: a period whose boards hold
// fewer players than its counters say (a board lost) cannot be settled;
// the operator is told why, as a conflict, not an internal error, and
// nothing is written.
func TestSettlementOfIncompleteBoardsIsAConflict(t *testing.T) {
	forEachStore(t, func(t *testing.T, k storeKind) {
		f := newFixture(t, k, 10)
		week := f.period()
		f.play("p", 20) // two bronze boards
		lost, err := f.rdb.Keys(f.ctx, f.ns+":{weekly}:b:*:2").Result()
		testsvc.Must(t, err, "KEYS")
		if len(lost) != 1 {
			t.Fatalf("board 2 keys: %v", lost)
		}
		testsvc.Must(t, f.rdb.Del(f.ctx, lost[0]).Err(), "lose board 2")
		f.clock.After(week.End)
		_, err = f.scheduler().SettleNow(f.ctx, "weekly", week.Start)
		if league.ErrorCode(err) != league.Conflict || !strings.Contains(err.Error(), "read 10 players from the boards of "+week.ID()+", but its counters say 20 joined") {
			t.Fatalf("settling a period with a board lost: %v, want a conflict naming the counts", err)
		}
		if prof, err := f.store.Profile(f.ctx, "weekly", "p00000", 10); league.ErrorCode(err) != league.NotFound {
			t.Fatalf("a refused settlement wrote outcomes: %+v, %v", prof, err)
		}
	})
}
