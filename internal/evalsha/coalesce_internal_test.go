package evalsha

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/league-engine/league/internal/testsvc"
)

// The scripts the coalescer tests send: KEYS[1] += ARGV[1], and a read.
var (
	incrBy = redis.NewScript(`return redis.call('INCRBY', KEYS[1], ARGV[1])`)
	get    = redis.NewScript(`return redis.call('GET', KEYS[1])`)
)

// roundTrips watches what a client sends: the largest pipeline, and a gate
// that holds single commands until it is opened.
type roundTrips struct {
	largest atomic.Int64
	gate    atomic.Pointer[chan struct{}]
	held    chan struct{} // a command reached the closed gate
	panics  atomic.Bool   // the held command panics when the gate opens
}

func (h *roundTrips) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *roundTrips) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if g := h.gate.Load(); g != nil && cmd.Name() == "evalsha" {
			h.held <- struct{}{}
			<-*g
			if h.panics.Load() {
				panic("hook: the round trip blew up")
			}
		}
		return next(ctx, cmd)
	}
}

func (h *roundTrips) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		for n := int64(len(cmds)); ; {
			cur := h.largest.Load()
			if n <= cur || h.largest.CompareAndSwap(cur, n) {
				break
			}
		}
		return next(ctx, cmds)
	}
}

func watched(t *testing.T, b testsvc.Backend) (*redis.Client, *roundTrips, string) {
	ns := testsvc.Namespace(t)
	rdb := b.New(t, ns)
	h := &roundTrips{held: make(chan struct{}, 1)}
	rdb.AddHook(h)
	return rdb, h, ns
}

func incr(co *coalescer, ctx context.Context, key string, by int) *redis.Cmd {
	return co.do(&call{ctx: ctx, script: incrBy, keys: []string{key}, args: []any{by}})
}

// Under load the calls share pipelines, and every call is applied exactly
// once with its own reply.
func TestCoalescerSharesRoundTrips(t *testing.T) {
	for _, b := range testsvc.Backends {
		t.Run(b.Name, func(t *testing.T) {
			rdb, h, ns := watched(t, b)
			co := newCoalescer(rdb, replyLimit(rdb), 1)
			ctx := context.Background()
			const workers, calls = 32, 200
			var wg sync.WaitGroup
			var bad atomic.Int64
			for w := range workers {
				key := fmt.Sprintf("%s:n:%d", ns, w)
				wg.Go(func() {
					for i := 1; i <= calls; i++ {
						// each worker owns its key, so its replies count 1..calls
						if got, err := incr(co, ctx, key, 1).Int64(); err != nil || got != int64(i) {
							bad.Add(1)
							t.Errorf("%s call %d: got %d, %v", key, i, got, err)
							return
						}
						if i%10 == 0 { // read-only calls share pipelines too (EVALSHA_RO)
							read := co.do(&call{ctx: ctx, script: get, ro: true, keys: []string{key}})
							if got, err := read.Int64(); err != nil || got != int64(i) {
								bad.Add(1)
								t.Errorf("%s read after call %d: got %d, %v", key, i, got, err)
								return
							}
						}
					}
				})
			}
			wg.Wait()
			if bad.Load() > 0 {
				return
			}
			if h.largest.Load() < 2 {
				t.Errorf("%d workers on one sender never shared a round trip (largest pipeline %d)", workers, h.largest.Load())
			}
			if co.busy != 0 || len(co.queue) != 0 {
				t.Errorf("after the load: %d senders busy, %d calls queued; want none", co.busy, len(co.queue))
			}
			want := uint64(workers * (calls + calls/10))
			if c, r := co.calls.Load(), co.trips.Load(); c != want || r >= c {
				t.Errorf("counted %d calls in %d round trips; want %d calls in fewer round trips", c, r, want)
			}
		})
	}
}

// A caller whose context ends while it queues is dropped before anything
// is sent; the calls queued beside it still go.
func TestCoalescerDropsCallsCancelledWhileQueued(t *testing.T) {
	rdb, h, ns := watched(t, testsvc.Backends[0])
	co := newCoalescer(rdb, replyLimit(rdb), 1)
	ctx := context.Background()
	first, gate := holdSender(co, h, ns)

	gone, cancel := context.WithCancel(ctx)
	dropped, kept := make(chan error, 1), make(chan error, 1)
	go func() { dropped <- incr(co, gone, ns+":dropped", 1).Err() }()
	waitQueued(t, co, 1)
	go func() { kept <- incr(co, ctx, ns+":kept", 1).Err() }()
	waitQueued(t, co, 2)
	cancel()
	close(gate)

	if err := <-first; err != nil {
		t.Fatalf("first call: %v", err)
	}
	if err := <-dropped; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled call: got %v, want context.Canceled", err)
	}
	if err := <-kept; err != nil {
		t.Errorf("call queued beside it: %v", err)
	}
	for key, want := range map[string]string{"first": "1", "kept": "1"} {
		if got := rdb.Get(ctx, ns+":"+key).Val(); got != want {
			t.Errorf("%s = %q, want %q", key, got, want)
		}
	}
	if n := rdb.Exists(ctx, ns+":dropped").Val(); n != 0 {
		t.Errorf("the cancelled call was applied")
	}
}

// holdSender makes co's only sender busy with a call (incrementing
// ns:first) held at h's gate until the test closes gate; first receives the
// call's error once it returns.
func holdSender(co *coalescer, h *roundTrips, ns string) (first <-chan error, gate chan struct{}) {
	gate = make(chan struct{})
	h.gate.Store(&gate)
	done := make(chan error, 1)
	go func() { done <- incr(co, context.Background(), ns+":first", 1).Err() }()
	<-h.held // the only sender is busy with the first call
	h.gate.Store(nil)
	return done, gate
}

func waitQueued(t *testing.T, co *coalescer, n int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		co.mu.Lock()
		q := len(co.queue)
		co.mu.Unlock()
		if q == n {
			return
		}
	}
	t.Fatalf("%d calls never queued", n)
}

// A server that lost its scripts (SCRIPT FLUSH, a restart) gets them again,
// and each call, alone or in a shared pipeline, is applied once.
func TestCoalescedPipelineReloadsLostScripts(t *testing.T) {
	for _, b := range testsvc.Backends {
		for _, n := range []int{1, 10} {
			t.Run(fmt.Sprintf("%s/%d calls", b.Name, n), func(t *testing.T) {
				rdb, _, ns := watched(t, b)
				ctx := context.Background()
				// a private script, so flushing it cannot disturb other tests
				private := redis.NewScript(fmt.Sprintf(`-- %s
return redis.call('INCRBY', KEYS[1], ARGV[1])`, ns))
				calls := make([]*call, n)
				for i := range calls {
					calls[i] = &call{ctx: ctx, script: private, keys: []string{ns + ":n"}, args: []any{1}}
				}
				if err := evalPipelined(ctx, rdb, replyLimit(rdb), calls); err != nil {
					t.Fatal(err)
				}
				for i, c := range calls {
					if got, err := c.cmd.Int64(); err != nil || got != int64(i+1) {
						t.Fatalf("call %d: got %d, %v; want %d", i, got, err, i+1)
					}
				}
			})
		}
	}
}

// A sender that panics (recovered further up, as net/http does) still hands
// the queue on: no caller waits forever, no sender slot stays taken.
func TestCoalescerSurvivesAPanickingSender(t *testing.T) {
	rdb, h, ns := watched(t, testsvc.Backends[1])
	co := newCoalescer(rdb, replyLimit(rdb), 1)
	ctx := context.Background()
	gate := make(chan struct{})
	h.gate.Store(&gate)
	h.panics.Store(true)

	recovered := make(chan any, 1)
	go func() {
		defer func() { recovered <- recover() }()
		incr(co, ctx, ns+":first", 1)
	}()
	<-h.held
	h.gate.Store(nil)
	queued := make(chan error, 1)
	go func() { queued <- incr(co, ctx, ns+":queued", 1).Err() }()
	waitQueued(t, co, 1)
	close(gate)

	if r := <-recovered; r == nil {
		t.Fatal("the sender did not panic")
	}
	select {
	case err := <-queued:
		if err != nil {
			t.Errorf("queued call: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the queued call was never sent")
	}
	if got, err := incr(co, ctx, ns+":after", 1).Int64(); err != nil || got != 1 {
		t.Errorf("a call after the panic: %d, %v", got, err)
	}
	if co.busy != 0 {
		t.Errorf("%d sender slots still taken", co.busy)
	}
}

// A caller whose deadline passes while the round trip ahead of it hangs
// gets its answer then, not when that round trip ends; it is taken out of
// the queue unsent, and the calls queued beside it go once the sender is
// free.
func TestCoalescerAnswersAtTheDeadline(t *testing.T) {
	rdb, h, ns := watched(t, testsvc.Backends[0])
	co := newCoalescer(rdb, replyLimit(rdb), 1)
	ctx := context.Background()
	first, gate := holdSender(co, h, ns)

	kept := make(chan error, 1)
	go func() { kept <- incr(co, ctx, ns+":kept", 1).Err() }()
	waitQueued(t, co, 1)
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	if err := incr(co, short, ns+":late", 1).Err(); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("call past its deadline: %v, want context.DeadlineExceeded", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("answered %v after the call, with the sender still busy", d)
	}
	waitQueued(t, co, 1) // out of the queue; the other call still in it
	close(gate)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	if err := <-kept; err != nil {
		t.Fatal(err)
	}
	if n := rdb.Exists(ctx, ns+":late").Val(); n != 0 {
		t.Errorf("the call given up on while queued was sent")
	}
}

// A caller handed a batch to lead after its context ended still sends the
// batch (its own call dropped): the others must not wait forever.
func TestCoalescerBatchOfACallerGoneIsSent(t *testing.T) {
	rdb, _, ns := watched(t, testsvc.Backends[0])
	co := newCoalescer(rdb, replyLimit(rdb), 1)
	ctx := context.Background()
	gone, cancel := context.WithCancel(ctx)
	cancel()
	leader := &call{ctx: gone, script: incrBy, keys: []string{ns + ":gone"}, args: []any{1}, wake: make(chan []*call, 1)}
	other := &call{ctx: ctx, script: incrBy, keys: []string{ns + ":other"}, args: []any{1}, wake: make(chan []*call, 1)}
	co.busy = 1
	leader.wake <- []*call{leader, other} // as handOver does
	if err := co.giveUp(leader).Err(); !errors.Is(err, context.Canceled) {
		t.Fatalf("giveUp: %v", err)
	}
	select {
	case b := <-other.wake:
		if b != nil || other.cmd.Err() != nil {
			t.Fatalf("the other call: woken with %v, %v", b, other.cmd.Err())
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the batch of a caller gone was never sent")
	}
	if got := rdb.Get(ctx, ns+":other").Val(); got != "1" || rdb.Exists(ctx, ns+":gone").Val() != 0 {
		t.Fatalf("other = %q; the gone caller's own call sent: %v", got, rdb.Exists(ctx, ns+":gone").Val())
	}
	co.mu.Lock()
	defer co.mu.Unlock()
	if co.busy != 0 {
		t.Fatalf("sender slots busy after the batch: %d", co.busy)
	}
}
