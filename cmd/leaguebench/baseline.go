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
//
// lbtop's baseline reads the top 100 of a sorted set shaped like the day
// board it stands beside (sized), not the 100-member set a league board is
// held to. A league board holds 100 players with 53-bit packed scores, and
// the set is made like it; a leaderboard's day board holds every member who
// played that day (-players of them) with scores of a few digits (ties by
// member id pack no time bits). Both differences change what the plain
// read costs Redis: a 10,000-member set is a skiplist (a descent, then 100
// steps), a 100-member one a listpack walked end to end, and a 53-bit score
// takes longer to format than a small one (redis-benchmark, 32 in flight,
// on the 2-vCPU box: ZREVRANGE 0 99 WITHSCORES ran at ~11-12k/s with 53-bit
// scores, 100 or 10,000 members, and ~15-19k/s with scores 1..10). Against
// the league's set the ratio would fold those into what is charged to the
// product (here flattering it); against a set of the same size and scores
// only the product's own cost is left (the period from the clock, the ZCARD
// beside the page, the scores unpacked, HTTP), which is what the target is
// about.
type baselines struct {
	rdb    *redis.Client
	ns     string
	single redis.Scripter // rdb, or its autopipeliner
	label  string         // how the EVALSHA is sent
	script *redis.Script
	key    string // a short string for the script to GET
	board  string // a 100-member sorted set
	// sized are sorted sets of leaderboard members, by size: as many
	// members as a day board lbtop reads, 12 characters each, scores 1..10
	// as the fixture writes them.
	sized map[int]string
}

// baselineMembers are the baseline board's members.
var baselineMembers = func() []string {
	m := make([]string, baselineBoard)
	for i := range m {
		m[i] = fmt.Sprintf("baseline%04d", i)
	}
	return m
}()

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
		ns:     ns,
		sized:  map[int]string{},
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
	if err := zaddFloorScript.Load(ctx, rdb).Err(); err != nil {
		return nil, fmt.Errorf("zaddfloor's script: %w", err)
	}
	pipe := rdb.Pipeline()
	pipe.Set(ctx, b.key, "1", 0)
	members := make([]redis.Z, baselineBoard)
	for i := range members {
		// 12-character members and 53-bit scores, like a real board.
		members[i] = redis.Z{Member: baselineMembers[i], Score: float64(int64(1)<<52 + int64(i)*977)}
	}
	pipe.ZAdd(ctx, b.board, members...)
	if _, err := pipe.Exec(ctx); err != nil {
		return nil, fmt.Errorf("baseline keys: %w", err)
	}
	return b, nil
}

// addSized adds a sorted set of n members for lbtop's baseline, unless
// there is one.
func (b *baselines) addSized(ctx context.Context, n int) error {
	if _, ok := b.sized[n]; ok {
		return nil
	}
	key := fmt.Sprintf("%s:{baseline}:board:%d", b.ns, n)
	const chunk = 1000
	members := make([]redis.Z, 0, chunk)
	for i := 0; i < n; i += chunk {
		members = members[:0]
		for j := i; j < min(i+chunk, n); j++ {
			members = append(members, redis.Z{Member: fmt.Sprintf("base%08d", j), Score: float64(1 + j%10)})
		}
		if err := b.rdb.ZAdd(ctx, key, members...).Err(); err != nil {
			return fmt.Errorf("baseline board of %d: %w", n, err)
		}
	}
	b.sized[n] = key
	return nil
}

// sizedLabel is the label of the baseline of a set of n members.
func (b *baselines) sizedLabel(n int) string { return zrevrangeLabel + " of " + thousands(float64(n)) }

func (b *baselines) evalsha() op {
	keys := []string{b.key}
	return func(ctx context.Context, _ *worker) (int, error) {
		return one(b.script.EvalSha(ctx, b.single, keys).Err())
	}
}

func (b *baselines) zrevrange() op { return b.top(b.board, baselineBoard) }

// zrevrangeOf reads the top 100 of the set of n members (addSized).
func (b *baselines) zrevrangeOf(n int) op {
	key, ok := b.sized[n]
	if !ok {
		return func(context.Context, *worker) (int, error) {
			return 0, fmt.Errorf("no baseline board of %d members", n)
		}
	}
	return b.top(key, n)
}

// top reads ZREVRANGE 0 99 WITHSCORES of key, a set of size members.
func (b *baselines) top(key string, size int) op {
	want := min(size, baselineBoard)
	return func(ctx context.Context, _ *worker) (int, error) {
		zs, err := b.rdb.ZRevRangeWithScores(ctx, key, 0, baselineBoard-1).Result()
		if err == nil && len(zs) != want {
			err = fmt.Errorf("baseline board has %d members, want %d", len(zs), want)
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
