package league_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/league"
)

// The benchmarks run against the real Redis (REDIS_URL) in parallel: 16
// goroutines per GOMAXPROCS (32 on a 2-core box, the concurrency of the
// BENCHMARKS.md runs). Each engine
// operation is compared with BenchmarkBaselineEvalSha, a trivial script in the
// same run: one round trip with nothing to do, the floor for an operation
// that costs one round trip.
//
//	go test ./league -run '^$' -bench . -benchtime 3s

var benchSeq atomic.Int64

func benchFixture(b *testing.B) *fixture {
	b.Helper()
	f := newFixture(b, testsvc.Backends[0], func(l *league.League) { l.BoardSize = 100 })
	return f
}

func BenchmarkBaselineEvalSha(b *testing.B) {
	ns := testsvc.Namespace(b)
	rdb := testsvc.Redis(b, ns)
	s := redis.NewScript(`return redis.call('GET', KEYS[1])`)
	ctx := context.Background()
	if err := s.Load(ctx, rdb).Err(); err != nil {
		b.Fatal(err)
	}
	key := ns + ":k"
	cpu := testsvc.StartCPU(b, rdb)
	b.ResetTimer()
	b.SetParallelism(16)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := s.EvalSha(ctx, rdb, []string{key}).Err(); err != nil && err != redis.Nil {
				b.Error(err)
				return
			}
		}
	})
	cpu.Report(b)
}

func BenchmarkJoin(b *testing.B) {
	f := benchFixture(b)
	b.ResetTimer()
	b.SetParallelism(16)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			id := fmt.Sprintf("player%09d", benchSeq.Add(1))
			if _, err := f.engine.Join(f.ctx, "weekly", league.JoinRequest{Player: id, Name: id}); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// benchPlayers joins n players and returns their ids.
func benchPlayers(b *testing.B, f *fixture, n int) []string {
	b.Helper()
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("player%09d", i)
		if _, err := f.engine.Join(f.ctx, "weekly", league.JoinRequest{Player: ids[i], Name: ids[i]}); err != nil {
			b.Fatal(err)
		}
	}
	return ids
}

func BenchmarkScore(b *testing.B) { benchScore(b, false) }

// BenchmarkScoreNoRank is BenchmarkScore's write asking for no rank
// (ScoreWrite.NoRank): score.lua without its ZREVRANK and ZCARD.
func BenchmarkScoreNoRank(b *testing.B) { benchScore(b, true) }

func benchScore(b *testing.B, noRank bool) {
	f := benchFixture(b)
	ids := benchPlayers(b, f, 1000)
	cpu := testsvc.StartCPU(b, f.rdb)
	b.ResetTimer()
	b.SetParallelism(16)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := benchSeq.Add(1)
			w := league.ScoreWrite{Player: ids[i%int64(len(ids))], Value: 1, RequestID: fmt.Sprint("r", i), NoRank: noRank}
			if _, err := f.engine.Score(f.ctx, "weekly", w); err != nil {
				b.Error(err)
				return
			}
		}
	})
	cpu.Report(b)
}

func BenchmarkScoreBatch100(b *testing.B) {
	f := benchFixture(b)
	ids := benchPlayers(b, f, 1000)
	b.ResetTimer()
	b.SetParallelism(16)
	b.RunParallel(func(pb *testing.PB) {
		writes := make([]league.ScoreWrite, 100)
		for pb.Next() {
			for j := range writes {
				i := benchSeq.Add(1)
				writes[j] = league.ScoreWrite{Player: ids[i%int64(len(ids))], Value: 1, RequestID: fmt.Sprint("r", i)}
			}
			if _, _, err := f.engine.ScoreBatch(f.ctx, "weekly", writes); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N*100)/b.Elapsed().Seconds(), "writes/s")
}

func BenchmarkStanding(b *testing.B) {
	f := benchFixture(b)
	ids := benchPlayers(b, f, 1000)
	b.ResetTimer()
	b.SetParallelism(16)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := f.engine.Standing(f.ctx, "weekly", ids[benchSeq.Add(1)%int64(len(ids))]); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

func BenchmarkBoard(b *testing.B) {
	f := benchFixture(b)
	benchPlayers(b, f, 100)
	id := league.BoardID{Tier: "bronze", N: 1}
	b.ResetTimer()
	b.SetParallelism(16)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := f.engine.Board(f.ctx, "weekly", league.Period{}, id); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

func BenchmarkBaselineZRevRange100(b *testing.B) {
	ns := testsvc.Namespace(b)
	rdb := testsvc.Redis(b, ns)
	ctx := context.Background()
	key := ns + ":z"
	for i := 0; i < 100; i++ {
		rdb.ZAdd(ctx, key, redis.Z{Score: float64(i), Member: fmt.Sprintf("player%06d", i)})
	}
	b.ResetTimer()
	b.SetParallelism(16)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := rdb.ZRevRangeWithScores(ctx, key, 0, 99).Err(); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
