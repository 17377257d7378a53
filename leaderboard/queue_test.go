package leaderboard_test

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
	"github.com/league-engine/league/leaderboard"
	"github.com/league-engine/league/league"
)

func queued(maxLag int) func(*leaderboard.Leaderboard) {
	return func(l *leaderboard.Leaderboard) {
		l.Queue = &leaderboard.QueuePolicy{MaxLag: maxLag, Batch: 50, ClaimAfter: time.Second}
	}
}

// drainAll drains e until nothing is left, waiting out another
// consumer's lease on a shard.
func drainAll(t *testing.T, e *leaderboard.Engine, id string) leaderboard.DrainResult {
	t.Helper()
	var all leaderboard.DrainResult
	for deadline := time.Now().Add(10 * time.Second); ; {
		r, err := e.Drain(context.Background(), id)
		testsvc.Must(t, err, "Drain")
		all.Applied, all.Refused, all.Claimed = all.Applied+r.Applied, all.Refused+r.Refused, all.Claimed+r.Claimed
		if r.Applied+r.Refused > 0 {
			continue
		}
		if lag, err := e.Lag(context.Background(), id); err != nil || lag == 0 || r.Yielded == 0 {
			return all
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: still yielding to another consumer after 10 s", id)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestQueueOneDrainerWhileSmall: while a shard's backlog is under half its
// bound, one consumer drains it and the others yield until its lease
// lapses; past half, every consumer drains.
func TestQueueOneDrainerWhileSmall(t *testing.T) {
	for _, b := range testsvc.Backends {
		t.Run(b.Name, func(t *testing.T) {
			ctx := context.Background()
			ns := testsvc.Namespace(t)
			rdb := b.New(t, ns)
			var es []*leaderboard.Engine
			for range 2 {
				l := newLeaderboard(t, queued(100))
				e, err := leaderboard.Open(ctx, rdb, []*leaderboard.Leaderboard{l}, leaderboard.WithNamespace(ns))
				testsvc.Must(t, err, "Open")
				es = append(es, e)
			}
			enqueue := func(n int) {
				t.Helper()
				ws := make([]leaderboard.Write, n)
				for i := range ws {
					ws[i] = leaderboard.Write{Member: fmt.Sprintf("m%d", i), Value: 1}
				}
				_, errs, err := es[0].Enqueue(ctx, "kills", ws)
				testsvc.Must(t, errors.Join(append(errs, err)...), "Enqueue")
			}
			drain := func(e int, applied, yielded int) {
				t.Helper()
				r, err := es[e].Drain(ctx, "kills")
				testsvc.Must(t, err, "Drain")
				if r.Applied != applied || r.Yielded != yielded {
					t.Fatalf("engine %d drained %+v, want %d applied, %d yielded", e, r, applied, yielded)
				}
			}
			lease := ns + ":lb:{kills}:drainer"
			enqueue(10)
			drain(0, 10, 0)
			if ttl := rdb.PTTL(ctx, lease).Val(); ttl <= 0 || ttl > 2*time.Second {
				t.Fatalf("the lease lasts %v, want (0, 2s]", ttl)
			}
			enqueue(10)
			drain(1, 0, 1) // engine 0 holds the lease
			drain(0, 10, 0)
			enqueue(49)
			drain(1, 0, 1)
			enqueue(1) // 50 waiting: half of max_lag 100
			drain(1, 50, 0)
			enqueue(5)
			testsvc.Must(t, rdb.Del(ctx, lease).Err(), "lapse the lease")
			drain(1, 5, 0) // engine 0's lease lapsed: engine 1 takes it
			enqueue(5)
			drain(0, 0, 1)
		})
	}
}

// TestQueue: a queued write is answered at once and applied by Drain, on
// the boards of the time it was queued; the queue refuses writes past
// max_lag; bad input is refused when queued; the rules when applied.
func TestQueue(t *testing.T) {
	for _, b := range testsvc.Backends {
		t.Run(b.Name, func(t *testing.T) {
			f := open(t, b, func(l *leaderboard.Leaderboard) {
				queued(3)(l)
				l.MaxScore = 100
			})
			day := f.top(leaderboard.Day, "")
			_ = day
			// queued a minute before midnight, applied after it: yesterday's board
			f.clock.Set(time.Date(2026, 11, 25, 23, 59, 0, 0, time.UTC))
			qs, errs, err := f.engine.Enqueue(f.ctx, "kills", []leaderboard.Write{
				{Member: "ann", Value: 5}, {Member: "bob", Value: 7}, {Member: "", Value: 1}, {Member: "cat", Value: 200},
			})
			testsvc.Must(t, err, "Enqueue")
			if errs[0] != nil || errs[1] != nil || qs[0].ID == "" || qs[1].Behind != 2 {
				t.Fatalf("queued: %+v %v", qs, errs)
			}
			if league.ErrorCode(errs[2]) != league.Invalid || league.ErrorCode(errs[3]) != league.Overflow {
				t.Fatalf("bad writes: %v", errs)
			}
			if _, errs, _ := f.engine.Enqueue(f.ctx, "kills", []leaderboard.Write{{Member: "dan", Value: 1}, {Member: "eve", Value: 1}}); errs[0] != nil ||
				league.ErrorCode(errs[1]) != league.Unavailable || !errors.As(errs[1], new(*leaderboard.Full)) {
				t.Fatalf("past max_lag 3: %v", errs)
			}
			if lag, _ := f.engine.Lag(f.ctx, "kills"); lag != 3 {
				t.Fatalf("lag %d, want 3", lag)
			}
			if got := entries(f.top(leaderboard.Day, "")); got != "" {
				t.Fatalf("the board before the drain: %s", got)
			}
			f.clock.Set(time.Date(2026, 11, 26, 0, 1, 0, 0, time.UTC))
			if r := drainAll(t, f.engine, "kills"); r.Applied != 3 || r.Refused != 0 {
				t.Fatalf("drained %+v", r)
			}
			if got := entries(f.top(leaderboard.Day, "20261125T000000Z")); got != "1.bob=7 2.ann=5 3.dan=1 " {
				t.Fatalf("yesterday's board: %s", got)
			}
			if got := entries(f.top(leaderboard.Day, "")); got != "" {
				t.Fatalf("today's board: %s", got)
			}
			if lag, _ := f.engine.Lag(f.ctx, "kills"); lag != 0 {
				t.Fatalf("lag %d after the drain", lag)
			}
			// past the maximum when applied: dropped, counted
			f.engine.Enqueue(f.ctx, "kills", []leaderboard.Write{{Member: "bob", Value: 95}})
			if r := drainAll(t, f.engine, "kills"); r.Applied != 0 || r.Refused != 1 {
				t.Fatalf("drained %+v", r)
			}
			if _, _, err := f.engine.Enqueue(f.ctx, "nope", nil); league.ErrorCode(err) != league.NotFound {
				t.Fatalf("unknown leaderboard: %v", err)
			}
		})
	}
}

// TestQueueExactlyOnce: writers queue while three consumers drain, one of
// them taking batches and dying with them (never applying); another claims
// them after claim_after. Every write queued is applied exactly once.
func TestQueueExactlyOnce(t *testing.T) {
	ns := testsvc.Namespace(t)
	rdb := testsvc.Redis(t, ns)
	ctx := context.Background()
	var engines []*leaderboard.Engine
	for range 3 {
		l := newLeaderboard(t, func(l *leaderboard.Leaderboard) {
			queued(1_000_000)(l)
			l.Shards = 3
		})
		e, err := leaderboard.Open(ctx, rdb, []*leaderboard.Leaderboard{l}, leaderboard.WithNamespace(ns))
		testsvc.Must(t, err, "Open")
		engines = append(engines, e)
	}
	var accepted atomic.Int64
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				batch := make([]leaderboard.Write, 10)
				for j := range batch {
					batch[j] = leaderboard.Write{Member: fmt.Sprintf("m%d", (w*7+i+j)%40), Value: 1}
				}
				_, errs, err := engines[w%3].Enqueue(ctx, "kills", batch)
				testsvc.Must(t, err, "Enqueue")
				for _, e := range errs {
					if e == nil {
						accepted.Add(1)
					}
				}
			}
		}()
	}
	// a third consumer takes batches as they come, from every shard, and
	// dies with them
	var taken int
	for deadline := time.Now().Add(10 * time.Second); taken < 60 && time.Now().Before(deadline); {
		for s := range 3 {
			key := fmt.Sprintf("%s:lb:{kills}:queue", ns)
			if s > 0 {
				key = fmt.Sprintf("%s:lb:{kills:%d}:queue", ns, s)
			}
			streams, err := rdb.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "apply", Consumer: "dead", Streams: []string{key, ">"}, Count: 20, Block: -1}).Result()
			if err != nil && err != redis.Nil {
				t.Fatal(err)
			}
			for _, st := range streams {
				taken += len(st.Messages)
			}
		}
	}
	stop := make(chan struct{})
	var consumers sync.WaitGroup
	for _, e := range engines[:2] {
		consumers.Add(1)
		go func() {
			defer consumers.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := e.Drain(ctx, "kills"); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	time.Sleep(1100 * time.Millisecond) // past claim_after
	close(stop)
	consumers.Wait()
	r := drainAll(t, engines[2], "kills")
	if taken == 0 {
		t.Fatal("the dying consumer took nothing: the test proves nothing")
	}
	b, err := engines[0].Top(ctx, "kills", leaderboard.AllTime, "", 0, 100)
	testsvc.Must(t, err, "Top")
	var sum int64
	for _, en := range b.Entries {
		sum += en.Score
	}
	if lag, _ := engines[0].Lag(ctx, "kills"); sum != accepted.Load() || lag != 0 {
		t.Fatalf("%d accepted, %d applied (lag %d; %d taken by the dead consumer, the last drain %+v)", accepted.Load(), sum, lag, taken, r)
	}
	t.Logf("%d writes, %d taken by the dead consumer and claimed", accepted.Load(), taken)
}
