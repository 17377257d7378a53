package leaderboard

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/league-engine/league/league"
	"github.com/league-engine/league/scripts"
)

// Queued leaderboards (seed 004): a write peak larger than Redis can take
// at once is shaved by a queue. Enqueue appends each write to a Redis
// Stream, <ns>:lb:{id}:queue (one per shard, under the shard's hash tag),
// and answers at once; every replica's scheduler drains the streams
// through a consumer group, applying batches with lb_write.lua, which
// acknowledges and deletes the entry in the same atomic step as the write.
// So an entry is applied exactly once: a consumer killed mid-batch leaves
// its entries pending, another claims them after ClaimAfter, and those it
// had applied are no longer there to claim. A write counts on the boards
// of the time it was queued (the entry's id is Redis's clock then), not of
// when it is applied.
//
// Writes are checked (ids, values, dimensions) when queued; the
// leaderboard's rules (its maximum score, its limits) when applied: a
// queued write they refuse is dropped, logged and counted in DrainResult.

// QueuePolicy makes a leaderboard queued.
type QueuePolicy struct {
	// MaxLag is how many writes may wait (over every shard): past it a
	// write is refused (league.Unavailable, Retry-After) rather than let
	// the stream grow without bound.
	MaxLag int
	// Batch is how many entries a consumer applies per round trip.
	Batch int
	// ClaimAfter is how long an entry may sit with a consumer that took it
	// before another claims it (the first is taken for dead).
	ClaimAfter time.Duration
}

// Queue defaults and bounds.
const (
	DefaultQueueBatch = 100
	DefaultClaimAfter = 30 * time.Second
	MaxQueueLag       = 10_000_000
	queueGroup        = "apply" // the consumer group every replica joins
)

func (q *QueuePolicy) init() error {
	if q.MaxLag < 1 || q.MaxLag > MaxQueueLag {
		return fmt.Errorf("queue.max_lag: %d is outside 1..%d", q.MaxLag, MaxQueueLag)
	}
	if q.Batch == 0 {
		q.Batch = DefaultQueueBatch
	}
	if q.Batch < 1 || q.Batch > MaxBatch {
		return fmt.Errorf("queue.batch: %d is outside 1..%d", q.Batch, MaxBatch)
	}
	if q.ClaimAfter == 0 {
		q.ClaimAfter = DefaultClaimAfter
	}
	if q.ClaimAfter < time.Second {
		return fmt.Errorf("queue.claim_after: %v is shorter than 1s", q.ClaimAfter)
	}
	return nil
}

// shardShare is how many writes each of n shards' streams may hold.
func (q *QueuePolicy) shardShare(n int) int { return (q.MaxLag + n - 1) / n }

func (k keys) queue() string { return k.prefix + "queue" }

// drainer is the lease of the consumer draining the shard's queue.
func (k keys) drainer() string { return k.prefix + "drainer" }

// drainLease is how long a consumer keeps the right to drain a shard alone
// after its last drain: long beside the drain loop's pauses (drainIdle),
// short beside ClaimAfter, so a replica that dies hands the shard over
// well before its entries are claimable.
const drainLease = 2 * time.Second

// drainersAt is the share of a shard's queue bound (MaxLag/shards) from
// which every consumer drains it, not only the lease's holder: a backlog
// that nears refusals gets every replica's help, which on Redis Cluster
// spreads a sharded queue's drain over the replicas.
const drainersAt = 2 // 1/2

// entry is a queued write as a consumer applies it.
type entry struct {
	id string
	at time.Time // when it was queued
	w  Write
}

// Queued is a write accepted into the queue.
type Queued struct {
	ID     string // the stream entry's id
	Behind int64  // writes waiting in its shard's stream, itself included
}

// Full is why a queued leaderboard refused a write (the cause of its
// league.Unavailable error): the API answers Retry-After.
type Full struct{ Leaderboard string }

func (f *Full) Error() string {
	return fmt.Sprintf("leaderboard %q has as many writes waiting as its queue.max_lag allows: retry shortly; nothing was queued", f.Leaderboard)
}

// RetryAfter is a short wait: consumers drain thousands of writes a second.
func (f *Full) RetryAfter() time.Duration { return time.Second }

// Enqueue queues writes to leaderboard id (which must be queued), in one
// round trip: qs[i] for writes[i], or errs[i] when it was refused (bad
// input, or the queue full). err is the call's own failure.
func (e *Engine) Enqueue(ctx context.Context, id string, writes []Write) (qs []Queued, errs []error, err error) {
	l, err := e.Leaderboard(id)
	if err != nil {
		return nil, nil, err
	}
	if l.Queue == nil {
		return nil, nil, &league.Error{Code: league.Invalid, Message: fmt.Sprintf("leaderboard %q is not queued", id)}
	}
	if len(writes) > MaxBatch {
		return nil, nil, &league.Error{Code: league.Invalid, Field: "writes", Message: fmt.Sprintf("%d writes, at most %d", len(writes), MaxBatch)}
	}
	qs, errs = make([]Queued, len(writes)), make([]error, len(writes))
	var ok []int
	for i, w := range writes {
		if errs[i] = l.checkWrite(w); errs[i] == nil {
			ok = append(ok, i)
		}
	}
	if len(ok) == 0 {
		return qs, errs, nil
	}
	at := "*" // Redis's clock: the time the write counts at
	if ms := e.clock.Arg(); ms != "" {
		at = ms + "-*" // a fixed clock (tests): its time
	}
	now := e.clock.Now()
	for attempt := 0; len(ok) > 0; attempt++ {
		// the stream of each write is its member's shard at now, which the
		// script checks against its own clock (a switch, reshard.go)
		from, until := e.plan(l).span(now)
		share := l.Queue.shardShare(len(e.shardsAt(l, now)))
		cmds, err := e.run.Pipeline(ctx, scripts.LBEnqueue, len(ok), func(j int) ([]string, []any) {
			w := writes[ok[j]]
			args := []any{share, at, msArg(from), msArg(until), "m", w.Member, "v", w.Value}
			for _, f := range [][2]string{{"r", w.RequestID}, {"s", w.Scope}, {"a", w.Actor}, {"c", w.Channel}, {"t", w.Terminal}} {
				if f[1] != "" {
					args = append(args, f[0], f[1])
				}
			}
			return []string{e.memberKeysAt(l, w.Member, now).queue()}, args
		})
		if err != nil {
			return nil, nil, league.RedisError("leaderboard enqueue", err)
		}
		var again []int
		for j, i := range ok {
			reply, err := cmds[j].Slice()
			if err != nil {
				errs[i] = league.RedisError("leaderboard enqueue", err)
				continue
			}
			switch st, _ := reply[0].(int64); st {
			case 0:
				f := &Full{Leaderboard: id}
				errs[i] = &league.Error{Code: league.Unavailable, Message: f.Error(), Err: f}
			case 2:
				ms, _ := reply[1].(int64)
				now = time.UnixMilli(ms)
				again = append(again, i)
			default:
				qs[i].ID, _ = reply[1].(string)
				qs[i].Behind, _ = reply[2].(int64)
			}
		}
		if ok = again; len(ok) > 0 && attempt == 3 {
			for _, i := range ok {
				errs[i] = league.RedisError("leaderboard enqueue", errors.New("the shard count kept moving"))
			}
			break
		}
	}
	return qs, errs, nil
}

// openQueues creates each shard's consumer group (and stream) of a queued
// leaderboard, once.
func (e *Engine) openQueues(ctx context.Context, l *Leaderboard) error {
	if l.Queue == nil {
		return nil
	}
	for _, k := range e.everyShard(l) {
		err := e.rdb.XGroupCreateMkStream(ctx, k.queue(), queueGroup, "0").Err()
		if err != nil && !strings.HasPrefix(err.Error(), "BUSYGROUP") {
			return league.RedisError("leaderboard queue", err)
		}
	}
	return nil
}

// Lag is how many writes wait in leaderboard id's queue (0 for a
// leaderboard that is not queued): queued or taken by a consumer, not yet
// applied. Reads of its boards may be that far behind.
func (e *Engine) Lag(ctx context.Context, id string) (int64, error) {
	l, err := e.Leaderboard(id)
	if err != nil || l.Queue == nil {
		return 0, err
	}
	pipe := e.rdb.Pipeline()
	shards := e.everyShard(l)
	lens := make([]*redis.IntCmd, len(shards))
	for s, k := range shards {
		lens[s] = pipe.XLen(ctx, k.queue())
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return 0, league.RedisError("leaderboard queue", err)
	}
	var n int64
	for _, c := range lens {
		n += c.Val()
	}
	return n, nil
}

// DrainResult is what one Drain did.
type DrainResult struct {
	Applied int // writes applied (or found applied already: a replayed request id)
	Refused int // writes the leaderboard's rules refused when applied: dropped
	Claimed int // entries claimed from a consumer that held them past ClaimAfter
	Yielded int // shards left to the consumer holding their lease
}

// Drain applies up to a batch of queued writes from each shard of
// leaderboard id: first those a consumer took and held past ClaimAfter
// (it died), then new ones. The scheduler calls it in a loop in every
// replica; any number may run at once. While a shard's backlog is under
// half its share of MaxLag, only one consumer drains it (lb_drainer.lua's
// lease) and the others yield it: a drain on every replica would crowd out
// the enqueues of the burst the queue is there to take.
func (e *Engine) Drain(ctx context.Context, id string) (DrainResult, error) {
	var res DrainResult
	l, err := e.Leaderboard(id)
	if err != nil || l.Queue == nil {
		return res, err
	}
	// Entries are claimable only once idle ClaimAfter: looking a few
	// times in that span is enough, and spares an idle queue's shards a
	// command each every drain.
	claim := false
	if last, _ := e.claimed.Load(l.ID); last == nil || time.Since(last.(time.Time)) > l.Queue.ClaimAfter/4 {
		claim = true
		e.claimed.Store(l.ID, time.Now())
	}
	share := l.Queue.shardShare(len(e.shards(l)))
	for _, k := range e.everyShard(l) {
		mine, err := e.run.Run(ctx, scripts.LBDrainer, false, []string{k.drainer(), k.queue()},
			e.token, drainLease.Milliseconds(), max(1, share/drainersAt)).Slice()
		if err != nil {
			return res, league.RedisError("leaderboard queue", err)
		}
		if drain, _ := mine[0].(int64); drain == 0 {
			res.Yielded++
			continue
		}
		var msgs []redis.XMessage
		if claim {
			claimed, _, err := e.rdb.XAutoClaim(ctx, &redis.XAutoClaimArgs{Stream: k.queue(), Group: queueGroup, Consumer: e.token,
				MinIdle: l.Queue.ClaimAfter, Start: "0-0", Count: int64(l.Queue.Batch)}).Result()
			if err != nil {
				return res, league.RedisError("leaderboard queue", err)
			}
			msgs = claimed
			res.Claimed += len(claimed)
		}
		if len(msgs) < l.Queue.Batch {
			streams, err := e.rdb.XReadGroup(ctx, &redis.XReadGroupArgs{Group: queueGroup, Consumer: e.token,
				Streams: []string{k.queue(), ">"}, Count: int64(l.Queue.Batch - len(msgs)), Block: -1}).Result()
			if err != nil && err != redis.Nil {
				return res, league.RedisError("leaderboard queue", err)
			}
			for _, s := range streams {
				msgs = append(msgs, s.Messages...)
			}
		}
		if err := e.apply(ctx, l, k, msgs, &res); err != nil {
			return res, err
		}
	}
	return res, nil
}

// apply writes a batch of entries of one shard's stream in one round trip
// (rolling boards not yet filled: a second, with their buckets).
func (e *Engine) apply(ctx context.Context, l *Leaderboard, k keys, msgs []redis.XMessage, res *DrainResult) error {
	entries := make([]entry, 0, len(msgs))
	var done []string // entries to acknowledge apart: unreadable, refused, or replayed
	for _, m := range msgs {
		en, err := readEntry(m)
		if err == nil {
			err = l.checkWrite(en.w)
		}
		if err != nil {
			e.log.Error("leaderboard queue: an entry that is no write, dropped", "leaderboard", l.ID, "entry", m.ID, "err", err)
			done, res.Refused = append(done, m.ID), res.Refused+1
			continue
		}
		entries = append(entries, en)
	}
	var rs []retry
	if e.switched(l) {
		rs = make([]retry, len(entries))
		for j, en := range entries {
			rs[j] = retry{l, en.w, en.at}
		}
	}
	found, _, _, err := e.retriesAcross(ctx, rs)
	if err != nil {
		return league.RedisError("leaderboard queue", err) // left pending: claimed again later
	}
	if found != nil {
		var rest []entry
		for j, en := range entries {
			if found[j] { // the retry of a write applied before a switch
				res.Applied++
				done = append(done, en.id)
			} else {
				rest = append(rest, en)
			}
		}
		entries = rest
	}
	seed := make([]bool, len(entries))
	var limited []error // refusals by a rate limit, for the refusals log
	defer func() { e.logRefusals(ctx, limited...) }()
	for attempt := 0; len(entries) > 0 && attempt < 2; attempt++ {
		cmds, err := e.run.Pipeline(ctx, scripts.LBWrite, len(entries), func(j int) ([]string, []any) {
			en := entries[j]
			return e.writeArgs(l, en.at, l.periodsAt(en.at), en.w, seed[j], &en)
		})
		if err != nil {
			return league.RedisError("leaderboard queue", err)
		}
		var again []entry
		for j, cmd := range cmds {
			reply, err := cmd.Slice()
			if err != nil {
				return league.RedisError("leaderboard queue", err) // left pending: claimed again later
			}
			ps := l.periodsAt(entries[j].at)
			_, _, werr := l.writeResult(entries[j].at, ps, false, entries[j].w, reply)
			switch st, _ := reply[0].(int64); {
			case errors.Is(werr, errNeedSeed):
				again = append(again, entries[j])
			case scripts.Status(st) == scripts.OK:
				res.Applied++ // acknowledged by the script
			case scripts.Status(st) == scripts.Existing:
				res.Applied++
				done = append(done, entries[j].id)
			default:
				e.log.Warn("leaderboard queue: a queued write refused when applied, dropped", "leaderboard", l.ID,
					"entry", entries[j].id, "member", entries[j].w.Member, "err", werr)
				res.Refused++
				done = append(done, entries[j].id)
				if league.ErrorCode(werr) == league.RateLimited {
					limited = append(limited, werr)
				}
			}
		}
		entries = again
		seed = make([]bool, len(entries))
		for j := range seed {
			seed[j] = true
		}
	}
	if len(done) > 0 {
		pipe := e.rdb.TxPipeline() // one key: one slot
		pipe.XAck(ctx, k.queue(), queueGroup, done...)
		pipe.XDel(ctx, k.queue(), done...)
		if _, err := pipe.Exec(ctx); err != nil {
			return league.RedisError("leaderboard queue", err)
		}
	}
	return nil
}

// readEntry decodes a stream entry written by Enqueue.
func readEntry(m redis.XMessage) (entry, error) {
	ms, err := strconv.ParseInt(strings.SplitN(m.ID, "-", 2)[0], 10, 64)
	if err != nil {
		return entry{}, fmt.Errorf("entry id %q: %w", m.ID, err)
	}
	str := func(f string) string { s, _ := m.Values[f].(string); return s }
	v, err := strconv.ParseInt(str("v"), 10, 64)
	if err != nil {
		return entry{}, fmt.Errorf("value %q: %w", str("v"), err)
	}
	return entry{id: m.ID, at: time.UnixMilli(ms).UTC(), w: Write{Member: str("m"), Value: v, RequestID: str("r"),
		Scope: str("s"), Actor: str("a"), Channel: str("c"), Terminal: str("t")}}, nil
}
