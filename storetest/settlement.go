package storetest

import (
	"sync"
	"testing"
	"time"

	"github.com/league-engine/league/league"
)

func testBeginSettlement(t *testing.T, s league.Store) {
	// Given in another time zone, returned in UTC: a period is its instant.
	paris := time.FixedZone("CET", 3600)
	in := league.Settlement{League: "l", Period: week(0).In(paris), PeriodEnd: week(1).In(paris),
		StartedAt: week(1).Add(time.Minute).In(paris), Status: league.StatusDone}
	got, err := s.BeginSettlement(t.Context(), in)
	must(t, err, "BeginSettlement")
	want := league.Settlement{League: "l", Period: week(0), PeriodEnd: week(1), StartedAt: week(1).Add(time.Minute),
		Status: league.StatusStarted}
	wantSettlement(t, got, want, "BeginSettlement")
	if !got.FinishedAt.IsZero() {
		t.Errorf("FinishedAt: got %v, want zero before StatusDone", got.FinishedAt)
	}

	got, err = s.Settlement(t.Context(), "l", week(0))
	must(t, err, "Settlement")
	wantSettlement(t, got, want, "Settlement")
}

func testBeginSettlementTwice(t *testing.T, s league.Store) {
	first := begin(t, s, "l", 0)
	again, err := s.BeginSettlement(t.Context(), league.Settlement{League: "l", Period: week(0), PeriodEnd: week(2),
		StartedAt: week(3), LastError: "x"})
	must(t, err, "second BeginSettlement")
	wantSettlement(t, again, first, "second BeginSettlement")

	// Past StatusStarted, BeginSettlement still returns what is recorded:
	// that is how a restarted settlement resumes.
	settle(t, s, "l", 1, nil, nil)
	again, err = s.BeginSettlement(t.Context(), league.Settlement{League: "l", Period: week(1), PeriodEnd: week(2)})
	must(t, err, "BeginSettlement of a written period")
	if again.Status != league.StatusWritten {
		t.Errorf("BeginSettlement of a written period: got status %s, want %s", again.Status, league.StatusWritten)
	}
}

func testBeginSettlementConcurrent(t *testing.T, s league.Store) {
	const n = 8
	got := make([]league.Settlement, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], errs[i] = s.BeginSettlement(t.Context(), league.Settlement{League: "l", Period: week(0), PeriodEnd: week(1),
				StartedAt: week(1).Add(time.Duration(i) * time.Second)})
		}()
	}
	wg.Wait()
	for i := range n {
		must(t, errs[i], "BeginSettlement %d", i)
		wantSettlement(t, got[i], got[0], "concurrent BeginSettlement")
	}
}

func testSettlementNotFound(t *testing.T, s league.Store) {
	begin(t, s, "l", 0)
	_, err := s.Settlement(t.Context(), "l", week(1))
	wantCode(t, err, league.NotFound, "Settlement of a period not begun")
	_, err = s.Settlement(t.Context(), "other", week(0))
	wantCode(t, err, league.NotFound, "Settlement of another league")
	err = s.Advance(t.Context(), "l", week(1), league.StatusWritten, league.StatusApplied)
	wantCode(t, err, league.NotFound, "Advance of a period not begun")
	err = s.Fail(t.Context(), "l", week(1), "boom")
	wantCode(t, err, league.NotFound, "Fail of a period not begun")
}

func testSettlements(t *testing.T, s league.Store) {
	for _, n := range []int{2, 0, 4, 1, 3} {
		begin(t, s, "l", n)
	}
	begin(t, s, "other", 5)

	got, err := s.Settlements(t.Context(), "l", 3)
	must(t, err, "Settlements")
	wantWeeks(t, got, []int{4, 3, 2}, "Settlements(limit 3)")

	got, err = s.Settlements(t.Context(), "l", 0)
	must(t, err, "Settlements")
	wantWeeks(t, got, []int{4, 3, 2, 1, 0}, "Settlements(limit 0: all)")

	got, err = s.Settlements(t.Context(), "nobody", 10)
	must(t, err, "Settlements of an unknown league")
	if len(got) != 0 {
		t.Errorf("Settlements of an unknown league: got %d, want none", len(got))
	}
}

func wantWeeks(t *testing.T, got []league.Settlement, weeks []int, what string) {
	t.Helper()
	if len(got) != len(weeks) {
		t.Fatalf("%s: got %d settlements, want %d", what, len(got), len(weeks))
	}
	for i, n := range weeks {
		if !got[i].Period.Equal(week(n)) || got[i].League != "l" {
			t.Errorf("%s[%d]: got %s %v, want l %v", what, i, got[i].League, got[i].Period, week(n))
		}
		wantUTC(t, what, got[i].Period)
	}
}

func testStateMachine(t *testing.T, s league.Store) {
	outcomes, rewards := field(300, "silver", "gold", "bronze")
	st := settle(t, s, "l", 0, outcomes, rewards)

	got, err := s.Settlement(t.Context(), "l", week(0))
	must(t, err, "Settlement")
	wantSettlement(t, got, st, "after WriteOutcomes")
	if got.Players != 300 || len(got.Tiers) != 1 || got.Tiers[0].Rewarded != 9 {
		t.Errorf("after WriteOutcomes: got %d players, tiers %+v; want 300 players, 9 rewarded", got.Players, got.Tiers)
	}

	must(t, s.Advance(t.Context(), "l", week(0), league.StatusWritten, league.StatusApplied), "Advance to applied")
	got, _ = s.Settlement(t.Context(), "l", week(0))
	if got.Status != league.StatusApplied || !got.FinishedAt.IsZero() {
		t.Errorf("after Advance: got %s finished %v, want %s unfinished", got.Status, got.FinishedAt, league.StatusApplied)
	}

	before := time.Now().Add(-time.Minute)
	must(t, s.Advance(t.Context(), "l", week(0), league.StatusApplied, league.StatusDone), "Advance to done")
	got, _ = s.Settlement(t.Context(), "l", week(0))
	if got.Status != league.StatusDone || got.FinishedAt.Before(before) || got.FinishedAt.After(time.Now().Add(time.Minute)) {
		t.Errorf("after Advance to done: got %s finished %v, want %s finished now", got.Status, got.FinishedAt, league.StatusDone)
	}
	wantUTC(t, "FinishedAt", got.FinishedAt)
	if got.Players != 300 {
		t.Errorf("after Advance to done: got %d players, want the 300 WriteOutcomes recorded", got.Players)
	}
}

func testAdvanceFromWrongStatus(t *testing.T, s league.Store) {
	begin(t, s, "l", 0)
	err := s.Advance(t.Context(), "l", week(0), league.StatusWritten, league.StatusApplied)
	wantCode(t, err, league.Conflict, "Advance from written of a started settlement")
	wantOvertaken(t, err, false, "Advance from written of a started settlement")
	wantStatus(t, s, "l", 0, league.StatusStarted)

	settle(t, s, "l", 1, nil, nil)
	err = s.Advance(t.Context(), "l", week(1), league.StatusWritten, league.StatusDone)
	wantCode(t, err, league.Invalid, "Advance from written straight to done")
	wantStatus(t, s, "l", 1, league.StatusWritten)

	must(t, s.Advance(t.Context(), "l", week(1), league.StatusWritten, league.StatusApplied), "Advance")
	err = s.Advance(t.Context(), "l", week(1), league.StatusWritten, league.StatusApplied)
	wantCode(t, err, league.Conflict, "Advance repeated")
	wantOvertaken(t, err, true, "Advance repeated")
	wantStatus(t, s, "l", 1, league.StatusApplied)
}

func wantStatus(t *testing.T, s league.Store, lg string, n int, want league.SettlementStatus) {
	t.Helper()
	got, err := s.Settlement(t.Context(), lg, week(n))
	must(t, err, "Settlement")
	if got.Status != want {
		t.Errorf("status of %s week %d: got %s, want %s", lg, n, got.Status, want)
	}
}

func testFail(t *testing.T, s league.Store) {
	begin(t, s, "l", 0)
	must(t, s.Fail(t.Context(), "l", week(0), "redis: connection refused"), "Fail")
	must(t, s.Fail(t.Context(), "l", week(0), "redis: timeout"), "Fail again")
	got, err := s.Settlement(t.Context(), "l", week(0))
	must(t, err, "Settlement")
	if got.LastError != "redis: timeout" || got.Status != league.StatusStarted {
		t.Errorf("after Fail: got %s %q, want %s %q", got.Status, got.LastError, league.StatusStarted, "redis: timeout")
	}

	// Reaching done clears the error, and a late one (a losing settler's)
	// does not mark a done settlement.
	outcomes, rewards := field(3, "silver", "gold", "bronze")
	st := settle(t, s, "l", 1, outcomes, rewards)
	must(t, s.Fail(t.Context(), "l", week(1), "write outcomes: written already"), "Fail")
	must(t, s.Advance(t.Context(), "l", week(1), league.StatusWritten, league.StatusApplied), "Advance to applied")
	must(t, s.Advance(t.Context(), "l", week(1), league.StatusApplied, league.StatusDone), "Advance to done")
	must(t, s.Fail(t.Context(), "l", week(1), "late"), "Fail of a done settlement")
	got, err = s.Settlement(t.Context(), "l", st.Period)
	must(t, err, "Settlement")
	if got.LastError != "" || got.Status != league.StatusDone {
		t.Errorf("done after a Fail, then Fail again: got %s %q, want %s with no error", got.Status, got.LastError, league.StatusDone)
	}
}
