package leaderboard

import (
	"context"
	"math"

	"github.com/redis/go-redis/v9"

	"github.com/league-engine/league/league"
)

// Reading a closed period's board for the archive (Engine.Archive): the
// sizes of its shards' parts, then its first entries, merged over the
// shards exactly as shardedTop merges a page (before's order: the order
// one key would give). Unlike a page, it is not bounded by MaxDepth: the
// archive may keep every member, so each shard is read in chunks, as far
// as the merge needs and no further (a shard's next chunk is read only
// once the merge has taken all of its last one), rather than every shard
// to the depth of the last rank kept. A closed board no longer changes
// (writes are refused outside Redis's current period), so reading it
// piecemeal is as exact as reading it at once.

// closedSizes are the members of each shard's part of p's board, in one
// pipeline.
func (e *Engine) closedSizes(ctx context.Context, l *Leaderboard, p Period) ([]int64, error) {
	pipe := e.rdb.Pipeline()
	shards := e.shardsAt(l, p.Start)
	cmds := make([]*redis.IntCmd, len(shards))
	for s, k := range shards {
		cmds[s] = pipe.ZCard(ctx, k.board(p))
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return nil, league.RedisError("leaderboard archive", err)
	}
	sizes := make([]int64, len(shards))
	for s, c := range cmds {
		sizes[s] = c.Val()
	}
	return sizes, nil
}

// closedTop reads the first keep entries of p's board, its shards of
// sizes members each merged. A shard that holds fewer than its size said
// means the board expired while read: the entries merged until then are
// kept (they are exact, the ranks after them are not known).
func (e *Engine) closedTop(ctx context.Context, l *Leaderboard, p Period, sizes []int64, keep int) ([]Entry, error) {
	desc := l.Order != Ascending
	shift := math.Ldexp(1, int(l.tieBits[p.Kind]))
	shards := e.shardsAt(l, p.Start)
	bufs := make([][]redis.Z, len(shards)) // each shard's entries read and not merged yet
	read := make([]int64, len(shards))
	entries := make([]Entry, 0, keep)
	for len(entries) < keep {
		// the next chunk of every shard the merge has emptied and that holds more
		pipe := e.rdb.Pipeline()
		chunks := make([]*redis.ZSliceCmd, len(shards))
		count := int64(min(archiveChunk, keep-len(entries))) // the most the merge may still take from one shard
		for s, k := range shards {
			if len(bufs[s]) > 0 || read[s] >= sizes[s] {
				continue
			}
			if desc {
				chunks[s] = pipe.ZRevRangeWithScores(ctx, k.board(p), read[s], read[s]+count-1)
			} else {
				chunks[s] = pipe.ZRangeWithScores(ctx, k.board(p), read[s], read[s]+count-1)
			}
		}
		if pipe.Len() > 0 {
			if _, err := pipe.Exec(ctx); err != nil {
				return nil, league.RedisError("leaderboard archive", err)
			}
		}
		for s, c := range chunks {
			if c == nil {
				continue
			}
			if len(c.Val()) == 0 {
				return entries, nil // the board expired while read
			}
			bufs[s], read[s] = c.Val(), read[s]+int64(len(c.Val()))
		}
		// merge until done, or until a shard with more to read is emptied
		for len(entries) < keep {
			best := -1
			for s, buf := range bufs {
				if len(buf) > 0 && (best < 0 || before(buf[0], bufs[best][0], desc)) {
					best = s
				}
			}
			if best < 0 {
				return entries, nil // every shard read to its end
			}
			z := bufs[best][0]
			bufs[best] = bufs[best][1:]
			entries = append(entries, Entry{Rank: len(entries) + 1, Member: z.Member.(string), Score: int64(math.Floor(z.Score / shift))})
			if len(bufs[best]) == 0 && read[best] < sizes[best] {
				break
			}
		}
	}
	return entries, nil
}
