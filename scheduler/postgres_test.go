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
}
