package main

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// baselines are the plain Redis commands an operation costs at the least:
// one EVALSHA of a script that does nothing (a join, a score write, a
// standing: each is one script call) and one ZREVRANGE of a full board. They
// run on the same client, against the same Redis, at the same concurrency
// as the workload they stand beside, so their ratio holds on a noisy box.
//
// The EVALSHA is one plain round trip per call, as the targets define the
// baseline, even though the engine shares round trips between concurrent
// calls (league.WithSharedRoundTrips): the ratio is against what Redis does
// for callers that do not. With -baseline-autopipelined it goes through
// go-redis's autopipeliner instead, to show what sharing does for a script
// with nothing to do. ZREVRANGE is always sent alone.
type baselines struct {
	rdb    *redis.Client
	single redis.Scripter // rdb, or its autopipeliner
	label  string         // how the EVALSHA is sent
	script *redis.Script
	key    string // a short string for the script to GET
	board  string // a 100-member sorted set
}

const (
	evalshaLabel   = "EVALSHA trivial"
	zrevrangeLabel = "ZREVRANGE 0 99"
	baselineBoard  = 100
)

// newBaselines sets up the baselines' keys; with autopipeline the EVALSHA
// goes through the client's autopipeliner.
func newBaselines(ctx context.Context, rdb *redis.Client, ns string, autopipeline bool) (*baselines, error) {
	b := &baselines{
		rdb:    rdb,
		single: rdb,
		label:  evalshaLabel,
		script: redis.NewScript(`return redis.call('GET', KEYS[1])`),
		key:    ns + ":{baseline}:get",
		board:  ns + ":{baseline}:board",
	}
	if autopipeline {
		ap, err := rdb.AutoPipeline()
		if err != nil {
			return nil, fmt.Errorf("baseline autopipeliner: %w", err)
		}
		b.single, b.label = ap, evalshaLabel+", autopipelined"
	}
	if err := b.script.Load(ctx, rdb).Err(); err != nil {
		return nil, fmt.Errorf("baseline script: %w", err)
	}
	pipe := rdb.Pipeline()
	pipe.Set(ctx, b.key, "1", 0)
	members := make([]redis.Z, baselineBoard)
	for i := range members {
		// 12-character members and 53-bit scores, like a real board.
		members[i] = redis.Z{Member: fmt.Sprintf("baseline%04d", i), Score: float64(int64(1)<<52 + int64(i)*977)}
	}
	pipe.ZAdd(ctx, b.board, members...)
	if _, err := pipe.Exec(ctx); err != nil {
		return nil, fmt.Errorf("baseline keys: %w", err)
	}
	return b, nil
}

func (b *baselines) evalsha() op {
	keys := []string{b.key}
	return func(ctx context.Context, _ *worker) (int, error) {
		return one(b.script.EvalSha(ctx, b.single, keys).Err())
	}
}

func (b *baselines) zrevrange() op {
	return func(ctx context.Context, _ *worker) (int, error) {
		zs, err := b.rdb.ZRevRangeWithScores(ctx, b.board, 0, baselineBoard-1).Result()
		if err == nil && len(zs) != baselineBoard {
			err = fmt.Errorf("baseline board has %d members, want %d", len(zs), baselineBoard)
		}
		return one(err)
	}
}

// mix is the baseline of the mix workload: the same shares, each op
// replaced by its baseline.
func (b *baselines) mix() op {
	script, board := b.evalsha(), b.zrevrange()
	return func(ctx context.Context, w *worker) (int, error) {
		if w.rng.IntN(100) < mixWrites+mixStandings {
			return script(ctx, w)
		}
		return board(ctx, w)
	}
}
