package main

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/league-engine/league/leaderboard"
)

// Sharded leaderboards (issue #22): each workload holds a leaderboard of
// -shards shards ("sharded") beside one of a single shard ("one"), alike
// but for their shards.
//
//	lbshards      not live: -players members in each, on an all-time board
//	              alone, written by pipelined ZADDs of shardFillChunk
//	              members straight into the keys the engine reads
//	              (leaderboard.ShardOf, ShardBoardKey: the fill is not the
//	              engine's write, which is what makes 10M members quick),
//	              scores 1..1,000,000 alike in both; Redis bytes per member
//	              of each (INFO used_memory's growth over its fill, and
//	              MEMORY USAGE of its keys); then, at each -concurrency, the
//	              top 100 (Engine.Top) and a member's exact rank
//	              (Engine.Member) of each, beside the same read of the
//	              single key done plainly (ZREVRANGE 0 99 WITHSCORES,
//	              ZREVRANK)
//	lbshardwrite  lbwrite's write (five boards, a fresh request id) to the
//	              sharded leaderboard beside the same write to the other,
//	              at each -concurrency, -players members written to each
//	              first; on REDIS_URL, then on the cluster REDIS_CLUSTER_URL
//	              names, where a pass of writes to each leaderboard alone
//	              then counts each node's share of its shards, keys, members
//	              and writes (clusterShare)

const (
	oneShardID     = "one"
	shardedID      = "sharded"
	shardFillChunk = 10_000
	shardMaxScore  = 1_000_000
)

// shardPair returns the two leaderboards of the given boards: one of 1
// shard, then one of shards.
func shardPair(kinds []leaderboard.Kind, shards int) ([]*leaderboard.Leaderboard, error) {
	var out []*leaderboard.Leaderboard
	for _, l := range []*leaderboard.Leaderboard{{ID: oneShardID, Shards: 1}, {ID: shardedID, Shards: shards}} {
		l.Kinds, l.Operator, l.Order, l.TieBreak = slices.Clone(kinds), leaderboard.Incr, leaderboard.Descending, leaderboard.ByMember
		if err := l.Init(); err != nil {
			return nil, fmt.Errorf("leaderboard %s: %w", l.ID, err)
		}
		out = append(out, l)
	}
	return out, nil
}

func shardsName(n int) string {
	if n == 1 {
		return "1 shard"
	}
	return strconv.Itoa(n) + " shards"
}

// shardScore is member i's score, the same in both leaderboards: spread
// over 1..shardMaxScore as an all-time board's, not a few tied values.
func shardScore(i int) float64 {
	return float64(1 + (uint64(i)*0x9E3779B97F4A7C15>>40)%shardMaxScore)
}

var allTime = leaderboard.Period{Kind: leaderboard.AllTime}

// shardMemory is what one leaderboard of lbshards cost Redis.
type shardMemory struct {
	shards, members int
	fill            time.Duration
	before, after   int64 // INFO used_memory around its fill
	usage           int64 // MEMORY USAGE (SAMPLES 0) of its boards, summed
	encoding        string
}

func (m shardMemory) perMember(bytes int64) float64 { return float64(bytes) / float64(m.members) }

// runShards measures lbshards at n members.
func (b *bench) runShards(ctx context.Context, n int) error {
	ns := newNamespace()
	defer b.dropNamespace(ns)
	fmt.Fprintf(b.out, "lbshards: namespace %s, %s members in %s and in one\n", ns, thousands(float64(n)), shardsName(b.o.shards))
	pair, err := shardPair([]leaderboard.Kind{leaderboard.AllTime}, b.o.shards)
	if err != nil {
		return err
	}
	e, err := leaderboard.Open(ctx, b.rdb, pair, b.leaderboardOptions(ns)...)
	if err != nil {
		return err
	}
	// The fill's pipelines queue behind one another in Redis, and a key of
	// millions of members grows its hash table on the way; MEMORY USAGE
	// walks every member: a client that gives them time.
	opt := *b.rdb.Options()
	opt.ReadTimeout, opt.WriteTimeout = time.Minute, time.Minute
	slow := redis.NewClient(&opt)
	defer slow.Close()
	src := newIDSource(ns[len(ns)-3:], 's')
	for _, l := range []*leaderboard.Leaderboard{pair[1], pair[0]} {
		m := shardMemory{shards: l.Shards, members: n}
		if m.before, err = usedMemory(ctx, b.rdb); err != nil {
			return err
		}
		if m.fill, err = b.fillShards(ctx, slow, ns, l, src, n); err != nil {
			return err
		}
		if m.after, err = usedMemory(ctx, b.rdb); err != nil {
			return err
		}
		var held int64
		for s := range l.Shards {
			key := leaderboard.ShardBoardKey(ns, l.ID, s, allTime)
			size, err := b.rdb.ZCard(ctx, key).Result()
			if err != nil {
				return err
			}
			bytes, err := slow.MemoryUsage(ctx, key, 0).Result()
			if err != nil {
				return fmt.Errorf("MEMORY USAGE %s: %w", key, err)
			}
			held, m.usage = held+size, m.usage+bytes
		}
		if held != int64(n) {
			return fmt.Errorf("leaderboard %s holds %d members after %d were written", l.ID, held, n)
		}
		if m.encoding, err = b.rdb.ObjectEncoding(ctx, leaderboard.ShardBoardKey(ns, l.ID, 0, allTime)).Result(); err != nil {
			return err
		}
		b.rep.shardMems = append(b.rep.shardMems, m)
		fmt.Fprintf(b.out, "  %s: %s members in %s (%s/s); used_memory +%s (%.1f B a member); MEMORY USAGE %s (%.1f B a member)\n",
			shardsName(l.Shards), thousands(float64(n)), m.fill.Round(time.Millisecond), thousands(float64(n)/m.fill.Seconds()),
			bytesIEC(m.after-m.before), m.perMember(m.after-m.before), bytesIEC(m.usage), m.perMember(m.usage))
	}
	pick := func(w *worker) string { return src.id(w.rng.Int64N(int64(n))) }
	if err := sameShardReads(ctx, e, b.rdb, leaderboard.BoardKey(ns, oneShardID, allTime), pick); err != nil {
		return err
	}
	return b.shardReadRows(ctx, e, leaderboard.BoardKey(ns, oneShardID, allTime), n, pick)
}

// fillShards writes members 0..n-1 of src, with shardScore's scores, to
// the all-time boards of l's shards: pipelined ZADDs, shardFillChunk
// members a pipeline.
func (b *bench) fillShards(ctx context.Context, rdb *redis.Client, ns string, l *leaderboard.Leaderboard, src *idSource, n int) (time.Duration, error) {
	keys := make([]string, l.Shards)
	for s := range keys {
		keys[s] = leaderboard.ShardBoardKey(ns, l.ID, s, allTime)
	}
	calls := (n + shardFillChunk - 1) / shardFillChunk
	return load(ctx, "fill "+shardsName(l.Shards), calls, min(b.o.loaders, 4), b.out, func(ctx context.Context, _ *worker, c int) error {
		byShard := make([][]redis.Z, l.Shards)
		for i := c * shardFillChunk; i < min((c+1)*shardFillChunk, n); i++ {
			m := src.id(int64(i))
			s := leaderboard.ShardOf(m, l.Shards)
			byShard[s] = append(byShard[s], redis.Z{Member: m, Score: shardScore(i)})
		}
		pipe := rdb.Pipeline()
		for s, zs := range byShard {
			if len(zs) > 0 {
				pipe.ZAdd(ctx, keys[s], zs...)
			}
		}
		_, err := pipe.Exec(ctx)
		return err
	})
}

// sameShardReads checks, before measuring, that both leaderboards read
// alike: the same top 100, and for some members the same rank, which is
// the single key's ZREVRANK + 1 (so the fill put each member in the shard
// the engine looks in).
func sameShardReads(ctx context.Context, e *leaderboard.Engine, rdb *redis.Client, oneKey string, pick func(*worker) string) error {
	one, err := e.Top(ctx, oneShardID, leaderboard.AllTime, "", 0, lbTopLimit)
	if err != nil {
		return err
	}
	sharded, err := e.Top(ctx, shardedID, leaderboard.AllTime, "", 0, lbTopLimit)
	if err != nil {
		return err
	}
	if one.Size != sharded.Size || len(one.Entries) != len(sharded.Entries) {
		return fmt.Errorf("top 100: %d entries of %d from one shard, %d of %d from the shards", len(one.Entries), one.Size, len(sharded.Entries), sharded.Size)
	}
	for i, a := range one.Entries {
		if z := sharded.Entries[i]; z.Rank != a.Rank || z.Member != a.Member || z.Score != a.Score {
			return fmt.Errorf("top 100: at %d, %+v from one shard, %+v from the shards", i, a, z)
		}
	}
	w := newWorker(1, 0)
	for range 20 {
		m := pick(w)
		rank, err := rdb.ZRevRank(ctx, oneKey, m).Result()
		if err != nil {
			return fmt.Errorf("ZREVRANK %s: %w", m, err)
		}
		for _, id := range []string{oneShardID, shardedID} {
			sts, err := e.Member(ctx, id, m)
			if err != nil {
				return err
			}
			if sts[0].Rank != int(rank)+1 {
				return fmt.Errorf("%s on %s: rank %d, want %d (ZREVRANK + 1)", m, id, sts[0].Rank, rank+1)
			}
		}
	}
	return nil
}

// shardReadRows measures the reads of lbshards at each -concurrency.
func (b *bench) shardReadRows(ctx context.Context, e *leaderboard.Engine, oneKey string, n int, pick func(*worker) string) error {
	top := func(id string) op {
		return func(ctx context.Context, _ *worker) (int, error) {
			bd, err := e.Top(ctx, id, leaderboard.AllTime, "", 0, lbTopLimit)
			if err == nil && (len(bd.Entries) != min(n, lbTopLimit) || bd.Size != n) {
				err = fmt.Errorf("top: %d entries of %d, want %d of %d", len(bd.Entries), bd.Size, min(n, lbTopLimit), n)
			}
			return one(err)
		}
	}
	rank := func(id string) op {
		return func(ctx context.Context, w *worker) (int, error) {
			sts, err := e.Member(ctx, id, pick(w))
			if err == nil && sts[0].Rank == 0 {
				err = fmt.Errorf("a member of %s is not on its all-time board", id)
			}
			return one(err)
		}
	}
	plainTop := func(ctx context.Context, _ *worker) (int, error) {
		zs, err := b.rdb.ZRevRangeWithScores(ctx, oneKey, 0, lbTopLimit-1).Result()
		if err == nil && len(zs) != min(n, lbTopLimit) {
			err = fmt.Errorf("ZREVRANGE: %d entries", len(zs))
		}
		return one(err)
	}
	plainRank := func(ctx context.Context, w *worker) (int, error) {
		return one(b.rdb.ZRevRank(ctx, oneKey, pick(w)).Err())
	}
	reads := []struct {
		name, id  string
		shards    int
		work      op
		baseLabel string
		base      op
	}{
		{"top", shardedID, b.o.shards, top(shardedID), "ZREVRANGE 0 99 WITHSCORES of the 1-shard key", plainTop},
		{"top", oneShardID, 1, top(oneShardID), "ZREVRANGE 0 99 WITHSCORES of the 1-shard key", plainTop},
		{"rank", shardedID, b.o.shards, rank(shardedID), "ZREVRANK of the 1-shard key", plainRank},
		{"rank", oneShardID, 1, rank(oneShardID), "ZREVRANK of the 1-shard key", plainRank},
	}
	for _, conc := range b.o.concurrency {
		for _, rd := range reads {
			r := &row{workload: "lbshards " + rd.name + ", " + shardsName(rd.shards), via: "lib", players: n, perUnit: true}
			t := turns{unit: "ops", pace: pace{conc: conc}, work: rd.work}
			if b.o.baseline {
				r.baseLabel, t.base = rd.baseLabel, rd.base
			}
			b.measureRow(ctx, r, t)
			if err := ctx.Err(); err != nil {
				return err
			}
		}
	}
	return nil
}

var shardMemoryColumns = []column[shardMemory]{
	{"leaderboard", false, func(m shardMemory) string { return shardsName(m.shards) }},
	{"members", true, func(m shardMemory) string { return thousands(float64(m.members)) }},
	{"fill (pipelined ZADD)", true, func(m shardMemory) string {
		return seconds(m.fill) + ", " + thousands(float64(m.members)/m.fill.Seconds()) + "/s"
	}},
	{"used_memory Δ", true, func(m shardMemory) string { return bytesIEC(m.after - m.before) }},
	{"B/member (INFO)", true, func(m shardMemory) string { return fmt.Sprintf("%.1f", m.perMember(m.after-m.before)) }},
	{"MEMORY USAGE", true, func(m shardMemory) string { return bytesIEC(m.usage) }},
	{"B/member (MEMORY USAGE)", true, func(m shardMemory) string { return fmt.Sprintf("%.1f", m.perMember(m.usage)) }},
	{"encoding", false, func(m shardMemory) string { return m.encoding }},
}

// runShardWrites measures lbshardwrite at n members: on REDIS_URL, then
// on REDIS_CLUSTER_URL's cluster, if any.
func (b *bench) runShardWrites(ctx context.Context, n int) error {
	if err := b.shardWrites(ctx, n, b.rdb, "lib"); err != nil {
		return err
	}
	if b.o.clusterURL == "" {
		fmt.Fprintln(b.out, "lbshardwrite: REDIS_CLUSTER_URL is not set: no rows on a cluster")
		return nil
	}
	c, err := openCluster(ctx, b.o.clusterURL, b.inFlight)
	if err != nil {
		return err
	}
	defer c.Close()
	return b.shardWrites(ctx, n, c, "lib, cluster")
}

// shardWrites measures lbshardwrite's rows on rdb; on a cluster, then
// each node's share.
func (b *bench) shardWrites(ctx context.Context, n int, rdb redis.UniversalClient, via string) error {
	ns := newNamespace()
	defer b.dropNamespaceOn(rdb, ns)
	fmt.Fprintf(b.out, "lbshardwrite (%s): namespace %s, %s members in %s and in one\n", via, ns, thousands(float64(n)), shardsName(b.o.shards))
	pair, err := shardPair(benchKinds, b.o.shards)
	if err != nil {
		return err
	}
	e, err := leaderboard.Open(ctx, rdb, pair, b.leaderboardOptions(ns)...)
	if err != nil {
		return err
	}
	tag := ns[len(ns)-3:]
	src, requests := newIDSource(tag, 'w'), newIDSource(tag, 'r')
	members := make([]string, n)
	for i := range members {
		members[i] = src.id(int64(i))
	}
	for _, l := range pair {
		took, err := writeBatches(ctx, e, l.ID, members, b.o.loaders, b.out)
		if err != nil {
			return err
		}
		fmt.Fprintf(b.out, "  wrote %s members to %s in %s (%s/s)\n", thousands(float64(n)), shardsName(l.Shards),
			took.Round(time.Millisecond), thousands(float64(n)/took.Seconds()))
	}
	write := func(id string) op {
		return func(ctx context.Context, w *worker) (int, error) {
			_, err := e.Write(ctx, id, leaderboard.Write{Member: members[w.rng.IntN(n)], Value: 1 + w.rng.Int64N(10), RequestID: requests.fresh()})
			return one(err)
		}
	}
	for _, conc := range b.o.concurrency {
		r := &row{workload: "lbshardwrite " + shardsName(b.o.shards), via: via, players: n, perUnit: true}
		t := turns{unit: "ops", pace: pace{conc: conc}, work: write(shardedID), redis: rdb}
		if b.o.baseline {
			r.baseLabel, t.base = "the same write, 1 shard", write(oneShardID)
		}
		b.measureRow(ctx, r, t)
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	if c, ok := rdb.(*redis.ClusterClient); ok {
		for _, l := range pair {
			if err := b.clusterShare(ctx, c, ns, l, write(l.ID)); err != nil {
				return err
			}
		}
	}
	return nil
}
