package leaderboard

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/league-engine/league/internal/keyspace"
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
// What is the leaderboard's as a whole stays in shard 0: the plan of how
// many shards the leaderboard has (<ns>:lb:{id}:shards), which Open
// checks and every engine follows, so that no two processes place members
// by different shard counts; the count may change between periods
// (reshard.go). Each shard's rolling boards are pre-filled from its own buckets,
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

// memberKeysAt are the keys of member's shard at t (its boards' time:
// the shard count may change between periods, reshard.go), and
// memberKeys at Redis's now.
func (e *Engine) memberKeysAt(l *Leaderboard, member string, t time.Time) keys {
	p := e.plan(l)
	return p.keys[shardOf(member, p.countAt(t))]
}

func (e *Engine) memberKeys(l *Leaderboard, member string) keys {
	return e.memberKeysAt(l, member, e.clock.Now())
}

// shardsAt are the keys of every shard of l at t, and shards at Redis's
// now.
func (e *Engine) shardsAt(l *Leaderboard, t time.Time) []keys {
	p := e.plan(l)
	return p.keys[:p.countAt(t)]
}

func (e *Engine) shards(l *Leaderboard) []keys { return e.shardsAt(l, e.clock.Now()) }

// everyShard are the keys of every shard any count of l's plan uses: a
// queue drains them all, as entries of the count before a switch may
// still wait in shards the count after it does not use.
func (e *Engine) everyShard(l *Leaderboard) []keys { return e.plan(l).keys }

// shardCount is the key holding l's shard plan (reshard.go).
func (k keys) shardCount() string { return k.prefix + "shards" }

// sharded says l's boards of the periods at t are split over shards.
func (e *Engine) sharded(l *Leaderboard, t time.Time) bool { return e.plan(l).countAt(t) > 1 }

// shardsOf are the keys of every shard of the boards of periods ps: those
// of the largest count among them. A board's keys exist only in the
// shards of its own count, so the others read as empty.
func (e *Engine) shardsOf(l *Leaderboard, ps ...Period) []keys {
	p, n := e.plan(l), 1
	for _, q := range ps {
		n = max(n, p.countAt(q.Start))
	}
	return p.keys[:n]
}

// withPrevious is ps and the period before each (Members reads both).
func withPrevious(l *Leaderboard, ps []Period) []Period {
	out := slices.Clone(ps)
	for _, p := range ps {
		if p.Kind != AllTime {
			out = append(out, l.Calendar.Previous(p))
		}
	}
	return out
}
