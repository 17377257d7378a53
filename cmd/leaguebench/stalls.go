package main

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"time"
)

// The stalls workload measures the machine, not the engine: how often, and
// for how long, a thread that wants to run does not get to. Each thread
// reads the clock in a loop, locked to its OS thread, and counts the gaps
// between two readings. On a VM the gaps are mostly the host preempting a
// vCPU; the guest's own tasks and Go's preemption of the loop show too, but
// take microseconds unless the vCPU is already contended. One thread
// measures an idle machine; one per CPU measures it with every vCPU busy,
// as under load. A latency percentile cannot fall below what these gaps
// impose on each hop of a request, so this is the floor the open-loop p99
// is read against (BENCHMARKS.md).

// stallGap is the shortest gap counted: ~10,000 clock reads, and above a
// Go scheduler hand-off on an idle vCPU.
const stallGap = 200 * time.Microsecond

// stallResult is what the threads of one run saw, summed over them.
type stallResult struct {
	threads            int
	duration           time.Duration
	gaps, over1, over5 int // gaps over stallGap, 1 ms and 5 ms
	lost, longest      time.Duration
}

// measureStalls spins threads clock-reading threads for d.
func measureStalls(ctx context.Context, threads int, d time.Duration) stallResult {
	total := stallResult{threads: threads}
	var mu sync.Mutex
	var wg sync.WaitGroup
	began := time.Now()
	deadline := began.Add(d)
	for range threads {
		wg.Go(func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			var r stallResult
			last := time.Now()
			for n := 0; ; n++ {
				now := time.Now()
				if gap := now.Sub(last); gap > stallGap {
					r.add(gap)
				}
				last = now
				if n%4096 == 0 && (now.After(deadline) || ctx.Err() != nil) {
					break
				}
			}
			mu.Lock()
			total.merge(r)
			mu.Unlock()
		})
	}
	wg.Wait()
	total.duration = time.Since(began) // less than d if ctx ended first
	return total
}

func (r *stallResult) add(gap time.Duration) {
	r.gaps++
	if gap > time.Millisecond {
		r.over1++
	}
	if gap > 5*time.Millisecond {
		r.over5++
	}
	r.lost += gap
	r.longest = max(r.longest, gap)
}

func (r *stallResult) merge(o stallResult) {
	r.gaps, r.over1, r.over5 = r.gaps+o.gaps, r.over1+o.over1, r.over5+o.over5
	r.lost += o.lost
	r.longest = max(r.longest, o.longest)
}

// perThreadSecond is n per thread per second of the run.
func (r stallResult) perThreadSecond(n int) float64 {
	return float64(n) / float64(r.threads) / r.duration.Seconds()
}

// lostShare is the share of each thread's time spent in gaps.
func (r stallResult) lostShare() float64 {
	return r.lost.Seconds() / float64(r.threads) / r.duration.Seconds()
}

// runStalls measures one thread, then one per CPU, for -duration each.
func (b *bench) runStalls(ctx context.Context) {
	levels := []int{1}
	if n := runtime.NumCPU(); n > 1 {
		levels = append(levels, n)
	}
	for _, threads := range levels {
		if ctx.Err() != nil {
			return
		}
		r := measureStalls(ctx, threads, b.o.duration)
		b.rep.stalls = append(b.rep.stalls, r)
		fmt.Fprintf(b.out, "stalls/%d threads: %.1f gaps over %v per thread-second, %.2f over 1 ms, %d over 5 ms, longest %s, %.2f%% of the time lost\n",
			threads, r.perThreadSecond(r.gaps), stallGap, r.perThreadSecond(r.over1), r.over5, duration(r.longest), 100*r.lostShare())
	}
}

var stallColumns = []column[stallResult]{
	{"threads spinning", true, func(r stallResult) string { return fmt.Sprint(r.threads) }},
	{"seconds", true, func(r stallResult) string { return fmt.Sprintf("%.0f", r.duration.Seconds()) }},
	{"gaps > 200µs /thread/s", true, func(r stallResult) string { return fmt.Sprintf("%.1f", r.perThreadSecond(r.gaps)) }},
	{"> 1 ms /thread/s", true, func(r stallResult) string { return fmt.Sprintf("%.2f", r.perThreadSecond(r.over1)) }},
	{"> 5 ms", true, func(r stallResult) string { return fmt.Sprint(r.over5) }},
	{"longest", true, func(r stallResult) string { return duration(r.longest) }},
	{"time lost", true, func(r stallResult) string { return fmt.Sprintf("%.2f%%", 100*r.lostShare()) }},
}
