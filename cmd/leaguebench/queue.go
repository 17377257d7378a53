package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/league-engine/league/internal/keyspace"
	"github.com/league-engine/league/leaderboard"
)

// lbqueue: a write burst against a queued leaderboard (issue #22), not
// live. The leaderboard ("queued") has lbwrite's five boards, one shard,
// and -players members written first.
//
//  1. The sustained direct rate: lbwrite's write (Engine.Write, a fresh
//     request id) to it, closed loop at the highest -concurrency, beside
//     the trivial EVALSHA: a row of the live table.
//  2. -drainers engines, as many replicas' schedulers, loop Drain on it
//     (again at once after a batch, drainIdle later after none), from here
//     to the end.
//  3. The burst: Enqueue of one such write a call, as the API's single
//     write, open loop at -burst-factor × the direct rate for -burst, at
//     most the highest -concurrency in flight, nothing sent after -burst
//     (what was due and not sent is counted). max_lag is the most a queue
//     may hold (MaxQueueLag), more than any burst here, so none should be
//     refused.
//  4. The drain: from the burst's end until Lag is 0.
//
// Then writes accepted (an entry id from Enqueue) against applied (Drain's
// count, and the growth of the all-time board, which must be the sum of
// the values accepted): lost must be 0.

const (
	queueID     = "queued"
	drainIdle   = 50 * time.Millisecond // the scheduler's (scheduler/queue.go)
	queueSample = 100 * time.Millisecond
)

// queueResult is what one lbqueue run measured.
type queueResult struct {
	members  int
	direct   float64 // writes/s, closed loop
	target   float64 // the burst's rate, writes/s
	burstFor time.Duration
	burst    *measurement
	maxLag   int
	drainers int

	accepted, refused, failed atomic.Int64 // Enqueue's answers
	valuesIn                  atomic.Int64 // the values of the writes accepted
	applied, dropped, errs    atomic.Int64 // Drain's: applied, refused when applied, failed calls
	boardGrowth               int64        // the all-time board's sum after the drain, less before the burst

	peakLag    int64
	peakStream int64         // MEMORY USAGE of the stream at the peak lag
	drainAfter time.Duration // from the burst's end to Lag 0
}

func (r *queueResult) lost() int64 { return r.accepted.Load() - r.applied.Load() }

// runQueue measures lbqueue at n members.
func (b *bench) runQueue(ctx context.Context, n int) error {
	ns := newNamespace()
	defer b.dropNamespace(ns)
	conc := slices.Max(b.o.concurrency)
	fmt.Fprintf(b.out, "lbqueue: namespace %s, %s members, %d drainers\n", ns, thousands(float64(n)), b.o.drainers)
	l := &leaderboard.Leaderboard{ID: queueID, Kinds: slices.Clone(benchKinds), Operator: leaderboard.Incr,
		Order: leaderboard.Descending, TieBreak: leaderboard.ByMember, Queue: &leaderboard.QueuePolicy{MaxLag: leaderboard.MaxQueueLag}}
	if err := l.Init(); err != nil {
		return err
	}
	e, err := leaderboard.Open(ctx, b.rdb, []*leaderboard.Leaderboard{l}, b.leaderboardOptions(ns)...)
	if err != nil {
		return err
	}
	tag := ns[len(ns)-3:]
	src, requests := newIDSource(tag, 'q'), newIDSource(tag, 'r')
	members := make([]string, n)
	for i := range members {
		members[i] = src.id(int64(i))
	}
	if _, err := writeBatches(ctx, e, l.ID, members, b.o.loaders, b.out); err != nil {
		return err
	}
	newWrite := func(w *worker) leaderboard.Write {
		return leaderboard.Write{Member: members[w.rng.IntN(n)], Value: 1 + w.rng.Int64N(10), RequestID: requests.fresh()}
	}

	// 1. The direct rate.
	direct := &row{workload: "lbqueue: direct write", via: "lib", players: n, perUnit: true}
	t := turns{unit: "ops", pace: pace{conc: conc}, work: func(ctx context.Context, w *worker) (int, error) {
		_, err := e.Write(ctx, l.ID, newWrite(w))
		return one(err)
	}}
	if b.o.baseline {
		base, err := newBaselines(ctx, b.rdb, ns, b.o.baselineAP)
		if err != nil {
			return err
		}
		direct.baseLabel, t.base = base.label, base.evalsha()
	}
	b.measureRow(ctx, direct, t)
	if err := ctx.Err(); err != nil {
		return err
	}
	res := &queueResult{members: n, direct: direct.work.perSecond(), maxLag: l.Queue.MaxLag, drainers: b.o.drainers}
	res.target, res.burstFor = b.o.burstFactor*res.direct, b.o.burst
	before, err := b.boardSum(ctx, ns)
	if err != nil {
		return err
	}

	// 2. The drainers, each an engine of its own: a consumer of its own.
	var drainers sync.WaitGroup
	defer drainers.Wait() // after stopDrain
	drainCtx, stopDrain := context.WithCancel(ctx)
	defer stopDrain()
	for range b.o.drainers {
		d, err := leaderboard.Open(ctx, b.rdb, []*leaderboard.Leaderboard{l}, b.leaderboardOptions(ns)...)
		if err != nil {
			return err
		}
		drainers.Go(func() { drainLoop(drainCtx, d, res) })
	}

	// 3. The burst, and the lag sampled throughout.
	stream := keyspace.Prefix(ns, keyspace.Leaderboard, queueID) + "queue"
	var sampler sync.WaitGroup
	defer sampler.Wait() // deferred calls run last first: after stopSampling
	sampling, stopSampling := context.WithCancel(ctx)
	defer stopSampling()
	sampler.Go(func() { b.sampleLag(sampling, e, stream, res) })
	s := b.spec("lbqueue: enqueue burst", "ops", pace{conc: conc, rate: res.target})
	s.duration, s.warmup, s.sharp = b.o.burst, 0, true
	res.burst = newMeasurement(s)
	fmt.Fprintf(b.out, "lbqueue: direct writes %s/s; enqueue burst at %s/s for %s, max_lag %s\n",
		thousands(res.direct), thousands(res.target), b.o.burst, thousands(float64(res.maxLag)))
	b.measure(ctx, s, enqueueOp(e, res, newWrite), b.progress(), res.burst, nil)
	ended := time.Now()

	// 4. The drain.
	for {
		lag, err := e.Lag(ctx, l.ID)
		if err != nil {
			return err
		}
		if lag == 0 {
			break
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the queue still held %d writes %s after the burst: %w", lag, time.Since(ended).Round(time.Second), ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
	res.drainAfter = time.Since(ended)
	stopSampling()
	sampler.Wait()
	stopDrain()
	drainers.Wait()
	after, err := b.boardSum(ctx, ns)
	if err != nil {
		return err
	}
	res.boardGrowth = after - before
	b.rep.queues = append(b.rep.queues, res)
	fmt.Fprintln(b.out, res.summary())
	return nil
}

// enqueueOp queues one write, as the API's single write to a queued
// leaderboard, and counts the answer in res.
func enqueueOp(e *leaderboard.Engine, res *queueResult, newWrite func(*worker) leaderboard.Write) op {
	return func(ctx context.Context, w *worker) (int, error) {
		wr := newWrite(w)
		qs, errs, err := e.Enqueue(ctx, queueID, []leaderboard.Write{wr})
		if err == nil {
			err = errs[0]
		}
		var full *leaderboard.Full
		switch {
		case errors.As(err, &full):
			res.refused.Add(1)
		case err != nil:
			res.failed.Add(1) // queued or not: unknown
		case qs[0].ID != "":
			res.accepted.Add(1)
			res.valuesIn.Add(wr.Value)
		}
		return one(err)
	}
}

// drainLoop drains the queue until ctx ends, as the scheduler's loop:
// again at once after a batch, drainIdle later after none or an error.
func drainLoop(ctx context.Context, e *leaderboard.Engine, res *queueResult) {
	for ctx.Err() == nil {
		got, err := e.Drain(ctx, queueID)
		res.applied.Add(int64(got.Applied))
		res.dropped.Add(int64(got.Refused))
		if err != nil && ctx.Err() == nil {
			res.errs.Add(1)
		}
		if err != nil || got.Applied+got.Refused == 0 {
			select {
			case <-ctx.Done():
			case <-time.After(drainIdle):
			}
		}
	}
}

// sampleLag keeps the highest lag, and the stream's MEMORY USAGE then,
// until ctx ends.
func (b *bench) sampleLag(ctx context.Context, e *leaderboard.Engine, stream string, res *queueResult) {
	tick := time.NewTicker(queueSample)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		lag, err := e.Lag(ctx, queueID)
		if err != nil || lag <= res.peakLag {
			continue
		}
		res.peakLag = lag
		if bytes, err := b.rdb.MemoryUsage(ctx, stream).Result(); err == nil {
			res.peakStream = bytes // sampled: Redis's default 5 nodes of the stream
		}
	}
}

// boardSum is the sum of the queued leaderboard's all-time scores.
func (b *bench) boardSum(ctx context.Context, ns string) (int64, error) {
	zs, err := b.rdb.ZRangeWithScores(ctx, leaderboard.BoardKey(ns, queueID, allTime), 0, -1).Result()
	var s int64
	for _, z := range zs {
		s += int64(z.Score)
	}
	return s, err
}

func (r *queueResult) summary() string {
	return fmt.Sprintf("lbqueue: %s accepted at %s/s (target %s/s), %d refused, %d failed; enqueue p50 %s p99 %s; peak lag %s; drained %s after the burst; %s applied, lost %d",
		thousands(float64(r.accepted.Load())), thousands(r.burst.perSecond()), thousands(r.target), r.refused.Load(), r.failed.Load(),
		duration(r.burst.latency.quantile(0.5)), duration(r.burst.latency.quantile(0.99)), thousands(float64(r.peakLag)),
		r.drainAfter.Round(10*time.Millisecond), thousands(float64(r.applied.Load())), r.lost())
}

// queueRows are a queueResult's table: a row per figure.
func queueRows(r *queueResult) [][2]string {
	m := r.burst
	applyRate := float64(r.applied.Load()) / (m.elapsed + r.drainAfter).Seconds()
	return [][2]string{
		{"members; drainers", fmt.Sprintf("%s; %d (engines looping Drain, batch %d)", thousands(float64(r.members)), r.drainers, leaderboard.DefaultQueueBatch)},
		{"sustained direct writes (Engine.Write, closed loop)", thousands(r.direct) + "/s"},
		{"burst: Enqueue asked, open loop", fmt.Sprintf("%s/s for %s (%.1f×), %d in flight at most", thousands(r.target), seconds(r.burstFor), r.target/r.direct, m.conc)},
		{"burst: Enqueue answered; due and not sent by its end", fmt.Sprintf("%s/s (%.2f× the direct rate); %s",
			thousands(m.perSecond()), m.perSecond()/r.direct, thousands(max(r.target*r.burstFor.Seconds()-float64(m.latency.count()), 0)))},
		{"enqueue latency p50 / p99 / p99.9, from the scheduled send", duration(m.latency.quantile(0.5)) + " / " + duration(m.latency.quantile(0.99)) + " / " + duration(m.latency.quantile(0.999))},
		{"enqueue latency p50 / p99, from the actual send", duration(m.service.quantile(0.5)) + " / " + duration(m.service.quantile(0.99))},
		{"Redis / bench CPU during the burst", fmt.Sprintf("%.2f / %.2f cores", m.redisCores(), m.procCores())},
		{"refused (max_lag " + thousands(float64(r.maxLag)) + ") / failed", fmt.Sprintf("%d / %d", r.refused.Load(), r.failed.Load())},
		{"peak lag; the stream then (MEMORY USAGE, sampled)", fmt.Sprintf("%s; %s (%.0f B a write)", thousands(float64(r.peakLag)), bytesIEC(r.peakStream), float64(r.peakStream)/float64(max(r.peakLag, 1)))},
		{"time to drain after the burst", seconds(r.drainAfter)},
		{"applied over burst and drain", thousands(applyRate) + "/s"},
		{"accepted / applied / refused when applied", fmt.Sprintf("%s / %s / %d", thousands(float64(r.accepted.Load())), thousands(float64(r.applied.Load())), r.dropped.Load())},
		{"all-time board's growth / values accepted", fmt.Sprintf("%s / %s", thousands(float64(r.boardGrowth)), thousands(float64(r.valuesIn.Load())))},
		{"lost (accepted - applied); failed Drain calls", fmt.Sprintf("%d; %d", r.lost(), r.errs.Load())},
	}
}

var queueColumns = []column[[2]string]{
	{"lbqueue", false, func(r [2]string) string { return r[0] }},
	{"", false, func(r [2]string) string { return r[1] }},
}
