package scheduler_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/league"
	"github.com/league-engine/league/migrations"
	"github.com/league-engine/league/postgres"
)

// The settlement tests run against the real PostgreSQL too, each in a schema
// of its own.
func init() {
	stores = append(stores, storeKind{"postgres", func(t *testing.T) league.Store {
		pool, url := testsvc.Postgres(t)
		if _, err := migrations.Apply(t.Context(), pool); err != nil {
			t.Fatalf("migrate: %v", err)
		}
		s, err := postgres.Open(t.Context(), url)
		if err != nil {
			t.Fatalf("postgres.Open: %v", err)
		}
		t.Cleanup(s.Close)
		return s
	}})
}

// killedStore cancels WriteOutcomes a few milliseconds in: the process dies
// while its COPY is on the wire.
type killedStore struct {
	league.Store
	after time.Duration
}

func (k killedStore) WriteOutcomes(ctx context.Context, s league.Settlement, o []league.Outcome, r []league.EarnedReward) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	time.AfterFunc(k.after, cancel)
	return k.Store.WriteOutcomes(ctx, s, o, r)
}

// TestKilledMidWrite: the settlement dies in the middle of writing 20,000
// outcomes to Postgres. Nothing of it is visible, and the re-run writes
// every outcome exactly once.
func TestKilledMidWrite(t *testing.T) {
	f := newFixture(t, stores[len(stores)-1], 100)
	week := f.period()
	f.play("p", 20000)
	f.clock.After(week.End)
	real := f.store
	f.store = killedStore{Store: real, after: 20 * time.Millisecond}
	_, err := f.scheduler().SettleNow(f.ctx, "weekly", time.Time{})
	if err == nil {
		t.Fatal("the write finished within 20 ms: nothing was killed mid-write")
	}
	st, err := real.Settlement(f.ctx, "weekly", week.Start)
	testsvc.Must(t, err, "Settlement")
	if st.Status != league.StatusStarted {
		t.Fatalf("after the killed write the settlement is %s, want started", st.Status)
	}
	if _, err := real.Profile(f.ctx, "weekly", "p00000", 5); !errors.Is(err, league.ErrNotFound) {
		t.Fatalf("an outcome of the killed write is visible: %v", err)
	}
	f.store = real
	f.engine = f.open()
	st = f.settleNow(f.scheduler())
	if st.Players != 20000 {
		t.Fatalf("re-run settled %d players", st.Players)
	}
	f.checkBoards(week, "p", 20000)
	f.checkEvents(week, 20000) // none from the killed write, all from the re-run

}

// checkEvents checks, on Postgres, that the outbox holds week's events
// exactly once, as its rows say: one period.closed, one player event per
// outcome (promoted, demoted or stayed as its tiers moved on the ladder),
// one reward.granted per reward. Other stores keep no outbox.
func (f *fixture) checkEvents(week league.Period, players int) {
	f.t.Helper()
	pg, ok := f.store.(*postgres.Store)
	if !ok {
		return
	}
	var closed, moves, distinct, wrong, granted, rewards int
	err := pg.Pool().QueryRow(f.ctx, `SELECT
			(SELECT count(*) FROM outbox WHERE league = 'weekly' AND period_start = $1 AND type = 'period.closed'),
			(SELECT count(*) FROM outbox WHERE league = 'weekly' AND period_start = $1 AND type LIKE 'player.%'),
			(SELECT count(DISTINCT player) FROM outbox WHERE league = 'weekly' AND period_start = $1 AND type LIKE 'player.%'),
			(SELECT count(*) FROM outbox e JOIN outcomes o USING (league, period_start, player)
				WHERE e.league = 'weekly' AND e.period_start = $1 AND e.type LIKE 'player.%' AND (
					e.tier_before <> o.tier_before OR e.tier_after <> o.tier_after OR e.rank <> o.rank OR e.score <> o.score OR
					e.type <> CASE
						WHEN o.tier_before = o.tier_after THEN 'player.stayed'
						WHEN (o.tier_before, o.tier_after) IN (('bronze', 'silver'), ('silver', 'gold')) THEN 'player.promoted'
						ELSE 'player.demoted' END)),
			(SELECT count(*) FROM outbox WHERE league = 'weekly' AND period_start = $1 AND type = 'reward.granted'),
			(SELECT count(*) FROM rewards WHERE league = 'weekly' AND period_start = $1)`,
		week.Start).Scan(&closed, &moves, &distinct, &wrong, &granted, &rewards)
	testsvc.Must(f.t, err, "count events")
	if closed != 1 || moves != players || distinct != players || wrong != 0 || granted != rewards || rewards == 0 {
		f.t.Fatalf("events of %s: %d period.closed, %d player events for %d players (%d not as their outcome says), %d reward.granted for %d rewards; "+
			"want 1, %d for %d, 0, and one per reward", week.ID(), closed, moves, distinct, wrong, granted, rewards, players, players)
	}
}

// checkClaimEvents checks, on Postgres, that player has want reward.claimed
// events, with the reward's items.
func (f *fixture) checkClaimEvents(player string, want int) {
	f.t.Helper()
	pg, ok := f.store.(*postgres.Store)
	if !ok {
		return
	}
	var n, withItems int
	err := pg.Pool().QueryRow(f.ctx, `SELECT count(*), count(*) FILTER (WHERE jsonb_array_length(data->'items') > 0)
		FROM events WHERE type = 'reward.claimed' AND player = $1`, player).Scan(&n, &withItems)
	testsvc.Must(f.t, err, "count claim events")
	if n != want || withItems != want {
		f.t.Fatalf("%s has %d reward.claimed events (%d with items), want %d", player, n, withItems, want)
	}
}
