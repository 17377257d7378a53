package main

import (
	"context"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// measurement is one workload (or baseline) run: what it did and how long
// each request took.
type measurement struct {
	label   string // "score/http", or the baseline's label
	unit    string
	conc    int
	rate    float64 // open loop: the arrival rate asked for; 0: closed loop
	elapsed time.Duration
	units   atomic.Uint64
	// latency is from the send (closed loop) or from the scheduled send time
	// (open loop: a request that waited for a worker counts its wait).
	latency histogram
	// service is from the actual send, open loop only: latency minus the
	// wait, i.e. what a closed-loop run would report.
	service histogram
	// lag is the actual send minus the scheduled send, open loop only: the
	// load generator's own delay (waking a sleeping worker, or every worker
	// busy). Large lag with small service time means the harness, not the
	// target, fell behind.
	lag  histogram
	errs errorLog
	// procSecs and redisSecs are the CPU seconds this process (the load
	// generator, and the in-process server when there is one) and Redis
	// used over the run.
	procSecs, redisSecs float64
	// leagued is a separate leagued's (-http) CPU over the run, from its
	// /metrics; empty when the target runs in this process.
	leagued cpuTally
}

// procCores and redisCores are the CPU cores this process and Redis kept
// busy over the run: 1.0 is one core flat out (0 before any run).
func (m *measurement) procCores() float64  { return m.cores(m.procSecs) }
func (m *measurement) redisCores() float64 { return m.cores(m.redisSecs) }

func (m *measurement) cores(secs float64) float64 {
	if m.elapsed <= 0 {
		return 0
	}
	return secs / m.elapsed.Seconds()
}

// perSecond is the units completed per second of the run.
func (m *measurement) perSecond() float64 { return float64(m.units.Load()) / m.elapsed.Seconds() }

// spec is how to drive an op.
type spec struct {
	label, unit string
	conc        int
	rate        float64
	duration    time.Duration
	warmup      time.Duration
	seed        uint64
	// sharp ends an open-loop run at its duration: nothing is sent after
	// it, though due before (lbqueue's burst ends when it ends; what was
	// due and not sent is the rate asked less the requests made).
	sharp bool
	// redis is the Redis whose CPU the run reads (a cluster: every
	// node's); nil: the run's.
	redis redis.UniversalClient
}

func newMeasurement(s spec) *measurement {
	return &measurement{label: s.label, unit: s.unit, conc: s.conc, rate: s.rate}
}

// warm runs op for the warmup, unmeasured.
func warm(ctx context.Context, s spec, fn op) {
	if s.warmup > 0 {
		drive(ctx, s, s.warmup, fn, newMeasurement(s))
	}
}

// measure runs op for the spec's duration and adds what it did to m (a
// measurement may be made of several rounds), printing a progress line a
// second unless progress is nil. leagued, when not nil, is the separate
// leagued the op drives, whose CPU is read around the turn too.
func (b *bench) measure(ctx context.Context, s spec, fn op, progress io.Writer, m *measurement, leagued *leaguedCPU) {
	var lcpu0 float64
	var lerr error
	if leagued != nil {
		// Read first, so the scrape's own cost falls outside this
		// process's and Redis's readings.
		lcpu0, lerr = leagued.seconds(ctx)
	}
	cpu0, rcpu0 := processCPU(), b.redisCPU(ctx, s.redis)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	if progress != nil {
		wg.Go(func() { reportProgress(m, stop, progress) })
	}
	m.elapsed += drive(ctx, s, s.duration, fn, m)
	close(stop)
	wg.Wait()
	m.procSecs += processCPU() - cpu0
	m.redisSecs += b.redisCPU(ctx, s.redis) - rcpu0
	if leagued != nil {
		var lcpu1 float64
		if lerr == nil {
			lcpu1, lerr = leagued.seconds(ctx)
		}
		if err := m.leagued.add(lcpu0, lcpu1, lerr); err != nil {
			leagued.warn(err)
		}
	}
}

// drive runs the workers for d and returns the time until the last one
// finished its last request. Closed loop: each of s.conc workers sends its
// next request when the last one returns. Open loop (s.rate > 0): requests
// are due at fixed intervals from the start; a worker takes the next due
// request, waits for its time if early, and the latency counts from the
// time it was due, so a stall shows in the latency of every request it
// delayed rather than thinning the sample (coordinated omission).
func drive(ctx context.Context, s spec, d time.Duration, fn op, m *measurement) time.Duration {
	// Requests still running well past the end are abandoned, so every run
	// ends in bounded time even if the target hangs.
	opCtx, cancel := context.WithTimeout(ctx, d+30*time.Second)
	defer cancel()
	start := time.Now()
	deadline := start.Add(d)
	var due atomic.Int64 // open loop: the next request's number
	var wg sync.WaitGroup
	for i := range s.conc {
		w := newWorker(s.seed, i)
		wg.Go(func() {
			defer w.close()
			for opCtx.Err() == nil {
				var sched time.Time
				if s.rate > 0 {
					n := due.Add(1) - 1
					sched = start.Add(time.Duration(float64(n) * float64(time.Second) / s.rate))
					if !sched.Before(deadline) || !w.sleepUntil(opCtx, sched) || s.sharp && time.Now().After(deadline) {
						return
					}
				}
				sent := time.Now()
				if s.rate == 0 {
					if !sent.Before(deadline) {
						return
					}
					sched = sent
				}
				units, err := fn(opCtx, w)
				done := time.Now()
				m.latency.record(done.Sub(sched))
				if s.rate > 0 {
					m.service.record(done.Sub(sent))
					m.lag.record(sent.Sub(sched))
				}
				m.units.Add(uint64(units))
				if err != nil {
					m.errs.add(err)
				}
			}
		})
	}
	wg.Wait()
	return time.Since(start)
}

// sleepUntil waits for t; false if ctx ended first.
func (w *worker) sleepUntil(ctx context.Context, t time.Time) bool {
	d := time.Until(t)
	if d <= 0 {
		return true
	}
	if w.timer == nil {
		w.timer = time.NewTimer(d)
	} else {
		w.timer.Reset(d)
	}
	select {
	case <-w.timer.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// reportProgress prints a line a second: the last second's rate and p99,
// and the errors so far.
func reportProgress(m *measurement, stop <-chan struct{}, out io.Writer) {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	began, last := time.Now(), time.Now()
	prev, prevUnits := m.latency.snapshot(), m.units.Load()
	for {
		select {
		case <-stop:
			return
		case now := <-tick.C:
			cur, units := m.latency.snapshot(), m.units.Load()
			interval := cur.minus(prev)
			target := ""
			if m.rate > 0 {
				target = " (target " + thousands(m.rate) + "/s)"
			}
			fmt.Fprintf(out, "%s %ds: %s %s/s%s, p99 %s, %d errors\n", m.label, int(now.Sub(began).Round(time.Second).Seconds()),
				thousands(float64(units-prevUnits)/now.Sub(last).Seconds()), m.unit, target,
				duration(interval.quantile(0.99)), m.errs.count())
			prev, prevUnits, last = cur, units, now
		}
	}
}
