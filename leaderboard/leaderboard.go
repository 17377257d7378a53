// Package leaderboard is the second product beside package league: plain
// leaderboards, the boards every game and event team runs ("top players
// this hour, today, this week, this month, of all time"). One write updates
// every periodic board of a leaderboard in one atomic script, the periods
// decided by Redis's clock; reads give the top of a board, a window around a
// member, and one member on every board.
//
// It shares with leagues what both need (internal/evalsha, redisclock,
// keyspace, packing; league's error codes), and keeps nothing of a league's
// tiers, sub-boards or settlement.
package leaderboard

import (
	"fmt"
	"regexp"
	"slices"
	"time"

	"github.com/league-engine/league/internal/packing"
	"github.com/league-engine/league/league"
)

// Operator is how a write's value meets the member's score.
type Operator string

const (
	Incr Operator = "incr" // adds the value
	Decr Operator = "decr" // subtracts it (scores may go below zero)
	Best Operator = "best" // keeps the better of the two: the higher, or the lower on an ascending board
	Set  Operator = "set"  // replaces the score
)

// Order is which end of a board ranks first.
type Order string

const (
	Descending Order = "descending" // the highest score ranks first (points, votes)
	Ascending  Order = "ascending"  // the lowest ranks first (times, golf-like scores)
)

// TieBreak orders members of equal score.
type TieBreak string

const (
	// ByMember, the default, ranks equal scores by member id, as Redis
	// orders them: on a descending board the greater id first, on an
	// ascending one the smaller. It costs no bits of the score.
	ByMember TieBreak = "member_id"
	// FirstReached ranks the member who reached the score first higher. It
	// keeps the time in the low bits of the sorted-set score, in units of
	// TieResolution over the longest period of each board (the all-time
	// board counts from AllTimeFrom to AllTimeUntil), which the maximum
	// score gives up.
	FirstReached TieBreak = "first_reached"
)

// The span the all-time board's first_reached counts over: a hundred years
// from the year the product began. A write after AllTimeUntil ranks as if
// made then.
var (
	AllTimeFrom  = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	AllTimeUntil = time.Date(2126, 1, 1, 0, 0, 0, 0, time.UTC)
)

// Defaults of Init.
const (
	DefaultTieResolution     = time.Second
	DefaultIdempotencyWindow = 10 * time.Minute
	MaxIDLen                 = 32
	MaxMemberLen             = 64
)

// DefaultRetention is how long a period's board stays readable after the
// period ends, by kind (the all-time board never ends).
var DefaultRetention = map[Kind]time.Duration{
	Hour:  48 * time.Hour,
	Day:   14 * 24 * time.Hour,
	Week:  8 * 7 * 24 * time.Hour,
	Month: 400 * 24 * time.Hour,
}

// Leaderboard is one leaderboard as configured. Init checks it and fills
// in the defaults.
type Leaderboard struct {
	ID    string
	Kinds []Kind // its periodic boards; Init sorts them shortest first
	// Windows are its rolling boards (sums, so incr or decr only); Init
	// sorts them hours first, shortest first.
	Windows  []Window
	Calendar Calendar
	Operator Operator
	Order    Order
	TieBreak TieBreak
	// TieResolution is FirstReached's unit of time, whole milliseconds.
	TieResolution time.Duration
	// MaxScore bounds every score's magnitude (0: the largest that packs
	// exactly on every board).
	MaxScore int64
	// Retention is how long each kind's boards stay after their period
	// (a rolling board's: after its last bucket; default two buckets).
	Retention map[Kind]time.Duration
	// IdempotencyWindow is how long a write's request id is remembered.
	IdempotencyWindow time.Duration
	// CarryOver is, per periodic kind, the share (percent, 1-100) of a
	// member's score in a period the next period's board opens with: set
	// by every write of the period, rounded towards zero. A member who
	// does not write in a period carries nothing on from it.
	CarryOver map[Kind]int
	// Archive, when set, has the scheduler store closed periods'
	// standings (Engine.Archive), and reads of a period past its
	// retention come from there.
	Archive *ArchivePolicy
	// Catalog keeps members' display names, metadata and initial scores
	// (catalog.go): reads of its boards carry the names.
	Catalog bool
	// PublicBoards gives every periodic board a public twin, where a
	// write counts its value times the member's multiplier (the catalog's:
	// "one vote counts N"), while the raw board keeps the true count.
	// Changing a multiplier changes later writes only. Rolling boards and
	// the archive count raw values.
	PublicBoards bool
	// Limits cap writes by actor, member, channel and terminal (limit.go).
	Limits []Limit
	// Channels and Terminals, when set, are the only values writes may
	// name.
	Channels, Terminals []string
	// Participants are the periodic kinds whose periods count their
	// distinct actors, on the leaderboard and per member (a HyperLogLog
	// each, up to 12 KB; 0.81% standard error). Writes then name an actor.
	Participants []Kind
	// Shards splits the boards over that many shards (shard.go; default
	// 1): each its own keys and hash tag, spread by Redis Cluster.
	Shards int
	// MaxDepth bounds how deep a page of a sharded board may reach
	// (offset + limit; default DefaultMaxDepth).
	MaxDepth int
	// Queue, when set, makes writes go through a queue that shaves peaks
	// (queue.go): Enqueue answers at once, consumers apply them.
	Queue *QueuePolicy

	tieBits map[Kind]uint          // low bits FirstReached keeps, by kind
	boards  []Kind                 // Kinds, then the Windows' kinds: the order of writes and replies
	buckets map[Kind]time.Duration // how long a rolling unit's buckets stay after they end
	inWrite []int                  // Limits the write script checks, by index
	shared  []int                  // Limits taken before it, across shards (reserve.go)
	oldest  oldestCache
}

var idPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_]{0,31}$`)

// kindOrder is the order boards are written and reported in.
var kindOrder = []Kind{Hour, Day, Week, Month, AllTime}

// Init checks l and fills in its defaults; an error names the field.
func (l *Leaderboard) Init() error {
	if !idPattern.MatchString(l.ID) {
		return fmt.Errorf("id: %q is not 1-%d characters of a-z, 0-9 and _, starting with a letter or digit", l.ID, MaxIDLen)
	}
	if len(l.Kinds) == 0 && len(l.Windows) == 0 {
		return fmt.Errorf("periods: at least one of hour, day, week, month, all_time (or a rolling window)")
	}
	seen := map[Kind]bool{}
	for _, k := range l.Kinds {
		if !slices.Contains(kindOrder, k) {
			return fmt.Errorf("periods: %q is not one of hour, day, week, month, all_time", k)
		}
		if seen[k] {
			return fmt.Errorf("periods: %s is listed twice", k)
		}
		seen[k] = true
	}
	slices.SortFunc(l.Kinds, func(a, b Kind) int { return slices.Index(kindOrder, a) - slices.Index(kindOrder, b) })
	if l.Calendar.Loc == nil {
		l.Calendar = Calendar{Loc: time.UTC, WeekStart: time.Monday}
	}
	if l.Operator == "" {
		l.Operator = Incr
	}
	if !slices.Contains([]Operator{Incr, Decr, Best, Set}, l.Operator) {
		return fmt.Errorf("score_operator: %q is not incr, decr, best or set", l.Operator)
	}
	if l.Order == "" {
		l.Order = Descending
	}
	if l.Order != Descending && l.Order != Ascending {
		return fmt.Errorf("order: %q is not descending or ascending", l.Order)
	}
	if l.TieBreak == "" {
		l.TieBreak = ByMember
	}
	if l.TieBreak != ByMember && l.TieBreak != FirstReached {
		return fmt.Errorf("tie_break: %q is not member_id or first_reached", l.TieBreak)
	}
	if l.TieResolution == 0 {
		l.TieResolution = DefaultTieResolution
	}
	if l.TieResolution < time.Millisecond || l.TieResolution%time.Millisecond != 0 {
		return fmt.Errorf("tie_resolution: %v is not a whole number of milliseconds", l.TieResolution)
	}
	if l.IdempotencyWindow == 0 {
		l.IdempotencyWindow = DefaultIdempotencyWindow
	}
	if l.IdempotencyWindow < time.Second {
		return fmt.Errorf("idempotency_window: %v is shorter than 1s", l.IdempotencyWindow)
	}
	retention := map[Kind]time.Duration{}
	for k, d := range l.Retention {
		if k.Rolling() {
			if !slices.Contains(l.Windows, k.window()) {
				return fmt.Errorf("retention: %s is not a rolling window of this leaderboard", k)
			}
		} else if !seen[k] || k == AllTime {
			return fmt.Errorf("retention: %s is not a periodic board of this leaderboard", k)
		}
		if d < time.Second {
			return fmt.Errorf("retention.%s: %v is shorter than 1s", k, d)
		}
		retention[k] = d
	}
	for _, k := range l.Kinds {
		if _, set := retention[k]; !set && k != AllTime {
			retention[k] = DefaultRetention[k]
		}
	}
	for k, share := range l.CarryOver {
		if !seen[k] || k == AllTime {
			return fmt.Errorf("carry_over: %s is not a periodic board of this leaderboard (the all-time board has no next period)", k)
		}
		if share < 1 || share > 100 {
			return fmt.Errorf("carry_over.%s: %d%% is not a share from 1%% to 100%%", k, share)
		}
	}
	if l.PublicBoards && !l.Catalog {
		return fmt.Errorf("public_boards: the multipliers of public boards are a catalog's: set catalog: true")
	}
	if l.PublicBoards && len(l.Kinds) == 0 {
		return fmt.Errorf("public_boards: the leaderboard has no periodic board to have a public twin (rolling boards count raw values)")
	}
	if err := l.initLimits(); err != nil {
		return err
	}
	if err := l.initShards(); err != nil {
		return err
	}
	l.splitLimits()
	if l.Queue != nil {
		if err := l.Queue.init(); err != nil {
			return err
		}
	}
	for _, k := range l.Participants {
		if !seen[k] {
			return fmt.Errorf("participants: %s is not a periodic board of this leaderboard (rolling boards count no participants)", k)
		}
	}
	if err := l.initArchive(seen); err != nil {
		return err
	}
	if err := l.initWindows(seen, retention); err != nil {
		return err
	}
	l.Retention = retention
	return l.budget()
}

// budget sizes each board's tie bits and checks MaxScore against the
// smallest score budget.
func (l *Leaderboard) budget() error {
	l.tieBits = map[Kind]uint{}
	exact := packing.MaxScore(0)
	for _, k := range l.Kinds {
		var bits uint
		if l.TieBreak == FirstReached {
			span := l.Calendar.MaxLength(k)
			if k == AllTime {
				span = AllTimeUntil.Sub(AllTimeFrom)
			}
			bits = packing.TimeBits(span, l.TieResolution)
		}
		l.tieBits[k] = bits
		exact = min(exact, packing.MaxScore(bits))
	}
	switch {
	case l.MaxScore == 0:
		l.MaxScore = exact
	case l.MaxScore < 0:
		return fmt.Errorf("max_score: %d is negative", l.MaxScore)
	case l.MaxScore > exact:
		return fmt.Errorf("max_score: %d does not pack exactly: %s leaves scores up to %d", l.MaxScore, l.Budget(), exact)
	}
	return nil
}

// TieBits returns the low bits kind k's board keeps for first_reached.
func (l *Leaderboard) TieBits(k Kind) uint { return l.tieBits[k] }

// Budget says where the bits of each board go, for errors and `leaguectl
// config check`.
func (l *Leaderboard) Budget() string {
	if l.TieBreak != FirstReached {
		return "ties by member id: every board keeps 53 bits for the score"
	}
	s := fmt.Sprintf("first_reached at %v", l.TieResolution)
	for _, k := range l.Kinds {
		s += fmt.Sprintf(", %s %d time bits", k, l.tieBits[k])
	}
	return s
}

// CheckMember validates a member id: 1-64 bytes of printable ASCII without
// spaces, as player ids.
func CheckMember(m string) error {
	if m == "." || m == ".." {
		return &league.Error{Code: league.Invalid, Field: "member", Message: fmt.Sprintf("%q cannot be a URL path segment", m)}
	}
	return league.CheckID("member", m, MaxMemberLen)
}

// has reports whether the leaderboard keeps boards of kind k.
func (l *Leaderboard) has(k Kind) bool { return slices.Contains(l.boards, k) }

// Boards returns every kind of board the leaderboard keeps: Kinds, then
// the Windows' kinds, the order of write results and member reads.
func (l *Leaderboard) Boards() []Kind { return l.boards }
