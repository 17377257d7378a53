package main

import (
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestStallCounting(t *testing.T) {
	r := stallResult{threads: 2, duration: 2 * time.Second}
	for _, g := range []time.Duration{300 * time.Microsecond, 2 * time.Millisecond, 6 * time.Millisecond} {
		r.add(g)
	}
	var other stallResult
	other.add(time.Millisecond / 2)
	r.merge(other)
	if r.gaps != 4 || r.over1 != 2 || r.over5 != 1 || r.longest != 6*time.Millisecond || r.lost != 8800*time.Microsecond {
		t.Fatalf("got %+v", r)
	}
	if got := r.perThreadSecond(r.gaps); got != 1 {
		t.Errorf("4 gaps over 2 threads and 2 s: %v per thread-second, want 1", got)
	}
	if got, want := r.lostShare(), 0.0022; got < want-1e-9 || got > want+1e-9 {
		t.Errorf("lost share %v, want %v", got, want)
	}
}

// TestSmokeStalls runs the stalls workload: one thread, then one per CPU,
// each for the run's duration, and their table.
func TestSmokeStalls(t *testing.T) {
	o := smokeOptions()
	o.workloads, o.duration = []string{"stalls"}, 100*time.Millisecond
	began := time.Now()
	rep, out := smokeRun(t, o)
	want := []int{1}
	if runtime.NumCPU() > 1 {
		want = append(want, runtime.NumCPU())
	}
	if len(rep.stalls) != len(want) || len(rep.rows) != 0 {
		t.Fatalf("%d stall runs and %d workload rows, want %d and none", len(rep.stalls), len(rep.rows), len(want))
	}
	for i, r := range rep.stalls {
		if r.threads != want[i] || r.duration < o.duration || r.duration > o.duration+time.Second || r.lost > time.Duration(r.threads)*r.duration {
			t.Errorf("run %d: %+v", i, r)
		}
	}
	if el := time.Since(began); el < time.Duration(len(want))*o.duration {
		t.Errorf("the runs took %v, shorter than asked", el)
	}
	if !strings.Contains(out, "### Machine stalls") || !strings.Contains(out, "stalls/1 threads:") {
		t.Errorf("output lacks the stalls table or progress line")
	}
}
