package scheduler_test

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/league"
	"github.com/league-engine/league/postgres"
	"github.com/league-engine/league/tiers"
)

// correctionFixture settles a week of one bronze board of eleven on
// Postgres (20% promote: two players): "cheat" scores 1000 and takes rank 1
// (promoted, 100 gems); p1..p10 score 900, 800, ... 0 (p1 and p2 rank 2 and
// 3: p1 promoted, both 50 gems).
func correctionFixture(t *testing.T) (*fixture, *postgres.Store, league.Period) {
	f := newFixture(t, stores[len(stores)-1], 11)
	pg := f.store.(*postgres.Store)
	week := f.period()
	join := func(id string, score int64) {
		_, err := f.engine.Join(f.ctx, "weekly", league.JoinRequest{Player: id, Name: id})
		testsvc.Must(t, err, "Join %s", id)
		_, err = f.engine.Score(f.ctx, "weekly", league.ScoreWrite{Player: id, Value: score})
		testsvc.Must(t, err, "Score %s", id)
	}
	join("cheat", 1000)
	for i := 1; i <= 10; i++ {
		join(fmt.Sprintf("p%d", i), int64(1000-100*i))
	}
	f.clock.After(week.End)
	f.settleNow(f.scheduler())
	return f, pg, week
}

// corrected counts, on Postgres, what a correction of week left: events
// of every type, corrections, revocations.
func correctedCounts(f *fixture, pg *postgres.Store, week league.Period) string {
	f.t.Helper()
	var events, corrections, revocations, rewards int
	err := pg.Pool().QueryRow(f.ctx, `SELECT
			(SELECT count(*) FROM events WHERE league = 'weekly' AND period_start = $1 AND type = 'correction.applied'),
			(SELECT count(*) FROM corrections WHERE league = 'weekly' AND period_start = $1),
			(SELECT count(*) FROM reward_revocations WHERE league = 'weekly' AND period_start = $1),
			(SELECT count(*) FROM rewards WHERE league = 'weekly' AND period_start = $1)`, week.Start).
		Scan(&events, &corrections, &revocations, &rewards)
	testsvc.Must(f.t, err, "count")
	return fmt.Sprintf("%d correction.applied events, %d corrections, %d revocations, %d rewards", events, corrections, revocations, rewards)
}

// TestCorrectRemove: the cheater who took rank 1 is removed after the
// settlement. The correction is killed in its Postgres transaction, then
// after its commit (before Redis, or before recording Redis did it),
// resumed, then run twice more: the next player is promoted, rewards move, the
// cheater's unclaimed reward is revoked, all exactly once, and the next
// joins see it.
func TestCorrectRemove(t *testing.T) {
	for _, killAt := range []string{"apply", "applied"} {
		t.Run("killed before "+killAt, func(t *testing.T) { correctRemove(t, killAt) })
	}
}

// correctRemove is TestCorrectRemove with the run after the commit killed
// at step killAt: before Redis, or after Redis and before recording it.
func correctRemove(t *testing.T, killAt string) {
	f, pg, week := correctionFixture(t)
	req := league.CorrectionRequest{League: "weekly", Period: week.Start, Player: "cheat", Action: league.CorrectRemove,
		Reason: "speed hack", Actor: "ops"}

	// Killed mid-transaction: nothing of it is there.
	_, err := f.engine.Correct(f.ctx, killedCorrection{pg}, req)
	if err == nil {
		t.Fatal("the correction killed mid-write returned no error")
	}
	if got, want := correctedCounts(f, pg, week), "0 correction.applied events, 0 corrections, 0 revocations, 3 rewards"; got != want {
		t.Fatalf("after a kill mid-write: got %s, want %s", got, want)
	}

	// Killed after the commit, before Redis.
	killed, err := league.Open(f.ctx, f.rdb, []*league.League{f.league}, league.WithNamespace(f.ns), league.WithClock(f.clock.Now),
		league.WithCorrectionFault(func(step string) error {
			if step == killAt {
				return errors.New("killed")
			}
			return nil
		}))
	testsvc.Must(t, err, "Open")
	_, err = killed.Correct(f.ctx, pg, req)
	if err == nil {
		t.Fatal("the killed correction returned no error")
	}
	var status string
	testsvc.Must(t, pg.Pool().QueryRow(f.ctx, `SELECT status FROM corrections WHERE player = 'cheat'`).Scan(&status), "status")
	if status != "written" {
		t.Fatalf("after the kill the correction is %s, want written", status)
	}
	after := correctedCounts(f, pg, week)

	// Resumed by another replica's scheduler (ResumeCorrections), then run
	// again twice.
	f.engine = f.open()
	for want := 1; want >= 0; want-- {
		n, err := f.engine.ResumeCorrections(f.ctx, pg, "weekly")
		testsvc.Must(t, err, "ResumeCorrections")
		if n != want {
			t.Fatalf("ResumeCorrections finished %d corrections, want %d", n, want)
		}
	}
	for run := range 2 {
		c, err := f.engine.Correct(f.ctx, pg, req)
		testsvc.Must(t, err, "Correct")
		if c.Status != league.CorrectionApplied {
			t.Fatalf("run %d: status %s, want applied", run, c.Status)
		}
		if got := correctedCounts(f, pg, week); got != after {
			t.Fatalf("run %d: got %s, want %s (as the first commit left it)", run, got, after)
		}
	}
	if want := "11 correction.applied events, 1 corrections, 2 revocations, 3 rewards"; after != want {
		t.Fatalf("got %s, want %s", after, want)
	}

	// Postgres: outcomes, standings, rewards, revocations, counts.
	type row struct {
		rank       int
		tier       string
		standing   string
		items      string
		revoked    string
		revClaimed bool
	}
	rows := map[string]row{}
	rs, _ := pg.Pool().Query(f.ctx, `SELECT s.player, coalesce(o.rank, 0), coalesce(o.tier_after, ''), s.tier,
				coalesce(r.items::text, ''), coalesce(v.items::text, ''), coalesce(v.claimed, false)
			FROM standings s
			LEFT JOIN outcomes o ON o.league = s.league AND o.player = s.player AND o.period_start = $1
			LEFT JOIN rewards r ON r.league = s.league AND r.player = s.player AND r.period_start = $1
			LEFT JOIN reward_revocations v ON v.league = s.league AND v.player = s.player AND v.period_start = $1
			WHERE s.league = 'weekly'`, week.Start)
	for rs.Next() {
		var p string
		var r row
		testsvc.Must(t, rs.Scan(&p, &r.rank, &r.tier, &r.standing, &r.items, &r.revoked, &r.revClaimed), "scan")
		rows[p] = r
	}
	testsvc.Must(t, rs.Err(), "rows")
	gems := func(n int) string { return fmt.Sprintf(`[{"id": "gems", "qty": %d}]`, n) }
	want := map[string]row{
		"cheat": {0, "", "bronze", "", gems(100), false},
		"p1":    {1, "silver", "silver", gems(100), gems(50), false},
		"p2":    {2, "silver", "silver", gems(50), "", false},
		"p3":    {3, "bronze", "bronze", gems(50), "", false},
		"p4":    {4, "bronze", "bronze", "", "", false},
	}
	for p, w := range want {
		if got := rows[p]; got != w {
			t.Errorf("%s: got %+v, want %+v", p, got, w)
		}
	}
	st, err := pg.Settlement(f.ctx, "weekly", week.Start)
	testsvc.Must(t, err, "Settlement")
	if b := st.Tiers[0]; b.Players != 10 || b.Promoted != 2 || b.Rewarded != 3 || b.Moderated != 1 {
		t.Errorf("bronze counts: got %+v, want 10 players, 2 promoted, 3 rewarded, 1 moderated", b)
	}

	// The audit trail: p2's outcome as corrected, and the correction that
	// promoted them; one correction entry for each of the 11 players
	// changed.
	page, err := pg.Trail(f.ctx, league.TrailQuery{League: "weekly", Player: "p2", Limit: 10})
	testsvc.Must(t, err, "Trail")
	if kinds := kindsOf(page.Entries); len(kinds) != 3 || kinds[0] != league.TrailCorrection {
		t.Fatalf("p2's trail: %v, want the correction, the reward and the outcome", kinds)
	}
	if e := page.Entries[0]; e.TierBefore != "bronze" || e.TierAfter != "silver" || e.Move != league.Promoted ||
		e.Correction == nil || e.Correction.Player != "cheat" || e.Correction.Action != league.CorrectRemove ||
		e.Correction.Reason != "speed hack" || e.Correction.Status != league.CorrectionApplied ||
		e.Change == nil || e.Change.Before.Rank != 3 || e.Change.After.Rank != 2 {
		t.Errorf("p2's correction in the trail: %+v (change %+v)", e, e.Change)
	}
	if e := page.Entries[2]; e.Kind != league.TrailSettlement || e.TierAfter != "silver" || e.Rank != 2 {
		t.Errorf("p2's outcome in the trail, as corrected: %+v", e)
	}
	page, err = pg.Trail(f.ctx, league.TrailQuery{League: "weekly", Period: week.Start, Limit: 1000})
	testsvc.Must(t, err, "Trail")
	if n := len(slices.DeleteFunc(page.Entries, func(e league.TrailEntry) bool { return e.Kind != league.TrailCorrection })); n != 11 {
		t.Errorf("the week's trail has %d correction entries, want 11", n)
	}

	// Redis: the next joins see the corrected tiers and rewards.
	for p, w := range map[string]struct {
		tier string
		gems int64
	}{"cheat": {"bronze", 0}, "p1": {"silver", 100}, "p2": {"silver", 50}, "p3": {"bronze", 50}, "p4": {"bronze", 0}} {
		pl, err := f.engine.Join(f.ctx, "weekly", league.JoinRequest{Player: p, Name: p})
		testsvc.Must(t, err, "Join %s", p)
		var got int64
		for _, r := range pl.Rewards {
			for _, it := range r.Items {
				got += it.Qty
			}
		}
		if pl.Tier != w.tier || got != w.gems {
			t.Errorf("%s joins %s with %d gems, want %s with %d", p, pl.Tier, got, w.tier, w.gems)
		}
	}
}

// killedCorrection dies in the middle of the correction's transaction,
// after its writes began: its context ends once the board is decided.
type killedCorrection struct{ *postgres.Store }

func (k killedCorrection) WriteCorrection(ctx context.Context, c league.Correction,
	decide func(board []league.RecordedOutcome, others [][]league.RecordedOutcome) ([]league.CorrectionChange, error)) (league.Correction, bool, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	return k.Store.WriteCorrection(ctx, c, func(b []league.RecordedOutcome, o [][]league.RecordedOutcome) ([]league.CorrectionChange, error) {
		changes, err := decide(b, o)
		cancel()
		return changes, err
	})
}

// TestCorrectClaimed: the cheater's reward was delivered (they joined the
// next week) before the correction: it is recorded revoked after its claim,
// and their tier, played already, is left for the game (deferred).
func TestCorrectClaimed(t *testing.T) {
	f, pg, week := correctionFixture(t)
	pl, err := f.engine.Join(f.ctx, "weekly", league.JoinRequest{Player: "cheat", Name: "cheat"})
	testsvc.Must(t, err, "Join")
	if pl.Tier != "silver" || len(pl.Rewards) != 1 {
		t.Fatalf("the cheater joins %s with %d rewards, want silver with 1", pl.Tier, len(pl.Rewards))
	}
	c, err := f.engine.Correct(f.ctx, pg, league.CorrectionRequest{League: "weekly", Period: week.Start, Player: "cheat",
		Action: league.CorrectZero, Reason: "speed hack", Actor: "ops"})
	testsvc.Must(t, err, "Correct")
	var ch league.CorrectionChange
	for _, x := range c.Changes {
		if x.Player == "cheat" {
			ch = x
		}
	}
	if !ch.Revoked || !ch.Claimed || !ch.Deferred || ch.After.Rank != 11 || ch.After.Score != 0 {
		t.Fatalf("the cheater's change: got %+v, want revoked, claimed, deferred, rank 11 with 0", ch)
	}
	var claimed bool
	testsvc.Must(t, pg.Pool().QueryRow(f.ctx, `SELECT claimed FROM reward_revocations WHERE player = 'cheat'`).Scan(&claimed), "revocation")
	if !claimed {
		t.Fatal("the revocation of a delivered reward is not marked claimed")
	}
}

// TestCorrectRefused: bad input is a clear error and writes nothing.
func TestCorrectRefused(t *testing.T) {
	f, pg, week := correctionFixture(t)
	ok := league.CorrectionRequest{League: "weekly", Period: week.Start, Player: "cheat", Action: league.CorrectRemove,
		Reason: "speed hack", Actor: "ops"}
	before := correctedCounts(f, pg, week)
	for _, tc := range []struct {
		name string
		edit func(r *league.CorrectionRequest)
		code league.Code
	}{
		{"running period", func(r *league.CorrectionRequest) { r.Period = week.End }, league.Conflict},
		{"never settled", func(r *league.CorrectionRequest) { r.Period = week.Start.Add(-7 * 24 * time.Hour) }, league.NotFound},
		{"no such period", func(r *league.CorrectionRequest) { r.Period = week.Start.Add(time.Hour) }, league.NotFound},
		{"unknown player", func(r *league.CorrectionRequest) { r.Player = "nobody" }, league.NotFound},
		{"unknown league", func(r *league.CorrectionRequest) { r.League = "nope" }, league.NotFound},
		{"bad action", func(r *league.CorrectionRequest) { r.Action = "ban" }, league.Invalid},
		{"no reason", func(r *league.CorrectionRequest) { r.Reason = " " }, league.Invalid},
		{"no player", func(r *league.CorrectionRequest) { r.Player = "" }, league.Invalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := ok
			tc.edit(&r)
			_, err := f.engine.Correct(f.ctx, pg, r)
			if got := league.ErrorCode(err); got != tc.code {
				t.Fatalf("got %v (%s), want %s", err, got, tc.code)
			}
			if got := correctedCounts(f, pg, week); got != before {
				t.Fatalf("got %s, want %s: nothing written", got, before)
			}
		})
	}
}

// TestCorrectConcurrent: two replicas run the same correction at once:
// one writes it, the other finds it written; its changes are there once.
func TestCorrectConcurrent(t *testing.T) {
	f, pg, week := correctionFixture(t)
	req := league.CorrectionRequest{League: "weekly", Period: week.Start, Player: "cheat", Action: league.CorrectZero,
		Reason: "speed hack", Actor: "ops"}
	engines := []*league.Engine{f.engine, f.open(), f.open(), f.open()}
	errs := make(chan error, len(engines))
	for _, e := range engines {
		go func() {
			_, err := e.Correct(f.ctx, pg, req)
			errs <- err
		}()
	}
	for range engines {
		testsvc.Must(t, <-errs, "Correct")
	}
	if got, want := correctedCounts(f, pg, week), "11 correction.applied events, 1 corrections, 2 revocations, 3 rewards"; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}

// TestCorrectUnderRecordedRules: a correction re-decides the period under
// the rules its settlement recorded in Postgres, though Redis's retention
// has dropped the period (and the rules it recorded there) and the config
// promotes more since.
func TestCorrectUnderRecordedRules(t *testing.T) {
	f, pg, week := correctionFixture(t)
	testsvc.Must(t, f.rdb.Del(f.ctx, fmt.Sprintf("%s:{weekly}:c:%d", f.ns, week.Start.Unix())).Err(), "drop the period's counters")
	tiersNow := ladder(t).Tiers()
	tiersNow[0].Promote = 5000 // bronze promotes half its board now
	changed, err := tiers.NewLadder(tiersNow)
	testsvc.Must(t, err, "NewLadder")
	f.league.Ladder = changed
	testsvc.Must(t, f.league.Init(), "Init")
	f.engine = f.open()

	_, err = f.engine.Correct(f.ctx, pg, league.CorrectionRequest{League: "weekly", Period: week.Start, Player: "cheat",
		Action: league.CorrectRemove, Reason: "speed hack", Actor: "ops"})
	testsvc.Must(t, err, "Correct")
	var promoted []string
	rows, _ := pg.Pool().Query(f.ctx, `SELECT player FROM outcomes WHERE league = 'weekly' AND period_start = $1 AND tier_after = 'silver'
		ORDER BY rank`, week.Start)
	promoted, err = pgx.CollectRows(rows, pgx.RowTo[string])
	testsvc.Must(t, err, "outcomes")
	if !slices.Equal(promoted, []string{"p1", "p2"}) { // 20% of the 10 left, as recorded; not half
		t.Fatalf("promoted after the correction: %v, want p1 and p2 (the recorded rules)", promoted)
	}
}

// verifyWeek re-decides the settled week from Postgres, as leaguectl
// settlement verify does.
func verifyWeek(f *fixture, pg *postgres.Store, week league.Period) *league.Verification {
	f.t.Helper()
	st, err := pg.Settlement(f.ctx, "weekly", week.Start)
	testsvc.Must(f.t, err, "Settlement")
	ld, _, err := league.VerifyLadder(st, f.league.Ladder)
	testsvc.Must(f.t, err, "VerifyLadder")
	v := league.NewVerification(ld)
	stray, err := pg.EachRecordedBoard(f.ctx, "weekly", week.Start, func(b league.RecordedBoard) error { v.Board(b); return nil })
	testsvc.Must(f.t, err, "EachRecordedBoard")
	for _, r := range stray {
		v.Stray(r)
	}
	v.Counts(st.Tiers)
	return v
}

// TestMergedBoardsVerifiedAndCorrected: with min_board_size 5, a tier's
// 3-player last board is settled with the board before it. Re-deciding the
// period from Postgres (verify) finds what settlement wrote; removing the
// last board's top scorer decides both boards again, together, and the
// corrected period verifies too.
func TestMergedBoardsVerifiedAndCorrected(t *testing.T) {
	f := newFixture(t, stores[len(stores)-1], 10)
	f.league.Ladder = merging(t)
	testsvc.Must(t, f.league.Init(), "Init")
	f.engine = f.open()
	pg := f.store.(*postgres.Store)
	week := f.period()
	for i := 0; i < 13; i++ { // board 1: p00-p09; board 2: p10-p12, p12 the best of all
		id := fmt.Sprintf("p%02d", i)
		_, err := f.engine.Join(f.ctx, "weekly", league.JoinRequest{Player: id, Name: id})
		testsvc.Must(t, err, "Join")
		_, err = f.engine.Score(f.ctx, "weekly", league.ScoreWrite{Player: id, Value: int64(10 + i)})
		testsvc.Must(t, err, "Score")
	}
	f.clock.After(week.End)
	f.settleNow(f.scheduler())

	verify := func(when string) {
		t.Helper()
		v := verifyWeek(f, pg, week)
		if len(v.Differences) != 0 || v.Outcomes == 0 {
			t.Fatalf("%s: verify re-decided %d outcomes and found %+v", when, v.Outcomes, v.Differences)
		}
	}
	promoted := func() string {
		t.Helper()
		var s string
		err := pg.Pool().QueryRow(f.ctx, `SELECT coalesce(string_agg(player || '@' || board || ':' || rank, ' ' ORDER BY player), '')
			FROM outcomes WHERE league = 'weekly' AND period_start = $1 AND tier_after = 'silver'`, week.Start).Scan(&s)
		testsvc.Must(t, err, "promoted")
		return s
	}
	// 13 ranked together: 20% promotes 2, p12 and p11, each rank 2 and 1
	// on their own board of 3.
	if got := promoted(); got != "p11@2:2 p12@2:1" {
		t.Fatalf("promoted: %s, want p11 and p12 (the merged ranking's top 2)", got)
	}
	verify("settled")

	_, err := f.engine.Correct(f.ctx, pg, league.CorrectionRequest{League: "weekly", Period: week.Start, Player: "p12",
		Action: league.CorrectRemove, Reason: "alt account", Actor: "ops"})
	testsvc.Must(t, err, "Correct")
	// 12 left, the last board of 2: 20% of 12 still promotes 2, now p11
	// and p10, both on the short board.
	if got := promoted(); got != "p10@2:2 p11@2:1" {
		t.Fatalf("promoted after the correction: %s, want p10 and p11", got)
	}
	verify("corrected")
}

// TestCohortBoardsVerifiedAndCorrected: the shared boards and the boards
// of cohort core each hold 13 players (10 and a short 3, merged: min_board_size
// 5). Settlement decides each cohort's boards apart and writes each
// outcome's cohort; verify re-decides the same from Postgres; removing
// core's top scorer decides core's two boards again and leaves the shared
// boards' as they were.
func TestCohortBoardsVerifiedAndCorrected(t *testing.T) {
	cohortBoardsVerifiedAndCorrected(t, false)
}

// TestThinCohortVerified: as TestCohortBoardsVerifiedAndCorrected, with a
// third cohort, tiny, of 3 players: too thin for min_board_size 5, it is
// decided with the shared boards' two last (10 and 3, merged), 16 ranked
// together, 20% of them promoted (3). Verify finds what settlement wrote;
// removing a shared board's best player re-decides the whole group, and
// the corrected period verifies too.
func TestThinCohortVerified(t *testing.T) {
	cohortBoardsVerifiedAndCorrected(t, true)
}

func cohortBoardsVerifiedAndCorrected(t *testing.T, withThin bool) {
	f := newFixture(t, stores[len(stores)-1], 10)
	f.league.Ladder, f.league.Cohorts = merging(t), []string{"core", "tiny"}
	testsvc.Must(t, f.league.Init(), "Init")
	f.engine = f.open()
	pg := f.store.(*postgres.Store)
	week := f.period()
	cohorts, boards := []string{"", "core"}, 4
	if withThin {
		cohorts, boards = append(cohorts, "tiny"), 5
	}
	for _, c := range cohorts {
		n := 13
		if c == "tiny" {
			n = 3 // scores 10, 11, 12: tiny02 ties s02 and core02, ranked after s02
		}
		for i := 0; i < n; i++ { // board 1: x00-x09; board 2: x10-x12, x12 the best of all
			id := fmt.Sprintf("%s%02d", cmp.Or(c, "s"), i)
			_, err := f.engine.Join(f.ctx, "weekly", league.JoinRequest{Player: id, Name: id, Cohort: c})
			testsvc.Must(t, err, "Join")
			_, err = f.engine.Score(f.ctx, "weekly", league.ScoreWrite{Player: id, Value: int64(10 + i)})
			testsvc.Must(t, err, "Score")
		}
	}
	f.clock.After(week.End)
	f.settleNow(f.scheduler())

	verify := func(when string, outcomes int) {
		t.Helper()
		v := verifyWeek(f, pg, week)
		if len(v.Differences) != 0 || v.Outcomes != outcomes || v.Boards != boards {
			t.Fatalf("%s: verify re-decided %d outcomes on %d boards and found %+v", when, v.Outcomes, v.Boards, v.Differences)
		}
	}
	promoted := func() string {
		t.Helper()
		var s string
		err := pg.Pool().QueryRow(f.ctx, `SELECT coalesce(string_agg(player || '@' || coalesce(cohort, '-') || board || ':' || rank, ' ' ORDER BY player), '')
			FROM outcomes WHERE league = 'weekly' AND period_start = $1 AND tier_after = 'silver'`, week.Start).Scan(&s)
		testsvc.Must(t, err, "promoted")
		return s
	}
	want, players := "core11@core2:2 core12@core2:1 s11@-2:2 s12@-2:1", 26
	if withThin {
		// the shared boards' 13 and tiny's 3 ranked together: s12, s11, s10
		want, players = "core11@core2:2 core12@core2:1 s10@-2:3 s11@-2:2 s12@-2:1", 29
	}
	if got := promoted(); got != want {
		t.Fatalf("promoted: %s, want %s", got, want)
	}
	verify("settled", players)
	// The outcome events name each board, a cohort's with its cohort.
	evs, err := pg.Events(f.ctx, 0, 1000, []string{"weekly"})
	testsvc.Must(t, err, "Events")
	boardOf := map[string]string{}
	for _, e := range evs {
		var d struct{ Board string }
		if json.Unmarshal(e.Data, &d) == nil && e.Player != "" && d.Board != "" {
			boardOf[e.Player] = d.Board
		}
	}
	if boardOf["core12"] != "bronze.core-2" || boardOf["s00"] != "bronze-1" || withThin && boardOf["tiny00"] != "bronze.tiny-1" {
		t.Fatalf("events name boards %v", boardOf)
	}
	if withThin {
		// Removing s12 leaves 15 in the group: s11, s10 and s09 (board 1's
		// best) promoted; core's boards are decided apart, unchanged.
		_, err = f.engine.Correct(f.ctx, pg, league.CorrectionRequest{League: "weekly", Period: week.Start, Player: "s12",
			Action: league.CorrectRemove, Reason: "alt account", Actor: "ops"})
		testsvc.Must(t, err, "Correct")
		if got := promoted(); got != "core11@core2:2 core12@core2:1 s09@-1:1 s10@-2:2 s11@-2:1" {
			t.Fatalf("promoted after the correction: %s, want s09, s10 and s11 and core's unchanged", got)
		}
		verify("corrected", players-1)
		return
	}
	_, err = f.engine.Correct(f.ctx, pg, league.CorrectionRequest{League: "weekly", Period: week.Start, Player: "core12",
		Action: league.CorrectRemove, Reason: "alt account", Actor: "ops"})
	testsvc.Must(t, err, "Correct")
	if got := promoted(); got != "core10@core2:2 core11@core2:1 s11@-2:2 s12@-2:1" {
		t.Fatalf("promoted after the correction: %s, want core10 and core11, the shared boards' unchanged", got)
	}
	verify("corrected", players-1)
}

// TestCorrectBeforeTheLastBoardsWithAThinCohort: 23 shared players (boards
// of 10, 10 and 3) and a thin cohort of 3. Zeroing a player of shared
// board 1, which no merge joins, re-decides that board alone: the thin
// cohort is still decided with the shared boards' last two, as verify
// finds after the correction, and only board 1's players change.
func TestCorrectBeforeTheLastBoardsWithAThinCohort(t *testing.T) {
	f := newFixture(t, stores[len(stores)-1], 10)
	f.league.Ladder, f.league.Cohorts = merging(t), []string{"tiny"}
	testsvc.Must(t, f.league.Init(), "Init")
	f.engine = f.open()
	pg := f.store.(*postgres.Store)
	week := f.period()
	for _, c := range []string{"", "tiny"} {
		n := 23
		if c == "tiny" {
			n = 3
		}
		for i := 0; i < n; i++ {
			id := fmt.Sprintf("%s%02d", cmp.Or(c, "s"), i)
			_, err := f.engine.Join(f.ctx, "weekly", league.JoinRequest{Player: id, Name: id, Cohort: c})
			testsvc.Must(t, err, "Join")
			score := int64(10 + i)
			if c == "tiny" {
				score += 100 // the thin cohort's players top the group: a wrong group promotes others
			}
			_, err = f.engine.Score(f.ctx, "weekly", league.ScoreWrite{Player: id, Value: score})
			testsvc.Must(t, err, "Score")
		}
	}
	f.clock.After(week.End)
	f.settleNow(f.scheduler())
	if v := verifyWeek(f, pg, week); len(v.Differences) != 0 || v.Outcomes != 26 {
		t.Fatalf("settled: verify re-decided %d and found %+v", v.Outcomes, v.Differences)
	}
	c, err := f.engine.Correct(f.ctx, pg, league.CorrectionRequest{League: "weekly", Period: week.Start, Player: "s09",
		Action: league.CorrectZero, Reason: "cheat", Actor: "ops"})
	testsvc.Must(t, err, "Correct")
	for _, ch := range c.Changes {
		if ch.Board != 1 || ch.Cohort != "" {
			t.Errorf("a change on board %d of cohort %q: %+v; want board 1's players only", ch.Board, ch.Cohort, ch)
		}
	}
	if v := verifyWeek(f, pg, week); len(v.Differences) != 0 || v.Outcomes != 26 {
		t.Fatalf("corrected: verify re-decided %d and found %+v", v.Outcomes, v.Differences)
	}
}
