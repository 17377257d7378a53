package leaderboard_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/leaderboard"
)

// BenchmarkShardedVote: a vote (1 to one of 100 candidates from one of
// 10,000 voters) on a leaderboard of 16 shards with hour, day, week, month
// and all-time boards, with a limit by actor (taken before the write in
// the voter's shard: reserve.go) and without, against the real Redis
// (REDIS_URL), 32 in flight on 2 cores. The two take turns, three rounds
// each, with request ids and without (a request id makes the take record
// a reservation). redis-µs/op is the Redis time of every command per vote
// (INFO commandstats), which the machine's noise moves less than the rate.
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
			before := redisUsec(b, rdb)
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
			b.ReportMetric(float64(redisUsec(b, rdb)-before)/float64(b.N), "redis-µs/op")
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

// redisUsec is the Redis time the scripts took so far (INFO
// commandstats' usec of EVALSHA, which holds the commands a script calls:
// they are counted apart too). Another client's scripts on the same Redis
// count as well: measure on a Redis of its own.
func redisUsec(b *testing.B, rdb *redis.Client) int64 {
	info, err := rdb.Info(context.Background(), "commandstats").Result()
	testsvc.Must(b, err, "INFO commandstats")
	var sum int64
	for _, line := range strings.Split(info, "\n") {
		_, stats, ok := strings.Cut(line, ":")
		if !strings.HasPrefix(line, "cmdstat_evalsha") || !ok {
			continue
		}
		for _, f := range strings.Split(stats, ",") {
			if v, ok := strings.CutPrefix(f, "usec="); ok {
				n, _ := strconv.ParseInt(v, 10, 64)
				sum += n
			}
		}
	}
	return sum
}
