package league

import (
	"fmt"
	"math/bits"
	"time"

	"github.com/league-engine/league/internal/packing"
)

// ExactBits is how many integer bits a float64 (a sorted-set score) holds
// exactly (internal/packing: the budget both products share).
const ExactBits = packing.ExactBits

// Packing lays a score and its tie-break into one sorted-set score, highest
// bits first, so that ZREVRANGE orders by score, then tie-break:
//
//	| score (ScoreBits) | time left (TimeBits) | board size - slot (SlotBits) |
//
// "time left" is the period end minus the moment the score was reached, in
// units of the league's TieResolution: reaching a score earlier leaves more
// time, so it ranks higher. Only FirstReached uses it (TimeBits is 0 for
// JoinOrder). "board size - slot" makes the earlier joiner (lower slot) rank
// higher at equal score and time. The sum is below 2^53, so every packed
// score is an exact float64 integer and unpacking returns exact integers.
type Packing struct {
	SlotBits  uint
	TimeBits  uint
	ScoreBits uint
	MaxExact  int64 // the largest score that packs exactly
	BoardSize int
	// Unit is the FirstReached resolution in milliseconds.
	Unit int64
}

func newPacking(l *League) (Packing, error) {
	p := Packing{BoardSize: l.BoardSize, Unit: l.TieResolution.Milliseconds()}
	p.SlotBits = uint(bits.Len(uint(l.BoardSize - 1)))
	if l.TieBreak == FirstReached {
		p.TimeBits = packing.TimeBits(l.Schedule.MaxLength(), l.TieResolution)
	}
	if p.SlotBits+p.TimeBits >= ExactBits-1 {
		return p, fmt.Errorf("tie_break: %s leaves no bits for the score", p.Describe())
	}
	return p.withTimeBits(p.TimeBits), nil
}

// withTimeBits returns p with bits time bits and the rest of the exact bits
// for the score.
func (p Packing) withTimeBits(bits uint) Packing {
	p.TimeBits = bits
	p.ScoreBits = ExactBits - p.SlotBits - p.TimeBits
	p.MaxExact = packing.MaxScore(p.SlotBits + p.TimeBits)
	return p
}

// withFewerTimeBits returns p with fewer time bits (and as many more score
// bits) for which match holds, the most such first; false when none does.
func (p Packing) withFewerTimeBits(match func(Packing) bool) (Packing, bool) {
	for bits := p.TimeBits; bits > 1; bits-- {
		if q := p.withTimeBits(bits - 1); match(q) {
			return q, true
		}
	}
	return p, false
}

// Describe says where the bits go, for errors and `leaguectl config check`.
func (p Packing) Describe() string {
	if p.TimeBits == 0 {
		return fmt.Sprintf("board size %d needs %d slot bits", p.BoardSize, p.SlotBits)
	}
	return fmt.Sprintf("board size %d needs %d slot bits and first_reached at %dms over the longest period needs %d time bits",
		p.BoardSize, p.SlotBits, p.Unit, p.TimeBits)
}

// Pack returns the sorted-set score of score reached with timeLeft units to
// spare by the player in slot (1-based). The Lua scripts do the same sums.
func (p Packing) Pack(score, timeLeft int64, slot int) float64 {
	v := uint64(score)<<(p.TimeBits+p.SlotBits) |
		uint64(timeLeft)<<p.SlotBits |
		uint64(p.BoardSize-slot)
	return float64(v)
}

// Unpack returns the score and time left of a packed sorted-set score.
func (p Packing) Unpack(packed float64) (score, timeLeft int64) {
	v := uint64(packed)
	return int64(v >> (p.TimeBits + p.SlotBits)), int64(v>>p.SlotBits) & (1<<p.TimeBits - 1)
}

// TimeLeft returns the units of the league's resolution between at and end,
// clamped into the packing's time bits.
func (p Packing) TimeLeft(at, end time.Time) int64 {
	if p.TimeBits == 0 {
		return 0
	}
	left := end.Sub(at).Milliseconds() / p.Unit
	if left < 0 {
		return 0
	}
	if max := int64(1)<<p.TimeBits - 1; left > max {
		return max
	}
	return left
}
