package leaderboard_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/leaderboard"
	"github.com/league-engine/league/league"
)

// sideBySide opens one engine with two leaderboards alike but for their
// shards: "one" in one key per board, "many" over 7 shards; opts go to
// Open.
func sideBySide(t *testing.T, b testsvc.Backend, edit func(*leaderboard.Leaderboard), opts ...leaderboard.Option) *fixture {
	t.Helper()
	f := &fixture{tb: t, ctx: context.Background(), ns: testsvc.Namespace(t), clock: testsvc.NewClock(start)}
	f.rdb = b.New(t, f.ns)
	var boards []*leaderboard.Leaderboard
	for _, shards := range []int{1, 7} {
		boards = append(boards, newLeaderboard(t, func(l *leaderboard.Leaderboard) {
			l.ID, l.Shards = "one", shards
			if shards > 1 {
				l.ID = "many"
			}
			l.Participants = []leaderboard.Kind{leaderboard.Day}
			if edit != nil {
				edit(l)
			}
		}))
	}
	opts = append([]leaderboard.Option{leaderboard.WithNamespace(f.ns), leaderboard.WithClock(f.clock.Now)}, opts...)
	e, err := leaderboard.Open(f.ctx, f.rdb, boards, opts...)
	testsvc.Must(t, err, "Open")
	f.engine = e
	return f
}

// writeBoth makes n same random writes to both: of 300 members, small
// values so that many tie.
func writeBoth(t *testing.T, f *fixture, seed uint64, n int) []string {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 1))
	var members []string
	for i := range 300 {
		members = append(members, fmt.Sprintf("m%03d", i))
	}
	for range n {
		w := leaderboard.Write{Member: members[r.IntN(len(members))], Value: int64(r.IntN(4)), Actor: fmt.Sprintf("a%d", r.IntN(500))}
		for _, id := range []string{"one", "many"} {
			_, err := f.engine.Write(f.ctx, id, w)
			testsvc.Must(t, err, "write to %s", id)
		}
	}
	return members
}

// TestShardedMatchesUnsharded: on identical writes, a leaderboard over 7
// shards reads exactly as one over one, in both orders and both tie
// breaks: every page of every board, with the same size and participants;
// every member's standings (score, rank, gap, the period before); windows
// around members at the top, the bottom and between.
func TestShardedMatchesUnsharded(t *testing.T) {
	cases := map[string]func(*leaderboard.Leaderboard){
		"descending by member id":  nil,
		"ascending by member id":   func(l *leaderboard.Leaderboard) { l.Order = leaderboard.Ascending },
		"descending first reached": func(l *leaderboard.Leaderboard) { l.TieBreak = leaderboard.FirstReached },
		"best, ascending":          func(l *leaderboard.Leaderboard) { l.Operator, l.Order = leaderboard.Best, leaderboard.Ascending },
	}
	for _, b := range testsvc.Backends {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			sideBySideCases(t, b, cases)
		})
	}
}

func sideBySideCases(t *testing.T, b testsvc.Backend, cases map[string]func(*leaderboard.Leaderboard)) {
	{
		for name, edit := range cases {
			t.Run(name, func(t *testing.T) {
				t.Parallel() // each its own namespace; most of the time is waiting on round trips
				f := sideBySide(t, b, edit)
				members := writeBoth(t, f, 7, 1500)
				for _, k := range []leaderboard.Kind{leaderboard.Day, leaderboard.AllTime} {
					for _, page := range [][2]int{{0, 1000}, {0, 10}, {37, 50}, {290, 20}} {
						one, err := f.engine.Top(f.ctx, "one", k, "", page[0], page[1])
						testsvc.Must(t, err, "Top one")
						many, err := f.engine.Top(f.ctx, "many", k, "", page[0], page[1])
						testsvc.Must(t, err, "Top many")
						if got, want := entries(many.Entries), entries(one.Entries); got != want || many.Size != one.Size || many.Participants != one.Participants {
							t.Fatalf("%s page %v: sharded %d members, %d participants, unsharded %d, %d; entries differ from %q",
								k, page, many.Size, many.Participants, one.Size, one.Participants, firstDifference(got, want))
						}
					}
				}
				// an hour on: the hour before holds the writes above, the
				// current hour a few, without many members
				f.clock.Add(time.Hour)
				writeBoth(t, f, 8, 300)
				// every member on the real Redis; on miniredis, whose
				// scripts are slow under -race, every third
				if b.Name != "redis" {
					members = slices.Collect(func(yield func(string) bool) {
						for i := 0; i < len(members); i += 3 {
							if !yield(members[i]) {
								return
							}
						}
					})
				}
				sameStandings(t, f, members)
				sameWindows(t, f)
			})
		}
	}
}

// sameStandings compares every member's standings, and one not on the
// boards: in batches (of 50, as miniredis is slow) on the boards that
// differ (this week's and month's hold the same writes as today's), and
// one by one on every board for some.
func sameStandings(t *testing.T, f *fixture, members []string) {
	t.Helper()
	members = append(slices.Clone(members), "nobody")
	kinds := []leaderboard.Kind{leaderboard.Hour, leaderboard.Day, leaderboard.AllTime}
	for from := 0; from < len(members); from += 50 {
		batch := members[from:min(from+50, len(members))]
		one, errs, err := f.engine.Members(f.ctx, "one", batch, kinds)
		testsvc.Must(t, errors.Join(append(errs, err)...), "Members one")
		many, errs, err := f.engine.Members(f.ctx, "many", batch, kinds)
		testsvc.Must(t, errors.Join(append(errs, err)...), "Members many")
		for i, m := range batch {
			if got, want := standings(many[i]), standings(one[i]); got != want {
				t.Fatalf("%s: sharded %s\nunsharded %s", m, got, want)
			}
		}
	}
	for i := 0; i < len(members); i += 15 {
		one, err := f.engine.Member(f.ctx, "one", members[i])
		testsvc.Must(t, err, "Member one")
		many, err := f.engine.Member(f.ctx, "many", members[i])
		testsvc.Must(t, err, "Member many")
		if got, want := standings(many), standings(one); got != want {
			t.Fatalf("%s alone: sharded %s\nunsharded %s", members[i], got, want)
		}
	}
}

// standings renders a member's standings.
func standings(sts []leaderboard.Standing) string {
	s := ""
	for _, st := range sts {
		s += fmt.Sprintf("%s: %d #%d gap %d", st.Period.Kind, st.Score, st.Rank, st.Gap)
		if st.Previous != nil {
			s += fmt.Sprintf(" before %s %d #%d", st.Previous.Period.ID(), st.Previous.Score, st.Previous.Rank)
		}
		s += fmt.Sprintf(" (%d actors, incomplete %v); ", st.Participants, st.Incomplete)
	}
	return s
}

// sameWindows compares windows of several sizes around members at the
// top, the bottom and between of some boards, and one not on the board.
func sameWindows(t *testing.T, f *fixture) {
	t.Helper()
	for _, k := range []leaderboard.Kind{leaderboard.Hour, leaderboard.Day, leaderboard.AllTime} {
		top, err := f.engine.Top(f.ctx, "one", k, "", 0, leaderboard.MaxPage)
		testsvc.Must(t, err, "Top one")
		last := len(top.Entries) - 1
		for _, at := range []int{0, 1, 2, last / 2, last - 2, last - 1, last} {
			m := top.Entries[at].Member
			for _, n := range []int{0, 1, 3, 10, (leaderboard.MaxPage - 1) / 2} {
				one, err := f.engine.Around(f.ctx, "one", k, "", m, n)
				testsvc.Must(t, err, "Around one")
				many, err := f.engine.Around(f.ctx, "many", k, "", m, n)
				testsvc.Must(t, err, "Around many")
				if got, want := entries(many.Entries), entries(one.Entries); got != want || many.Size != one.Size ||
					many.Participants != one.Participants || many.Incomplete != one.Incomplete {
					t.Fatalf("%s around %s (rank %d), n %d: sharded %d members, %d participants, unsharded %d, %d; entries differ at %q",
						k, m, at+1, n, many.Size, many.Participants, one.Size, one.Participants, firstDifference(got, want))
				}
			}
		}
		for _, id := range []string{"one", "many"} {
			if _, err := f.engine.Around(f.ctx, id, k, "", "nobody", 2); league.ErrorCode(err) != league.NotFound {
				t.Errorf("%s: around a member not on the %s board: got %v, want NotFound", id, k, err)
			}
		}
	}
}

// TestShardBoardKey: ShardOf and ShardBoardKey name the key a write put
// each member in, for tools that fill boards directly.
func TestShardBoardKey(t *testing.T) {
	f := sideBySide(t, testsvc.Backends[1], nil)
	members := writeBoth(t, f, 3, 100)
	allTime := leaderboard.Period{Kind: leaderboard.AllTime}
	if got, want := leaderboard.ShardBoardKey(f.ns, "one", 0, allTime), leaderboard.BoardKey(f.ns, "one", allTime); got != want {
		t.Errorf("shard 0: got %q, want BoardKey's %q", got, want)
	}
	for _, m := range members {
		want, err := f.rdb.ZScore(f.ctx, leaderboard.BoardKey(f.ns, "one", allTime), m).Result()
		if err != nil {
			continue // not written
		}
		key := leaderboard.ShardBoardKey(f.ns, "many", leaderboard.ShardOf(m, 7), allTime)
		if got, err := f.rdb.ZScore(f.ctx, key, m).Result(); err != nil || got != want {
			t.Fatalf("%s in %s: got %v (%v), want %v", m, key, got, err, want)
		}
	}
}

// TestShardsBadConfig: what a sharded leaderboard cannot be, and pages
// past its depth.
func TestShardsBadConfig(t *testing.T) {
	for _, tt := range []struct {
		edit func(*leaderboard.Leaderboard)
		want string
	}{
		{func(l *leaderboard.Leaderboard) { l.Shards = 1025 }, "shards: 1025 is outside 1..1024"},
		{func(l *leaderboard.Leaderboard) { l.Shards = -1 }, "shards: -1 is outside"},
		{func(l *leaderboard.Leaderboard) {
			l.Shards, l.Queue = 4, &leaderboard.QueuePolicy{MaxLag: 100}
			l.Limits = []leaderboard.Limit{
				{By: []leaderboard.Dimension{leaderboard.OfActor, leaderboard.OfMember}, Per: leaderboard.PerDay, Max: 1},
				{By: []leaderboard.Dimension{leaderboard.OfActor}, Per: leaderboard.PerDay, Max: 1},
			}
		}, `limits[1]: "actor-day" does not count by member, which a sharded leaderboard takes in a step before the write, and a queue applies the write later`},
		{func(l *leaderboard.Leaderboard) { l.Shards, l.MaxDepth = 4, 10 }, "max_page_depth: 10 is outside 1000..1000000"},
	} {
		l := &leaderboard.Leaderboard{ID: "x", Kinds: []leaderboard.Kind{leaderboard.Day}}
		tt.edit(l)
		if err := l.Init(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("got %v, want %q", err, tt.want)
		}
	}
	f := open(t, testsvc.Backends[0], func(l *leaderboard.Leaderboard) { l.Shards, l.MaxDepth = 4, 2000 })
	_, err := f.engine.Top(f.ctx, "kills", leaderboard.Day, "", 1500, 600)
	if league.ErrorCode(err) != league.Invalid || !strings.Contains(err.Error(), "max_page_depth 2000") {
		t.Fatalf("a page past the depth: %v", err)
	}
	// a write sees one shard: it reports no rank, which needs them all
	if r := f.write("ann", 5); r.Boards[0].Rank != 0 || r.Boards[0].Score != 5 {
		t.Fatalf("a write's result on a sharded leaderboard: %+v", r.Boards[0])
	}
	// the shard count is recorded: another count is refused at Open
	other := newLeaderboard(t, func(l *leaderboard.Leaderboard) { l.Shards = 5 })
	if _, err := leaderboard.Open(f.ctx, f.rdb, []*leaderboard.Leaderboard{other}, leaderboard.WithNamespace(f.ns)); err == nil ||
		!strings.Contains(err.Error(), "shards: 5, but Redis holds it in 4") {
		t.Fatalf("Open with another shard count: %v", err)
	}
}

// firstDifference is where two renderings of a board part.
func firstDifference(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return a[max(0, i-20):min(len(a), i+40)] + " | " + b[max(0, i-20):min(len(b), i+40)]
}
