package leaderboard

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/redis/go-redis/v9"

	"github.com/league-engine/league/league"
	"github.com/league-engine/league/scripts"
)

// Ranks on a sharded leaderboard (shard.go): a member's rank on the whole
// board is 1 + the entries ranking before it on every shard. Member and
// Around read it in two round trips: the member's shard gives its packed
// scores; then every shard at once (go-redis's pipeline sends each node its
// part in parallel) counts the entries ranking before each score and lists
// its n nearest on each side (lb_rank.lua), merged by before
// (shardread.go) into what one key would hold around it. Exact and bounded
// whatever the board's size: per shard and board, a ZCOUNT pair, a binary
// search among equal scores (log2 of the ties) and n entries each side.
//
// As for a merged page, the shards are not read at one instant: a write
// landing meanwhile shows on its own shard only. A member written between
// the two round trips is ranked at the score first read, its newer entry
// left out rather than counted, so that it shows once.

// probe asks every shard where a member at a packed score stands on a
// board, and for its n nearest neighbours on each side.
type probe struct {
	board  int // index into the boards asked about
	member string
	packed float64
	n      int
}

// shardPlace is where a probe stands on the whole board.
type shardPlace struct {
	before int       // entries ranking before it
	above  []redis.Z // up to n ranking just before it, in board order
	below  []redis.Z // up to n ranking just after it, in board order
}

// ranked is rankShards's answer.
type ranked struct {
	sizes  []int        // per board, over every shard
	filled []bool       // per rolling board asked about: every shard's is done
	places []shardPlace // per probe
}

// probeChunk bounds the probes of one lb_rank.lua call: a batch of
// members asks several calls of each shard, so that none holds Redis for
// more than about a millisecond.
const probeChunk = 100

// rankShards runs probes on every shard of l, on the boards of periods
// boards, reading the pre-fill progress of the rolling boards fills.
func (e *Engine) rankShards(ctx context.Context, l *Leaderboard, boards, fills []Period, probes []probe) (ranked, error) {
	chunks := max(1, (len(probes)+probeChunk-1)/probeChunk)
	args := make([][]any, chunks)
	for c := range args {
		args[c] = []any{l.orderArg(), len(boards)}
		for _, q := range probes[c*probeChunk : min((c+1)*probeChunk, len(probes))] {
			args[c] = append(args[c], q.board+1, q.member, strconv.FormatFloat(q.packed, 'f', -1, 64), q.n)
		}
	}
	shards := e.shardsOf(l, boards...)
	// call j: shard j / chunks, probes of chunk j % chunks
	cmds, err := e.run.ReadPipeline(ctx, scripts.LBRank, len(shards)*chunks, func(j int) ([]string, []any) {
		k := shards[j/chunks]
		ks := make([]string, 0, len(boards)+len(fills))
		for _, p := range boards {
			ks = append(ks, e.boardKey(k, p))
		}
		for _, p := range fills {
			ks = append(ks, k.filled(p))
		}
		return ks, args[j%chunks]
	})
	if err != nil {
		return ranked{}, league.RedisError("leaderboard read", err)
	}
	r := ranked{sizes: make([]int, len(boards)), filled: make([]bool, len(fills)), places: make([]shardPlace, len(probes))}
	for i := range r.filled {
		r.filled[i] = true
	}
	// per probe, each shard's neighbours, nearest first
	above, below := make([][][]redis.Z, len(probes)), make([][][]redis.Z, len(probes))
	for j, cmd := range cmds {
		reply, err := cmd.Slice()
		if err != nil {
			return ranked{}, league.RedisError("leaderboard read", err)
		}
		rd := replyReader{reply: reply}
		first := j % chunks * probeChunk
		for i := range boards {
			// each of a shard's calls tells its sizes: count them once
			if n := int(rd.int()); first == 0 {
				r.sizes[i] += n
			}
		}
		for i := range fills {
			done := rd.int() == 1 // read even after a shard not done: the reply is read in order
			r.filled[i] = r.filled[i] && done
		}
		for q := first; q < min(first+probeChunk, len(probes)); q++ {
			r.places[q].before += int(rd.int())
			above[q] = append(above[q], rd.entries())
			below[q] = append(below[q], rd.entries())
		}
		if rd.err != nil || rd.at != len(reply) {
			return ranked{}, league.RedisError("leaderboard read", fmt.Errorf("unexpected reply %v (%v)", reply, rd.err))
		}
	}
	desc := l.Order != Ascending
	for q, pr := range probes {
		// nearest first is board order for those after, its reverse for
		// those before
		r.places[q].above = merge(above[q], pr.n, !desc)
		slices.Reverse(r.places[q].above)
		r.places[q].below = merge(below[q], pr.n, desc)
	}
	return r, nil
}

// replyReader reads lb_rank.lua's reply in order; err is its first
// surprise.
type replyReader struct {
	reply []any
	at    int
	err   error
}

func (rd *replyReader) int() int64 {
	if rd.at >= len(rd.reply) {
		rd.fail(errShortReply)
		return 0
	}
	n, ok := rd.reply[rd.at].(int64)
	if !ok {
		rd.fail(fmt.Errorf("item %d: %v is not a number", rd.at, rd.reply[rd.at]))
	}
	rd.at++
	return n
}

var errShortReply = errors.New("the reply is short")

func (rd *replyReader) fail(err error) {
	if rd.err == nil {
		rd.err = err
	}
}

// entries reads a count and that many member, packed score pairs.
func (rd *replyReader) entries() []redis.Z {
	n := int(rd.int())
	if n < 0 || rd.at+2*n > len(rd.reply) {
		rd.fail(errShortReply)
		return nil
	}
	out := make([]redis.Z, n)
	for i := range out {
		m, _ := rd.reply[rd.at].(string)
		packed, err := strconv.ParseFloat(fmt.Sprint(rd.reply[rd.at+1]), 64)
		if err != nil {
			rd.fail(err)
		}
		out[i] = redis.Z{Member: m, Score: packed}
		rd.at += 2
	}
	return out
}

// shardedAround is Around on a sharded board: the member's score from its
// shard, then its rank and the window merged from every shard's n nearest
// on each side.
func (e *Engine) shardedAround(ctx context.Context, l *Leaderboard, p Period, member string, n int) (Board, error) {
	packed, err := e.rdb.ZScore(ctx, e.boardKey(e.memberKeysAt(l, member, p.Start), p), member).Result()
	if err == redis.Nil {
		return Board{}, league.Errorf(league.NotFound, "member %q is not on the %s board of %s", member, p.Kind, p.ID())
	}
	if err != nil {
		return Board{}, league.RedisError("leaderboard read", err)
	}
	var fills []Period
	if p.Kind.Rolling() {
		fills = []Period{p}
	}
	r, err := e.rankShards(ctx, l, []Period{p}, fills, []probe{{board: 0, member: member, packed: packed, n: n}})
	if err != nil {
		return Board{}, err
	}
	b := Board{Period: p, Size: r.sizes[0], Participants: -1}
	if p.Kind.Rolling() {
		b.Incomplete = e.incomplete(l, p, r.filled[0])
	}
	if slices.Contains(l.Participants, p.Kind) {
		if b.Participants, err = e.participantCount(ctx, l, p, ""); err != nil {
			return Board{}, err
		}
	}
	at := r.places[0]
	window := slices.Concat(at.above, []redis.Z{{Member: member, Score: packed}}, at.below)
	first := at.before + 1 - len(at.above)
	shift := math.Ldexp(1, int(l.tieBits[p.Kind]))
	for i, z := range window {
		b.Entries = append(b.Entries, Entry{Rank: first + i, Member: z.Member.(string), Score: int64(math.Floor(z.Score / shift))})
	}
	return b, nil
}

// shardedMembers is Members on a sharded leaderboard: each member's packed
// scores on the boards of ps and of the periods before, and its
// participants, from its shard; then one rankShards for all of them.
func (e *Engine) shardedMembers(ctx context.Context, l *Leaderboard, members []string, ps []Period) ([][]Standing, error) {
	boards, prev := slices.Clone(ps), make([]int, len(ps)) // prev[i]: the index in boards of ps[i]'s period before
	var fills []Period
	for i, p := range ps {
		prev[i] = -1
		if p.Kind != AllTime {
			prev[i] = len(boards)
			boards = append(boards, l.Calendar.Previous(p))
		}
		if p.Kind.Rolling() {
			fills = append(fills, p)
		}
	}
	pipe := e.rdb.Pipeline()
	scores, counts := make([][]*redis.FloatCmd, len(members)), make([][]*redis.IntCmd, len(members))
	for j, m := range members {
		scores[j], counts[j] = make([]*redis.FloatCmd, len(boards)), make([]*redis.IntCmd, len(ps))
		for i, p := range boards { // a period's own shards: a switch may part a period from the one before
			scores[j][i] = pipe.ZScore(ctx, e.boardKey(e.memberKeysAt(l, m, p.Start), p), m)
		}
		for i, p := range ps {
			if slices.Contains(l.Participants, p.Kind) {
				counts[j][i] = pipe.PFCount(ctx, e.memberKeysAt(l, m, p.Start).memberParticipants(p, m))
			}
		}
	}
	cmds, _ := pipe.Exec(ctx) // a member not on a board is redis.Nil: each command is looked at
	for _, cmd := range cmds {
		if err := cmd.Err(); err != nil && err != redis.Nil {
			return nil, league.RedisError("leaderboard read", err)
		}
	}
	var probes []probe
	at := make([][]int, len(members)) // at[j][i]: the probe of members[j] on boards[i], -1: not on it
	for j, m := range members {
		at[j] = make([]int, len(boards))
		for i := range boards {
			at[j][i] = -1
			packed, err := scores[j][i].Result()
			if err == redis.Nil {
				continue
			}
			n := 0
			if i < len(ps) {
				n = 1 // the member above, for the gap
			}
			at[j][i] = len(probes)
			probes = append(probes, probe{board: i, member: m, packed: packed, n: n})
		}
	}
	var r ranked
	if len(probes) > 0 || len(fills) > 0 {
		var err error
		if r, err = e.rankShards(ctx, l, boards, fills, probes); err != nil {
			return nil, err
		}
	}
	sts := make([][]Standing, len(members))
	for j := range members {
		sts[j] = make([]Standing, len(ps))
		fill := 0
		for i, p := range ps {
			shift := math.Ldexp(1, int(l.tieBits[p.Kind]))
			st := Standing{Period: p, Gap: -1, Participants: -1}
			if q := at[j][i]; q >= 0 {
				st.Score = int64(math.Floor(probes[q].packed / shift))
				st.Rank = r.places[q].before + 1
				if above := r.places[q].above; len(above) > 0 {
					st.Gap = st.Score - int64(math.Floor(above[len(above)-1].Score/shift))
					st.Gap = max(st.Gap, -st.Gap)
				}
			}
			if prev[i] >= 0 {
				st.Previous = &Placement{Period: boards[prev[i]]}
				if q := at[j][prev[i]]; q >= 0 {
					st.Previous.Score = int64(math.Floor(probes[q].packed / shift))
					st.Previous.Rank = r.places[q].before + 1
				}
			}
			if p.Kind.Rolling() {
				st.Incomplete = !r.filled[fill]
				fill++
			}
			if counts[j][i] != nil {
				st.Participants = counts[j][i].Val()
			}
			sts[j][i] = st
		}
	}
	return sts, nil
}
