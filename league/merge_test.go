package league_test

import (
	"errors"
	"fmt"
	"math/rand"
	"reflect"
	"testing"
	"time"

	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/league"
	"github.com/league-engine/league/tiers"
)

// TestMergedZonesAreTheSettlement: with min_board_size 5 on boards of 10,
// random fields whose last board holds 1-4 players, and scores from 0 to 5
// (ties across boards). Just before the close, the zones every reader
// shows (standings, board reads, score replies, the preview) are those
// settlement then decides, the two last boards say they are merged with
// each other, and a returning player's tier decided at their join, before
// settlement, is settlement's.
func TestMergedZonesAreTheSettlement(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b testsvc.Backend) {
		for seed := int64(1); seed <= 4; seed++ {
			mergedZonesAreTheSettlement(t, b, seed)
		}
	})
}

func mergedZonesAreTheSettlement(t *testing.T, b testsvc.Backend, seed int64) {
	f := newFixture(t, b, func(l *league.League) {
		l.Ladder, l.EntryTier = withMinBoardSize(t, l, 5), "silver" // promotes and demotes 20%
	})
	rng := rand.New(rand.NewSource(seed))
	n := 10*(1+rng.Intn(3)) + 1 + rng.Intn(4)
	lastBoard := (n + 9) / 10
	week := f.period()
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("p%02d", i)
		f.join(ids[i])
	}
	for _, id := range ids {
		f.score(id, rng.Int63n(6))
	}

	// What the readers show just before the close.
	f.clock.Set(week.End.Add(-2 * time.Millisecond))
	shown := map[string]tiers.Zone{}
	boardOf := map[string]int{}
	for _, id := range ids {
		st, err := f.engine.Standing(f.ctx, "weekly", id)
		testsvc.Must(t, err, "Standing")
		shown[id], boardOf[id] = st.Zone, st.Board.N
		wantMerged := st.Board.N >= lastBoard-1
		if (st.MergedWith != nil) != wantMerged || wantMerged && st.MergedWith.N != 2*lastBoard-1-st.Board.N {
			t.Fatalf("seed %d: %s on board %d of %d: merged with %v", seed, id, st.Board.N, lastBoard, st.MergedWith)
		}
		if r := f.score(id, 0); r.Zone != st.Zone || (r.MergedWith == nil) != (st.MergedWith == nil) {
			t.Fatalf("seed %d: %s: a write's reply shows %s (merged %v), the standing %s", seed, id, r.Zone, r.MergedWith, st.Zone)
		}
	}
	for n := 1; n <= lastBoard; n++ {
		bd, err := f.engine.Board(f.ctx, "weekly", week, league.BoardID{Tier: "silver", N: n})
		testsvc.Must(t, err, "Board")
		if (bd.MergedWith != nil) != (n >= lastBoard-1) {
			t.Fatalf("seed %d: board %d of %d: merged with %v", seed, n, lastBoard, bd.MergedWith)
		}
		for _, e := range bd.Entries {
			if e.Zone != shown[e.Player] {
				t.Fatalf("seed %d: board %d shows %s in %s, their standing %s", seed, n, e.Player, e.Zone, shown[e.Player])
			}
		}
	}
	live, err := f.engine.Preview(f.ctx, "weekly", league.PreviewRequest{Limit: 1000})
	testsvc.Must(t, err, "Preview")

	// The close: two returning players join the next week before
	// settlement, their tiers decided from the frozen boards.
	f.clock.After(week.End)
	early := map[string]league.Placement{}
	for _, id := range []string{ids[n-1], ids[(lastBoard-1)*10-1]} { // on the last board, and on the one before
		early[id] = f.join(id)
	}
	decided := map[string]tiers.Outcome{}
	for _, o := range f.settle(week) {
		decided[o.Player] = o
	}
	merged := 0
	for _, id := range ids {
		o := decided[id]
		if o.Zone != shown[id] {
			t.Errorf("seed %d: %s (board %d of %d) was shown %s, settled %s", seed, id, boardOf[id], lastBoard, shown[id], o.Zone)
		}
		if pl, ok := early[id]; ok {
			var got []tiers.Item
			for _, r := range pl.Rewards {
				got = append(got, r.Items...)
			}
			if pl.Tier != f.league.Ladder.Tier(o.TierAfter).ID || !reflect.DeepEqual(got, o.Rewards) {
				t.Errorf("seed %d: %s joined the next week in %s with %v before settlement; settlement gave %s and %v",
					seed, id, pl.Tier, got, f.league.Ladder.Tier(o.TierAfter).ID, o.Rewards)
			}
		}
		if boardOf[id] >= lastBoard-1 {
			merged++
		}
	}
	for _, r := range live.Rows {
		if want := f.league.Ladder.Tier(decided[r.Player].TierAfter).ID; r.To != want {
			t.Errorf("seed %d: the preview moves %s to %s, settlement to %s", seed, r.Player, r.To, want)
		}
	}
	// The merged boards moved 20% of both boards' players up and down
	// (silver has no minimum score), not 20% of each.
	up, down := 0, 0
	for _, id := range ids {
		if boardOf[id] >= lastBoard-1 {
			switch decided[id].Zone {
			case tiers.Promote:
				up++
			case tiers.Demote:
				down++
			}
		}
	}
	if p, d := f.league.Ladder.Counts(1, merged); up != p || down != d {
		t.Errorf("seed %d: the %d merged players: %d promoted and %d demoted, want %d and %d", seed, merged, up, down, p, d)
	}
}

// TestProtectionOnMergedBoards: 60 bronze players on 6 boards promote 2
// each to silver, which protects promoted players, demotes 30% and merges
// a last board under 5. Their second week, silver's boards are 10 and 2,
// decided as one board of 12 whose demotion zone (3) takes in the short
// board's players: every one of them was promoted, so all are shown
// protected and all stay.
func TestProtectionOnMergedBoards(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b testsvc.Backend) {
		f := newFixture(t, b, func(l *league.League) {
			ld, err := tiers.NewLadder([]tiers.Tier{
				{ID: "bronze", Name: "Bronze", Promote: 2000, MinPromoteScore: 1},
				{ID: "silver", Name: "Silver", Demote: 3000, ProtectPromoted: true, MinBoardSize: 5},
			})
			testsvc.Must(t, err, "ladder")
			l.Ladder = ld
		})
		week1 := f.period()
		for i := range 60 {
			id := fmt.Sprintf("b%02d", i)
			f.join(id)
			f.score(id, int64(1+i%10))
		}
		f.clock.After(week1.End)
		f.settle(week1)

		week2 := f.period()
		var silver []string
		for i := range 60 {
			id := fmt.Sprintf("b%02d", i)
			if p := f.join(id); p.Tier == "silver" {
				silver = append(silver, id)
				f.score(id, int64(100-i)) // the short board's two score least
			}
		}
		if len(silver) != 12 {
			t.Fatalf("%d players in silver, want 12", len(silver))
		}
		f.clock.Set(week2.End.Add(-time.Millisecond))
		kept := 0
		for _, id := range silver {
			st, err := f.engine.Standing(f.ctx, "weekly", id)
			testsvc.Must(t, err, "Standing")
			if st.Zone == tiers.Demote || st.Board.N >= 1 && st.MergedWith == nil {
				t.Fatalf("%s: zone %s, merged with %v: want no demotion and the two boards merged", id, st.Zone, st.MergedWith)
			}
			if st.Protected {
				kept++
			}
		}
		if kept != 3 {
			t.Fatalf("%d shown protected, want the 3 of the merged demotion zone", kept)
		}
		f.clock.After(week2.End)
		for _, o := range f.settle(week2) {
			if o.Zone == tiers.Demote || o.TierAfter != 1 && o.TierBefore == 1 {
				t.Errorf("%s settled %s to tier %d: a promoted player was demoted", o.Player, o.Zone, o.TierAfter)
			}
		}
	})
}

// TestMergeAfterTheLastBoardEmptied: an operator removed every player of
// silver's last board and most of the board before it, which is now the
// short last board holding players: it merges with the board before it,
// whose players see it (their board is two before the last by joins), as
// settlement decides it.
func TestMergeAfterTheLastBoardEmptied(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b testsvc.Backend) {
		f := newFixture(t, b, func(l *league.League) {
			l.Ladder, l.EntryTier = withMinBoardSize(t, l, 5), "silver"
		})
		week := f.period()
		for i := range 25 { // boards of 10, 10, 5
			id := fmt.Sprintf("p%02d", i)
			f.join(id)
			f.score(id, int64(100-i))
		}
		for i := 14; i < 25; i++ { // board 2 keeps p10-p13, board 3 none
			_, err := f.engine.Moderate(f.ctx, "weekly", league.Moderation{Player: fmt.Sprintf("p%02d", i), Action: league.Remove,
				Actor: "ops", Reason: "bots"})
			testsvc.Must(t, err, "Moderate")
		}
		shown := map[string]tiers.Zone{}
		for i := range 14 {
			id := fmt.Sprintf("p%02d", i)
			st, err := f.engine.Standing(f.ctx, "weekly", id)
			testsvc.Must(t, err, "Standing")
			if st.MergedWith == nil || st.MergedWith.N != 3-st.Board.N {
				t.Fatalf("%s on board %d: merged with %v, want boards 1 and 2 merged", id, st.Board.N, st.MergedWith)
			}
			if r := f.score(id, 0); r.Zone != st.Zone {
				t.Fatalf("%s: a write's reply shows %s, the standing %s", id, r.Zone, st.Zone)
			}
			shown[id] = st.Zone
		}
		f.clock.After(week.End)
		for _, o := range f.settle(week) {
			if o.Zone != shown[o.Player] {
				t.Errorf("%s was shown %s, settled %s", o.Player, shown[o.Player], o.Zone)
			}
		}
	})
}

// TestClosedPeriodRefusesWritesOfMergedTiers: a ranked score write in a
// tier with min_board_size reads the period's closed mark together with
// the tier's joins (score.lua, one HMGET), a write without a rank reads the
// mark alone. Either way a period a join's decision closed stays closed to
// writes when Redis's clock steps back into it, and nothing is written.
func TestClosedPeriodRefusesWritesOfMergedTiers(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b testsvc.Backend) {
		f := newFixture(t, b, func(l *league.League) {
			l.Ladder = withMinBoardSize(t, l, 5)
		})
		week := f.period()
		for i, p := range []string{"x1", "x2", "x3", "x4", "x5"} {
			f.join(p)
			f.score(p, int64(50-10*i))
		}
		if r := f.score("x5", 0); r.Rank != 5 || r.MergedWith != nil {
			t.Fatalf("x5 before the close: rank %d merged with %v, want 5 on a board of its own", r.Rank, r.MergedWith)
		}
		f.clock.Set(week.End.Add(500 * time.Millisecond))
		f.join("x1") // decides the week from its board: closes it
		f.clock.Set(week.End.Add(-4 * time.Second))
		for _, w := range []league.ScoreWrite{{Player: "x5", Value: 100}, {Player: "x5", Value: 100, NoRank: true}} {
			if _, err := f.engine.Score(f.ctx, "weekly", w); !errors.Is(err, league.ErrPeriodClosed) {
				t.Errorf("a write (no rank %v) into the closed week after the clock stepped back: %v, want period closed", w.NoRank, err)
			}
		}
		st, err := f.engine.Standing(f.ctx, "weekly", "x5")
		testsvc.Must(t, err, "Standing")
		if st.Score != 10 {
			t.Errorf("x5's score %d after the refused writes, want 10", st.Score)
		}
	})
}
