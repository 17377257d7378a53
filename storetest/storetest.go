// Package storetest is the contract of league.Store as tests: every
// implementation runs Run, so the in-memory store of a development run and
// PostgreSQL in production behave alike (River's riverdrivertest is the
// model).
//
//	func TestStore(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) league.Store { return inmem.New() })
//	}
package storetest

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/league-engine/league/league"
	"github.com/league-engine/league/tiers"
)

// Run runs the suite. newStore returns an empty store of the test's own,
// cleaned up by the test (t.Cleanup); subtests run in parallel.
func Run(t *testing.T, newStore func(t *testing.T) league.Store) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s league.Store)
	}{
		{"Ping", testPing},

		{"BeginSettlement", testBeginSettlement},
		{"BeginSettlementTwiceReturnsTheFirst", testBeginSettlementTwice},
		{"BeginSettlementConcurrent", testBeginSettlementConcurrent},
		{"SettlementNotFound", testSettlementNotFound},
		{"Settlements", testSettlements},
		{"StateMachine", testStateMachine},
		{"AdvanceFromWrongStatus", testAdvanceFromWrongStatus},
		{"Fail", testFail},

		{"WriteOutcomes", testWriteOutcomes},
		{"WriteOutcomesEmpty", testWriteOutcomesEmpty},
		{"WriteOutcomesKeepsRules", testWriteOutcomesKeepsRules},
		{"WriteOutcomesTwice", testWriteOutcomesTwice},
		{"WriteOutcomesNotStarted", testWriteOutcomesNotStarted},
		{"WriteOutcomesAllOrNothing", testWriteOutcomesAllOrNothing},
		{"WriteOutcomesConcurrent", testWriteOutcomesConcurrent},
		{"StandingsOnlyMoveForward", testStandingsOnlyMoveForward},

		{"RecordClaims", testRecordClaims},
		{"RecordClaimsBeforeReward", testRecordClaimsBeforeReward},
		{"RecordDecays", testRecordDecays},
		{"RecordDecaysBadInput", testRecordDecaysBadInput},

		{"Profile", testProfile},
		{"Populations", testPopulations},
		{"EachSettledPlayer", testEachSettledPlayer},

		{"Lock", testLock},
		{"LockConcurrent", testLockConcurrent},

		{"LeaguesSeparate", testLeaguesSeparate},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.fn(t, newStore(t))
		})
	}
}

// base is the start of week 0, the first period of the tests; week(n)
// starts period n. Periods are weeks starting Monday 00:00 UTC.
var base = time.Date(2026, 11, 16, 0, 0, 0, 0, time.UTC)

func week(n int) time.Time { return base.AddDate(0, 0, 7*n) }

// begin records the settlement of week n of league lg.
func begin(t *testing.T, s league.Store, lg string, n int) league.Settlement {
	t.Helper()
	st, err := s.BeginSettlement(t.Context(), league.Settlement{
		League: lg, Period: week(n), PeriodEnd: week(n + 1), StartedAt: week(n + 1).Add(time.Minute),
	})
	must(t, err, "BeginSettlement(%s, week %d)", lg, n)
	return st
}

// settle begins week n of lg and writes the outcomes and rewards.
func settle(t *testing.T, s league.Store, lg string, n int, outcomes []league.Outcome, rewards []league.EarnedReward) league.Settlement {
	t.Helper()
	st := begin(t, s, lg, n)
	outcomes = withMoves(outcomes)
	st.Players, st.Tiers = len(outcomes), countTiers(outcomes, rewards)
	must(t, s.WriteOutcomes(t.Context(), st, outcomes, rewards), "WriteOutcomes(%s, week %d)", lg, n)
	st.Status = league.StatusWritten
	return st
}

// testLadder orders the tiers the suite's outcomes name, lowest first.
var testLadder = map[string]int{"bronze": 0, "silver": 1, "gold": 2}

// withMoves gives each outcome without a move the one its tiers make on
// testLadder.
func withMoves(outcomes []league.Outcome) []league.Outcome {
	out := make([]league.Outcome, len(outcomes))
	for i, o := range outcomes {
		if o.Move == "" {
			switch before, after := testLadder[o.TierBefore], testLadder[o.TierAfter]; {
			case after > before:
				o.Move = league.Promoted
			case after < before:
				o.Move = league.Demoted
			default:
				o.Move = league.Stayed
			}
		}
		out[i] = o
	}
	return out
}

// field returns n players p00000.. of one tier on boards of 100, ranked by
// score: the top 10 of each board go up to `up`, the bottom 10 down to
// `down`, and the top 3 earn rewards.
func field(n int, tier, up, down string) ([]league.Outcome, []league.EarnedReward) {
	outcomes := make([]league.Outcome, n)
	var rewards []league.EarnedReward
	for i := range outcomes {
		rank := i%100 + 1
		after, move := tier, league.Stayed
		switch {
		case rank <= 10 && up != tier:
			after, move = up, league.Promoted
		case rank > 90 && down != tier:
			after, move = down, league.Demoted
		}
		o := league.Outcome{Player: fmt.Sprintf("p%05d", i), TierBefore: tier, TierAfter: after,
			Board: i/100 + 1, Rank: rank, Score: int64(10_000 - 10*rank), Move: move}
		outcomes[i] = o
		if rank <= 3 {
			rewards = append(rewards, league.EarnedReward{Player: o.Player, Tier: tier, Rank: rank,
				Items: []tiers.Item{{ID: "gold", Qty: int64(300 / rank)}, {ID: "chest", Qty: 1}}})
		}
	}
	return outcomes, rewards
}

// countTiers is the TierCount list of outcomes, in order of first sight.
func countTiers(outcomes []league.Outcome, rewards []league.EarnedReward) []league.TierCount {
	var out []league.TierCount
	at := map[string]int{}
	row := func(tier string) *league.TierCount {
		i, ok := at[tier]
		if !ok {
			i = len(out)
			at[tier] = i
			out = append(out, league.TierCount{Tier: tier})
		}
		return &out[i]
	}
	for _, o := range outcomes {
		c := row(o.TierBefore)
		c.Players++
		switch {
		case o.TierAfter == o.TierBefore:
		case o.Rank <= 10:
			c.Promoted++
		default:
			c.Demoted++
		}
	}
	for _, r := range rewards {
		row(r.Tier).Rewarded++
	}
	return out
}

func must(t *testing.T, err error, format string, args ...any) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", fmt.Sprintf(format, args...), err)
	}
}

// wantCode fails unless err is a league error of code.
func wantCode(t *testing.T, err error, code league.Code, format string, args ...any) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: got no error, want %s", fmt.Sprintf(format, args...), code)
	}
	if got := league.ErrorCode(err); got != code {
		t.Fatalf("%s: got %s (%v), want %s", fmt.Sprintf(format, args...), got, err, code)
	}
}

// wantOvertaken fails unless err says, or does not say, that another
// settler moved the settlement on (league.ErrOvertaken): the scheduler
// counts one as a lost race and the other as a failure.
func wantOvertaken(t *testing.T, err error, want bool, what string) {
	t.Helper()
	if got := errors.Is(err, league.ErrOvertaken); got != want {
		t.Errorf("%s: %v; overtaken %v, want %v", what, err, got, want)
	}
}

// wantUTC fails unless every time is in UTC.
func wantUTC(t *testing.T, what string, ts ...time.Time) {
	t.Helper()
	for _, ts := range ts {
		if ts.Location() != time.UTC {
			t.Errorf("%s: got time %v in %v, want UTC", what, ts, ts.Location())
		}
	}
}

// wantSettlement compares everything but the times the store sets itself.
func wantSettlement(t *testing.T, got, want league.Settlement, what string) {
	t.Helper()
	if !got.Period.Equal(want.Period) || !got.PeriodEnd.Equal(want.PeriodEnd) || !got.StartedAt.Equal(want.StartedAt) {
		t.Errorf("%s: got period %v-%v started %v, want %v-%v started %v", what,
			got.Period, got.PeriodEnd, got.StartedAt, want.Period, want.PeriodEnd, want.StartedAt)
	}
	wantUTC(t, what, got.Period, got.PeriodEnd, got.StartedAt, got.FinishedAt)
	if got.League != want.League || got.Status != want.Status || got.Players != want.Players || got.LastError != want.LastError {
		t.Errorf("%s: got %s/%s players %d error %q, want %s/%s players %d error %q", what,
			got.League, got.Status, got.Players, got.LastError, want.League, want.Status, want.Players, want.LastError)
	}
	if len(got.Tiers) != 0 || len(want.Tiers) != 0 {
		if !reflect.DeepEqual(got.Tiers, want.Tiers) {
			t.Errorf("%s: got tiers %+v, want %+v", what, got.Tiers, want.Tiers)
		}
	}
}

func testPing(t *testing.T, s league.Store) {
	must(t, s.Ping(t.Context()), "Ping")
}
