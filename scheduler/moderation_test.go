package scheduler_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/league"
	"github.com/league-engine/league/scheduler"
)

// TestSettlementSkipsModerated: players an operator hid, banned or removed
// during the period are settled nowhere: no outcome, no reward and no
// promotion slot in the store; the board is decided as if they had never
// been on it; they keep their tier.
func TestSettlementSkipsModerated(t *testing.T) {
	forEachStore(t, func(t *testing.T, k storeKind) {
		f := newFixture(t, k, 10)
		week := f.period()
		for i := 0; i < 10; i++ {
			p := fmt.Sprintf("p%d", i)
			_, err := f.engine.Join(f.ctx, "weekly", league.JoinRequest{Player: p, Name: p})
			testsvc.Must(t, err, "Join")
			_, err = f.engine.Score(f.ctx, "weekly", league.ScoreWrite{Player: p, Value: int64(100 - 10*i)})
			testsvc.Must(t, err, "Score")
		}
		for _, m := range []league.Moderation{
			{Player: "p0", Action: league.Hide},
			{Player: "p5", Action: league.Ban, For: 30 * 24 * time.Hour},
			{Player: "p7", Action: league.Remove},
		} {
			m.Actor, m.Reason = "ops", "cheating"
			_, err := f.engine.Moderate(f.ctx, "weekly", m)
			testsvc.Must(t, err, "Moderate %+v", m)
		}
		f.clock.After(week.End)
		st := f.settleNow(f.scheduler())
		// 7 on the board: 20% promotes 1; ranks 1-3 earn gems.
		if st.Players != 10 || len(st.Tiers) != 3 ||
			st.Tiers[0] != (league.TierCount{Tier: "bronze", Players: 7, Promoted: 1, Rewarded: 3, Moderated: 3}) {
			t.Fatalf("settlement: %+v", st)
		}
		recorded, err := f.store.Settlement(f.ctx, "weekly", week.Start)
		testsvc.Must(t, err, "Settlement")
		if recorded.Tiers[0].Moderated != 3 {
			t.Fatalf("the store's record of the settlement: %+v", recorded.Tiers)
		}
		for _, p := range []string{"p0", "p5", "p7"} {
			if prof, err := f.store.Profile(f.ctx, "weekly", p, 10); league.ErrorCode(err) != league.NotFound {
				t.Fatalf("%s, moderated, has a settled history in the store: %+v, %v", p, prof, err)
			}
		}
		want := map[string]struct {
			rank  int
			after string
			gems  int64
		}{
			"p1": {1, "silver", 100}, "p2": {2, "bronze", 50}, "p3": {3, "bronze", 50}, "p4": {4, "bronze", 0},
			"p6": {5, "bronze", 0}, "p8": {6, "bronze", 0}, "p9": {7, "bronze", 0},
		}
		for p, w := range want {
			prof, err := f.store.Profile(f.ctx, "weekly", p, 10)
			testsvc.Must(t, err, "Profile(%s)", p)
			if len(prof.History) != 1 {
				t.Fatalf("%s: history %+v", p, prof.History)
			}
			h := prof.History[0]
			var gems int64
			for _, it := range h.Rewards {
				gems += it.Qty
			}
			if h.Rank != w.rank || h.TierAfter != w.after || gems != w.gems || prof.Tier != w.after {
				t.Fatalf("%s: rank %d, to %s, %d gems (tier %s); want rank %d, to %s, %d gems", p, h.Rank, h.TierAfter, gems, prof.Tier, w.rank, w.after, w.gems)
			}
		}
		// The next period: the hidden and removed players keep their tier and
		// get nothing; the banned one stays out.
		for _, p := range []string{"p0", "p7"} {
			pl, err := f.engine.Join(f.ctx, "weekly", league.JoinRequest{Player: p, Name: p})
			testsvc.Must(t, err, "Join(%s)", p)
			if pl.Tier != "bronze" || len(pl.Rewards) != 0 {
				t.Fatalf("%s's next join: %+v", p, pl)
			}
		}
		_, err = f.engine.Join(f.ctx, "weekly", league.JoinRequest{Player: "p5", Name: "p5"})
		if league.ErrorCode(err) != league.Banned {
			t.Fatalf("banned p5's next join: %v", err)
		}
	})
}

// TestSchedulerRecordsActions: actions whose caller died before recording
// them reach the audit from the scheduler, once.
func TestSchedulerRecordsActions(t *testing.T) {
	forEachStore(t, func(t *testing.T, k storeKind) {
		f := newFixture(t, k, 10)
		for _, p := range []string{"a", "b"} {
			_, err := f.engine.Join(f.ctx, "weekly", league.JoinRequest{Player: p, Name: p})
			testsvc.Must(t, err, "Join")
			_, err = f.engine.Moderate(f.ctx, "weekly", league.Moderation{Player: p, Action: league.Hide, Actor: "ops", Reason: "why"})
			testsvc.Must(t, err, "Moderate")
		}
		audit := f.store.(league.AuditLog)
		s := f.scheduler(scheduler.WithPoll(time.Hour))
		s.Start()
		defer s.Stop(f.ctx)
		deadline := time.Now().Add(20 * time.Second)
		for {
			got, err := audit.Actions(f.ctx, league.AuditQuery{League: "weekly", Limit: 10})
			testsvc.Must(t, err, "Actions")
			if len(got) == 2 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the audit has %d actions after 20 s, want 2", len(got))
			}
			time.Sleep(50 * time.Millisecond)
		}
		n, err := f.engine.WaitingActions(f.ctx, "weekly")
		if err != nil || n != 0 {
			t.Fatalf("%d actions still wait in Redis (%v)", n, err)
		}
	})
}
