package scheduler_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/league"
	"github.com/league-engine/league/scheduler"
)

// lateCommit is a store where another settler's statement commits just
// before this settler's own step: the first Advance from written finds the
// settlement applied already, as when a dead settler's UPDATE committed
// after another replica took its lease.
type lateCommit struct {
	league.Store
	once sync.Once
}

func (s *lateCommit) Advance(ctx context.Context, lg string, period time.Time, from, to league.SettlementStatus) error {
	if from == league.StatusWritten {
		s.once.Do(func() { s.Store.Advance(ctx, lg, period, from, to) })
	}
	return s.Store.Advance(ctx, lg, period, from, to)
}

// TestOvertakenIsNoFailure: a step the store refuses because another
// settler moved the settlement on is a lost race, like a lease another
// process holds: nothing is counted as failed or written to last_error,
// and the next run finishes the settlement from where it is.
func TestOvertakenIsNoFailure(t *testing.T) {
	forEachStore(t, func(t *testing.T, k storeKind) {
		f := newFixture(t, k, 100)
		week := f.period()
		f.play("p", 20)
		f.clock.After(week.End)
		healthy := f.store
		f.store = &lateCommit{Store: healthy}
		reg := prometheus.NewRegistry()
		s := f.scheduler(scheduler.WithRegistry(reg))
		if _, err := s.SettleNow(f.ctx, "weekly", time.Time{}); !errors.Is(err, league.ErrOvertaken) {
			t.Fatalf("SettleNow overtaken at its apply step: %v, want overtaken", err)
		}
		wantNoFailure(t, reg, healthy, week)
		st, err := healthy.Settlement(f.ctx, "weekly", week.Start)
		testsvc.Must(t, err, "Settlement")
		if st.Status != league.StatusApplied {
			t.Errorf("settlement %s, want applied", st.Status)
		}
		st, err = s.SettleNow(f.ctx, "weekly", time.Time{})
		testsvc.Must(t, err, "SettleNow again")
		if st.Status != league.StatusDone {
			t.Errorf("the next run left the settlement %s", st.Status)
		}
	})
}
