package league_test

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/league"
	"github.com/league-engine/league/tiers"
)

// monday is a period start of the weekly test schedule.
var monday = time.Date(2026, 11, 16, 0, 0, 0, 0, time.UTC)

// testLadder is bronze -> silver -> gold: bronze promotes 20% of players with
// a score, silver promotes and demotes 20%, gold demotes 30%. Ranks 1-3 of
// every tier earn gems.
func testLadder(tb testing.TB) *tiers.Ladder {
	tb.Helper()
	rewards := []tiers.Band{
		{From: 1, To: 1, Items: []tiers.Item{{ID: "gems", Qty: 100}}},
		{From: 2, To: 3, Items: []tiers.Item{{ID: "gems", Qty: 50}}},
	}
	l, err := tiers.NewLadder([]tiers.Tier{
		{ID: "bronze", Name: "Bronze", Promote: 2000, MinPromoteScore: 1, Rewards: rewards},
		{ID: "silver", Name: "Silver", Promote: 2000, Demote: 2000, Rewards: rewards},
		{ID: "gold", Name: "Gold", Demote: 3000, Rewards: rewards},
	})
	if err != nil {
		tb.Fatal(err)
	}
	return l
}

// testLeague is a weekly league (Mondays 00:00 UTC) with the test ladder.
func testLeague(tb testing.TB, edit ...func(*league.League)) *league.League {
	tb.Helper()
	s, err := league.ParseSchedule("0 0 * * MON")
	if err != nil {
		tb.Fatal(err)
	}
	l := &league.League{ID: "weekly", BoardSize: 10, Schedule: s, Ladder: testLadder(tb)}
	for _, f := range edit {
		f(l)
	}
	if err := l.Init(); err != nil {
		tb.Fatalf("Init: %v", err)
	}
	return l
}

type fixture struct {
	tb     testing.TB
	ctx    context.Context
	rdb    *redis.Client
	ns     string
	clock  *testsvc.Clock
	engine *league.Engine
	league *league.League
}

// newFixture opens an engine on rdb for one test league, its clock at the

// withMinBoardSize is l's ladder with min_board_size n on every tier.
func withMinBoardSize(tb testing.TB, l *league.League, n int) *tiers.Ladder {
	tb.Helper()
	ts := l.Ladder.Tiers()
	for i := range ts {
		ts[i].MinBoardSize = n
	}
	ld, err := tiers.NewLadder(ts)
	testsvc.Must(tb, err, "ladder")
	return ld
}

// start of the week of monday.
func newFixture(tb testing.TB, b testsvc.Backend, edit ...func(*league.League)) *fixture {
	tb.Helper()
	return newFixtureWith(tb, b, nil, edit...)
}

// newFixtureWith is newFixture with more engine options.
func newFixtureWith(tb testing.TB, b testsvc.Backend, opts []league.Option, edit ...func(*league.League)) *fixture {
	tb.Helper()
	ns := testsvc.Namespace(tb)
	f := &fixture{tb: tb, ctx: context.Background(), ns: ns, clock: testsvc.NewClock(monday.Add(time.Hour))}
	f.rdb = b.New(tb, ns)
	f.league = testLeague(tb, edit...)
	e, err := league.Open(f.ctx, f.rdb, []*league.League{f.league},
		append([]league.Option{league.WithNamespace(ns), league.WithClock(f.clock.Now)}, opts...)...)
	if err != nil {
		tb.Fatalf("Open: %v", err)
	}
	f.engine = e
	return f
}

func (f *fixture) join(player string) league.Placement {
	f.tb.Helper()
	p, err := f.engine.Join(f.ctx, f.league.ID, league.JoinRequest{Player: player, Name: "name " + player})
	if err != nil {
		f.tb.Fatalf("Join(%s): %v", player, err)
	}
	return p
}

func (f *fixture) score(player string, v int64) league.ScoreResult {
	f.tb.Helper()
	r, err := f.engine.Score(f.ctx, f.league.ID, league.ScoreWrite{Player: player, Value: v})
	if err != nil {
		f.tb.Fatalf("Score(%s, %d): %v", player, v, err)
	}
	return r
}

func (f *fixture) period() league.Period {
	p, err := f.engine.Current(f.league.ID)
	if err != nil {
		f.tb.Fatal(err)
	}
	return p
}

// settle runs the Redis side of settlement for period p as the scheduler
// does, without a store: close, read and decide, apply, mark.
func (f *fixture) settle(p league.Period) []tiers.Outcome {
	f.tb.Helper()
	pop, err := f.engine.Close(f.ctx, f.league.ID, p)
	if err != nil {
		f.tb.Fatalf("Close: %v", err)
	}
	var all []tiers.Outcome
	_, err = f.engine.Decide(f.ctx, f.league.ID, p, pop, func(b league.DecidedBoard) error {
		all = append(all, b.Outcomes...)
		return nil
	})
	if err != nil {
		f.tb.Fatalf("Decide: %v", err)
	}
	if err := f.engine.Apply(f.ctx, f.league.ID, p, all); err != nil {
		f.tb.Fatalf("Apply: %v", err)
	}
	if err := f.engine.MarkSettled(f.ctx, f.league.ID, p); err != nil {
		f.tb.Fatalf("MarkSettled: %v", err)
	}
	return all
}

// keyCount counts the keys of the fixture's namespace.
func (f *fixture) keyCount() int {
	f.tb.Helper()
	keys, err := f.rdb.Keys(f.ctx, f.ns+":*").Result()
	if err != nil {
		f.tb.Fatal(err)
	}
	return len(keys)
}

// dump returns every key and its contents in the namespace, to prove a
// refused call wrote nothing. Contents, not DUMP: a hash big enough to be a
// hash table serializes in its table's order, which a read can change (a
// step of incremental rehashing).
func (f *fixture) dump() map[string]string {
	f.tb.Helper()
	keys, err := f.rdb.Keys(f.ctx, f.ns+":*").Result()
	if err != nil {
		f.tb.Fatal(err)
	}
	out := map[string]string{}
	for _, k := range keys {
		t := f.rdb.Type(f.ctx, k).Val()
		v := t
		switch t {
		case "hash":
			v += ":" + mapString(f.rdb.HGetAll(f.ctx, k).Val())
		case "zset":
			for _, z := range f.rdb.ZRangeWithScores(f.ctx, k, 0, -1).Val() {
				v += ":" + z.Member.(string) + "=" + strconv.FormatFloat(z.Score, 'f', -1, 64)
			}
		case "string":
			v += ":" + f.rdb.Get(f.ctx, k).Val()
		case "stream":
			for _, m := range f.rdb.XRange(f.ctx, k, "-", "+").Val() {
				v += ":" + m.ID + "=" + fmt.Sprint(m.Values)
			}
		default:
			f.tb.Fatalf("dump: key %s of type %s", k, t)
		}
		out[k] = v
	}
	return out
}

func mapString(m map[string]string) string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	s := ""
	for _, k := range ks {
		s += k + "=" + m[k] + ","
	}
	return s
}

// roundTripModes are the engine's two ways of sending single calls: shared
// round trips (the default) and one round trip each.
var roundTripModes = []struct {
	name string
	opts []league.Option
}{
	{"shared", nil},
	{"plain", []league.Option{league.WithSharedRoundTrips(0)}},
}

func forEachBackend(t *testing.T, fn func(t *testing.T, b testsvc.Backend)) {
	for _, b := range testsvc.Backends {
		t.Run(b.Name, func(t *testing.T) { fn(t, b) })
	}
}
