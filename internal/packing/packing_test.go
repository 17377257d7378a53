package packing

import (
	"math"
	"testing"
	"time"
)

func TestBudget(t *testing.T) {
	for _, c := range []struct {
		span, unit time.Duration
		want       uint
	}{
		{7 * 24 * time.Hour, time.Second, 20}, // 604,800 s
		{time.Hour, time.Millisecond, 22},     // 3,600,000 ms
		{time.Second, time.Second, 1},
		{0, time.Second, 0},
	} {
		if got := TimeBits(c.span, c.unit); got != c.want {
			t.Errorf("TimeBits(%v, %v) = %d, want %d", c.span, c.unit, got, c.want)
		}
	}
	if got := MaxScore(0); got != 1<<53-1 {
		t.Errorf("MaxScore(0) = %d", got)
	}
	// Every score up to MaxScore(low) packs and unpacks exactly.
	for _, low := range []uint{0, 7, 20, 32} {
		m := MaxScore(low)
		shift := math.Ldexp(1, int(low))
		for _, s := range []int64{m, -m, m - 1} {
			packed := float64(s)*shift + (shift - 1)
			if back := int64(math.Floor(packed / shift)); back != s {
				t.Errorf("low %d: %d packed as %v unpacks to %d", low, s, packed, back)
			}
		}
	}
}
