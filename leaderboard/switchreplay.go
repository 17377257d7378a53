package leaderboard

import (
	"context"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/league-engine/league/scripts"
)

// A request id is remembered in its member's shard. Sent again after a
// switch of shard count (reshard.go), within the idempotency window, a
// write whose member the switch moved would look for it in its new shard
// and be applied twice: once on the period before the switch, once on the
// period after. So in that window such writes first look in the shard
// they had before it (one GET for a batch), and a write found there
// answers its first result.

// retry is a write that may be the retry of one made before a switch.
type retry struct {
	l  *Leaderboard
	w  Write
	at time.Time // the write's time
}

// beforeSwitch is where r's request id was kept if r is the retry of a
// write made before the latest switch: the member's shard then, and an
// instant then.
func (e *Engine) beforeSwitch(r retry) (old keys, then time.Time, ok bool) {
	if r.w.RequestID == "" {
		return keys{}, time.Time{}, false
	}
	p := e.plan(r.l)
	from, _ := p.span(r.at)
	if from.IsZero() || r.at.Sub(from) >= r.l.IdempotencyWindow+e.expiryLag {
		return keys{}, time.Time{}, false
	}
	then = from.Add(-time.Millisecond)
	old = p.keys[shardOf(r.w.Member, p.countAt(then))]
	if old == p.keys[shardOf(r.w.Member, p.countAt(r.at))] {
		return keys{}, time.Time{}, false
	}
	return old, then, true
}

// retriesAcross finds which of rs are retries of writes made before a switch:
// found[j] with the first write's result (or its refusal: the id was used
// for another member).
func (e *Engine) retriesAcross(ctx context.Context, rs []retry) (found []bool, results []WriteResult, errs []error, err error) {
	var asked []int
	for j, r := range rs {
		if _, _, ok := e.beforeSwitch(r); ok {
			asked = append(asked, j)
		}
	}
	if len(asked) == 0 { // every write but those of a switch's first minutes: nothing more
		return nil, nil, nil, nil
	}
	pipe := e.rdb.Pipeline()
	gets := make([]*redis.IntCmd, len(asked))
	for n, j := range asked {
		old, _, _ := e.beforeSwitch(rs[j])
		gets[n] = pipe.Exists(ctx, old.request(rs[j].w.Scope, rs[j].w.RequestID))
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return nil, nil, nil, writeError(err)
	}
	found, results, errs = make([]bool, len(rs)), make([]WriteResult, len(rs)), make([]error, len(rs))
	for n, j := range asked {
		if gets[n].Val() == 0 {
			continue
		}
		r := rs[j]
		_, then, _ := e.beforeSwitch(r)
		ps := r.l.periodsAt(then)
		ks, args := e.writeArgs(r.l, then, ps, r.w, false, nil)
		// the script answers a stored request id before it checks the
		// periods, which are past: any other answer means the id has just
		// expired, and the write is a new one
		reply, err := e.run.Run(ctx, scripts.LBWrite, false, ks, args...).Slice()
		if err != nil {
			return nil, nil, nil, writeError(err)
		}
		res, redisNow, werr := r.l.writeResult(then, ps, e.sharded(r.l, then), r.w, reply)
		if redisNow.IsZero() && !errors.Is(werr, errNeedSeed) {
			found[j], results[j], errs[j] = true, res, werr
		}
	}
	return found, results, errs, nil
}
