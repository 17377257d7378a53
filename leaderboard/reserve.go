package leaderboard

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/league-engine/league/internal/keyspace"
	"github.com/league-engine/league/league"
	"github.com/league-engine/league/scripts"
)

// Limits across shards (issue #22): on a sharded leaderboard a member's
// own limits (those counting by member) live in the member's shard and are
// checked in the write script, as on one shard. A limit that does not
// count by member ("an actor votes 10 times a day, across all candidates")
// is the whole leaderboard's: its counter for one set of values lives in
// the shard chosen by a stable hash of those values (limitShard), so one
// voter's counter is in one place whichever member they vote for.
//
// Such a write takes two steps. lb_take.lua, on each shard holding one of
// its limits (in parallel: one pipeline), checks every limit there and
// takes one unit of each, or none. Then lb_write.lua writes in the
// member's shard, checking the member's limits as before. A write that
// step refuses (a member's limit, the maximum score, a request id used for
// another member, the period moving on past the retries) gives its units
// back with lb_give.lua. So a limit is never passed: every accepted write
// holds a unit taken under the limit's maximum. The cost of the two steps
// is a unit taken for a write that never happens: when the process dies
// between them, or the write's round trip fails without an answer (it may
// have landed, so nothing is given back). That is at most one unit per
// limit per such failure, and with a request id none: the units taken are
// recorded under it (a reservation, kept as long as the request id's
// result), and a retry reuses them rather than take more.
//
// Unsharded leaderboards, and sharded ones whose limits all count by
// member, keep the one script and one round trip: nothing here runs.

// splitLimits sorts l's limits into those the write script checks
// (inWrite) and those taken before it (shared): the latter only on a
// sharded leaderboard, for limits not counting by member.
func (l *Leaderboard) splitLimits() {
	l.inWrite, l.shared = nil, nil
	for i, lim := range l.Limits {
		if l.AcrossShards(lim) {
			l.shared = append(l.shared, i)
		} else {
			l.inWrite = append(l.inWrite, i)
		}
	}
}

// AcrossShards reports whether lim is taken before the write, across the
// shards of a sharded leaderboard (it does not count by member).
func (l *Leaderboard) AcrossShards(lim Limit) bool {
	return l.Shards > 1 && !slices.Contains(lim.By, OfMember)
}

// limitShard is the shard of lim's counter for w among n: the member's for
// a limit counting by member, otherwise the hash of the values it counts
// (limits counting by the same dimensions share a shard, and a take).
func limitShard(lim Limit, w Write, n int) int {
	if slices.Contains(lim.By, OfMember) {
		return shardOf(w.Member, n)
	}
	return shardOf(limitValues(lim, w), n)
}

// reservation is the record of the units a request id took in one shard.
func (k keys) reservation(scope, id string) string { return keyspace.Reservation(k.prefix, scope, id) }

// hold is what one write takes in one shard: one lb_take.lua call.
type hold struct {
	shard  int
	limits []int    // indices of l.Limits
	keys   []string // their counters, in the same order
	taken  []int    // positions in keys the call took (a retry's reservation held the others)
	done   bool     // taken
}

// taking is one write's takes, shard by shard.
type taking struct {
	l     *Leaderboard
	w     Write
	holds []*hold
	found bool // a reservation of its request id existed: a retry
}

// newTaking groups w's shared limits by shard, shards in order.
func newTaking(l *Leaderboard, w Write) *taking {
	t := &taking{l: l, w: w}
	by := map[int]*hold{}
	for _, i := range l.shared {
		s := limitShard(l.Limits[i], w, l.Shards)
		if by[s] == nil {
			by[s] = &hold{shard: s}
			t.holds = append(t.holds, by[s])
		}
		by[s].limits = append(by[s].limits, i)
	}
	slices.SortFunc(t.holds, func(a, b *hold) int { return a.shard - b.shard })
	return t
}

// takeArgs are lb_take.lua's KEYS and ARGV for h at now.
func (e *Engine) takeArgs(t *taking, h *hold, now time.Time) ([]string, []any) {
	l, w := t.l, t.w
	k := e.plan(l).keys[h.shard]
	h.keys = h.keys[:0]
	ttl := ""
	if w.RequestID != "" {
		// a minute past the request id's result, which is stored after the
		// take: a retry finds the reservation as long as it finds the result
		ttl = strconv.FormatInt((l.IdempotencyWindow + e.expiryLag + time.Minute).Milliseconds(), 10)
	}
	args := make([]any, 0, 4+4*len(h.limits))
	args = append(args, e.clock.Arg(), len(h.limits), w.Member, ttl)
	for _, i := range h.limits {
		lim := l.Limits[i]
		start, end := l.window(lim, now)
		h.keys = append(h.keys, k.limitCounter(lim, w, start))
		endArg := ""
		if !end.IsZero() {
			endArg = strconv.FormatInt(end.UnixMilli(), 10)
		}
		args = append(args, lim.allowance(w), start.UnixMilli(), endArg, "write")
	}
	ks := slices.Clone(h.keys)
	if w.RequestID != "" {
		ks = append(ks, k.reservation(w.Scope, w.RequestID))
	}
	return ks, args
}

// take runs each write's takes, every shard's in one round trip, again
// at Redis's clock for those whose windows it placed on another. errs[i]
// refuses ts[i] (a limit reached, or its request id reserved for another
// member), having given back what else it took; err is the round trip's
// own failure, when what was taken is unknown.
func (e *Engine) take(ctx context.Context, ts []*taking) (errs []error, err error) {
	errs = make([]error, len(ts))
	type call struct {
		t int
		h *hold
	}
	var pending []call
	for i, t := range ts {
		for _, h := range t.holds {
			pending = append(pending, call{i, h})
		}
	}
	now := e.clock.Now()
	for attempt := 0; attempt < 4 && len(pending) > 0; attempt++ {
		cmds, err := e.runAll(ctx, scripts.LBTake, len(pending), func(j int) ([]string, []any) {
			return e.takeArgs(ts[pending[j].t], pending[j].h, now)
		})
		if err != nil {
			return nil, writeError(err)
		}
		var again []call
		var later time.Time
		for j, c := range pending {
			t, h := ts[c.t], c.h
			reply, err := cmds[j].Slice()
			if err != nil {
				return nil, writeError(err)
			}
			status, _ := reply[0].(int64)
			switch scripts.Status(status) {
			case scripts.OK:
				found, _ := reply[2].(int64)
				t.found = t.found || found == 1
				h.done = true
				for _, v := range reply[3:] {
					n, _ := v.(int64)
					h.taken = append(h.taken, int(n)-1)
				}
			case scripts.WrongPeriod:
				ms, _ := reply[1].(int64)
				again, later = append(again, c), time.UnixMilli(ms)
			case scripts.Conflict:
				errs[c.t] = firstErr(errs[c.t], conflictError(t.w))
			case scripts.Limited:
				l, _ := reply[1].(int64)
				end, _ := reply[2].(int64)
				found, _ := reply[3].(int64)
				t.found = t.found || found == 1
				errs[c.t] = firstErr(errs[c.t], t.l.refusal(now, t.w, h.limits[l-1], end))
			default:
				return nil, league.RedisError("leaderboard write", fmt.Errorf("unexpected reply %v", reply))
			}
		}
		pending = again
		if !later.IsZero() {
			e.clock.Learn(later)
			now = later
		}
	}
	for _, c := range pending {
		errs[c.t] = firstErr(errs[c.t], league.RedisError("leaderboard write", errors.New("the limits' windows kept moving")))
	}
	if err := e.replays(ctx, ts, errs); err != nil {
		return nil, err
	}
	var back []*taking
	for i, t := range ts {
		if errs[i] != nil {
			back = append(back, t)
		}
	}
	e.giveBack(ctx, back, true)
	return errs, nil
}

// replays lets through to the write the retries a limit refused whose
// first attempt landed: the write replays its result, as on one shard,
// where a request id's result is looked up before any limit. A retry in a
// window its first attempt did not see would otherwise be refused a write
// already made.
func (e *Engine) replays(ctx context.Context, ts []*taking, errs []error) error {
	var asked []int
	for i, t := range ts {
		if errs[i] != nil && t.found && t.w.RequestID != "" && league.ErrorCode(errs[i]) == league.RateLimited {
			asked = append(asked, i)
		}
	}
	if len(asked) == 0 {
		return nil
	}
	pipe := e.rdb.Pipeline()
	made := make([]*redis.IntCmd, len(asked))
	for j, i := range asked {
		w := ts[i].w
		made[j] = pipe.Exists(ctx, e.memberKeys(ts[i].l, w.Member).request(w.Scope, w.RequestID))
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return writeError(err)
	}
	for j, i := range asked {
		if made[j].Val() == 1 {
			errs[i] = nil
		}
	}
	return nil
}

// firstErr keeps the first error: a write refused on two shards names one limit.
func firstErr(was, err error) error {
	if was != nil {
		return was
	}
	return err
}

// runAll runs n calls of script: one alone (sharing a round trip with
// other goroutines' calls, as a write does), several in one pipeline.
func (e *Engine) runAll(ctx context.Context, script *redis.Script, n int, args func(j int) ([]string, []any)) ([]*redis.Cmd, error) {
	if n == 1 {
		ks, as := args(0)
		return []*redis.Cmd{e.run.Run(ctx, script, false, ks, as...)}, nil
	}
	return e.run.Pipeline(ctx, script, n, args)
}

// settle ends the takes of writes that were then sent: a write refused
// (refused[i]: an answer said so, nothing was written) gives back every
// unit it took, a write that replayed its first attempt's result gives
// back what this attempt took; an accepted write keeps them, and so does
// a write whose outcome is unknown.
func (e *Engine) settle(ctx context.Context, ts []*taking, results []WriteResult, errs []error, refused []bool) {
	var back, extra []*taking
	for i, t := range ts {
		switch {
		case refused[i]:
			back = append(back, t)
		case errs[i] == nil && results[i].Replayed:
			extra = append(extra, t)
		}
	}
	e.giveBack(ctx, back, true)
	e.giveBack(ctx, extra, false)
}

// giveBack gives back the units ts took (all: the writes were refused, and
// their reservations go too; or, not all, what this attempt took beyond
// its reservation), in one round trip. A failure is logged: the units stay
// taken, within the error bound above.
func (e *Engine) giveBack(ctx context.Context, ts []*taking, all bool) {
	type call struct {
		t *taking
		h *hold
	}
	var calls []call
	for _, t := range ts {
		for _, h := range t.holds {
			if h.done && (len(h.taken) > 0 || (all && t.w.RequestID != "")) {
				calls = append(calls, call{t, h})
			}
		}
	}
	if len(calls) == 0 {
		return
	}
	cmds, err := e.runAll(context.WithoutCancel(ctx), scripts.LBGive, len(calls), func(j int) ([]string, []any) {
		t, h := calls[j].t, calls[j].h
		// all: every counter of the hold, of which the script gives back
		// those the reservation records (taken by an earlier attempt too)
		ks := slices.Clone(h.keys)
		if !all || t.w.RequestID == "" {
			ks = ks[:0]
			for _, p := range h.taken {
				ks = append(ks, h.keys[p])
			}
		}
		args := []any{len(ks), flag(t.w.RequestID != ""), flag(all)}
		if t.w.RequestID != "" {
			ks = append(ks, e.plan(t.l).keys[h.shard].reservation(t.w.Scope, t.w.RequestID))
		}
		return ks, args
	})
	if err == nil {
		for _, c := range cmds {
			err = firstErr(err, c.Err())
		}
	}
	if err != nil {
		e.log.Warn("leaderboard: a refused write's rate-limit units could not be given back: they stay taken",
			"leaderboard", calls[0].t.l.ID, "writes", len(ts), "err", err)
	}
}

// conflictError refuses a request id used for another member.
func conflictError(w Write) error {
	return &league.Error{Code: league.Conflict,
		Message: fmt.Sprintf("request_id %q was already used for another member within the idempotency window", w.RequestID)}
}

// writeShared is Write on a leaderboard with limits across shards: the
// takes, the write, then what the write's outcome gives back.
func (e *Engine) writeShared(ctx context.Context, l *Leaderboard, w Write) (WriteResult, error) {
	ts := []*taking{newTaking(l, w)}
	errs, err := e.take(ctx, ts)
	if err != nil {
		return WriteResult{}, err
	}
	if errs[0] != nil {
		return WriteResult{}, errs[0]
	}
	if e.afterTake != nil {
		e.afterTake()
	}
	res, refused, err := e.write(ctx, l, w)
	e.settle(ctx, ts, []WriteResult{res}, []error{err}, []bool{refused})
	return res, err
}
