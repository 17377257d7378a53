package leaderboard_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/leaderboard"
)

// reshardFixture is one Redis and the engines of several processes over
// it, with "one" (one shard, for ever) beside "many" (whose count
// changes), hour and day boards.
type reshardFixture struct {
	t     *testing.T
	ctx   context.Context
	rdb   redis.UniversalClient
	ns    string
	clock *testsvc.Clock
}

func (f *reshardFixture) open(shards int) (*leaderboard.Engine, error) {
	var boards []*leaderboard.Leaderboard
	for _, id := range []string{"one", "many"} {
		boards = append(boards, newLeaderboard(f.t, func(l *leaderboard.Leaderboard) {
			l.ID, l.Kinds, l.Participants = id, []leaderboard.Kind{leaderboard.Hour, leaderboard.Day}, []leaderboard.Kind{leaderboard.Day}
			if id == "many" {
				l.Shards = shards
			}
		}))
	}
	return leaderboard.Open(f.ctx, f.rdb, boards, leaderboard.WithNamespace(f.ns), leaderboard.WithClock(f.clock.Now))
}

// write makes the same write to both through e.
func (f *reshardFixture) write(e *leaderboard.Engine, w leaderboard.Write) (one, many leaderboard.WriteResult) {
	f.t.Helper()
	var err [2]error
	one, err[0] = e.Write(f.ctx, "one", w)
	many, err[1] = e.Write(f.ctx, "many", w)
	testsvc.Must(f.t, errors.Join(err[:]...), "write %+v", w)
	return one, many
}

// same checks that both leaderboards read alike through every engine:
// the boards of the periods given (ids; "" the current), and every
// member's standings, the period before included.
func (f *reshardFixture) same(engines []*leaderboard.Engine, members []string, periods map[leaderboard.Kind][]string) {
	f.t.Helper()
	for n, e := range engines {
		for k, ids := range periods {
			for _, id := range ids {
				one, err := e.Top(f.ctx, "one", k, id, 0, 1000)
				testsvc.Must(f.t, err, "Top one")
				many, err := e.Top(f.ctx, "many", k, id, 0, 1000)
				testsvc.Must(f.t, err, "Top many")
				if got, want := entries(many.Entries), entries(one.Entries); got != want || many.Size != one.Size || many.Participants != one.Participants {
					f.t.Fatalf("engine %d, %s %q: resharded %d members, %d participants, one shard %d, %d; entries differ at %q",
						n, k, id, many.Size, many.Participants, one.Size, one.Participants, firstDifference(got, want))
				}
				if id == "" && one.Size == 0 {
					f.t.Fatalf("engine %d, %s: the current board is empty: the test shows nothing", n, k)
				}
			}
		}
		one, errs, err := e.Members(f.ctx, "one", members, nil)
		testsvc.Must(f.t, errors.Join(append(errs, err)...), "Members one")
		many, errs, err := e.Members(f.ctx, "many", members, nil)
		testsvc.Must(f.t, errors.Join(append(errs, err)...), "Members many")
		for i, m := range members {
			if got, want := standings(many[i]), standings(one[i]); got != want {
				f.t.Fatalf("engine %d, %s: resharded %s, one shard %s", n, m, got, want)
			}
		}
	}
}

// TestReshardAtBoundary: a leaderboard's shard count changes at the first
// instant that begins a period of each of its boards, at least a minute
// after the process configured with the new count opened; until then every
// process writes under the old count, from then on under the new, and
// every board of either side reads exactly as a leaderboard of one shard
// fed the same writes (its pages, sizes, participants, each member's
// standings with the period before). A request id sent again across the
// switch answers its first result, though the member's shard changed.
func TestReshardAtBoundary(t *testing.T) {
	for _, b := range testsvc.Backends {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			f := &reshardFixture{t: t, ctx: context.Background(), ns: testsvc.Namespace(t), clock: testsvc.NewClock(start)}
			f.rdb = b.New(t, f.ns)
			reshardAtBoundary(f)
		})
	}
}

// TestReshardOnCluster: TestReshardAtBoundary on Redis Cluster, where the
// shards of both counts spread over its nodes.
func TestReshardOnCluster(t *testing.T) {
	rdb := testsvc.Cluster(t, nil)
	f := &reshardFixture{t: t, ctx: context.Background(), ns: testsvc.Namespace(t), clock: testsvc.NewClock(start), rdb: rdb}
	t.Cleanup(func() {
		rdb.ForEachMaster(context.Background(), func(ctx context.Context, m *redis.Client) error {
			return testsvc.DeleteNamespace(ctx, m, f.ns)
		})
	})
	reshardAtBoundary(f)
}

func reshardAtBoundary(f *reshardFixture) {
	t := f.t
	old, err := f.open(3)
	testsvc.Must(t, err, "Open with 3 shards")
	if sw, err := old.Switch("many"); err != nil || sw != nil {
		t.Fatalf("a new leaderboard's switch: %+v, %v", sw, err)
	}
	// start is 2026-11-25 10:30 UTC: the day boards begin at midnight
	at := time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)
	cur, err := f.open(5)
	testsvc.Must(t, err, "Open with 5 shards")
	want := leaderboard.ShardSwitch{From: 3, To: 5, At: at}
	if sw, err := cur.Switch("many"); err != nil || sw == nil || *sw != want {
		t.Fatalf("the switch scheduled: %+v, %v; want %+v", sw, err, want)
	}
	leaderboard.RefreshPlans(old)
	if sw, _ := old.Switch("many"); sw == nil || *sw != want {
		t.Fatalf("the switch as the older process reads it: %+v; want %+v", sw, want)
	}
	engines := []*leaderboard.Engine{old, cur}
	r := rand.New(rand.NewPCG(11, 1))
	var members []string
	for i := range 120 {
		members = append(members, fmt.Sprintf("m%03d", i))
	}
	writeSome := func(n int) {
		for i := range n {
			f.write(engines[i%2], leaderboard.Write{Member: members[r.IntN(len(members))], Value: int64(r.IntN(5)),
				Actor: fmt.Sprintf("a%d", r.IntN(50))})
		}
	}
	writeSome(300)
	f.clock.Set(at.Add(-90 * time.Minute))
	writeSome(200)
	// a write just before the switch, of a member the switch moves
	moved := ""
	for _, m := range members {
		if leaderboard.ShardOf(m, 3) != leaderboard.ShardOf(m, 5) {
			moved = m
			break
		}
	}
	f.clock.Set(at.Add(-time.Second))
	retry := leaderboard.Write{Member: moved, Value: 3, RequestID: "late-1", Actor: "a1"}
	first, _ := f.write(old, retry)
	f.same(engines, members, map[leaderboard.Kind][]string{leaderboard.Day: {""}, leaderboard.Hour: {""}})

	f.clock.Set(at.Add(time.Second))
	for _, e := range engines {
		one, many := f.write(e, retry)
		if !one.Replayed || !many.Replayed || many.Boards[1].Score != first.Boards[1].Score || many.Boards[1].Period.Start != at.Add(-24*time.Hour) {
			t.Fatalf("the retry across the switch: one %+v, resharded %+v; the first write %+v", one, many, first)
		}
	}
	writeSome(300)
	f.clock.Set(at.Add(3*time.Hour + 30*time.Minute))
	writeSome(200)
	f.same(engines, members, map[leaderboard.Kind][]string{
		leaderboard.Day:  {"", "20261125T000000Z"},
		leaderboard.Hour: {"", "20261125T230000Z", "20261126T000000Z"},
	})
	// the boards after the switch are in 5 shards
	for s := range 5 {
		n, err := f.rdb.ZCard(f.ctx, leaderboard.ShardBoardKey(f.ns, "many", s, leaderboard.Period{Kind: leaderboard.Day, Start: at})).Result()
		if err != nil || n == 0 {
			t.Fatalf("shard %d of the day after the switch holds %d members (%v)", s, n, err)
		}
	}

	// the same count again changes nothing; another schedules the
	// next switch, and the count before it cancels that
	if _, err := f.open(5); err != nil {
		t.Fatalf("Open with the count in force: %v", err)
	}
	next, err := f.open(2)
	testsvc.Must(t, err, "Open with 2 shards")
	if sw, _ := next.Switch("many"); sw == nil || *sw != (leaderboard.ShardSwitch{From: 5, To: 2, At: at.Add(24 * time.Hour)}) {
		t.Fatalf("the next switch: %+v", sw)
	}
	back, err := f.open(5)
	testsvc.Must(t, err, "Open with 5 shards again")
	if sw, _ := back.Switch("many"); sw == nil || *sw != want {
		t.Fatalf("after a switch cancelled: %+v, want %+v", sw, want)
	}
}

// TestReshardRefused: what outlives a period keeps a leaderboard's count;
// a change is refused at Open, naming why.
func TestReshardRefused(t *testing.T) {
	for name, tt := range map[string]struct {
		edit func(*leaderboard.Leaderboard)
		want string
	}{
		"all time": {func(l *leaderboard.Leaderboard) {}, "an all-time board"},
		"rolling": {func(l *leaderboard.Leaderboard) {
			l.Kinds, l.Windows = []leaderboard.Kind{leaderboard.Day}, []leaderboard.Window{{Unit: leaderboard.Hour, N: 24}}
		}, "rolling boards"},
		"carry over": {func(l *leaderboard.Leaderboard) {
			l.Kinds, l.CarryOver = []leaderboard.Kind{leaderboard.Day}, map[leaderboard.Kind]int{leaderboard.Day: 10}
		}, "carry_over"},
	} {
		t.Run(name, func(t *testing.T) {
			f := &reshardFixture{t: t, ctx: context.Background(), ns: testsvc.Namespace(t), clock: testsvc.NewClock(start)}
			f.rdb = testsvc.Backends[1].New(t, f.ns)
			for i, shards := range []int{2, 3} {
				l := newLeaderboard(t, func(l *leaderboard.Leaderboard) { tt.edit(l); l.Shards = shards })
				_, err := leaderboard.Open(f.ctx, f.rdb, []*leaderboard.Leaderboard{l}, leaderboard.WithNamespace(f.ns), leaderboard.WithClock(f.clock.Now))
				if i == 0 {
					testsvc.Must(t, err, "Open")
				} else if err == nil || !strings.Contains(err.Error(), "shards: 3, but Redis holds it in 2") || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("Open with another count: %v; want it to name %q", err, tt.want)
				}
			}
		})
	}
}

// TestReshardQueued: writes queued before a switch and applied after it
// count on the boards before it, under the count before it; those queued
// after, under the new count; every stream is drained, nothing lost or
// doubled.
func TestReshardQueued(t *testing.T) {
	for _, b := range testsvc.Backends {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			f := &reshardFixture{t: t, ctx: context.Background(), ns: testsvc.Namespace(t), clock: testsvc.NewClock(start)}
			f.rdb = b.New(t, f.ns)
			open := func(shards int) *leaderboard.Engine {
				l := newLeaderboard(t, func(l *leaderboard.Leaderboard) {
					l.ID, l.Kinds, l.Shards = "q", []leaderboard.Kind{leaderboard.Day}, shards
					l.Queue = &leaderboard.QueuePolicy{MaxLag: 10_000}
				})
				e, err := leaderboard.Open(f.ctx, f.rdb, []*leaderboard.Leaderboard{l}, leaderboard.WithNamespace(f.ns), leaderboard.WithClock(f.clock.Now))
				testsvc.Must(t, err, "Open with %d shards", shards)
				return e
			}
			old, cur := open(2), open(4)
			leaderboard.RefreshPlans(old)
			at := time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)
			r := rand.New(rand.NewPCG(5, 1))
			sums := [2]map[string]int64{{}, {}} // before the switch, after
			enqueue := func(side int) {
				var ws []leaderboard.Write
				for range 100 {
					w := leaderboard.Write{Member: fmt.Sprintf("m%02d", r.IntN(40)), Value: int64(1 + r.IntN(9))}
					ws, sums[side][w.Member] = append(ws, w), sums[side][w.Member]+w.Value
				}
				for i, e := range []*leaderboard.Engine{old, cur} {
					_, errs, err := e.Enqueue(f.ctx, "q", ws[i*50:(i+1)*50])
					testsvc.Must(t, errors.Join(append(errs, err)...), "Enqueue")
				}
			}
			f.clock.Set(at.Add(-30 * time.Second))
			enqueue(0)
			f.clock.Set(at.Add(30 * time.Second))
			enqueue(1)
			for lag, rounds := int64(1), 0; lag > 0; rounds++ {
				if rounds == 100 {
					t.Fatalf("%d writes still queued after %d drains of each engine", lag, rounds)
				}
				for _, e := range []*leaderboard.Engine{old, cur} {
					_, err := e.Drain(f.ctx, "q")
					testsvc.Must(t, err, "Drain")
				}
				var err error
				lag, err = cur.Lag(f.ctx, "q")
				testsvc.Must(t, err, "Lag")
			}
			for side, id := range []string{"20261125T000000Z", ""} {
				board, err := cur.Top(f.ctx, "q", leaderboard.Day, id, 0, 100)
				testsvc.Must(t, err, "Top")
				got := map[string]int64{}
				for _, en := range board.Entries {
					got[en.Member] = en.Score
				}
				if fmt.Sprint(got) != fmt.Sprint(sums[side]) || board.Size != len(sums[side]) {
					t.Fatalf("day %q: got %v (%d members), want %v", id, got, board.Size, sums[side])
				}
			}
		})
	}
}
