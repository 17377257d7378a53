// Package league is the live league engine and its domain types: leagues,
// periods, sub-boards, standings, outcomes and rewards. The Engine keeps the
// live boards in Redis (see keys.go for the layout and package scripts for
// the Lua); settlement results are kept by a Store (see store.go).
package league

import (
	"fmt"
	"regexp"
	"time"

	"github.com/league-engine/league/tiers"
)

// TieBreak orders players of equal score on a sub-board.
type TieBreak string

const (
	// JoinOrder: the earlier joiner of the sub-board ranks higher.
	JoinOrder TieBreak = "join_order"
	// FirstReached: whoever reached the score first ranks higher, then join order.
	FirstReached TieBreak = "first_reached"
)

// Operator is how a score write combines with the current score.
type Operator string

const (
	Incr Operator = "incr" // add the value
	Best Operator = "best" // keep the larger of the two
	Set  Operator = "set"  // replace
)

// Override is the ladder one period is decided under instead of the
// league's: the same tiers, other moves (override.go).
type Override struct {
	Period time.Time // the period's start
	Ladder *tiers.Ladder
}

// League is one league as configured. Build it with its fields and call
// Init, which checks it and derives the score packing.
type League struct {
	ID        string
	BoardSize int
	Schedule  *Schedule
	Ladder    *tiers.Ladder
	// Overrides decide given periods under other rules (a shortened
	// season): each period's Ladder, the league's with some tiers' moves
	// replaced.
	Overrides []Override
	EntryTier string
	TieBreak  TieBreak
	// TieResolution is the time unit of FirstReached (default one second).
	TieResolution time.Duration
	Operator      Operator
	// MaxScore is the highest score a player may hold; 0 means the highest
	// score the packing keeps exact.
	MaxScore int64
	// MaxGain is the most one score write may add to a player's score (an
	// anti-cheat cap; 0: none): an increment of more, or a best or set
	// that would raise the score by more, is refused and writes nothing.
	MaxGain int64
	// MaxAttempts is how many score writes a player may make in a period
	// (0: no cap), as Nakama's max_num_score: past it a write is refused
	// (RateLimited) and writes nothing. Replays of a request id are not
	// attempts, nor are refused writes.
	MaxAttempts int
	// Limits cap score writes by player and by the game server's key over
	// windows of the league's clock (limit.go): past one a write is refused
	// (RateLimited) and writes nothing.
	Limits []Limit
	// MaxGainPer caps the score a player may gain in each window (an
	// anti-cheat cap): a write that would gain more is refused
	// (RateLimited), or held where Hold is set.
	MaxGainPer map[Per]int64
	// Hold keeps a write past MaxGain or MaxGainPer out of the ranking and
	// lists it for an operator to approve or reject (hold.go), instead of
	// refusing it.
	Hold bool
	// Retention is how long a settled period's boards stay readable.
	Retention time.Duration
	// IdempotencyWindow is how long a score write's request id is remembered.
	IdempotencyWindow time.Duration
	// JoinCutoff sends the joins of the last JoinCutoff of a period to the
	// next one (cutoff.go); 0: none.
	JoinCutoff time.Duration
	// Cohorts names the cohorts a join may ask to be placed with (cohort.go):
	// each tier has boards of each cohort beside its shared boards. None by
	// default.
	Cohorts []string
	// DecayAfter demotes a player one tier for every DecayAfter whole periods
	// they sit out; 0 turns decay off.
	DecayAfter int
	// Buckets is the number of small hashes the per-player records are
	// spread over; see keys.go.
	Buckets int

	entry   int
	packing Packing
	guards  []guard // Limits, then MaxGainPer's
	caps    string  // score.lua's ARGV[22] with hold: the caps' names
}

// Defaults applied by Init to zero fields.
const (
	DefaultBoardSize         = 100
	DefaultRetention         = 7 * 24 * time.Hour
	DefaultIdempotencyWindow = 10 * time.Minute
	DefaultBuckets           = 16384
	// MaxBoardSize bounds a sub-board. Boards of up to 128 players stay in
	// Redis's compact listpack encoding with the default server settings.
	MaxBoardSize = 1024
	// MaxBuckets bounds the record hashes.
	MaxBuckets = 1 << 20
)

var idPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_]{0,31}$`)

// Init checks the league, applies defaults and derives the score packing.
// Errors name the field at fault; the config loader adds the league id.
func (l *League) Init() error {
	if !idPattern.MatchString(l.ID) {
		return fmt.Errorf("id: %q must be 1-32 characters of a-z, 0-9 and _, starting with a letter or digit", l.ID)
	}
	if l.BoardSize == 0 {
		l.BoardSize = DefaultBoardSize
	}
	if l.BoardSize < 1 || l.BoardSize > MaxBoardSize {
		return fmt.Errorf("board_size: %d is outside 1..%d", l.BoardSize, MaxBoardSize)
	}
	if l.Schedule == nil {
		return fmt.Errorf("schedule: required")
	}
	if l.Ladder == nil {
		return fmt.Errorf("tiers: required")
	}
	for i := 0; i < l.Ladder.Len(); i++ {
		t := l.Ladder.Tier(i)
		if !idPattern.MatchString(t.ID) {
			return fmt.Errorf("tiers[%d].id: %q must be 1-32 characters of a-z, 0-9 and _, starting with a letter or digit", i, t.ID)
		}
		// The name is shown to players as it is, as their own names are;
		// it may be left empty, but a name given must show something.
		if err := checkText(fmt.Sprintf("tiers[%d] (%s).name", i, t.ID), t.Name, MaxTierNameLen, t.Name != ""); err != nil {
			return err
		}
		if t.MinBoardSize > l.BoardSize {
			return fmt.Errorf("tiers[%d] (%s).min_board_size: %d is over board_size %d: every last board would be merged, "+
				"even a full one", i, t.ID, t.MinBoardSize, l.BoardSize)
		}
	}
	if l.EntryTier == "" {
		l.EntryTier = l.Ladder.Tier(0).ID
	}
	entry, ok := l.Ladder.Index(l.EntryTier)
	if !ok {
		return fmt.Errorf("entry_tier: unknown tier %q", l.EntryTier)
	}
	l.entry = entry
	if err := l.checkOverrides(); err != nil {
		return err
	}
	if err := l.checkJoinCutoff(); err != nil {
		return err
	}
	if err := l.checkCohorts(); err != nil {
		return err
	}
	switch l.Operator {
	case "":
		l.Operator = Incr
	case Incr, Best, Set:
	default:
		return fmt.Errorf("score_operator: %q is not one of incr, best, set", l.Operator)
	}
	switch l.TieBreak {
	case "":
		l.TieBreak = JoinOrder
	case JoinOrder, FirstReached:
	default:
		return fmt.Errorf("tie_break: %q is not one of join_order, first_reached", l.TieBreak)
	}
	if l.TieResolution == 0 {
		l.TieResolution = time.Second
	}
	if l.TieResolution < time.Millisecond || l.TieResolution%time.Millisecond != 0 {
		return fmt.Errorf("tie_resolution: %v must be a whole number of milliseconds", l.TieResolution)
	}
	p, err := newPacking(l)
	if err != nil {
		return err
	}
	l.packing = p
	if l.MaxScore == 0 {
		l.MaxScore = p.MaxExact
	}
	if l.MaxScore < 0 {
		return fmt.Errorf("max_score: %d is negative; scores are whole numbers from 0", l.MaxScore)
	}
	if l.MaxScore > p.MaxExact {
		return fmt.Errorf("max_score: %d does not fit: %s leaves %d bits for the score, so at most %d",
			l.MaxScore, p.Describe(), p.ScoreBits, p.MaxExact)
	}
	if l.MaxAttempts < 0 {
		return fmt.Errorf("max_attempts: %d is negative; 0 sets no cap", l.MaxAttempts)
	}
	if l.MaxGain < 0 || l.MaxGain > l.MaxScore {
		return fmt.Errorf("max_gain: %d is outside 0..max_score (%d); 0 sets no cap", l.MaxGain, l.MaxScore)
	}
	if err := l.initGuards(); err != nil {
		return err
	}
	if l.Retention == 0 {
		l.Retention = DefaultRetention
	}
	if l.Retention < time.Second {
		return fmt.Errorf("retention: %v is shorter than a second", l.Retention)
	}
	if l.IdempotencyWindow == 0 {
		l.IdempotencyWindow = DefaultIdempotencyWindow
	}
	if l.IdempotencyWindow < time.Second {
		return fmt.Errorf("idempotency_window: %v is shorter than a second", l.IdempotencyWindow)
	}
	if l.DecayAfter < 0 {
		return fmt.Errorf("decay_after: %d is negative", l.DecayAfter)
	}
	if l.Buckets == 0 {
		l.Buckets = DefaultBuckets
	}
	if l.Buckets < 1 || l.Buckets > MaxBuckets {
		return fmt.Errorf("buckets: %d is outside 1..%d", l.Buckets, MaxBuckets)
	}
	return nil
}

// Packing returns how scores and tie-breaks share a sorted-set score.
func (l *League) Packing() Packing { return l.packing }

// Entry is the ladder index of the tier new players start in.
func (l *League) Entry() int { return l.entry }

// TierIndex returns the ladder index of a tier id, or a NotFound error.
func (l *League) TierIndex(id string) (int, error) {
	i, ok := l.Ladder.Index(id)
	if !ok {
		return 0, Errorf(NotFound, "league %q has no tier %q", l.ID, id)
	}
	return i, nil
}
