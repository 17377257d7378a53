package league

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// A coalescer sends the single calls of concurrent goroutines (a join, a
// write, a standing) to Redis in shared pipelines, because at load Redis
// spends most of a small script's cost on the socket read and write around
// it, not on the script (BENCHMARKS.md).
//
// It never waits for company. At most max pipelines are in flight; a call
// that finds one free goes at once, alone, so an idle system sees plain
// round trips. A call that finds them all busy queues, and when a pipeline
// returns, its sender hands everything queued by then to one waiting caller,
// who sends it as the next pipeline. So batches grow with the load and
// nothing lingers: this is flat combining, with no goroutine of its own and
// nothing to close.
type coalescer struct {
	rdb   redis.UniversalClient
	limit time.Duration // see sendOnce
	max   int           // pipelines in flight at once
	mu    sync.Mutex
	busy  int     // pipelines in flight
	queue []*call // waiting for the next free sender
	// calls sent and the round trips that carried them (RoundTripStats)
	calls, trips atomic.Uint64
}

// call is one script call through the coalescer.
type call struct {
	ctx    context.Context
	script *redis.Script
	ro     bool // EVALSHA_RO
	keys   []string
	args   []any
	cmd    *redis.Cmd
	// wake tells a queued caller that its call is done (nil) or that it is
	// to send this batch, its own call first.
	wake chan []*call
}

// maxCoalesced bounds one pipeline, so a burst becomes several round trips
// in flight together rather than one huge write.
const maxCoalesced = 128

func newCoalescer(rdb redis.UniversalClient, limit time.Duration, max int) *coalescer {
	return &coalescer{rdb: rdb, limit: limit, max: max}
}

// do runs c and returns its Cmd, done.
func (co *coalescer) do(c *call) *redis.Cmd {
	co.mu.Lock()
	if co.busy < co.max {
		co.busy++
		co.mu.Unlock()
		co.lead([]*call{c})
		return c.cmd
	}
	c.wake = make(chan []*call, 1)
	co.queue = append(co.queue, c)
	co.mu.Unlock()
	if batch := <-c.wake; batch != nil {
		co.lead(batch)
	}
	return c.cmd
}

// lead sends batch (whose first call is the caller's own), passes the queue
// on to its first caller, or frees the sender slot, and then wakes the
// batch's other callers. The hand-over is deferred so that even a panic
// while sending (recovered further up, say by net/http) leaves no caller
// waiting forever and no sender slot taken.
func (co *coalescer) lead(batch []*call) {
	defer co.handOver(batch)
	co.send(batch)
}

var errNotSent = errors.New("league: the shared round trip carrying this call failed")

func (co *coalescer) handOver(batch []*call) {
	for _, c := range batch {
		if c.cmd == nil {
			c.cmd = redis.NewCmd(c.ctx)
			c.cmd.SetErr(errNotSent)
		}
	}
	co.mu.Lock()
	next := co.queue
	if len(next) > maxCoalesced {
		next, co.queue = next[:maxCoalesced:maxCoalesced], next[maxCoalesced:]
	} else {
		co.queue = nil
	}
	if len(next) == 0 {
		co.busy--
	}
	co.mu.Unlock()
	if len(next) > 0 {
		next[0].wake <- next
	}
	for _, c := range batch[1:] {
		c.wake <- nil
	}
}

// send runs the batch: one call as a plain round trip under its own
// context, several as one pipeline. A caller whose context ended while it
// queued is dropped before anything is sent; the pipeline itself does not
// end with any one caller's context (the client's timeouts bound it), so
// one caller giving up cannot fail the others' calls.
func (co *coalescer) send(batch []*call) {
	if len(batch) == 1 {
		co.calls.Add(1)
		co.trips.Add(1)
		batch[0].sendAlone(co.rdb, co.limit)
		return
	}
	live := batch[:0:0]
	for _, c := range batch {
		if err := c.ctx.Err(); err != nil {
			c.cmd = redis.NewCmd(c.ctx)
			c.cmd.SetErr(err)
			continue
		}
		live = append(live, c)
	}
	if len(live) > 0 {
		co.calls.Add(uint64(len(live)))
		co.trips.Add(1)
		_ = evalPipelined(context.WithoutCancel(live[0].ctx), co.rdb, co.limit, live)
	}
}

// sendAlone runs c as a round trip of its own, under its own context
// (go-redis's Script falls back to EVAL once if the server lost the script).
func (c *call) sendAlone(rdb redis.UniversalClient, limit time.Duration) {
	ctx, cancel := sendOnce(c.ctx, limit)
	defer cancel()
	if c.ro {
		c.cmd = c.script.RunRO(ctx, rdb, c.keys, c.args...)
	} else {
		c.cmd = c.script.Run(ctx, rdb, c.keys, c.args...)
	}
}

// sendOnce bounds a round trip's context by limit, the client's read
// timeout (replyLimit), so that go-redis never sends it twice. When a reply
// times out, the command may have run, or will once Redis answers again;
// go-redis then sends it again on another connection if the context still
// allows, and Redis runs that too: a score write without a request id would
// count twice, the caller told of one (TestStalledReplyNeverSentTwice). By the
// time a read times out, this context has ended, and go-redis checks it
// before taking a connection for the retry. The caller gets an unavailable
// error instead, whose write may have landed (README: retry it with the same
// request id). Retries of commands never sent (a refused dial) still happen
// within the limit.
func sendOnce(ctx context.Context, limit time.Duration) (context.Context, context.CancelFunc) {
	if limit <= 0 {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, limit)
}

// replyLimit returns how long rdb waits for a reply before giving up on the
// connection, 0 for never. Clients it cannot ask are taken to keep
// go-redis's default.
func replyLimit(rdb redis.UniversalClient) time.Duration {
	t := 5 * time.Second
	switch c := rdb.(type) {
	case *redis.Client:
		t = c.Options().ReadTimeout
	case *redis.ClusterClient:
		t = c.Options().ReadTimeout
	case *redis.Ring:
		t = c.Options().ReadTimeout
	}
	return max(t, 0)
}

// evalPipelined runs calls as EVALSHA (or EVALSHA_RO) in one pipeline and
// sets each call's Cmd. If the server lost its script cache (a restart,
// SCRIPT FLUSH), the scripts of the calls that met NOSCRIPT are loaded again
// and those calls, and only those, are sent once more. The error is the
// round trip's own (Redis unreachable); a command's error reply stays in its
// Cmd.
func evalPipelined(ctx context.Context, rdb redis.UniversalClient, limit time.Duration, calls []*call) error {
	for attempt := 0; ; attempt++ {
		err := sendPipeline(ctx, rdb, limit, calls)
		if err == nil {
			return nil
		}
		if _, reply := err.(redis.Error); !reply || isUnavailable(err) {
			return err
		}
		var lost []*call
		scripts := map[*redis.Script]bool{}
		for _, c := range calls {
			if redis.HasErrorPrefix(c.cmd.Err(), "NOSCRIPT") {
				lost = append(lost, c)
				scripts[c.script] = true
			}
		}
		if len(lost) == 0 || attempt > 0 {
			return nil
		}
		for s := range scripts {
			// on a cluster, go-redis loads it into every node
			if err := s.Load(ctx, rdb).Err(); err != nil {
				return err
			}
		}
		calls = lost
	}
}

// sendPipeline sends calls in one pipeline, bounded by sendOnce.
func sendPipeline(ctx context.Context, rdb redis.UniversalClient, limit time.Duration, calls []*call) error {
	ctx, cancel := sendOnce(ctx, limit)
	defer cancel()
	pipe := rdb.Pipeline()
	for _, c := range calls {
		if c.ro {
			c.cmd = c.script.EvalShaRO(ctx, pipe, c.keys, c.args...)
		} else {
			c.cmd = c.script.EvalSha(ctx, pipe, c.keys, c.args...)
		}
	}
	_, err := pipe.Exec(ctx)
	return err
}
