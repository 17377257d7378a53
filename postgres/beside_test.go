package postgres_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/league"
	"github.com/league-engine/league/postgres"
)

// WriteOutcomes writes the outcomes and rewards in a side transaction
// (beside.go). These tests make one transaction or the other fail at each
// point that matters, with triggers in the test's schema: real Postgres
// failures, no hook in the code.

// The main transaction's COMMIT fails after the side committed (a crash
// between the two commits): the outcomes and rewards are there, the
// settlement is still started, and the retry writes the rest once.
func TestWriteOutcomesAfterOnlyTheSideCommitted(t *testing.T) {
	s, _ := newStore(t)
	ctx := t.Context()
	exec(t, s, `CREATE TABLE fail_commit (on_write boolean);
		INSERT INTO fail_commit VALUES (true);
		CREATE FUNCTION fail_commit() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN
			IF NEW.status = 'written' AND (SELECT on_write FROM fail_commit) THEN
				RAISE EXCEPTION 'the main transaction dies at COMMIT';
			END IF;
			RETURN NULL;
		END $$;
		-- deferred: it runs at COMMIT, after WriteOutcomes committed the side
		CREATE CONSTRAINT TRIGGER fail_commit AFTER UPDATE ON settlements
			DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION fail_commit();`)
	outcomes, rewards := settledField(300)
	st := begin(t, s, outcomes)

	err := s.WriteOutcomes(ctx, st, outcomes, rewards)
	if err == nil {
		t.Fatal("WriteOutcomes with a COMMIT that fails: got nil, want the error")
	}
	want := written{status: league.StatusStarted, outcomes: 300, rewards: len(rewards)}
	wantWritten(t, s, st, want, "after the main COMMIT failed")

	exec(t, s, `UPDATE fail_commit SET on_write = false`)
	testsvc.Must(t, s.WriteOutcomes(ctx, st, outcomes, rewards), "WriteOutcomes again")
	want = written{status: league.StatusWritten, outcomes: 300, rewards: len(rewards), events: 1 + 300 + len(rewards), standings: 300}
	wantWritten(t, s, st, want, "after the retry")
	wantStandings(t, s, st.League, outcomes)

	err = s.WriteOutcomes(ctx, st, outcomes, rewards)
	wantErrCode(t, err, league.Conflict, "WriteOutcomes a third time")
	wantWritten(t, s, st, want, "after a third WriteOutcomes")
}

// Either transaction fails midway (a row refused by a trigger: an outcome
// in the side, a chunk of events in the main transaction): the other rolls
// back, nothing of the write is seen, and the retry writes it all.
func TestWriteOutcomesOneTransactionFails(t *testing.T) {
	for _, table := range []string{"outcomes", "event_chunks"} {
		t.Run(table, func(t *testing.T) {
			s, _ := newStore(t)
			ctx := t.Context()
			outcomes, rewards := settledField(300)
			refused := map[string]string{ // the row of outcomes[150]
				"outcomes":     `NEW.player = '` + outcomes[150].Player + `'`,
				"event_chunks": `'` + outcomes[150].Player + `' = ANY (NEW.players)`,
			}[table]
			exec(t, s, `CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$
				BEGIN RAISE EXCEPTION 'row refused'; END $$;
				CREATE TRIGGER refuse BEFORE INSERT ON `+table+` FOR EACH ROW
					WHEN (`+refused+`) EXECUTE FUNCTION refuse();`)
			st := begin(t, s, outcomes)
			if err := s.WriteOutcomes(ctx, st, outcomes, rewards); err == nil {
				t.Fatalf("WriteOutcomes with a row of %s refused: got nil, want the error", table)
			}
			wantWritten(t, s, st, written{status: league.StatusStarted}, "after the write failed")

			exec(t, s, `DROP TRIGGER refuse ON `+table)
			testsvc.Must(t, s.WriteOutcomes(ctx, st, outcomes, rewards), "WriteOutcomes again")
			wantWritten(t, s, st, written{status: league.StatusWritten, outcomes: 300, rewards: len(rewards), events: 1 + 300 + len(rewards), standings: 300}, "after the retry")
		})
	}
}

// A pool of one connection has none to lend: the write runs in one
// transaction, as it did before side transactions, and writes the same.
func TestWriteOutcomesPoolOfOne(t *testing.T) {
	_, url := newStore(t)
	s := open(t, url+"&pool_max_conns=1")
	outcomes, rewards := settledField(300)
	st := begin(t, s, outcomes)
	testsvc.Must(t, s.WriteOutcomes(t.Context(), st, outcomes, rewards), "WriteOutcomes on a pool of one")
	wantWritten(t, s, st, written{status: league.StatusWritten, outcomes: 300, rewards: len(rewards), events: 1 + 300 + len(rewards), standings: 300}, "on a pool of one")
	wantStandings(t, s, st.League, outcomes)
}

func exec(t *testing.T, s *postgres.Store, sql string) {
	t.Helper()
	_, err := s.Pool().Exec(t.Context(), sql)
	testsvc.Must(t, err, "%s", sql)
}

func begin(t *testing.T, s *postgres.Store, outcomes []league.Outcome) league.Settlement {
	t.Helper()
	st, err := s.BeginSettlement(t.Context(), league.Settlement{League: "l", Period: week0, PeriodEnd: week0.AddDate(0, 0, 7)})
	testsvc.Must(t, err, "BeginSettlement")
	st.Players = len(outcomes)
	return st
}

// written counts what a write left in each table.
type written struct {
	status                               league.SettlementStatus
	outcomes, rewards, events, standings int
}

func wantWritten(t *testing.T, s *postgres.Store, st league.Settlement, want written, when string) {
	t.Helper()
	var got written
	var status string
	err := s.Pool().QueryRow(t.Context(), `SELECT
			(SELECT status FROM settlements WHERE league = $1 AND period_start = $2),
			(SELECT count(*) FROM outcomes WHERE league = $1 AND period_start = $2),
			(SELECT count(*) FROM rewards WHERE league = $1 AND period_start = $2),
			(SELECT count(*) FROM outbox WHERE league = $1 AND period_start = $2),
			(SELECT count(*) FROM standings WHERE league = $1)`, st.League, st.Period).
		Scan(&status, &got.outcomes, &got.rewards, &got.events, &got.standings)
	testsvc.Must(t, err, "count the write")
	got.status = league.SettlementStatus(status)
	if got != want {
		t.Errorf("%s: got %+v, want %+v", when, got, want)
	}
}

func wantStandings(t *testing.T, s *postgres.Store, leagueID string, outcomes []league.Outcome) {
	t.Helper()
	want := map[string]int{}
	for _, o := range outcomes {
		want[o.TierAfter]++
	}
	got, err := s.Populations(t.Context(), leagueID)
	testsvc.Must(t, err, "Populations")
	for tier, n := range want {
		if got[tier] != n {
			t.Errorf("Populations: got %v, want %v", got, want)
			return
		}
	}
}

func wantErrCode(t *testing.T, err error, code league.Code, what string) {
	t.Helper()
	if league.ErrorCode(err) != code {
		t.Errorf("%s: got %v, want a %s error", what, err, code)
	}
}

// Writers of several leagues and claim batches at once, on pools of two
// and three connections: every write takes two (beside.go), claims wait
// for the outbox lock a write holds, and none of it may wait for ever.
// The first build of side transactions took the side's connection after
// the main transaction's locks, and this deadlocked.
func TestWriteOutcomesSmallPools(t *testing.T) {
	for _, conns := range []string{"2", "3"} {
		t.Run("pool_max_conns="+conns, func(t *testing.T) {
			_, url := newStore(t)
			s := open(t, url+"&pool_max_conns="+conns)
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			var wg sync.WaitGroup
			for l := range 4 {
				id := fmt.Sprintf("l%d", l)
				wg.Go(func() {
					outcomes, rewards := settledField(300)
					st, err := s.BeginSettlement(ctx, league.Settlement{League: id, Period: week0, PeriodEnd: week0.AddDate(0, 0, 7), Players: 300})
					if err == nil {
						err = s.WriteOutcomes(ctx, st, outcomes, rewards)
					}
					if err != nil {
						t.Errorf("settle %s: %v", id, err)
					}
				})
				wg.Go(func() {
					for b := range 10 {
						c := league.Claim{League: id, Player: fmt.Sprintf("c%d", b), Earned: week0, At: time.Now()}
						if err := s.RecordClaims(ctx, []league.Claim{c}); err != nil {
							t.Errorf("claims %s: %v", id, err)
							return
						}
					}
				})
			}
			wg.Wait()
			for l := range 4 {
				st := league.Settlement{League: fmt.Sprintf("l%d", l), Period: week0}
				wantWritten(t, s, st, written{status: league.StatusWritten, outcomes: 300, rewards: 9, events: 1 + 300 + 9 + 10, standings: 300},
					"league "+st.League)
			}
		})
	}
}

// A league's first settlement copies its standings straight in; the next
// merges into them. Both write the same rows: the tier settled, since the
// period, first played then; a catch-up of an earlier period moves only
// the first period back.
func TestFirstSettlementStandings(t *testing.T) {
	s, _ := newStore(t)
	ctx := t.Context()
	outcomes, rewards := settledField(300)
	st := begin(t, s, outcomes)
	testsvc.Must(t, s.WriteOutcomes(ctx, st, outcomes, rewards), "WriteOutcomes")
	wantRows := func(when string, tierSince, firstPeriod time.Time, n int) {
		t.Helper()
		var got int
		err := s.Pool().QueryRow(ctx, `SELECT count(*) FROM standings s JOIN outcomes o
				ON o.league = s.league AND o.player = s.player AND o.period_start = $2
			WHERE s.league = $1 AND s.tier = o.tier_after AND s.tier_since = $2 AND s.first_period = $3
				AND s.updated_at > now() - interval '1 minute'`, st.League, tierSince, firstPeriod).Scan(&got)
		testsvc.Must(t, err, "standings")
		if got != n {
			t.Fatalf("%s: %d standings as their outcome of %s says, first played %s; want %d", when, got, tierSince, firstPeriod, n)
		}
	}
	wantRows("after the first settlement", week0, week0, 300)

	// The period before, settled late, for the same players and 10 new:
	// the merge. Tiers stay the later period's; first periods move back.
	earlier := week0.AddDate(0, 0, -7)
	more, moreRewards := settledField(310)
	late, err := s.BeginSettlement(ctx, league.Settlement{League: st.League, Period: earlier, PeriodEnd: week0})
	testsvc.Must(t, err, "BeginSettlement")
	late.Players = len(more)
	testsvc.Must(t, s.WriteOutcomes(ctx, late, more, moreRewards), "WriteOutcomes, the period before")
	wantRows("after the catch-up", week0, earlier, 300)
	var newcomers int
	testsvc.Must(t, s.Pool().QueryRow(ctx, `SELECT count(*) FROM standings WHERE league = $1 AND tier_since = $2 AND first_period = $2`,
		st.League, earlier).Scan(&newcomers), "newcomers")
	if newcomers != 10 {
		t.Fatalf("%d standings set by the period before, want its 10 newcomers", newcomers)
	}
}
