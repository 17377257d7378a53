package league_test

import (
	"errors"
	"fmt"
	"math/rand"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/league"
	"github.com/league-engine/league/tiers"
)

// TestTenThousandConcurrentJoins: 10,000 players join from 50 goroutines in
// one period, a settlement spreads them over tiers, and they all join again
// from 50 goroutines: every board of a tier holds exactly board-size players
// but the last, nobody is placed twice and no slot is used twice.
func TestTenThousandConcurrentJoins(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b testsvc.Backend) {
		f := newFixture(t, b, func(l *league.League) { l.BoardSize = 100 })
		const players = 10000
		week := f.period()
		first := joinAll(t, f, players)
		checkPlacements(t, f, first, map[string]int{"bronze": players})

		rng := rand.New(rand.NewSource(1))
		writes := make([]league.ScoreWrite, 0, players)
		for i := 0; i < players; i++ {
			writes = append(writes, league.ScoreWrite{Player: fmt.Sprintf("player%05d", i), Value: int64(rng.Intn(50))})
		}
		for lo := 0; lo < players; lo += league.MaxBatch {
			_, errs, err := f.engine.ScoreBatch(f.ctx, "weekly", writes[lo:lo+league.MaxBatch])
			testsvc.Must(t, err, "ScoreBatch")
			for _, e := range errs {
				testsvc.Must(t, e, "write")
			}
		}

		f.clock.After(week.End)
		outcomes := f.settle(week)
		want := map[string]int{}
		for _, o := range outcomes {
			want[f.league.Ladder.Tier(o.TierAfter).ID]++
		}
		if want["silver"] == 0 {
			t.Fatalf("settlement promoted nobody: %v", want)
		}
		second := joinAll(t, f, players)
		checkPlacements(t, f, second, want)
		for _, o := range outcomes {
			if got := second[o.Player].Tier; got != f.league.Ladder.Tier(o.TierAfter).ID {
				t.Fatalf("%s joined %s, settlement decided %s", o.Player, got, f.league.Ladder.Tier(o.TierAfter).ID)
			}
		}
	})
}

func joinAll(t *testing.T, f *fixture, players int) map[string]league.Placement {
	t.Helper()
	var mu sync.Mutex
	out := make(map[string]league.Placement, players)
	var wg sync.WaitGroup
	work := make(chan int)
	for g := 0; g < 50; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				id := fmt.Sprintf("player%05d", i)
				p, err := f.engine.Join(f.ctx, "weekly", league.JoinRequest{Player: id, Name: id})
				if err != nil {
					t.Errorf("join %s: %v", id, err)
					return
				}
				mu.Lock()
				out[id] = p
				mu.Unlock()
			}
		}()
	}
	for i := 0; i < players; i++ {
		work <- i
	}
	close(work)
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	return out
}

// checkPlacements checks that the joins filled each tier's boards in order
// with distinct slots and that the boards in Redis agree.
func checkPlacements(t *testing.T, f *fixture, got map[string]league.Placement, perTier map[string]int) {
	t.Helper()
	size := f.league.BoardSize
	slots := map[string]string{}
	count := map[league.BoardID]int{}
	tierCount := map[string]int{}
	for player, p := range got {
		key := fmt.Sprintf("%s/%d", p.Board, p.Slot)
		if other, dup := slots[key]; dup {
			t.Fatalf("slot %s given to %s and %s", key, other, player)
		}
		slots[key] = player
		count[p.Board]++
		tierCount[p.Tier]++
	}
	if !reflect.DeepEqual(tierCount, perTier) {
		t.Fatalf("players per tier %v, want %v", tierCount, perTier)
	}
	for tier, n := range perTier {
		boards := (n + size - 1) / size
		for k := 1; k <= boards; k++ {
			want := size
			if k == boards {
				want = n - (boards-1)*size
			}
			id := league.BoardID{Tier: tier, N: k}
			if count[id] != want {
				t.Fatalf("board %s has %d placements, want %d", id, count[id], want)
			}
			b, err := f.engine.Board(f.ctx, "weekly", league.Period{}, id)
			testsvc.Must(t, err, "Board %s", id)
			if len(b.Entries) != want {
				t.Fatalf("board %s holds %d players in Redis, want %d", id, len(b.Entries), want)
			}
		}
		if count[league.BoardID{Tier: tier, N: boards + 1}] != 0 {
			t.Fatalf("tier %s spilled past board %d", tier, boards)
		}
	}
}

// TestRolloverBeforeSettlement: the new period starts while settlement of the
// old one has not run. Joins then decide the tier from the frozen board with
// the settlement rules, deliver rewards once, and agree with the settlement
// that follows.
func TestRolloverBeforeSettlement(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b testsvc.Backend) {
		f := newFixture(t, b)
		week := f.period()
		for i := 0; i < 20; i++ { // two bronze boards of 10
			p := fmt.Sprintf("p%02d", i)
			f.join(p)
			f.score(p, int64(100-i)) // p00 best
		}
		f.clock.After(week.End)

		// Before settlement a standing tells the reward the next join will
		// deliver from the frozen board, which is not pending yet.
		if s, err := f.engine.Standing(f.ctx, "weekly", "p01"); err != nil || s.Earned == nil ||
			s.Earned.Rank != 2 || !s.Earned.Earned.Equal(week.Start) || !reflect.DeepEqual(s.Earned.Items, []tiers.Item{{ID: "gems", Qty: 50}}) {
			t.Fatalf("p01's standing before settlement: %+v, %v; want rank 2's 50 gems earned in %s", s, err, week)
		}
		if s, err := f.engine.Standing(f.ctx, "weekly", "p05"); err != nil || s.Earned != nil {
			t.Fatalf("p05's standing before settlement: %+v, %v; want nothing earned", s, err)
		}

		// Before settlement: p00 (rank 1 of board 1) and p12 (rank 3 of board 2)
		// join, racing themselves.
		early := map[string]league.Placement{}
		for _, p := range []string{"p00", "p12", "p05"} {
			var wg sync.WaitGroup
			results := make([]league.Placement, 20)
			for i := range results {
				wg.Add(1)
				go func() { defer wg.Done(); results[i] = f.join(p) }()
			}
			wg.Wait()
			for _, r := range results[1:] {
				if !reflect.DeepEqual(r.Rewards, results[0].Rewards) || r.Tier != results[0].Tier {
					t.Fatalf("%s: racing joins disagree: %+v vs %+v", p, r, results[0])
				}
			}
			early[p] = results[0]
		}
		gems := func(n int64) []tiers.Item { return []tiers.Item{{ID: "gems", Qty: n}} }
		checkJoin(t, early["p00"], "silver", week, 1, gems(100))
		checkJoin(t, early["p12"], "bronze", week, 3, gems(50)) // rank 3 of 10: outside the 20%
		checkJoin(t, early["p05"], "bronze", week, 0, nil)

		outcomes := f.settle(week)
		for _, o := range outcomes {
			if e, ok := early[o.Player]; ok && e.Tier != f.league.Ladder.Tier(o.TierAfter).ID {
				t.Fatalf("%s joined early in %s; settlement decided %s", o.Player, e.Tier, f.league.Ladder.Tier(o.TierAfter).ID)
			}
		}

		// After settlement: the rest join; p01 gets its rewards now, p00 none again.
		checkJoin(t, f.join("p01"), "silver", week, 2, gems(50))
		checkJoin(t, f.join("p11"), "silver", week, 2, gems(50))
		checkJoin(t, f.join("p19"), "bronze", week, 0, nil)
		again := f.join("p00")
		if !again.Rejoined || !reflect.DeepEqual(again.Rewards, early["p00"].Rewards) {
			t.Fatalf("retried join of p00: %+v, want the first join's rewards again", again)
		}
		next := f.period()
		f.clock.After(next.End)
		for _, p := range []string{"p00", "p01", "p12"} {
			if r := f.join(p); earnedIn(r.Rewards, week) != 0 {
				t.Fatalf("%s got the rewards of %s again in the following period: %+v", p, week, r.Rewards)
			}
		}

		// Every delivery is in the claims stream exactly once.
		read, err := f.engine.ReadJoinRecords(f.ctx, "weekly", "test", 100, time.Millisecond)
		testsvc.Must(t, err, "ReadJoinRecords")
		seen := map[string]int{}
		if len(read.Decays) != 0 {
			t.Fatalf("decays %+v in a league without decay", read.Decays)
		}
		for _, c := range read.Claims {
			if c.Rank == 0 || len(c.Items) != 1 {
				t.Fatalf("claim %+v", c)
			}
			if c.Earned.Equal(week.Start) {
				seen[c.Player]++
			} else if seen[c.Player+"@next"]++; seen[c.Player+"@next"] > 1 {
				t.Fatalf("claim %+v twice", c)
			}
		}
		for _, p := range []string{"p00", "p12", "p01", "p11"} {
			if seen[p] != 1 {
				t.Fatalf("%s has %d claims of %s, want 1 (%v)", p, seen[p], week, seen)
			}
		}
		if len(seen) != 4+3 { // and p00, p01, p12 collected the second week's in the third
			t.Fatalf("claims %v", seen)
		}

		// A consumer holding claims ("test", not yet acknowledged) is not
		// pruned whatever its idle time; once it holds none, it is.
		prune := func(keep string, want int) {
			t.Helper()
			n, err := f.engine.PruneClaimConsumers(f.ctx, "weekly", keep, 0)
			testsvc.Must(t, err, "PruneClaimConsumers")
			if n != want {
				t.Fatalf("PruneClaimConsumers(keep %q) pruned %d, want %d", keep, n, want)
			}
		}
		prune("nobody", 0) // "test" holds the claims

		// Not acknowledged (the store failed): the same consumer's next read
		// returns them again at once, not a minute later. An entry that
		// holds no claim (deleted while pending) is dropped, not returned.
		stream := f.ns + ":{weekly}:x"
		bad := f.rdb.XAdd(f.ctx, &redis.XAddArgs{Stream: stream, Values: []any{"player", ""}}).Val()
		extra, err := f.engine.ReadJoinRecords(f.ctx, "weekly", "other", 100, time.Millisecond) // takes the bad one
		testsvc.Must(t, err, "ReadJoinRecords of the bad entry")
		reread, err := f.engine.ReadJoinRecords(f.ctx, "weekly", "test", 100, time.Millisecond)
		testsvc.Must(t, err, "ReadJoinRecords again")
		if extra.Len() != 0 || reread.Len() != read.Len() {
			t.Fatalf("a read of an empty entry: %d records; the unacknowledged records read again: %d, want %d", extra.Len(), reread.Len(), read.Len())
		}
		if pending := f.rdb.XPendingExt(f.ctx, &redis.XPendingExtArgs{Stream: stream, Group: "recorder", Start: bad, End: bad, Count: 1}).Val(); len(pending) != 0 {
			t.Fatalf("the empty entry is still pending: %+v", pending)
		}
		testsvc.Must(t, f.engine.AckJoinRecords(f.ctx, "weekly", read), "AckJoinRecords")
		prune("test", 1) // "other", holding nothing; "test" kept by name
		read, err = f.engine.ReadJoinRecords(f.ctx, "weekly", "test", 100, time.Millisecond)
		testsvc.Must(t, err, "ReadJoinRecords")
		if read.Len() != 0 {
			t.Fatalf("%d records left after ack", read.Len())
		}
		prune("nobody", 1) // "test", nothing pending now
	})
}

// earnedIn counts the rewards earned in period p.
func earnedIn(rs []league.Reward, p league.Period) int {
	n := 0
	for _, r := range rs {
		if r.Earned.Equal(p.Start) {
			n++
		}
	}
	return n
}

func checkJoin(t *testing.T, p league.Placement, tier string, earned league.Period, rank int, items []tiers.Item) {
	t.Helper()
	if p.Tier != tier {
		t.Fatalf("joined %s, want %s", p.Tier, tier)
	}
	if items == nil {
		if len(p.Rewards) != 0 {
			t.Fatalf("rewards %+v, want none", p.Rewards)
		}
		return
	}
	if len(p.Rewards) != 1 || p.Rewards[0].Rank != rank || !p.Rewards[0].Earned.Equal(earned.Start) ||
		!reflect.DeepEqual(p.Rewards[0].Items, items) {
		t.Fatalf("rewards %+v, want rank %d of %s: %v", p.Rewards, rank, earned, items)
	}
}

// TestApplyIsRepeatable: running the apply step twice, even after a player
// claimed their rewards, delivers nothing twice.
func TestApplyIsRepeatable(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b testsvc.Backend) {
		f := newFixture(t, b)
		week := f.period()
		for i := 0; i < 10; i++ {
			p := fmt.Sprint("p", i)
			f.join(p)
			f.score(p, int64(10-i))
		}
		f.clock.After(week.End)
		outcomes := f.settle(week)
		if r := f.join("p0"); len(r.Rewards) != 1 {
			t.Fatalf("p0 rewards %v, want 1", r.Rewards)
		}
		testsvc.Must(t, f.engine.Apply(f.ctx, "weekly", week, outcomes), "Apply again")
		next := f.period()
		f.clock.After(next.End)
		if r := f.join("p0"); earnedIn(r.Rewards, week) != 0 || r.Tier != "silver" {
			t.Fatalf("p0 after a repeated apply: %+v", r)
		}
		if r := f.join("p1"); len(r.Rewards) != 1 || r.Tier != "silver" {
			// p1 sat out the second week and collects in the third
			t.Fatalf("p1: %+v, want silver with its rewards", r)
		}
	})
}

// TestAbsenceDecay: with decay_after 2, a gold player who sits out two weeks
// others played comes back in silver; weeks nobody played (the service was
// down, the league paused) are nobody's absence.
func TestAbsenceDecay(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b testsvc.Backend) {
		f := newFixture(t, b, func(l *league.League) {
			l.DecayAfter = 2
			// everyone who scores climbs, so one player can climb alone
			l.Ladder, _ = tiers.NewLadder([]tiers.Tier{
				{ID: "bronze", Promote: 10000, MinPromoteScore: 1},
				{ID: "silver", Promote: 10000, MinPromoteScore: 1},
				{ID: "gold"},
			})
		})
		climb := func() {
			w := f.period()
			f.join("a")
			f.score("a", 10)
			f.clock.After(w.End)
			f.settle(w)
		}
		climb() // bronze -> silver
		climb() // silver -> gold
		if p := f.join("a"); p.Tier != "gold" {
			t.Fatalf("a is %s, want gold", p.Tier)
		}
		w := f.period()
		f.clock.After(w.End)
		f.settle(w) // gold is the top: a stays
		standing := func(want, when string) {
			t.Helper()
			s, err := f.engine.Standing(f.ctx, "weekly", "a")
			testsvc.Must(t, err, "Standing")
			if s.Joined || s.Tier != want {
				t.Fatalf("standing after %s: %+v, want not joined, %s", when, s, want)
			}
		}
		for i := 0; i < 2; i++ { // two weeks nobody played
			f.clock.After(f.period().End)
		}
		standing("gold", "two weeks nobody played")
		othersPlay := func(weeks int) {
			for i := 0; i < weeks; i++ {
				w := f.period()
				f.join("b")
				f.clock.After(w.End)
				f.settle(w)
			}
		}
		othersPlay(2)
		standing("silver", "two weeks away")
		// Redis keeps the latest periods played that can matter: enough for
		// an absence to drop a player from the top to the bottom.
		othersPlay(8)
		standing("bronze", "ten weeks away")
		if n := f.rdb.ZCard(f.ctx, f.ns+":{weekly}:played").Val(); n != 2*3+1 {
			t.Errorf("%d periods played kept, want 7", n)
		}
		if p := f.join("a"); p.Tier != "bronze" {
			t.Fatalf("a came back in %s, want bronze", p.Tier)
		}
	})
}

// TestClockStepBackAfterADecision: once a join of the next period has
// decided a player's tier from a board, that board is final. A Redis whose
// clock steps back into the period (a failover to a replica whose clock is
// behind) takes no more writes there, and settlement agrees with the
// decision the join delivered.
func TestClockStepBackAfterADecision(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b testsvc.Backend) {
		f := newFixture(t, b)
		week := f.period()
		for i, p := range []string{"x1", "x2", "x3", "x4", "x5"} {
			f.join(p)
			f.score(p, int64(50-10*i))
		}
		f.clock.Set(week.End.Add(500 * time.Millisecond))
		decided := f.join("x1") // rank 1 of 5: promoted, with rank 1's gems
		if decided.Tier != "silver" || len(decided.Rewards) != 1 {
			t.Fatalf("x1's join after the week: %+v, want silver with a reward", decided)
		}
		f.clock.Set(week.End.Add(-4 * time.Second))
		if _, err := f.engine.Score(f.ctx, "weekly", league.ScoreWrite{Player: "x5", Value: 100}); !errors.Is(err, league.ErrPeriodClosed) {
			t.Fatalf("a write into the decided week after the clock stepped back: %v, want period closed", err)
		}
		f.clock.Set(week.End.Add(time.Second))
		for _, o := range f.settle(week) {
			if o.Player == "x1" && f.league.Ladder.Tier(o.TierAfter).ID != decided.Tier {
				t.Errorf("settlement put x1 in %s; their join delivered %s", f.league.Ladder.Tier(o.TierAfter).ID, decided.Tier)
			}
		}
	})
}
