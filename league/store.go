package league

import (
	"context"
	"errors"
	"time"

	"github.com/league-engine/league/tiers"
)

// Store keeps what settlement decides: the settlement state machine of each
// period, every player's outcome, the rewards they earned and when a join
// claimed them, and each player's current tier (the source of truth; Redis
// holds a copy the live engine reads). Implementations: postgres.Store and
// inmem.Store, held to one contract by storetest.
//
// Periods are identified by their start time (UTC, whole seconds).
type Store interface {
	// Lock takes the lease on settling one period of a league. ok is false
	// when another process holds it. The lease ends with release, or with the
	// holder's death (its connection closes).
	Lock(ctx context.Context, league string, period time.Time) (release func(), ok bool, err error)

	// BeginSettlement records a settlement in StatusStarted unless one is
	// recorded already, and returns the recorded one either way.
	BeginSettlement(ctx context.Context, s Settlement) (Settlement, error)
	// Settlement returns the recorded settlement of a period, or a NotFound
	// error.
	Settlement(ctx context.Context, league string, period time.Time) (Settlement, error)
	// Settlements returns a league's most recent settlements, newest first.
	Settlements(ctx context.Context, league string, limit int) ([]Settlement, error)
	// WriteOutcomes stores a period's outcomes and rewards, moves every
	// player's standing to their new tier (unless a later period already
	// did), records s's counts and rules and moves the settlement to StatusWritten, all
	// in one transaction: after a crash either all of it is there or none.
	// Writing a period whose settlement is past StatusStarted is a Conflict
	// error and changes nothing.
	WriteOutcomes(ctx context.Context, s Settlement, outcomes []Outcome, rewards []EarnedReward) error
	// Advance moves a settlement from one status to the next; finished is
	// recorded with StatusDone, which also clears the last error: a done
	// settlement has none. Moving from a status the settlement is not in is
	// a Conflict error.
	Advance(ctx context.Context, league string, period time.Time, from, to SettlementStatus) error
	// Fail records the last error of a settlement attempt (for operators),
	// leaving its status alone. On a done settlement it changes nothing: a
	// losing settler's error arrives after the winner finished.
	Fail(ctx context.Context, league string, period time.Time, msg string) error

	// RecordClaims records reward deliveries. Recording one twice changes
	// nothing; a claim may arrive before its reward is written.
	RecordClaims(ctx context.Context, claims []Claim) error
	// RecordDecays records the tier moves absence decay made at joins, each
	// with a player.decayed event. Recording one twice (same league,
	// period and player: a join places a player once a period) changes
	// nothing.
	RecordDecays(ctx context.Context, decays []Decay) error

	// Profile returns a player's current tier, last period played and
	// their last `limit` periods, newest first; NotFound for a player no
	// settlement has seen.
	Profile(ctx context.Context, league, player string, limit int) (Profile, error)
	// EachSettledPlayer calls fn for every player the league's settlements have
	// seen, in no set order, until fn returns an error (returned as is):
	// what Restore writes back to a Redis that lost it.
	EachSettledPlayer(ctx context.Context, league string, fn func(SettledPlayer) error) error
	// Populations returns how many players each tier holds (by standing).
	Populations(ctx context.Context, league string) (map[string]int, error)

	// Ping checks that the store answers.
	Ping(ctx context.Context) error
}

// SettlementStatus is a step of the settlement state machine.
type SettlementStatus string

const (
	// StatusStarted: recorded and leased; the period may be closed in Redis.
	StatusStarted SettlementStatus = "started"
	// StatusWritten: outcomes, rewards and standings are in the store.
	StatusWritten SettlementStatus = "written"
	// StatusApplied: the new tiers and rewards are visible in Redis.
	StatusApplied SettlementStatus = "applied"
	// StatusDone: the period's Redis keys are set to expire.
	StatusDone SettlementStatus = "done"
)

// Next returns the status a settlement moves to from s, and false for
// StatusDone (or an unknown status): the state machine has one path.
func (s SettlementStatus) Next() (SettlementStatus, bool) {
	switch s {
	case StatusStarted:
		return StatusWritten, true
	case StatusWritten:
		return StatusApplied, true
	case StatusApplied:
		return StatusDone, true
	}
	return "", false
}

// CheckStep returns an Invalid error unless to is the status after from:
// stores refuse a move that skips a step before touching anything.
func CheckStep(from, to SettlementStatus) error {
	want, ok := from.Next()
	if !ok {
		return fieldError("from", "a settlement moves on from %s, %s or %s, not from %q",
			StatusStarted, StatusWritten, StatusApplied, from)
	}
	if to != want {
		return fieldError("to", "a settlement moves from %s to %s, not to %q", from, want, to)
	}
	return nil
}

// ErrOvertaken is what a store's Conflict error wraps when a settlement is
// further along than the step expected: another settler moved it on (one
// that worked on after Postgres dropped the connection holding its lease,
// or a dead process whose last statement committed after it died). The
// caller lost a race, not its work: a later run resumes from where the
// settlement is, and nothing failed.
var ErrOvertaken = errors.New("another settler moved it on")

// StepConflict is the Conflict error of a step that expected the settlement
// of period in status from and found it in cur. It wraps ErrOvertaken when
// cur is further along.
func StepConflict(leagueID string, period time.Time, cur, from SettlementStatus) error {
	e := Errorf(Conflict, "the settlement of league %q period %s is %s, not %s",
		leagueID, period.UTC().Format(time.RFC3339), cur, from)
	for s, ok := from.Next(); ok; s, ok = s.Next() {
		if s == cur {
			e.Err = ErrOvertaken
		}
	}
	return e
}

// Settlement is the record of one period's settlement.
type Settlement struct {
	League     string
	Period     time.Time // start
	PeriodEnd  time.Time
	Status     SettlementStatus
	StartedAt  time.Time
	FinishedAt time.Time // zero until StatusDone
	Players    int
	Tiers      []TierCount // per tier, ladder order; set by WriteOutcomes
	LastError  string
	// Rules are the ladder rules the period was decided under
	// (tiers.Ladder.RulesJSON, as recorded in Redis by its first decision:
	// Engine.PeriodRules) and RulesFP their fingerprint, written with the
	// outcomes so that the settlement can be verified from the store alone
	// (Verify). Empty in settlements written before the store kept them.
	Rules, RulesFP string
}

// TierCount is a tier's part of a settlement.
type TierCount struct {
	Tier     string `json:"tier"`
	Players  int    `json:"players"` // decided: on the boards when the period closed
	Promoted int    `json:"promoted"`
	Demoted  int    `json:"demoted"`
	Rewarded int    `json:"rewarded"`
	// Moderated are the tier's players an operator took off the boards
	// (Engine.Moderate): skipped, not among Players.
	Moderated int `json:"moderated,omitempty"`
}

// Outcome is one player's result of a settled period.
type Outcome struct {
	Player     string
	TierBefore string // and the tier of the board played on
	TierAfter  string
	Cohort     string // of the board played on; "" for the tier's shared boards (cohort.go)
	Board      int
	Rank       int
	Score      int64
	// Move is how the tier changed (up or down the ladder, which the tier
	// ids alone do not tell): the event the store writes of it. Left
	// empty, TierBefore and TierAfter must be the same tier (Stayed).
	Move Move
	// What the board showed at close, kept so that an archived board reads
	// as the live one did (Archive): the rank's zone, the player's name and
	// avatar. Zero in outcomes settled before the store kept them.
	Zone   tiers.Zone
	Name   string
	Avatar string
}

// EarnedReward is a reward settlement granted.
type EarnedReward struct {
	Player string
	Tier   string
	Rank   int
	Items  []tiers.Item
}

// Profile is a player's settled history in a league.
type Profile struct {
	League     string
	Player     string
	Tier       string    // the tier their last settled period gave them
	LastPeriod time.Time // start of that period
	History    []HistoryEntry
}

// HistoryEntry is one settled period of a player.
type HistoryEntry struct {
	Period     time.Time // start
	TierBefore string
	TierAfter  string
	Cohort     string // of the board played on; "" for the tier's shared boards
	Board      int
	Rank       int
	Score      int64
	Rewards    []tiers.Item // nil if the rank earned nothing
	ClaimedAt  time.Time    // zero while not delivered
}
