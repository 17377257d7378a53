package leaderboard_test

import (
	"context"
	"fmt"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/leaderboard"
)

// BenchmarkShardedVote: a vote (1 to one of 100 candidates from one of
// 10,000 voters) on a leaderboard of 16 shards with hour, day, week, month
// and all-time boards, with a limit by actor (taken before the write in
// the voter's shard: reserve.go) and without, against the real Redis
// (REDIS_URL), 32 in flight on 2 cores. The two take turns, three rounds
// each, with request ids and without (a request id makes the take record
// a reservation). redis-cpu-µs/op is the Redis process's CPU time per vote
// (INFO cpu), which the machine's noise moves less than the rate: run it
// on a Redis of its own.
//
//	go test ./leaderboard -run '^$' -bench ShardedVote -benchtime 3s
func BenchmarkShardedVote(b *testing.B) {
	ns := testsvc.Namespace(b)
	rdb := testsvc.Redis(b, ns)
	ctx := context.Background()
	var boards []*leaderboard.Leaderboard
	for _, id := range []string{"plain", "limited"} {
		boards = append(boards, newLeaderboard(b, func(l *leaderboard.Leaderboard) {
			l.ID, l.Shards = id, 16
			if id == "limited" {
				l.Limits = []leaderboard.Limit{{By: []leaderboard.Dimension{leaderboard.OfActor}, Per: leaderboard.PerDay, Max: 1 << 40}}
			}
		}))
	}
	e, err := leaderboard.Open(ctx, rdb, boards, leaderboard.WithNamespace(ns))
	testsvc.Must(b, err, "Open")
	var seq atomic.Int64
	run := func(id string, rid bool) func(b *testing.B) {
		return func(b *testing.B) {
			before := testsvc.RedisCPU(b, rdb)
			b.ResetTimer()
			b.SetParallelism(16)
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					n := seq.Add(1)
					w := leaderboard.Write{Member: fmt.Sprintf("c%02d", n%100), Value: 1, Actor: fmt.Sprintf("v%05d", (n*7919)%10000)}
					if rid {
						w.RequestID = "r" + strconv.FormatInt(n, 10)
					}
					if _, err := e.Write(ctx, id, w); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.StopTimer()
			b.ReportMetric((testsvc.RedisCPU(b, rdb)-before)/float64(b.N), "redis-cpu-µs/op")
		}
	}
	for round := range 3 {
		for _, rid := range []bool{true, false} {
			for _, id := range []string{"plain", "limited"} {
				name := fmt.Sprintf("%s/rid=%v/round=%d", id, rid, round)
				b.Run(name, run(id, rid))
			}
		}
	}
}
