package scheduler_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/league-engine/league/inmem"
	"github.com/league-engine/league/league"
	"github.com/league-engine/league/scheduler"
)

// TestStatus: a league's status shows the lease while this process holds
// it, the last failed attempt's error, and the last period settled.
func TestStatus(t *testing.T) {
	f := newFixture(t, storeKind{"inmem", func(*testing.T) league.Store { return inmem.New() }}, 10)
	f.play("p", 5)
	p := f.period()
	f.clock.After(p.End)

	var s *scheduler.Scheduler
	var during scheduler.Status
	fail := true
	s = f.scheduler(scheduler.WithFault(func(step string) error {
		if step != scheduler.StepApply {
			return nil
		}
		during = s.Status()[0]
		if fail {
			fail = false
			return errors.New("injected")
		}
		return nil
	}))
	if st := s.Status(); len(st) != 1 || st[0].League != "weekly" || !st[0].Settling.IsZero() || st[0].LastError != "" {
		t.Fatalf("before anything: got %+v, want weekly with no lease and no error", st)
	}
	if _, err := s.SettleNow(f.ctx, "weekly", time.Time{}); err == nil {
		t.Fatal("SettleNow with a fault at apply: got no error")
	}
	if during.Settling != p || during.Since.IsZero() {
		t.Errorf("while settling: got lease %v since %v, want period %s", during.Settling, during.Since, p.ID())
	}
	st := s.Status()[0]
	if !st.Settling.IsZero() || !strings.Contains(st.LastError, "settling period "+p.ID()+": injected") || st.ErrorAt.IsZero() {
		t.Errorf("after a failure: got %+v, want no lease and the error", st)
	}
	f.settleNow(s)
	st = s.Status()[0]
	if st.LastSettled != p || st.SettledAt.IsZero() || !st.Settling.IsZero() {
		t.Errorf("after settling: got %+v, want period %s settled and no lease", st, p.ID())
	}
}
