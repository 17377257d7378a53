package main

import (
	"math"
	"math/bits"
	"sync/atomic"
	"time"
)

// histogram counts latencies in log-linear buckets, the layout of
// HdrHistogram: below 128ns a bucket per nanosecond, above it every power of
// two split into 64 equal buckets, so a percentile is off by at most 1/64
// (1.6%) of its value. Recording is a few atomic adds, so all workers share
// one histogram; no sample is kept, so memory stays fixed (35 KB) at any rate.
type histogram struct {
	counts [histBuckets]atomic.Uint64
	total  atomic.Uint64
	sum    atomic.Uint64 // nanoseconds
	min    atomic.Uint64 // nanoseconds + 1; 0 means no value yet
	max    atomic.Uint64 // nanoseconds
}

const (
	subBits     = 6
	subCount    = 1 << subBits // buckets per power of two
	linearBelow = 2 * subCount // values below this get a bucket each
	maxExp      = 40           // values up to 2^40 ns (18 minutes); longer ones are clamped
	histBuckets = linearBelow + (maxExp-subBits-1)*subCount
	maxValue    = 1<<maxExp - 1
)

func bucketOf(v uint64) int {
	if v < linearBelow {
		return int(v)
	}
	v = min(v, maxValue)
	shift := bits.Len64(v) - subBits - 1 // >= 1
	m := v >> shift                      // in [subCount, 2*subCount)
	return linearBelow + (shift-1)*subCount + int(m-subCount)
}

// bucketBounds returns the lowest and highest value bucket i counts.
func bucketBounds(i int) (lo, hi uint64) {
	if i < linearBelow {
		return uint64(i), uint64(i)
	}
	shift := (i-linearBelow)/subCount + 1
	m := uint64((i-linearBelow)%subCount + subCount)
	return m << shift, (m+1)<<shift - 1
}

func (h *histogram) record(d time.Duration) {
	v := uint64(max(d, 0))
	h.counts[bucketOf(v)].Add(1)
	h.total.Add(1)
	h.sum.Add(v)
	for cur := h.min.Load(); cur == 0 || v+1 < cur; cur = h.min.Load() {
		if h.min.CompareAndSwap(cur, v+1) {
			break
		}
	}
	for cur := h.max.Load(); v > cur; cur = h.max.Load() {
		if h.max.CompareAndSwap(cur, v) {
			break
		}
	}
}

// snapshot copies the counts, for progress lines: percentiles of the last
// second are those of now.minus(then). Taken while workers record, it may be
// off by the few values recorded during the copy.
func (h *histogram) snapshot() *histogram {
	s := &histogram{}
	for i := range h.counts {
		s.counts[i].Store(h.counts[i].Load())
	}
	s.total.Store(h.total.Load())
	s.sum.Store(h.sum.Load())
	s.min.Store(h.min.Load())
	s.max.Store(h.max.Load())
	return s
}

// minus returns the values h holds that earlier (a snapshot of h) did not.
// Min and max are those of h: an interval's extremes are not kept.
func (h *histogram) minus(earlier *histogram) *histogram {
	d := h.snapshot()
	for i := range d.counts {
		d.counts[i].Store(h.counts[i].Load() - earlier.counts[i].Load())
	}
	d.total.Store(d.total.Load() - earlier.total.Load())
	d.sum.Store(d.sum.Load() - earlier.sum.Load())
	return d
}

func (h *histogram) count() uint64 { return h.total.Load() }

// quantile returns the value at q (0.99 for p99): the highest value of the
// bucket holding the ceil(q*count)-th smallest value, capped at the largest
// value recorded (HdrHistogram's "highest equivalent value"). 0 when empty.
func (h *histogram) quantile(q float64) time.Duration {
	n := h.count()
	if n == 0 {
		return 0
	}
	rank := uint64(math.Ceil(q * float64(n)))
	rank = min(max(rank, 1), n)
	var seen uint64
	for i := range h.counts {
		seen += h.counts[i].Load()
		if seen >= rank {
			_, hi := bucketBounds(i)
			return time.Duration(min(hi, h.max.Load()))
		}
	}
	return time.Duration(h.max.Load())
}

func (h *histogram) mean() time.Duration {
	if n := h.count(); n > 0 {
		return time.Duration(h.sum.Load() / n)
	}
	return 0
}

func (h *histogram) maxValue() time.Duration { return time.Duration(h.max.Load()) }

func (h *histogram) minValue() time.Duration {
	if m := h.min.Load(); m > 0 {
		return time.Duration(m - 1)
	}
	return 0
}
