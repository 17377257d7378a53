package scheduler_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/league"
	"github.com/league-engine/league/scheduler"
	"github.com/league-engine/league/tiers"
)

// TestRestoreAfterRedisLoss: Redis loses a league between periods, with the
// last period's settlement half done, and leaguectl restore's league.Restore
// rebuilds it from the store. Every player's next join then gives what it
// gives on a copy of the league taken before the loss: the same tier and the
// same rewards, delivered once.
func TestRestoreAfterRedisLoss(t *testing.T) {
	forEachStore(t, func(t *testing.T, k storeKind) {
		f := newFixture(t, k, 10)
		s := f.scheduler()
		week1 := f.period()
		f.play("p", 50)
		f.clock.After(week1.End)
		f.settleNow(s)
		week2 := f.period()
		f.play("p", 30) // p00000-p00029 again: their joins deliver week 1's rewards
		f.clock.After(week2.End)
		// Week 2's settlement writes its outcomes and dies before Redis hears
		// of them; a settlement of an older period never wrote anything.
		dying := f.scheduler(scheduler.WithFault(func(step string) error {
			if step == scheduler.StepApply {
				return errors.New("killed")
			}
			return nil
		}))
		if _, err := dying.SettleNow(f.ctx, "weekly", week2.Start); err == nil {
			t.Fatal("the dying settlement finished")
		}
		week0 := week1.Start.AddDate(0, 0, -7)
		_, err := f.store.BeginSettlement(f.ctx, league.Settlement{League: "weekly", Period: week0, PeriodEnd: week1.Start, StartedAt: week1.Start})
		testsvc.Must(t, err, "BeginSettlement")
		// Three players join week 3 before the loss; their claims of week 2's
		// rewards reach the store.
		early := []string{"p00000", "p00001", "p00002"}
		for _, id := range early {
			_, err := f.engine.Join(f.ctx, "weekly", league.JoinRequest{Player: id, Name: id})
			testsvc.Must(t, err, "early join")
		}
		_, err = s.RecordClaims(f.ctx, "weekly")
		testsvc.Must(t, err, "RecordClaims")

		// The control: a copy of the league under another namespace.
		ctrl := f.ns + "ctrl"
		copyNamespace(t, f, ctrl)
		control, err := league.Open(f.ctx, f.rdb, []*league.League{f.league}, league.WithNamespace(ctrl), league.WithClock(f.clock.Now))
		testsvc.Must(t, err, "Open control")
		t.Cleanup(func() { testsvc.DeleteNamespace(f.ctx, f.rdb, ctrl) })

		// Engines opened before the loss, first used after the restore: their
		// scripts, not an earlier call, must find the epoch changed.
		preScore, preStanding, preBoard, prePopulations := f.open(), f.open(), f.open(), f.open()

		testsvc.Must(t, testsvc.DeleteNamespace(f.ctx, f.rdb, f.ns), "lose the league")
		if _, err := f.engine.Join(f.ctx, "weekly", league.JoinRequest{Player: "p00040", Name: "x"}); league.ErrorCode(err) != league.Unavailable {
			t.Fatalf("join on a Redis that lost the league: %v, want unavailable", err)
		}
		if n := countKeys(t, f, f.ns); n != 0 {
			t.Fatalf("the refused join wrote %d keys", n)
		}
		if _, err := league.Open(f.ctx, f.rdb, []*league.League{f.league}, league.WithNamespace(f.ns),
			league.WithLostCheck(f.store)); err == nil || !strings.Contains(err.Error(), "the store has the tiers of 50 players") ||
			!strings.Contains(err.Error(), `"`+ctrl+`"`) {
			t.Fatalf("leagued's Open of the lost league (the control's copy under another namespace): %v", err)
		}
		skipped, err := league.Open(f.ctx, f.rdb, []*league.League{f.league}, league.WithNamespace(f.ns),
			league.WithAbsentLeagues(func(context.Context, string) error { return league.SkipAbsent }))
		testsvc.Must(t, err, "leaguectl's Open")
		if _, err := skipped.Current("weekly"); league.ErrorCode(err) != league.NotFound || countKeys(t, f, f.ns) != 0 {
			t.Fatalf("a league left out: %v, %d keys written", err, countKeys(t, f, f.ns))
		}

		// A settler still holding the lease on an unfinished settlement could
		// write after the restore read the standings: refused until it is gone.
		release, ok, err := f.store.Lock(f.ctx, "weekly", week0)
		if err != nil || !ok {
			t.Fatalf("Lock: %v %v", ok, err)
		}
		// The control's copy looks like the league under its old namespace
		// (redis.namespace changed, the old one still served): not lost, so
		// not restored beside it unless told that other deployments share
		// this Redis.
		if _, err := league.Restore(f.ctx, f.rdb, f.league, f.store, league.WithNamespace(f.ns)); league.ErrorCode(err) != league.Conflict ||
			!strings.Contains(err.Error(), `"`+ctrl+`"`) {
			t.Fatalf("restore while another namespace holds the league: %v", err)
		}
		if _, err := league.Restore(f.ctx, f.rdb, f.league, f.store, league.WithNamespace(f.ns), league.WithOtherDeployments()); league.ErrorCode(err) != league.Conflict ||
			!strings.Contains(err.Error(), "being settled by a running process") {
			t.Fatalf("restore beside a running settler: %v", err)
		}
		release()
		// A config whose schedule reads the week in another zone would
		// restore the league into periods overlapping the settled ones.
		kolkata := *f.league
		kolkata.Schedule, err = league.ParseSchedule("CRON_TZ=Asia/Kolkata 0 0 * * MON")
		testsvc.Must(t, err, "ParseSchedule")
		marked := f.rdb.HGetAll(f.ctx, f.ns+":{weekly}:meta").Val() // the refusals above left the restoring mark
		if _, err := league.Restore(f.ctx, f.rdb, &kolkata, f.store, league.WithNamespace(f.ns), league.WithOtherDeployments()); err == nil ||
			!strings.Contains(err.Error(), "Postgres holds a period starting") {
			t.Fatalf("restore with the schedule in another zone: %v, want refused", err)
		}
		if after := f.rdb.HGetAll(f.ctx, f.ns+":{weekly}:meta").Val(); !reflect.DeepEqual(after, marked) || countKeys(t, f, f.ns) != 1 {
			t.Fatalf("the refused restore wrote: meta %v, was %v", after, marked)
		}
		st, err := league.Restore(f.ctx, f.rdb, f.league, f.store, league.WithNamespace(f.ns), league.WithOtherDeployments())
		testsvc.Must(t, err, "Restore")
		if st.Players != 50 || st.Records != 50 || !st.Settled.Equal(week2.Start) ||
			len(st.Finished) != 1 || !st.Finished[0].Equal(week2.Start) || len(st.Lost) != 1 || !st.Lost[0].Equal(week0) {
			t.Fatalf("restore stats %+v", st)
		}
		for _, w := range []struct {
			start  time.Time
			status league.SettlementStatus
			err    string
		}{{week2.Start, league.StatusDone, ""}, {week0, league.StatusStarted, "Redis lost the period's boards"}} {
			got, err := f.store.Settlement(f.ctx, "weekly", w.start)
			testsvc.Must(t, err, "Settlement")
			if got.Status != w.status || !strings.Contains(got.LastError, w.err) {
				t.Errorf("settlement of %v after the restore: %s %q, want %s %q", w.start, got.Status, got.LastError, w.status, w.err)
			}
		}
		if _, err := league.Restore(f.ctx, f.rdb, f.league, f.store, league.WithNamespace(f.ns)); league.ErrorCode(err) != league.Conflict {
			t.Fatalf("restoring a league Redis holds: %v, want conflict", err)
		}
		// An engine opened before the restore may hold other tier codes: it
		// writes nothing and is not ready until restarted.
		stale := map[string]error{}
		_, stale["join"] = f.engine.Join(f.ctx, "weekly", league.JoinRequest{Player: "p00040", Name: "x"})
		_, stale["close"] = f.engine.Close(f.ctx, "weekly", week2)
		stale["apply"] = f.engine.Apply(f.ctx, "weekly", week2, []tiers.Outcome{{Player: "p00040", TierBefore: 0, TierAfter: 1}})
		stale["mark settled"] = f.engine.MarkSettled(f.ctx, "weekly", week2)
		stale["readiness"] = f.engine.CheckEpochs(f.ctx)
		_, stale["score"] = preScore.Score(f.ctx, "weekly", league.ScoreWrite{Player: "p00000", Value: 5})
		_, stale["standing"] = preStanding.Standing(f.ctx, "weekly", "p00000")
		_, stale["board"] = preBoard.Board(f.ctx, "weekly", league.Period{}, league.BoardID{Tier: "bronze", N: 1})
		_, stale["populations"] = prePopulations.Populations(f.ctx, "weekly", league.Period{})
		// Once a call found the loss, every call for the league fails
		// before reaching Redis.
		_, stale["board after a join"] = f.engine.Board(f.ctx, "weekly", league.Period{}, league.BoardID{Tier: "bronze", N: 1})
		for what, err := range stale {
			if league.ErrorCode(err) != league.Unavailable {
				t.Errorf("%s by an engine opened before the restore: %v, want unavailable", what, err)
			}
		}

		restored := f.open()
		testsvc.Must(t, restored.CheckEpochs(f.ctx), "readiness of an engine opened after the restore")
		// The lost period cannot be settled as if nobody had played it.
		if _, err := scheduler.New(restored, f.store).SettleNow(f.ctx, "weekly", week0); league.ErrorCode(err) != league.Conflict ||
			!strings.Contains(err.Error(), "never wrote its outcomes") {
			t.Fatalf("settling the lost period: %v", err)
		}
		if got, _ := f.store.Settlement(f.ctx, "weekly", week0); got.Status != league.StatusStarted || got.LastError == "" {
			t.Fatalf("the lost period's settlement after a settle attempt: %+v", got)
		}
		rewards := 0
		for i := 0; i < 50; i++ {
			id := fmt.Sprintf("p%05d", i)
			want, err := control.Join(f.ctx, "weekly", league.JoinRequest{Player: id, Name: id})
			testsvc.Must(t, err, "control join")
			got, err := restored.Join(f.ctx, "weekly", league.JoinRequest{Player: id, Name: id})
			testsvc.Must(t, err, "join after restore")
			if got.Tier != want.Tier {
				t.Errorf("%s: tier %s after restore, %s without the loss", id, got.Tier, want.Tier)
			}
			if i < len(early) {
				// Their week 3 join is lost with Redis; its claim is in the
				// store, so the rewards are not delivered twice.
				if len(got.Rewards) != 0 {
					t.Errorf("%s: rewards delivered again: %+v", id, got.Rewards)
				}
				continue
			}
			if !reflect.DeepEqual(got.Rewards, want.Rewards) {
				t.Errorf("%s: rewards %+v after restore, %+v without the loss", id, got.Rewards, want.Rewards)
			}
			rewards += len(got.Rewards)
		}
		if rewards == 0 || st.Rewards != rewards || st.Unclaimed != rewards {
			t.Fatalf("restore left %d rewards (wrote %d), joins delivered %d", st.Unclaimed, st.Rewards, rewards)
		}

		// A restore that did not finish keeps every process from opening the
		// league until it is run again.
		meta := f.ns + ":{weekly}:meta"
		testsvc.Must(t, f.rdb.HSet(f.ctx, meta, "restoring", "then").Err(), "HSET")
		if _, err := league.Open(f.ctx, f.rdb, []*league.League{f.league}, league.WithNamespace(f.ns)); err == nil ||
			!strings.Contains(err.Error(), "has not finished") {
			t.Fatalf("Open during a restore: %v", err)
		}
		// Run again, it finishes; what it wrote before is there, and it
		// still counts every reward the store holds unclaimed.
		again, err := league.Restore(f.ctx, f.rdb, f.league, f.store, league.WithNamespace(f.ns), league.WithOtherDeployments())
		testsvc.Must(t, err, "Restore again")
		if again.Players != 50 || again.Records != 0 || again.Rewards != 0 || again.Unclaimed != st.Unclaimed {
			t.Fatalf("restore run again: %+v, want nothing written and %d unclaimed", again, st.Unclaimed)
		}
	})
}

// copyNamespace copies every key of the fixture's namespace to ns.
func copyNamespace(t *testing.T, f *fixture, ns string) {
	t.Helper()
	iter := f.rdb.Scan(f.ctx, 0, f.ns+":*", 1000).Iterator()
	for iter.Next(f.ctx) {
		src := iter.Val()
		testsvc.Must(t, f.rdb.Copy(f.ctx, src, ns+strings.TrimPrefix(src, f.ns), 0, false).Err(), "COPY %s", src)
	}
	testsvc.Must(t, iter.Err(), "SCAN")
}

func countKeys(t *testing.T, f *fixture, ns string) int {
	t.Helper()
	keys, err := f.rdb.Keys(f.ctx, ns+":*").Result()
	testsvc.Must(t, err, "KEYS")
	return len(keys)
}

// TestRestoreDoesNotDecayForLostPeriods: with decay on, who played the
// period Redis lost is not known, so that period counts as nobody's absence;
// periods after the restore count as usual.
func TestRestoreDoesNotDecayForLostPeriods(t *testing.T) {
	forEachStore(t, func(t *testing.T, k storeKind) {
		f := newFixture(t, k, 10)
		f.league.DecayAfter = 1 // one tier down for every period away
		f.engine = f.open()
		s := f.scheduler()
		week1 := f.period()
		f.play("d", 30)
		f.clock.After(week1.End)
		f.settleNow(s)
		f.play("d", 30) // week 2: everyone plays, then Redis loses it
		testsvc.Must(t, testsvc.DeleteNamespace(f.ctx, f.rdb, f.ns), "lose the league")
		// Other packages' tests keep leagues named weekly in this Redis
		// while they run: other deployments, to Restore.
		_, err := league.Restore(f.ctx, f.rdb, f.league, f.store, league.WithNamespace(f.ns), league.WithClock(f.clock.Now),
			league.WithOtherDeployments())
		testsvc.Must(t, err, "Restore")
		week2 := f.period()
		f.clock.After(week2.End)
		f.engine = f.open()

		silver := ""
		for i := 0; i < 30; i++ {
			id := fmt.Sprintf("d%05d", i)
			prof, err := f.store.Profile(f.ctx, "weekly", id, 1)
			testsvc.Must(t, err, "Profile")
			if prof.Tier == "silver" && silver == "" {
				silver = id // sits week 3 out
				continue
			}
			p, err := f.engine.Join(f.ctx, "weekly", league.JoinRequest{Player: id, Name: id})
			testsvc.Must(t, err, "Join")
			if p.Tier != prof.Tier {
				t.Errorf("%s joined week 3 in %s, want %s: the lost week 2 is no absence", id, p.Tier, prof.Tier)
			}
		}
		if silver == "" {
			t.Fatal("nobody was promoted in week 1")
		}
		week3 := f.period()
		f.clock.After(week3.End)
		p, err := f.engine.Join(f.ctx, "weekly", league.JoinRequest{Player: silver, Name: silver})
		testsvc.Must(t, err, "Join")
		if p.Tier != "bronze" {
			t.Fatalf("%s sat week 3 out and joined week 4 in %s, want bronze (one period away)", silver, p.Tier)
		}
	})
}
