package main

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

func TestBucketsCoverEveryValueOnce(t *testing.T) {
	// Consecutive buckets must tile the values with no gap or overlap.
	var next uint64
	for i := 0; i < histBuckets; i++ {
		lo, hi := bucketBounds(i)
		if lo != next {
			t.Fatalf("bucket %d starts at %d, want %d", i, lo, next)
		}
		if got := bucketOf(lo); got != i {
			t.Fatalf("bucketOf(%d) = %d, want %d", lo, got, i)
		}
		if got := bucketOf(hi); got != i {
			t.Fatalf("bucketOf(%d) = %d, want %d", hi, got, i)
		}
		next = hi + 1
	}
	if next != maxValue+1 {
		t.Fatalf("buckets end at %d, want %d", next-1, uint64(maxValue))
	}
	if got := bucketOf(math.MaxUint64); got != histBuckets-1 {
		t.Fatalf("a huge value lands in bucket %d, want the last (%d)", got, histBuckets-1)
	}
}

// TestQuantileMatchesSortedSample checks the percentiles against the exact
// ones of the recorded values: at most 1/64 above, never below.
func TestQuantileMatchesSortedSample(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	cases := []struct {
		name string
		gen  func() time.Duration
	}{
		{"uniform 50us-5ms", func() time.Duration {
			return 50*time.Microsecond + time.Duration(rng.Int64N(int64(5*time.Millisecond)))
		}},
		{"lognormal around 300us", func() time.Duration {
			return time.Duration(300e3 * math.Exp(rng.NormFloat64()))
		}},
		{"bimodal with a slow tail", func() time.Duration {
			if rng.IntN(1000) == 0 {
				return 200*time.Millisecond + time.Duration(rng.Int64N(int64(time.Second)))
			}
			return 100*time.Microsecond + time.Duration(rng.Int64N(int64(100*time.Microsecond)))
		}},
		{"tiny values", func() time.Duration { return time.Duration(rng.Int64N(300)) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var h histogram
			sample := make([]time.Duration, 100000)
			for i := range sample {
				sample[i] = c.gen()
				h.record(sample[i])
			}
			slices.Sort(sample)
			for _, q := range []float64{0, 0.5, 0.9, 0.99, 0.999, 1} {
				rank := max(int(math.Ceil(q*float64(len(sample)))), 1)
				want := sample[rank-1]
				got := h.quantile(q)
				if got < want || float64(got-want) > float64(want)/subCount+1 {
					t.Errorf("q%v: got %v, want %v (+1/%d at most)", q, got, want, subCount)
				}
			}
			if got, want := h.maxValue(), sample[len(sample)-1]; got != want {
				t.Errorf("max: got %v, want %v", got, want)
			}
			if got, want := h.minValue(), sample[0]; got != want {
				t.Errorf("min: got %v, want %v", got, want)
			}
		})
	}
}

func TestMinusIsTheInterval(t *testing.T) {
	var h histogram
	for range 1000 {
		h.record(time.Millisecond)
	}
	before := h.snapshot()
	for range 100 {
		h.record(10 * time.Millisecond)
	}
	d := h.minus(before)
	if got := d.count(); got != 100 {
		t.Fatalf("interval count: got %d, want 100", got)
	}
	if got := d.quantile(0.5); got < 10*time.Millisecond || got > 10*time.Millisecond+10*time.Millisecond/subCount {
		t.Fatalf("interval p50: got %v, want 10ms", got)
	}
	if got := h.quantile(0.5); got > time.Millisecond+time.Millisecond/subCount {
		t.Fatalf("whole p50: got %v, want 1ms", got)
	}
}

func TestEmptyHistogram(t *testing.T) {
	var h histogram
	if got := h.quantile(0.99); got != 0 {
		t.Fatalf("p99 of nothing: got %v, want 0", got)
	}
	if got := h.mean(); got != 0 {
		t.Fatalf("mean of nothing: got %v, want 0", got)
	}
}
