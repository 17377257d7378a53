package leaderboard

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/redis/go-redis/v9"

	"github.com/league-engine/league/internal/keyspace"
	"github.com/league-engine/league/league"
)

// Sharded leaderboards (seed 004): with Shards > 1, a leaderboard's boards
// are split over that many shards, each its own keys under its own hash
// tag ({id} for shard 0, {id:s} for shard s), so a Redis Cluster spreads
// them over its nodes. A member lives in one shard, chosen by a stable
// hash of its id (shardOf), with everything of its own: its place on every
// periodic and rolling board, its buckets, its request ids, its limit
// counters and participants. A write therefore touches one shard only and
// stays one script, one round trip. Reads that rank across the whole
// leaderboard merge the shards (shardread.go), exactly.
//
// What is the leaderboard's as a whole stays in shard 0: the record of how
// many shards the leaderboard has (<ns>:lb:{id}:shards), which Open
// checks, so that no two processes place members by different shard
// counts. Each shard's rolling boards are pre-filled from its own buckets,
// under a lease of its own (fill.go), and a closed period is archived from
// every shard, merged (archiveread.go).

// MaxShards bounds Shards.
const MaxShards = 1024

// DefaultMaxDepth is how deep a page of a sharded leaderboard's board may
// reach (offset + limit) unless MaxDepth says otherwise: every shard reads
// that many entries to merge one page.
const DefaultMaxDepth = 10000

// initShards checks Shards and MaxDepth, and what a sharded leaderboard
// cannot keep yet.
func (l *Leaderboard) initShards() error {
	if l.Shards == 0 {
		l.Shards = 1
	}
	if l.Shards < 1 || l.Shards > MaxShards {
		return fmt.Errorf("shards: %d is outside 1..%d", l.Shards, MaxShards)
	}
	if l.MaxDepth == 0 {
		l.MaxDepth = DefaultMaxDepth
	}
	if l.MaxDepth < MaxPage || l.MaxDepth > 1_000_000 {
		return fmt.Errorf("max_page_depth: %d is outside %d..1000000", l.MaxDepth, MaxPage)
	}
	if l.Shards == 1 {
		return nil
	}
	for i, lim := range l.Limits {
		if l.Queue != nil && !slices.Contains(lim.By, OfMember) {
			// taken before the write (reserve.go), which a queue makes
			// later: a write the queue's consumer refused could not give
			// back what its enqueue took
			return fmt.Errorf("limits[%d]: %q does not count by member, which a sharded leaderboard takes in a step "+
				"before the write, and a queue applies the write later; not available with queue yet: count by member "+
				"(such as [actor, member]), or use shards: 1, or no queue", i, lim.Name)
		}
	}
	return nil
}

// shardOf is the shard of member among n: FNV-1a of its id, as league's
// record buckets. Stable across processes and releases: changing it would
// move members.
func shardOf(member string, n int) int {
	if n == 1 {
		return 0
	}
	h := uint32(2166136261)
	for i := 0; i < len(member); i++ {
		h ^= uint32(member[i])
		h *= 16777619
	}
	return int(h % uint32(n))
}

// shardPrefixes are the key prefixes of each of l's shards.
func shardPrefixes(ns string, l *Leaderboard) []keys {
	out := make([]keys, l.Shards)
	for s := range out {
		out[s] = shardKeys(ns, l.ID, s)
	}
	return out
}

// shardKeys are the keys of shard s of leaderboard id: shard 0's are the
// leaderboard's own.
func shardKeys(ns, id string, s int) keys {
	if s > 0 {
		id += ":" + strconv.Itoa(s)
	}
	return keys{prefix: keyspace.Prefix(ns, keyspace.Leaderboard, id)}
}

// ShardOf is the shard of member on a leaderboard of n shards, and
// ShardBoardKey the Redis key of shard s's board of period p of
// leaderboard id under namespace ns: for tools that fill a sharded
// leaderboard's boards directly (cmd/leaguebench). BoardKey is shard 0's.
func ShardOf(member string, n int) int { return shardOf(member, n) }

func ShardBoardKey(ns, id string, s int, p Period) string { return shardKeys(ns, id, s).board(p) }

// memberKeys are the keys of member's shard.
func (e *Engine) memberKeys(l *Leaderboard, member string) keys {
	ks := e.prefixes[l.ID]
	return ks[shardOf(member, len(ks))]
}

// shards are the keys of every shard of l.
func (e *Engine) shards(l *Leaderboard) []keys { return e.prefixes[l.ID] }

// shardCount is the key recording how many shards l has.
func (k keys) shardCount() string { return k.prefix + "shards" }

// checkShards records l's shard count in Redis the first time, and refuses
// a count that differs from the one recorded: members would be looked for
// in shards other than their own.
func (e *Engine) checkShards(ctx context.Context, l *Leaderboard) error {
	k := e.keys(l)
	if err := e.rdb.SetNX(ctx, k.shardCount(), l.Shards, 0).Err(); err != nil {
		return league.RedisError("leaderboard shards", err)
	}
	got, err := e.rdb.Get(ctx, k.shardCount()).Int()
	if err != nil && err != redis.Nil {
		return league.RedisError("leaderboard shards", err)
	}
	if got != l.Shards {
		return fmt.Errorf("leaderboard %q: shards: %d, but Redis holds it in %d: its members are placed by that count, "+
			"and changing it needs its boards moved, which league does not do yet; set shards: %d, or use a new leaderboard id",
			l.ID, l.Shards, got, got)
	}
	return nil
}
