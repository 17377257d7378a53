package league_test

import (
	"context"
	"reflect"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/league"
	"github.com/league-engine/league/tiers"
)

// TestJoinDecidesAgainUnderRulesRecordedMeanwhile: a join that decided a
// returning player's tier under its own rules, while another process
// recorded other rules for that period between the join's two round trips,
// is refused by join.lua and decides again under the recorded rules.
func TestJoinDecidesAgainUnderRulesRecordedMeanwhile(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b testsvc.Backend) {
		f := newFixture(t, b)
		week := f.period()
		fillBoard(f)
		// The other process's rules promote every bronze player.
		ts := f.league.Ladder.Tiers()
		ts[0].Promote, ts[0].MinPromoteScore = tiers.RatioScale, 0
		ol, err := f.openWith(ts, "").League("weekly")
		testsvc.Must(t, err, "League")
		other := ol.Ladder

		// This engine's client records the other rules just before the
		// join's second round trip (the one carrying its decision) runs.
		counters := f.ns + ":{weekly}:c:" + strconv.FormatInt(week.Start.Unix(), 10)
		hooked := redis.NewClient(f.rdb.Options())
		t.Cleanup(func() { hooked.Close() })
		var fired atomic.Bool
		hooked.AddHook(recordBefore{decision: func(cmd redis.Cmder) bool {
			args := cmd.Args() // evalsha, sha, 9 keys, then 24 ARGV: ARGV[14] is the decided tier
			return len(args) == 3+9+24 && args[0] == "evalsha" && args[3+9+13] != ""
		}, run: func(ctx context.Context) {
			if !fired.Swap(true) {
				f.rdb.HSet(ctx, counters, "ladder", other.Fingerprint())
			}
		}})
		e, err := league.Open(f.ctx, hooked, []*league.League{f.league}, league.WithNamespace(f.ns),
			league.WithClock(f.clock.Now), league.WithSharedRoundTrips(0))
		testsvc.Must(t, err, "Open")

		f.clock.After(week.End)
		p, err := e.Join(f.ctx, "weekly", league.JoinRequest{Player: "p9", Name: "p9"})
		testsvc.Must(t, err, "Join")
		if !fired.Load() || p.Tier != "silver" {
			t.Fatalf("p9 (rank 10) joined %s (rules recorded meanwhile: %v); the recorded rules promote the whole board", p.Tier, fired.Load())
		}
		if got := f.rdb.HGet(f.ctx, counters, "ladder").Val(); got != other.Fingerprint() {
			t.Errorf("the period's rules: %q, want the other process's %q", got, other.Fingerprint())
		}
	})
}

// openWith opens another process's engine on f's league with tiers ts
// (entry, if not "", the tier newcomers start in), as a replica with
// another config would.
func (f *fixture) openWith(ts []tiers.Tier, entry string) *league.Engine {
	f.tb.Helper()
	ladder, err := tiers.NewLadder(ts)
	testsvc.Must(f.tb, err, "NewLadder")
	return f.openReplica(func(l *league.League) { l.Ladder, l.EntryTier = ladder, entry })
}

// openReplica opens another process's engine on f's league, its config
// edited by edit.
func (f *fixture) openReplica(edit func(*league.League)) *league.Engine {
	f.tb.Helper()
	e, err := league.Open(f.ctx, f.rdb, []*league.League{testLeague(f.tb, edit)}, league.WithNamespace(f.ns), league.WithClock(f.clock.Now))
	testsvc.Must(f.tb, err, "Open another process")
	return e
}

// fillBoard fills bronze-1 with p0..p9, ranked in that order.
func fillBoard(f *fixture) {
	f.tb.Helper()
	for i := 0; i < 10; i++ {
		id := "p" + strconv.Itoa(i)
		f.join(id)
		f.score(id, int64(100-i))
	}
}

// recordBefore is a go-redis hook that runs run before any command for
// which decision says so.
type recordBefore struct {
	decision func(redis.Cmder) bool
	run      func(context.Context)
}

func (h recordBefore) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h recordBefore) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if h.decision(cmd) {
			h.run(ctx)
		}
		return next(ctx, cmd)
	}
}

func (h recordBefore) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// TestTierAddedByAnotherProcess: a process whose config lacks a tier that
// another process's newer config added (a rollout under way) never answers
// 500 and never decides what it cannot: a join of a player in that tier
// stands and names it, score writes and standings of such a player are
// unavailable (what was written stands; a retry elsewhere replays it), and
// it neither decides nor closes a period under rules its tiers cannot carry.
func TestTierAddedByAnotherProcess(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b testsvc.Backend) {
		f := newFixture(t, b)
		week := f.period()
		fillBoard(f)
		// The newer config: master above gold, gold promotes into it, and
		// newcomers enter it (to get a player there in one step).
		ts := f.league.Ladder.Tiers()
		ts[2].Promote = 2000
		ts = append(ts, tiers.Tier{ID: "master", Demote: 3000})
		newer := f.openWith(ts, "master")

		// A player the newer process placed in master, seen by the older.
		_, err := newer.Join(f.ctx, "weekly", league.JoinRequest{Player: "m1", Name: "m1"})
		testsvc.Must(t, err, "newer join")
		p, err := f.engine.Join(f.ctx, "weekly", league.JoinRequest{Player: "m1", Name: "m1"})
		if err != nil || p.Tier != "master" || !p.Rejoined {
			t.Fatalf("older process's join of a master player: %+v, %v", p, err)
		}
		_, err = f.engine.Score(f.ctx, "weekly", league.ScoreWrite{Player: "m1", Value: 5, RequestID: "m1-a"})
		if league.ErrorCode(err) != league.Unavailable {
			t.Errorf("older process's score write for a master player: %v, want unavailable", err)
		}
		// The older process wrote nothing: the retry on the newer one is
		// the first write.
		if r, err := newer.Score(f.ctx, "weekly", league.ScoreWrite{Player: "m1", Value: 5, RequestID: "m1-a"}); err != nil || r.Replayed || r.Score != 5 {
			t.Errorf("the retry on the newer process: %+v, %v; want the write applied once, there", r, err)
		}
		if _, errs, err := f.engine.ScoreBatch(f.ctx, "weekly", []league.ScoreWrite{{Player: "m1", Value: 5}}); err != nil ||
			league.ErrorCode(errs[0]) != league.Unavailable {
			t.Fatalf("older process's batch write for a master player: %v, %v; want unavailable", errs, err)
		}
		if s, err := newer.Standing(f.ctx, "weekly", "m1"); err != nil || s.Score != 5 {
			t.Errorf("after the older process's refused batch write: %+v, %v; want 5", s, err)
		}
		if _, err := f.engine.Standing(f.ctx, "weekly", "m1"); league.ErrorCode(err) != league.Unavailable {
			t.Errorf("older process's standing of a master player: %v, want unavailable", err)
		}
		// master's board: unavailable on the older process, not unknown.
		if _, err := f.engine.Board(f.ctx, "weekly", league.Period{}, league.BoardID{Tier: "master", N: 1}); league.ErrorCode(err) != league.Unavailable {
			t.Errorf("older process's read of a master board: %v, want unavailable", err)
		}
		if _, err := f.engine.Board(f.ctx, "weekly", league.Period{}, league.BoardID{Tier: "nowhere", N: 1}); league.ErrorCode(err) != league.NotFound {
			t.Errorf("a board of a tier no process has: %v, want not found", err)
		}
		// A tier added by a config rolled back before anyone played it is
		// unknown again, not unavailable for ever.
		f.openWith(append(ts, tiers.Tier{ID: "tin", Demote: 1000}), "")
		if _, err := f.engine.Board(f.ctx, "weekly", league.Period{}, league.BoardID{Tier: "tin", N: 1}); league.ErrorCode(err) != league.NotFound {
			t.Errorf("a board of a tier added and rolled back, never played: %v, want not found", err)
		}

		f.clock.After(week.End)
		// m1's next tier is decided from a master board: not by a process
		// without master (it would drop m1 to another tier).
		before := f.dump()
		if _, err := f.engine.Join(f.ctx, "weekly", league.JoinRequest{Player: "m1", Name: "m1"}); league.ErrorCode(err) != league.Unavailable {
			t.Errorf("older process's join of m1 in the next period: %v, want unavailable", err)
		}
		if _, err := f.engine.Standing(f.ctx, "weekly", "m1"); league.ErrorCode(err) != league.Unavailable {
			t.Errorf("older process's standing of m1 in the next period: %v, want unavailable", err)
		}
		if after := f.dump(); !reflect.DeepEqual(before, after) {
			t.Errorf("the refused join of m1 wrote to Redis")
		}
		counters := f.ns + ":{weekly}:c:" + strconv.FormatInt(week.Start.Unix(), 10)
		if _, err := f.engine.Close(f.ctx, "weekly", week); league.ErrorCode(err) != league.Unavailable {
			t.Fatalf("older process's close of a period with master players: %v, want unavailable", err)
		}
		if f.rdb.HExists(f.ctx, counters, "ladder").Val() || f.rdb.HExists(f.ctx, counters, "closed").Val() {
			t.Fatalf("the refused close recorded its rules or closed the period")
		}
		// The newer process decides the period first; the older cannot
		// decide under its rules and refuses without writing.
		_, err = newer.Join(f.ctx, "weekly", league.JoinRequest{Player: "p0", Name: "p0"})
		testsvc.Must(t, err, "newer join of a returning player")
		before = f.dump()
		if _, err := f.engine.Join(f.ctx, "weekly", league.JoinRequest{Player: "p1", Name: "p1"}); league.ErrorCode(err) != league.Unavailable {
			t.Errorf("older process's join under rules it cannot carry: %v, want unavailable", err)
		}
		if after := f.dump(); !reflect.DeepEqual(before, after) {
			t.Errorf("the refused join wrote to Redis")
		}
	})
}

// TestScoreRefusedForAnyTierTheConfigLacks: tier codes are handed out in
// order of first use, so a tier a process lacks can have a lower code than
// one it has (copper, added and rolled back, then added again while this
// process has master). Its players' writes are refused before anything is
// written, whatever the code.
func TestScoreRefusedForAnyTierTheConfigLacks(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b testsvc.Backend) {
		f := newFixture(t, b)
		ts := f.league.Ladder.Tiers()
		ts[2].Promote = 2000
		open := func(top string, entry string) *league.Engine {
			return f.openWith(append(append([]tiers.Tier(nil), ts...), tiers.Tier{ID: top, Demote: 3000}), entry)
		}
		withCopper := open("copper", "copper") // copper's code first
		withMaster := open("master", "")       // then master's, higher: this process lacks copper
		_, err := withCopper.Join(f.ctx, "weekly", league.JoinRequest{Player: "c1", Name: "c1"})
		testsvc.Must(t, err, "join into copper")

		if _, err := withMaster.Score(f.ctx, "weekly", league.ScoreWrite{Player: "c1", Value: 10}); league.ErrorCode(err) != league.Unavailable {
			t.Errorf("a write for a copper player on a process without copper: %v, want unavailable", err)
		}
		if _, errs, err := withMaster.ScoreBatch(f.ctx, "weekly", []league.ScoreWrite{{Player: "c1", Value: 10}}); err != nil ||
			league.ErrorCode(errs[0]) != league.Unavailable {
			t.Errorf("a batch write for a copper player there: %v, %v; want unavailable", errs, err)
		}
		if s, err := withCopper.Standing(f.ctx, "weekly", "c1"); err != nil || s.Score != 0 {
			t.Errorf("after the refused writes: %+v, %v; want nothing written", s, err)
		}
	})
}

// TestPeriodKeepsItsScoreOperator: replicas rolling out a new
// score_operator never mix two in one period. The period's first join
// records the operator of the process that served it, and every write of
// that period uses it, whichever process serves the write; the next period
// takes the operator of its own first join.
func TestPeriodKeepsItsScoreOperator(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b testsvc.Backend) {
		f := newFixture(t, b) // incr
		setter := f.openReplica(func(l *league.League) { l.Operator = league.Set })
		write := func(e *league.Engine, v int64) int64 {
			t.Helper()
			r, err := e.Score(f.ctx, "weekly", league.ScoreWrite{Player: "a", Value: v})
			testsvc.Must(t, err, "Score")
			return r.Score
		}

		week := f.period()
		f.join("a") // the incr process joins first
		if got := []int64{write(f.engine, 50), write(setter, 3), write(f.engine, 2)}; !reflect.DeepEqual(got, []int64{50, 53, 55}) {
			t.Fatalf("scores in a period first joined under incr: %v, want 50 53 55 (every write adds)", got)
		}

		f.clock.After(week.End)
		_, err := setter.Join(f.ctx, "weekly", league.JoinRequest{Player: "a", Name: "a"}) // the set process joins first
		testsvc.Must(t, err, "Join")
		if got := []int64{write(f.engine, 50), write(setter, 3), write(f.engine, 2)}; !reflect.DeepEqual(got, []int64{50, 3, 2}) {
			t.Fatalf("scores in a period first joined under set: %v, want 50 3 2 (every write replaces)", got)
		}

		// Settled and forgotten, a period leaves no operator behind, nor
		// does one before it an older version settled (it kept the field).
		meta := f.ns + ":{weekly}:meta"
		stale := "op:" + strconv.FormatInt(week.Start.Unix()-7*86400, 10)
		testsvc.Must(t, f.rdb.HSet(f.ctx, meta, stale, "incr").Err(), "an older version's leftover")
		f.clock.After(f.period().End)
		f.settle(week)
		testsvc.Must(t, f.engine.Forget(f.ctx, "weekly", week), "Forget")
		next := "op:" + strconv.FormatInt(week.End.Unix(), 10)
		for field, want := range map[string]bool{"op:" + strconv.FormatInt(week.Start.Unix(), 10): false, stale: false, next: true} {
			if got := f.rdb.HExists(f.ctx, meta, field).Val(); got != want {
				t.Errorf("after the week was forgotten, meta has %s: %v, want %v", field, got, want)
			}
		}
	})
}

// TestPeriodBegunWithoutAnOperator: a period a version without operators
// began (no op:<S> in meta) takes the operator of its first write, and
// keeps it whichever process serves the next.
func TestPeriodBegunWithoutAnOperator(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b testsvc.Backend) {
		f := newFixture(t, b) // incr
		setter := f.openReplica(func(l *league.League) { l.Operator = league.Set })
		week := f.period()
		f.join("a")
		testsvc.Must(t, f.rdb.HDel(f.ctx, f.ns+":{weekly}:meta", "op:"+strconv.FormatInt(week.Start.Unix(), 10)).Err(), "as an older version left it")
		var got []int64
		for _, w := range []struct {
			e *league.Engine
			v int64
		}{{setter, 50}, {f.engine, 3}, {setter, 2}} {
			r, err := w.e.Score(f.ctx, "weekly", league.ScoreWrite{Player: "a", Value: w.v})
			testsvc.Must(t, err, "Score")
			got = append(got, r.Score)
		}
		if !reflect.DeepEqual(got, []int64{50, 3, 2}) {
			t.Fatalf("scores of a period whose first write was a set: %v, want 50 3 2", got)
		}
	})
}
