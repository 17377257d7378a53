package evalsha

import (
	"context"
	"errors"
	"slices"
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

// do runs c and returns its Cmd, done; or, when c's context ends first
// (the request's deadline), a Cmd failing with the context's error, at
// once. A call given up on while it still queues is sent by nobody; one
// already on its way (in a pipeline in flight) may still reach Redis,
// like any call whose reply never came (the caller is told it may have).
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
	select {
	case batch := <-c.wake:
		if batch != nil {
			co.lead(batch)
		}
		return c.cmd
	case <-c.ctx.Done():
		return co.giveUp(c)
	}
}

// giveUp answers a call whose context ended while it waited. Out of the
// queue it goes, if it is still there; if it was handed on already, what
// it was handed is still owed: a batch to lead (sent by a goroutine, its
// own call dropped there as done), or the word that its batch is done.
func (co *coalescer) giveUp(c *call) *redis.Cmd {
	co.mu.Lock()
	i := slices.Index(co.queue, c)
	if i >= 0 {
		co.queue = slices.Delete(co.queue, i, i+1)
	}
	co.mu.Unlock()
	if i < 0 {
		go func() {
			if batch := <-c.wake; batch != nil {
				co.lead(batch)
			}
		}()
	}
	cmd := redis.NewCmd(c.ctx)
	cmd.SetErr(c.ctx.Err())
	return cmd
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
