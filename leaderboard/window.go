package leaderboard

import (
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/league-engine/league/internal/excerpt"
)

// Window is a rolling board: each member's sum over the last N buckets
// (hours or days of the leaderboard's calendar), the current one included.
// Its Kind spells it as configs and URLs do: "7d", "24h".
//
// A rolling board is kept exact at every instant with a constant number of
// writes whatever N (seed 001's scheme 4). Writes keep one raw board per
// bucket, B(i), and one rolling board per bucket, S(i) = B(i-N+1) + ... +
// B(i). A write in bucket i adds to B(i) and S(i) and sets the member on the
// next rolling board, S(i+1) = S(i) - B(i-N+1): when bucket i+1 begins, its
// board already holds the member's sum. Members who did not write in bucket
// i are carried into S(i+1) by the pre-fill (Engine.PreFill), which the
// scheduler runs ahead of the boundary. Scores of one leaderboard all move
// one way (incr adds, decr subtracts), so a sum of zero means no write in
// the window: a rolling board holds exactly the members whose sum is not
// zero.
//
// A period of a rolling board (Calendar.At) is its last bucket: the board
// of period P sums the N buckets ending with P, and the current board rolls
// when P ends. Ties rank by member id on every rolling board (first_reached
// has no single moment for a sum over buckets).
type Window struct {
	N    int  // buckets, 1..MaxWindow
	Unit Kind // Hour or Day
}

// MaxWindow is the most buckets a window sums: a year of days, or about a
// month of hours. A write reads one bucket per window; only a board left
// incomplete (Engine.PreFill) reads all N, once per member.
const MaxWindow = 744

// ParseWindow parses "7d" (the last 7 days) or "24h" (the last 24 hours).
func ParseWindow(s string) (Window, error) {
	if len(s) >= 2 {
		var unit Kind
		switch s[len(s)-1] {
		case 'd':
			unit = Day
		case 'h':
			unit = Hour
		}
		digits := s[:len(s)-1]
		n, err := strconv.Atoi(digits)
		if unit != "" && err == nil && digits[0] >= '1' && digits[0] <= '9' && n <= MaxWindow {
			return Window{N: n, Unit: unit}, nil
		}
	}
	return Window{}, fmt.Errorf("%q is not a rolling window: N days or N hours, as 7d or 24h, N from 1 to %d", excerpt.Of(s), MaxWindow)
}

// Kind is the window's name: "7d", "24h".
func (w Window) Kind() Kind {
	return Kind(strconv.Itoa(w.N) + string(w.Unit[0]))
}

// window returns the Window of a rolling kind.
func (k Kind) window() Window {
	w, err := ParseWindow(string(k))
	if err != nil {
		panic("leaderboard: " + string(k) + " is no rolling window")
	}
	return w
}

// Buckets returns the N buckets the rolling board of period p sums, oldest
// first (the last is p's own bucket).
func (c Calendar) Buckets(p Period) []Period {
	w := p.Kind.window()
	out := make([]Period, w.N)
	b := c.At(w.Unit, p.Start)
	for i := w.N - 1; i >= 0; i-- {
		out[i] = b
		b = c.Previous(b)
	}
	return out
}

// WindowStart returns when the window of the rolling board of period p
// begins: the start of its oldest bucket.
func (l *Leaderboard) WindowStart(p Period) time.Time { return l.oldestBucket(p).Start }

// initWindows checks the rolling windows, sorts them, and sets their
// retention (in retention) and their buckets'.
func (l *Leaderboard) initWindows(periodic map[Kind]bool, retention map[Kind]time.Duration) error {
	l.boards = slices.Clone(l.Kinds)
	l.buckets = map[Kind]time.Duration{}
	if len(l.Windows) == 0 {
		return nil
	}
	if l.Operator != Incr && l.Operator != Decr {
		return fmt.Errorf("rolling: rolling boards are sums, so they go with score_operator incr or decr, not %s", l.Operator)
	}
	seen := map[Window]bool{}
	for _, w := range l.Windows {
		if (w.Unit != Hour && w.Unit != Day) || w.N < 1 || w.N > MaxWindow {
			return fmt.Errorf("rolling: %d %s is not a window: N days or N hours, N from 1 to %d", w.N, w.Unit, MaxWindow)
		}
		if seen[w] {
			return fmt.Errorf("rolling: %s is listed twice", w.Kind())
		}
		seen[w] = true
	}
	slices.SortFunc(l.Windows, func(a, b Window) int {
		if a.Unit != b.Unit {
			return slices.Index(kindOrder, a.Unit) - slices.Index(kindOrder, b.Unit)
		}
		return a.N - b.N
	})
	for _, w := range l.Windows {
		unit := l.Calendar.MaxLength(w.Unit)
		if _, set := retention[w.Kind()]; !set {
			retention[w.Kind()] = 2 * unit
		}
		// A bucket is read until the rolling board N buckets after it is
		// filled, at the latest during that board's own bucket.
		l.buckets[w.Unit] = max(l.buckets[w.Unit], time.Duration(w.N+1)*unit)
		l.boards = append(l.boards, w.Kind())
	}
	return nil
}

// BucketRetention is how long the buckets of unit (Hour or Day) stay after
// they end: until the last rolling board that sums them is filled.
func (l *Leaderboard) BucketRetention(unit Kind) time.Duration { return l.buckets[unit] }

// oldestCache remembers, per window, the oldest bucket of the current
// rolling board: every write needs it, and stepping back N buckets through
// the calendar costs N period computations.
type oldestCache struct {
	mu   sync.Mutex
	last map[Kind][2]Period // window -> {board's period, its oldest bucket}
}

// oldestBucket returns the oldest of the buckets the rolling board of
// period p sums.
func (l *Leaderboard) oldestBucket(p Period) Period {
	c := &l.oldest
	c.mu.Lock()
	hit, ok := c.last[p.Kind]
	c.mu.Unlock()
	if ok && hit[0] == p {
		return hit[1]
	}
	b := l.Calendar.Buckets(p)[0]
	c.mu.Lock()
	if c.last == nil {
		c.last = map[Kind][2]Period{}
	}
	c.last[p.Kind] = [2]Period{p, b}
	c.mu.Unlock()
	return b
}
