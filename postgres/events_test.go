package postgres_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/league-engine/league/events"
	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/league"
	"github.com/league-engine/league/postgres"
	"github.com/league-engine/league/tiers"
)

// countEvents counts the outbox's events by type.
func countEvents(t *testing.T, s *postgres.Store) map[events.Type]int {
	t.Helper()
	rows, err := s.Pool().Query(t.Context(), `SELECT type, count(*) FROM outbox GROUP BY type`)
	testsvc.Must(t, err, "count events")
	defer rows.Close()
	out := map[events.Type]int{}
	for rows.Next() {
		var typ string
		var n int
		testsvc.Must(t, rows.Scan(&typ, &n), "scan")
		out[events.Type(typ)] = n
	}
	return out
}

// allEvents reads the whole outbox through the feed, 97 at a time.
func allEvents(t *testing.T, s *postgres.Store, leagues []string) []events.Event {
	t.Helper()
	var out []events.Event
	var after int64
	for {
		page, err := s.Events(t.Context(), after, 97, leagues)
		testsvc.Must(t, err, "Events")
		if len(page) == 0 {
			return out
		}
		out = append(out, page...)
		after = page[len(page)-1].ID
	}
}

// TestSettlementEvents: a settlement's write puts period.closed, one
// player event per outcome and one reward.granted per reward in the outbox,
// in order, with their data; a second write of the period writes none, and
// outcomes whose move contradicts their tiers are refused with nothing
// written.
func TestSettlementEvents(t *testing.T) {
	defer postgres.SetEventChunk(64)() // 16 chunks
	s, _ := newStore(t)
	outcomes, rewards := settledField(1000)
	st := beginBench(t, s, 0, len(outcomes))
	st.Tiers = []league.TierCount{{Tier: "bronze", Players: 1000, Promoted: 100, Rewarded: 30}}
	testsvc.Must(t, s.WriteOutcomes(t.Context(), st, outcomes, rewards), "WriteOutcomes")

	want := map[events.Type]int{events.PeriodClosed: 1, events.RewardGranted: len(rewards)}
	byPlayer := map[string]league.Outcome{}
	for _, o := range outcomes {
		want[map[league.Move]events.Type{league.Promoted: events.PlayerPromoted, league.Demoted: events.PlayerDemoted, league.Stayed: events.PlayerStayed}[o.Move]]++
		byPlayer[o.Player] = o
	}
	if got := countEvents(t, s); !maps(got, want) {
		t.Fatalf("events by type: %v, want %v", got, want)
	}
	all := allEvents(t, s, nil)
	if len(all) != 1+len(outcomes)+len(rewards) {
		t.Fatalf("feed: %d events, want %d", len(all), 1+len(outcomes)+len(rewards))
	}
	closed := all[0]
	var cd events.PeriodClosedData
	testsvc.Must(t, json.Unmarshal(closed.Data, &cd), "period.closed data")
	if closed.Type != events.PeriodClosed || closed.Player != "" || !closed.Period.Equal(st.Period) || cd.Players != 1000 ||
		cd.PeriodEnd != st.PeriodEnd.UTC().Format(time.RFC3339) || len(cd.Tiers) != 1 || cd.Tiers[0].Rewarded != 30 {
		t.Fatalf("first event: %+v %s, want period.closed with the settlement's counts", closed, closed.Data)
	}
	seen := map[string]int64{} // player -> their outcome event's id
	for i, e := range all[1:] {
		if e.ID <= all[i].ID {
			t.Fatalf("event %d after %d: ids must grow", e.ID, all[i].ID)
		}
		if e.League != "bench" || !e.Period.Equal(st.Period) || e.At.IsZero() {
			t.Fatalf("event %+v: wrong league, period or time", e)
		}
		switch e.Type {
		case events.RewardGranted:
			var rd events.RewardData
			testsvc.Must(t, json.Unmarshal(e.Data, &rd), "reward data")
			if seen[e.Player] == 0 || rd.Rank > 3 || len(rd.Items) != 2 || rd.Items[0].ID != "gold" || rd.Tier != byPlayer[e.Player].TierBefore {
				t.Fatalf("reward event %+v %s: before its outcome's event, or wrong data", e, e.Data)
			}
		default:
			o := byPlayer[e.Player]
			var od events.OutcomeData
			testsvc.Must(t, json.Unmarshal(e.Data, &od), "outcome data")
			if od != (events.OutcomeData{From: o.TierBefore, To: o.TierAfter, Board: fmt.Sprintf("%s-%d", o.TierBefore, o.Board), Rank: o.Rank, Score: o.Score}) {
				t.Fatalf("outcome event %+v %s, want %+v", e, e.Data, o)
			}
			seen[e.Player] = e.ID
		}
	}
	if len(seen) != len(outcomes) {
		t.Fatalf("%d players had an outcome event, want %d", len(seen), len(outcomes))
	}

	// Written once: the second write of the period is refused, and adds
	// nothing to the outbox.
	if err := s.WriteOutcomes(t.Context(), st, outcomes, rewards); league.ErrorCode(err) != league.Conflict {
		t.Fatalf("second WriteOutcomes: %v, want a conflict", err)
	}
	if got := countEvents(t, s); !maps(got, want) {
		t.Fatalf("after a second write, events by type: %v, want %v still", got, want)
	}

	// A move that contradicts the tiers is refused, naming it.
	st1 := beginBench(t, s, 1, 2)
	bad := []league.Outcome{
		{Player: "a", TierBefore: "bronze", TierAfter: "bronze", Board: 1, Rank: 1},
		{Player: "b", TierBefore: "bronze", TierAfter: "silver", Board: 1, Rank: 2},
	}
	err := s.WriteOutcomes(t.Context(), st1, bad, nil)
	if league.ErrorCode(err) != league.Invalid || !strings.Contains(err.Error(), "outcomes[1].move") {
		t.Fatalf("a move between tiers without a direction: %v, want invalid naming outcomes[1].move", err)
	}
	bad[1].Move = league.Demoted
	bad[0].Move = league.Promoted
	if err := s.WriteOutcomes(t.Context(), st1, bad, nil); league.ErrorCode(err) != league.Invalid {
		t.Fatalf("promoted within a tier: %v, want invalid", err)
	}
	if got := countEvents(t, s); !maps(got, want) {
		t.Fatalf("after refused writes, events by type: %v, want %v still", got, want)
	}
}

func maps[K comparable](a, b map[K]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestClaimEvents: a batch of claims writes one reward.claimed per
// delivery it records: none for a copy of a delivery recorded before, in
// this batch or an earlier one; a claim before its reward row has one too.
func TestClaimEvents(t *testing.T) {
	s, _ := newStore(t)
	week := time.Date(2026, 11, 16, 0, 0, 0, 0, time.UTC)
	at := week.AddDate(0, 0, 7).Add(90 * time.Second)
	gems := []tiers.Item{{ID: "gems", Qty: 100}}
	claim := func(player string) league.Claim {
		return league.Claim{League: "weekly", Player: player, Earned: week, Period: week.AddDate(0, 0, 7), At: at, Tier: "gold", Rank: 1, Items: gems}
	}
	testsvc.Must(t, s.RecordClaims(t.Context(), []league.Claim{claim("ann"), claim("bob"), claim("ann")}), "RecordClaims")
	testsvc.Must(t, s.RecordClaims(t.Context(), []league.Claim{claim("bob"), claim("cy"), {League: "weekly", Player: "dee", Earned: week}}), "RecordClaims")
	all := allEvents(t, s, nil)
	var players []string
	for _, e := range all {
		players = append(players, e.Player)
		if e.Type != events.RewardClaimed || !e.Period.Equal(week) {
			t.Fatalf("event %+v: want reward.claimed of %s", e, week)
		}
	}
	if !slices.Equal(players, []string{"ann", "bob", "cy", "dee"}) {
		t.Fatalf("claim events for %v, want ann bob cy dee once each, in order", players)
	}
	var cd events.ClaimData
	testsvc.Must(t, json.Unmarshal(all[0].Data, &cd), "claim data")
	if cd.Tier != "gold" || cd.Rank != 1 || len(cd.Items) != 1 || cd.Items[0].Qty != 100 || cd.ClaimedPeriod != "20261123T000000Z" ||
		cd.ClaimedAt != at.Format(time.RFC3339) {
		t.Fatalf("claim data %s", all[0].Data)
	}
	testsvc.Must(t, json.Unmarshal(all[3].Data, &cd), "claim data")
	if cd.ClaimedPeriod != "" || cd.ClaimedAt == "" || cd.Items == nil {
		t.Fatalf("a claim with no period, time or items: data %s", all[3].Data)
	}
}

// TestEventIDsFollowCommits: settlements of several leagues and batches of
// claims commit at once while a reader follows the feed with its cursor.
// The reader must see every event: none may commit behind a cursor it has
// passed (migration 0006, lockOutbox).
func TestEventIDsFollowCommits(t *testing.T) {
	s, _ := newStore(t)
	ctx := t.Context()
	const leagues, periods, players = 4, 5, 300
	// The reader follows the feed until it has read the last event, which
	// it learns once the writers are done.
	done, lastCh := make(chan struct{}), make(chan int64, 1)
	var read []int64
	var readErr error
	go func() {
		defer close(done)
		var after int64
		last := int64(-1)
		deadline := time.Now().Add(time.Minute)
		for after != last && time.Now().Before(deadline) {
			select {
			case last = <-lastCh:
			default:
			}
			page, err := s.Events(ctx, after, 50, nil)
			if err != nil {
				readErr = err
				return
			}
			for _, e := range page {
				read = append(read, e.ID)
				after = e.ID
			}
		}
	}()
	var wg sync.WaitGroup
	for l := range leagues {
		wg.Add(2)
		id := fmt.Sprintf("l%d", l)
		go func() { // settlements
			defer wg.Done()
			for p := range periods {
				outcomes, rewards := settledField(players)
				start := week0.AddDate(0, 0, 7*p)
				st, err := s.BeginSettlement(ctx, league.Settlement{League: id, Period: start, PeriodEnd: start.AddDate(0, 0, 7)})
				if err == nil {
					st.Players = players
					err = s.WriteOutcomes(ctx, st, outcomes, rewards)
				}
				if err != nil {
					t.Errorf("settle %s %d: %v", id, p, err)
					return
				}
			}
		}()
		go func() { // claims, a few at a time
			defer wg.Done()
			for b := range 40 {
				var cs []league.Claim
				for k := range 5 {
					cs = append(cs, league.Claim{League: id, Player: fmt.Sprintf("c%d-%d", b, k), Earned: week0, At: time.Now()})
				}
				if err := s.RecordClaims(ctx, cs); err != nil {
					t.Errorf("claims %s: %v", id, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	var last int64
	testsvc.Must(t, s.Pool().QueryRow(ctx, `SELECT max(id) FROM outbox`).Scan(&last), "max id")
	lastCh <- last
	<-done
	testsvc.Must(t, readErr, "reader")
	want := leagues*periods*(1+players+players*3/100) + leagues*40*5
	var total int
	testsvc.Must(t, s.Pool().QueryRow(context.Background(), `SELECT count(*) FROM outbox`).Scan(&total), "count")
	if total != want {
		t.Fatalf("%d events written, want %d", total, want)
	}
	if len(read) != total || !slices.IsSorted(read) {
		t.Fatalf("the reader following the cursor saw %d of %d events (sorted: %v): events committed behind its cursor", len(read), total, slices.IsSorted(read))
	}
}

// TestDeliveryStore: a webhook first seen starts at the outbox's end;
// progress moves only from where it is; waiting events form lanes whose
// head is retried, dies, is replayed, and hands the lane on when
// delivered.
func TestDeliveryStore(t *testing.T) {
	s, _ := newStore(t)
	ctx := t.Context()
	week := time.Date(2026, 11, 16, 0, 0, 0, 0, time.UTC)
	claims := func(players ...string) {
		var cs []league.Claim
		for _, p := range players {
			cs = append(cs, league.Claim{League: "weekly", Player: p, Earned: week, At: time.Now()})
		}
		testsvc.Must(t, s.RecordClaims(ctx, cs), "RecordClaims")
	}
	claims("old")
	from, err := s.StartWebhook(ctx, "hook")
	testsvc.Must(t, err, "StartWebhook")
	if from != 1 {
		t.Fatalf("a new webhook starts at %d, want 1 (the outbox's end)", from)
	}
	if p, err := s.Progress(ctx, "other"); err != nil || p.Known {
		t.Fatalf("Progress of a webhook never started: %+v %v", p, err)
	}
	week = week.AddDate(0, 0, 7)
	claims("ann", "bob", "cy") // 2, 3, 4
	week = week.AddDate(0, 0, 7)
	claims("ann", "bob") // 5, 6
	evs, err := s.Events(ctx, from, 10, nil)
	testsvc.Must(t, err, "Events")
	if got := ids(evs); !slices.Equal(got, []int64{2, 3, 4, 5, 6}) {
		t.Fatalf("events after the start: %v", got)
	}
	lane := func(i int) string { return evs[i].Lane() }
	// ann's 2 failed (and 5 waits behind it), bob's 3 and 6 were
	// delivered, cy's 4 was not tried.
	now := time.Now()
	waiting := []events.Waiting{
		{EventID: 2, Lane: lane(0), State: events.Retry, Attempts: 1, NextAt: now.Add(-time.Second), LastError: "HTTP 500"},
		{EventID: 4, Lane: lane(2), State: events.Retry, NextAt: now.Add(time.Hour)},
		{EventID: 5, Lane: lane(3), State: events.Held},
	}
	if err := s.Scanned(ctx, "hook", 0, 6, waiting); league.ErrorCode(err) != league.Conflict {
		t.Fatalf("Scanned from the wrong place: %v, want a conflict", err)
	}
	testsvc.Must(t, s.Scanned(ctx, "hook", 1, 6, waiting), "Scanned")
	if again, _ := s.StartWebhook(ctx, "hook"); again != 6 {
		t.Fatalf("StartWebhook after progress: %d, want 6", again)
	}
	got, err := s.LanesWaiting(ctx, "hook", []string{lane(0), lane(1), lane(2)})
	testsvc.Must(t, err, "LanesWaiting")
	if !got[lane(0)] || got[lane(1)] || !got[lane(2)] {
		t.Fatalf("lanes waiting: %v, want ann's and cy's", got)
	}
	p, err := s.Progress(ctx, "hook")
	testsvc.Must(t, err, "Progress")
	if !p.Known || p.ScannedTo != 6 || p.Retrying != 2 || p.Held != 1 || p.Dead != 0 || !p.Oldest.Equal(evs[0].At) {
		t.Fatalf("Progress: %+v, want 2 retrying, 1 held, the oldest event 2's time %s", p, evs[0].At)
	}
	due, err := s.Due(ctx, "hook", 10)
	testsvc.Must(t, err, "Due")
	if len(due) != 1 || due[0].Event.ID != 2 || due[0].Attempts != 1 || due[0].Event.Player != "ann" {
		t.Fatalf("Due: %+v, want ann's event 2 after 1 attempt (cy's is not due)", due)
	}

	// Event 2 dies; it holds ann's 5.
	testsvc.Must(t, s.Failed(ctx, "hook", 2, 3, now.Add(time.Hour), true, "HTTP 500: boom"), "Failed")
	if due, _ := s.Due(ctx, "hook", 10); len(due) != 0 {
		t.Fatalf("Due after the head died: %+v, want none", due)
	}
	dead, err := s.DeadLetters(ctx, "", 0)
	testsvc.Must(t, err, "DeadLetters")
	if len(dead) != 1 || dead[0].Event.ID != 2 || dead[0].Webhook != "hook" || dead[0].Attempts != 3 || dead[0].Holding != 1 ||
		dead[0].LastError != "HTTP 500: boom" || dead[0].Since.IsZero() {
		t.Fatalf("DeadLetters: %+v", dead)
	}
	if p, _ := s.Progress(ctx, "hook"); p.Dead != 1 || p.Retrying != 1 || !p.Oldest.Equal(evs[2].At) {
		t.Fatalf("Progress with a dead head: %+v, want the oldest cy's (dead ones do not count)", p)
	}

	// Replayed, it is due at once with its attempts afresh; delivered, it
	// hands ann's lane to 5.
	if n, err := s.Replay(ctx, "hook", 4); n != 0 || err != nil {
		t.Fatalf("Replay of an event not dead: %d, %v; want 0", n, err)
	}
	if n, err := s.Replay(ctx, "", 2); n != 1 || err != nil {
		t.Fatalf("Replay: %d, %v; want 1", n, err)
	}
	due, _ = s.Due(ctx, "hook", 10)
	if len(due) != 1 || due[0].Event.ID != 2 || due[0].Attempts != 0 {
		t.Fatalf("Due after replay: %+v, want event 2 with no attempts", due)
	}
	testsvc.Must(t, s.Delivered(ctx, "hook", 2), "Delivered")
	due, _ = s.Due(ctx, "hook", 10)
	if len(due) != 1 || due[0].Event.ID != 5 || due[0].Attempts != 0 {
		t.Fatalf("Due after the head was delivered: %+v, want ann's next, event 5", due)
	}
	testsvc.Must(t, s.Delivered(ctx, "hook", 5), "Delivered")
	testsvc.Must(t, s.Delivered(ctx, "hook", 5), "Delivered twice") // a second deliverer's: nothing
	if p, _ := s.Progress(ctx, "hook"); p.Retrying != 1 || p.Held != 0 || p.Dead != 0 {
		t.Fatalf("Progress at the end: %+v, want cy's only", p)
	}
	if n, _ := s.Replay(ctx, "", 0); n != 0 {
		t.Fatalf("Replay of every dead event with none dead: %d", n)
	}
}

func ids(evs []events.Event) []int64 {
	var out []int64
	for _, e := range evs {
		out = append(out, e.ID)
	}
	return out
}

// TestDeliveryLease: one holder at a time; released, it passes on; a
// holder whose connection was cut is told by Check.
func TestDeliveryLease(t *testing.T) {
	s, url := newStore(t)
	other := open(t, url)
	ctx := t.Context()
	lease, ok, err := s.LockDelivery(ctx)
	if err != nil || !ok {
		t.Fatalf("LockDelivery: %v %v", ok, err)
	}
	if _, ok, err := other.LockDelivery(ctx); ok || err != nil {
		t.Fatalf("a second LockDelivery: ok %v, %v; want refused", ok, err)
	}
	testsvc.Must(t, lease.Check(ctx), "Check")
	lease.Release()
	lease2, ok, err := other.LockDelivery(ctx)
	if err != nil || !ok {
		t.Fatalf("LockDelivery after release: %v %v", ok, err)
	}
	// The database ends the holder's session: the lease is gone, and the
	// holder hears it at its next check.
	// (Only the holder of this schema's lease: other tests share the database.)
	_, err = s.Pool().Exec(ctx, `SELECT pg_terminate_backend(pid) FROM pg_locks
		WHERE locktype = 'advisory' AND objsubid = 1 AND granted
			AND ((classid::bigint << 32) | objid::bigint) = hashtextextended(coalesce(current_schema(), '') || '/events/deliver', 0)`)
	testsvc.Must(t, err, "terminate the holder")
	if err := lease2.Check(ctx); err == nil {
		t.Fatal("Check after the session ended: no error")
	}
	lease2.Release()
	deadline := time.Now().Add(5 * time.Second)
	for {
		l, ok, err := s.LockDelivery(ctx)
		if ok {
			l.Release()
			break
		}
		if err != nil || time.Now().After(deadline) {
			t.Fatalf("LockDelivery after the holder's session ended: %v %v", ok, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
