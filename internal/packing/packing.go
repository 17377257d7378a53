// Package packing holds the bit budget both products pack their sorted-set
// scores by. A sorted-set score is a float64, exact for integers of up to
// 53 bits; a board that breaks ties by when a score was first reached keeps
// that time in the low bits (score * 2^low + tie), so the score itself has
// what is left. Config loading refuses a maximum score past it, and
// `leaguectl config check` prints the budget.
package packing

import (
	"math/bits"
	"time"
)

// ExactBits is how many integer bits a float64 holds exactly.
const ExactBits = 53

// TimeBits is how many bits count span in units of unit (rounded up): the
// low bits first_reached needs over the longest period a board lasts.
func TimeBits(span, unit time.Duration) uint {
	if span <= 0 || unit <= 0 {
		return 0
	}
	units := (span + unit - 1) / unit
	return uint(bits.Len64(uint64(units)))
}

// MaxScore is the largest score that packs exactly above low bits of
// tie-break (a score's magnitude, for boards that go negative too).
func MaxScore(low uint) int64 {
	if low >= ExactBits {
		return 0
	}
	return int64(1)<<(ExactBits-low) - 1
}
