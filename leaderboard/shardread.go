package leaderboard

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/league-engine/league/league"
)

// Reads of a sharded leaderboard (shard.go): each shard's part of a board
// read in one pipeline (go-redis sends each node its commands in
// parallel), then merged in the order one key would give. A sorted set
// orders members by score, then equal scores by member id, bytewise
// (ZREVRANGE reverses both): merging by the same order gives exactly the
// page one unsharded board would.

// before reports whether a ranks before b on a board of order desc: by
// packed score, then by member id as Redis orders ties.
func before(a, b redis.Z, desc bool) bool {
	if a.Score != b.Score {
		return (a.Score > b.Score) == desc
	}
	am, bm := a.Member.(string), b.Member.(string)
	return (am > bm) == desc
}

// merge merges shards' pages, each in board order, into the first n of
// the whole board.
func merge(pages [][]redis.Z, n int, desc bool) []redis.Z {
	out := make([]redis.Z, 0, n)
	at := make([]int, len(pages))
	for len(out) < n {
		best := -1
		for s, page := range pages {
			if at[s] < len(page) && (best < 0 || before(page[at[s]], pages[best][at[best]], desc)) {
				best = s
			}
		}
		if best < 0 {
			break
		}
		out = append(out, pages[best][at[best]])
		at[best]++
	}
	return out
}

// depthError refuses a page of a sharded board past MaxDepth.
func (l *Leaderboard) depthError(offset, limit int) error {
	return &league.Error{Code: league.Invalid, Field: "offset", Message: fmt.Sprintf(
		"a page to rank %d is deeper than leaderboard %q's max_page_depth %d: each of its %d shards would read that many entries; "+
			"read around a member instead, or raise max_page_depth", offset+limit, l.ID, l.MaxDepth, l.Shards)}
}

// shardedTop is Top of a sharded board: every shard's first offset+limit
// entries, merged.
func (e *Engine) shardedTop(ctx context.Context, l *Leaderboard, p Period, offset, limit int) (Board, error) {
	if offset+limit > l.MaxDepth {
		return Board{}, l.depthError(offset, limit)
	}
	desc := l.Order != Ascending
	pipe := e.rdb.Pipeline()
	shards := e.shardsAt(l, p.Start)
	pages := make([]*redis.ZSliceCmd, len(shards))
	sizes := make([]*redis.IntCmd, len(shards))
	marks := make([]*redis.StringCmd, len(shards))
	for s, k := range shards {
		key := e.boardKey(k, p)
		if desc {
			pages[s] = pipe.ZRevRangeWithScores(ctx, key, 0, int64(offset+limit-1))
		} else {
			pages[s] = pipe.ZRangeWithScores(ctx, key, 0, int64(offset+limit-1))
		}
		sizes[s] = pipe.ZCard(ctx, key)
		if p.Kind.Rolling() {
			marks[s] = pipe.Get(ctx, k.filled(p))
		}
	}
	if _, err := pipe.Exec(ctx); err != nil && err != redis.Nil {
		return Board{}, league.RedisError("leaderboard read", err)
	}
	b := Board{Period: p, Participants: -1}
	all := make([][]redis.Z, len(shards))
	filled := true
	for s := range pages {
		all[s] = pages[s].Val()
		b.Size += int(sizes[s].Val())
		if marks[s] != nil {
			filled = filled && marks[s].Val() == filledMark
		}
	}
	if p.Kind.Rolling() {
		b.Incomplete = e.incomplete(l, p, filled)
	}
	if slices.Contains(l.Participants, p.Kind) {
		n, err := e.participantCount(ctx, l, p, "")
		if err != nil {
			return Board{}, err
		}
		b.Participants = n
	}
	shift := math.Ldexp(1, int(l.tieBits[p.Kind]))
	merged := merge(all, offset+limit, desc)
	for i := offset; i < len(merged); i++ {
		b.Entries = append(b.Entries, Entry{Rank: i + 1, Member: merged[i].Member.(string), Score: int64(math.Floor(merged[i].Score / shift))})
	}
	return b, nil
}

// participantCount is how many distinct actors wrote in period p on the
// whole leaderboard (member ""), or for one member. A member's
// HyperLogLog is in its shard; the leaderboard's is one per shard, and a
// voter may be in several: their union is counted by one PFCOUNT over all
// of them (a HyperLogLog's union is as exact as one fed every actor). On
// one Redis that is one command; Redis Cluster refuses keys of several
// slots in one, so there each is copied into shard 0's slot first, and the
// copies deleted.
func (e *Engine) participantCount(ctx context.Context, l *Leaderboard, p Period, member string) (int64, error) {
	if member != "" {
		n, err := e.rdb.PFCount(ctx, e.memberKeysAt(l, member, p.Start).memberParticipants(p, member)).Result()
		return n, league.RedisError("leaderboard participants", err)
	}
	shards := e.shardsAt(l, p.Start)
	if len(shards) == 1 {
		n, err := e.rdb.PFCount(ctx, e.keys(l).participants(p)).Result()
		return n, league.RedisError("leaderboard participants", err)
	}
	if _, cluster := e.rdb.(*redis.ClusterClient); !cluster {
		// PFMERGE rather than PFCOUNT of many keys: miniredis adds those up
		var all []string
		for _, k := range shards {
			all = append(all, k.participants(p))
		}
		union := e.keys(l).prefix + "tmp:hll:" + e.token + ":" + strconv.FormatInt(time.Now().UnixNano(), 36)
		pipe := e.rdb.TxPipeline()
		pipe.PFMerge(ctx, union, all...)
		pipe.PExpire(ctx, union, 10*time.Second)
		count := pipe.PFCount(ctx, union)
		pipe.Del(ctx, union)
		if _, err := pipe.Exec(ctx); err != nil {
			return 0, league.RedisError("leaderboard participants", err)
		}
		return count.Val(), nil
	}
	pipe := e.rdb.Pipeline()
	raw := make([]*redis.StringCmd, len(shards))
	for s, k := range shards {
		raw[s] = pipe.Get(ctx, k.participants(p))
	}
	if _, err := pipe.Exec(ctx); err != nil && err != redis.Nil {
		return 0, league.RedisError("leaderboard participants", err)
	}
	base := e.keys(l).prefix + "tmp:hll:" + e.token + ":" + strconv.FormatInt(time.Now().UnixNano(), 36) + ":"
	var copies []string
	pipe = e.rdb.TxPipeline() // one slot: shard 0's
	for s := range raw {
		if v := raw[s].Val(); v != "" {
			key := base + strconv.Itoa(s)
			copies = append(copies, key)
			pipe.Set(ctx, key, v, 10*time.Second) // gone even if this process dies before the DEL
		}
	}
	if len(copies) == 0 {
		return 0, nil
	}
	count := pipe.PFCount(ctx, copies...)
	pipe.Del(ctx, copies...)
	if _, err := pipe.Exec(ctx); err != nil {
		if strings.Contains(err.Error(), "WRONGTYPE") {
			return 0, league.RedisError("leaderboard participants", fmt.Errorf("a shard's participants key is not a HyperLogLog: %w", err))
		}
		return 0, league.RedisError("leaderboard participants", err)
	}
	return count.Val(), nil
}
