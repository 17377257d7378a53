package leaderboard

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/league-engine/league/internal/testsvc"
)

var rankStart = time.Date(2026, 11, 25, 10, 30, 0, 0, time.UTC)

// openSharded opens one leaderboard "many" over 5 shards, edited by edit.
func openSharded(t *testing.T, b testsvc.Backend, edit func(*Leaderboard)) (*Engine, *Leaderboard, *redis.Client) {
	t.Helper()
	ns := testsvc.Namespace(t)
	rdb := b.New(t, ns)
	l := &Leaderboard{ID: "many", Kinds: []Kind{AllTime, Day}, Shards: 5}
	if edit != nil {
		edit(l)
	}
	testsvc.Must(t, l.Init(), "Init")
	e, err := Open(context.Background(), rdb, []*Leaderboard{l}, WithNamespace(ns), WithClock(testsvc.NewClock(rankStart).Now))
	testsvc.Must(t, err, "Open")
	return e, l, rdb
}

// TestRankProbes holds lb_rank.lua, through rankShards, to a brute force:
// every entry of every shard sorted by before. Probes at members' own
// scores, at other members' scores (ties: the member id decides, bytewise,
// whatever the server's locale), between scores, for members not on the
// board, and for members whose entry stands at another score (written
// between the engine's two round trips: left out, as if at the score
// asked).
func TestRankProbes(t *testing.T) {
	ids := []string{"A", "a", "B", "b", "a-b", "ab", "a_b", "Ab", "m1", "m10", "m2", "~", "!", "Z9", "z", "aa", "a.", "-"}
	for _, b := range testsvc.Backends {
		for _, order := range []Order{Descending, Ascending} {
			t.Run(fmt.Sprintf("%s %s", b.Name, order), func(t *testing.T) {
				e, l, _ := openSharded(t, b, func(l *Leaderboard) { l.Order = order })
				ctx := context.Background()
				r := rand.New(rand.NewPCG(3, 4))
				for range 60 {
					_, err := e.Write(ctx, "many", Write{Member: ids[r.IntN(len(ids)-3)], Value: int64(r.IntN(3))})
					testsvc.Must(t, err, "write")
				}
				p := l.Calendar.At(Day, e.Now())
				var all []redis.Z
				for _, k := range e.shards(l) {
					zs, err := e.rdb.ZRangeWithScores(ctx, k.board(p), 0, -1).Result()
					testsvc.Must(t, err, "ZRANGE")
					all = append(all, zs...)
				}
				scores := map[string]float64{}
				for _, z := range all {
					scores[z.Member.(string)] = z.Score
				}
				var probes []probe
				for _, m := range ids {
					for _, z := range all {
						probes = append(probes, probe{member: m, packed: z.Score, n: r.IntN(4)})
						probes = append(probes, probe{member: m, packed: z.Score + 0.5, n: r.IntN(4)})
					}
					if s, ok := scores[m]; ok {
						probes = append(probes, probe{member: m, packed: s, n: 20})
					}
					probes = append(probes, probe{member: m, packed: -1, n: 2}, probe{member: m, packed: 1e9, n: 2})
				}
				got, err := e.rankShards(ctx, l, []Period{p}, nil, probes)
				testsvc.Must(t, err, "rankShards")
				if got.sizes[0] != len(all) {
					t.Fatalf("size: got %d, want %d", got.sizes[0], len(all))
				}
				desc := order != Ascending
				for i, q := range probes {
					board := []redis.Z{{Member: q.member, Score: q.packed}}
					for _, z := range all {
						if z.Member != q.member {
							board = append(board, z)
						}
					}
					slices.SortFunc(board, func(a, b redis.Z) int {
						if before(a, b, desc) {
							return -1
						}
						return 1
					})
					at := slices.IndexFunc(board, func(z redis.Z) bool { return z.Member == q.member })
					want := shardPlace{before: at, above: board[max(0, at-q.n):at], below: board[at+1 : min(len(board), at+1+q.n)]}
					if g := got.places[i]; g.before != want.before || fmt.Sprint(g.above) != fmt.Sprint(want.above) || fmt.Sprint(g.below) != fmt.Sprint(want.below) {
						t.Fatalf("%s at %v (n %d, now at %v): got %d %v %v, want %d %v %v", q.member, q.packed, q.n, scores[q.member],
							g.before, g.above, g.below, want.before, want.above, want.below)
					}
				}
			})
		}
	}
}

// TestShardedIncomplete: a sharded rolling board is complete only when
// every shard's pre-fill says so, for Member as for Around.
func TestShardedIncomplete(t *testing.T) {
	for _, b := range testsvc.Backends {
		t.Run(b.Name, func(t *testing.T) {
			e, l, rdb := openSharded(t, b, func(l *Leaderboard) { l.Windows = []Window{{N: 24, Unit: Hour}} })
			ctx := context.Background()
			for i := range 20 {
				_, err := e.Write(ctx, "many", Write{Member: fmt.Sprintf("m%d", i), Value: int64(i)})
				testsvc.Must(t, err, "write")
			}
			p := l.Calendar.At("24h", e.Now())
			check := func(want bool) {
				t.Helper()
				sts, err := e.Member(ctx, "many", "m7")
				testsvc.Must(t, err, "Member")
				b, err := e.Around(ctx, "many", "24h", "", "m7", 1)
				testsvc.Must(t, err, "Around")
				if got := sts[len(sts)-1]; got.Incomplete != want || got.Rank != 13 || b.Incomplete != want || b.Entries[1].Rank != 13 {
					t.Errorf("got %+v and %+v, want incomplete %v, rank 13", got, b, want)
				}
			}
			check(true)
			for _, k := range e.shards(l) {
				testsvc.Must(t, rdb.Set(ctx, k.filled(p), filledMark, 0).Err(), "SET")
			}
			check(false)
			testsvc.Must(t, rdb.Del(ctx, e.shards(l)[3].filled(p)).Err(), "DEL")
			check(true)
		})
	}
}
