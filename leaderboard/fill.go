package leaderboard

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/league-engine/league/league"
	"github.com/league-engine/league/scripts"
)

// filledMark is a rolling board's progress once it is pre-filled.
const filledMark = "done"

// Pre-fill tuning: members looked at per script call (a call holds Redis
// for about a millisecond), and how long the lease outlives the last call.
const (
	fillStep  = 500
	fillLease = 10 * time.Second
)

// Fill is what a pre-fill did to one rolling board. On a sharded
// leaderboard it is the board over every shard: Added summed, Filled once
// every shard's part is, Busy if another process held any shard's lease.
type Fill struct {
	Period Period // Kind says which window
	// Method is how the board was filled: "previous" (the board before,
	// less the bucket that left the window: N-independent) or "buckets"
	// (the sum of every bucket: the board before was not filled, after
	// downtime or for a new window; on a sharded leaderboard, in at least
	// one shard). Empty when nothing was left to fill.
	Method string
	Added  int  // members the fill put on the board
	Filled bool // the board is filled: every member's sum is on it
	// Busy reports another process holding the lease (of a shard): it
	// fills that part, this call did not.
	Busy bool
}

// PreFill fills the rolling boards of leaderboard id that need it: each
// window's current board, if its bucket began before it was filled (all
// replicas down at the boundary, a new window), then the next board, ahead
// of its boundary. The scheduler calls it as soon as a bucket begins, and
// leaguectl on demand.
//
// Any number of processes may call it at once: a lease in Redis keeps one
// filling a leaderboard (a shard) at a time (the others report Busy), and the fill
// itself is exact whatever runs beside it (lb_fill.lua). Stopped anywhere,
// the next call resumes where it stopped.
//
// A sharded leaderboard's rolling board is the sum of its shards' boards,
// each the sum of that shard's own buckets, so each shard is filled on its
// own, under its own lease (the shard's k.lease()), one after the other:
// together they hold the members one board would, so the fill takes about
// as long as an unsharded one's.
// One lease for the whole leaderboard cannot work on Redis Cluster:
// lb_fill.lua takes and renews its lease in the same script as each step,
// and a script's keys must share a slot, while the shards are in slots of
// their own. Leases per shard also share the work: a process that finds a
// shard busy goes on to the next.
func (e *Engine) PreFill(ctx context.Context, id string) ([]Fill, error) {
	l, err := e.Leaderboard(id)
	if err != nil {
		return nil, err
	}
	now := e.clock.Now()
	var out []Fill
	for _, w := range l.Windows {
		cur := l.Calendar.At(w.Kind(), now)
		for _, p := range []Period{cur, l.Calendar.Next(cur)} {
			f, err := e.fill(ctx, l, p)
			if err != nil {
				return out, err
			}
			out = append(out, f)
			if !f.Filled {
				break // the next board is filled from this one
			}
		}
	}
	return out, nil
}

// fill fills the rolling board of p in every shard of l, reported as one
// board (Fill). A shard another process holds is left to it, and the
// others filled all the same.
func (e *Engine) fill(ctx context.Context, l *Leaderboard, p Period) (Fill, error) {
	all := Fill{Period: p, Filled: true}
	for _, k := range e.shards(l) {
		f, err := e.fillShard(ctx, l, k, p)
		all.Added += f.Added
		all.Filled = all.Filled && f.Filled
		all.Busy = all.Busy || f.Busy
		if f.Method == "buckets" || all.Method == "" { // "buckets" says more: the board before was not filled
			all.Method = f.Method
		}
		if err != nil {
			all.Filled = false
			return all, err
		}
	}
	return all, nil
}

// fillShard runs lb_fill.lua on the rolling board of p in the shard of
// keys k until it is filled.
func (e *Engine) fillShard(ctx context.Context, l *Leaderboard, k keys, p Period) (Fill, error) {
	f := Fill{Period: p}
	prev := l.Calendar.Previous(p)
	marks, err := e.rdb.MGet(ctx, k.filled(p), k.filled(prev)).Result()
	if err != nil {
		return f, league.RedisError("leaderboard pre-fill", err)
	}
	if marks[0] == filledMark {
		f.Filled = true
		return f, nil
	}
	ks := []string{k.lease(), k.filled(p), k.board(p)}
	w := p.Kind.window()
	if marks[1] == filledMark {
		f.Method = "previous"
		ks = append(ks, k.board(prev), k.bucket(l.oldestBucket(prev)), k.bucket(l.Calendar.At(w.Unit, p.Start)))
	} else {
		f.Method = "buckets"
		for _, b := range l.Calendar.Buckets(p) {
			ks = append(ks, k.bucket(b))
		}
	}
	direction := "up"
	if l.Operator == Decr {
		direction = "down"
	}
	for {
		reply, err := e.run.RunAlone(ctx, scripts.LBFill, ks, e.clock.Arg(), e.token, fillLease.Milliseconds(),
			f.Method[:1], fillStep, direction, p.End.Unix(), (l.Retention[p.Kind] + e.expiryLag).Milliseconds()).Int64Slice()
		if err != nil {
			return f, league.RedisError("leaderboard pre-fill", err)
		}
		switch scripts.Status(reply[0]) {
		case scripts.Busy:
			f.Busy = true
			return f, nil
		case scripts.OK, scripts.Existing:
		default:
			return f, league.RedisError("leaderboard pre-fill", fmt.Errorf("unexpected reply %v", reply))
		}
		f.Added += int(reply[1])
		if scripts.Status(reply[0]) == scripts.Existing { // 1: filled
			f.Filled = true
			return f, nil
		}
		if err := ctx.Err(); err != nil {
			return f, league.RedisError("leaderboard pre-fill", err)
		}
	}
}

// incomplete reports whether a rolling board of period p, filled or not,
// is to be reported incomplete: not filled while it is still kept (past
// its retention it is gone, empty rather than short).
func (e *Engine) incomplete(l *Leaderboard, p Period, filled bool) bool {
	return !filled && e.clock.Now().Before(p.End.Add(l.Retention[p.Kind]))
}

// newToken names this engine in the pre-fill lease.
func newToken() string {
	b := make([]byte, 8)
	rand.Read(b)
	return hex.EncodeToString(b)
}
