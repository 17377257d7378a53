package scheduler_test

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/league"
	"github.com/league-engine/league/postgres"
	"github.com/league-engine/league/tiers"
)

// TestTrail: the audit trail of a player and of a period lists every tier
// move with its cause (settlement, absence decay), every reward and claim
// and every admin action, newest first, as the store recorded them; read
// a page at a time, it lists the same entries, each once.
func TestTrail(t *testing.T) {
	forEachStore(t, func(t *testing.T, k storeKind) {
		f := newFixture(t, k, 10)
		f.league.DecayAfter = 1 // a tier down for every period away
		f.engine = f.open()
		s := f.scheduler()
		trail, audit := f.store.(league.TrailLog), f.store.(league.AuditLog)

		// Week 1: p0..p9 on one board, p0 first. p9 is hidden, so 9 are
		// settled: 20% promotes p0 to silver; ranks 1-3 earn gems.
		week1 := f.period()
		for i := 0; i < 10; i++ {
			p := fmt.Sprintf("p%d", i)
			_, err := f.engine.Join(f.ctx, "weekly", league.JoinRequest{Player: p, Name: p})
			testsvc.Must(t, err, "Join")
			_, err = f.engine.Score(f.ctx, "weekly", league.ScoreWrite{Player: p, Value: int64(100 - 10*i)})
			testsvc.Must(t, err, "Score")
		}
		_, err := f.engine.Moderate(f.ctx, "weekly", league.Moderation{Player: "p9", Action: league.Hide, Actor: "ops", Reason: "smurf"})
		testsvc.Must(t, err, "Moderate")
		_, err = f.engine.RecordActions(f.ctx, "weekly", audit)
		testsvc.Must(t, err, "RecordActions")
		f.clock.After(week1.End)
		f.settleNow(s)

		// Week 2: everyone but p0 plays (p1 and p2 collect their gems), so
		// p0 sits out a week somebody played. Week 3: p0 comes back and
		// joins bronze, collecting the gems of week 1.
		week2 := f.period()
		for i := 1; i < 9; i++ {
			p := fmt.Sprintf("p%d", i)
			_, err := f.engine.Join(f.ctx, "weekly", league.JoinRequest{Player: p, Name: p})
			testsvc.Must(t, err, "Join")
		}
		f.clock.After(week2.End)
		week3 := f.period()
		back, err := f.engine.Join(f.ctx, "weekly", league.JoinRequest{Player: "p0", Name: "p0"})
		testsvc.Must(t, err, "Join")
		if back.Tier != "bronze" || len(back.Rewards) != 1 {
			t.Fatalf("p0 back after a week away: %+v, want bronze (decayed from silver) with week 1's gems", back)
		}
		n, err := s.RecordClaims(f.ctx, "weekly")
		testsvc.Must(t, err, "RecordClaims")
		if n != 4 { // p1's, p2's and p0's gems; p0's decay
			t.Fatalf("recorded %d claims and decays, want 4", n)
		}
		n, err = s.RecordClaims(f.ctx, "weekly")
		if testsvc.Must(t, err, "RecordClaims again"); n != 0 {
			t.Fatalf("recorded %d more, want none", n)
		}

		if pg, ok := f.store.(*postgres.Store); ok {
			// The decay is an event too, once.
			var player, data string
			err := pg.Pool().QueryRow(f.ctx, `SELECT string_agg(player, ','), string_agg(data::text, ',') FROM events
				WHERE league = 'weekly' AND type = 'player.decayed'`).Scan(&player, &data)
			testsvc.Must(t, err, "events")
			if want := `{"to": "bronze", "from": "silver", "absent": 1}`; player != "p0" || data != want {
				t.Fatalf("player.decayed events: %s %s, want p0 %s", player, data, want)
			}
		}

		read := func(q league.TrailQuery) []league.TrailEntry {
			t.Helper()
			q.League, q.Limit = "weekly", 1000
			page, err := trail.Trail(f.ctx, q)
			testsvc.Must(t, err, "Trail %+v", q)
			if page.Next != "" {
				t.Fatalf("Trail %+v: a next page after %d entries", q, len(page.Entries))
			}
			return page.Entries
		}
		gems := func(n int64) []tiers.Item { return []tiers.Item{{ID: "gems", Qty: n}} }

		// p0: the decay and the claim at the join of week 3 (the claim
		// listed first at one instant), then week 1's reward and outcome.
		got := read(league.TrailQuery{Player: "p0"})
		if kinds := kindsOf(got); !slices.Equal(kinds, []league.TrailKind{league.TrailClaim, league.TrailDecay, league.TrailReward, league.TrailSettlement}) {
			t.Fatalf("p0's trail: %v\n%+v", kinds, got)
		}
		claim, decay, reward, settled := got[0], got[1], got[2], got[3]
		if !claim.Period.Equal(week1.Start) || !claim.ClaimedIn.Equal(week3.Start) || claim.Tier != "bronze" || claim.Rank != 1 ||
			!reflect.DeepEqual(claim.Items, gems(100)) {
			t.Errorf("p0's claim: %+v", claim)
		}
		if !decay.Period.Equal(week3.Start) || decay.TierBefore != "silver" || decay.TierAfter != "bronze" || decay.Absent != 1 ||
			decay.Move != league.Demoted || !decay.At.Equal(claim.At) {
			t.Errorf("p0's decay: %+v", decay)
		}
		if !reward.Period.Equal(week1.Start) || !reward.At.Equal(week1.End) || reward.Tier != "bronze" || reward.Rank != 1 ||
			!reflect.DeepEqual(reward.Items, gems(100)) {
			t.Errorf("p0's reward: %+v", reward)
		}
		if !settled.Period.Equal(week1.Start) || !settled.At.Equal(week1.End) || settled.TierBefore != "bronze" ||
			settled.TierAfter != "silver" || settled.Board != 1 || settled.Rank != 1 || settled.Score != 100 {
			t.Errorf("p0's outcome: %+v", settled)
		}

		// p9, hidden: the action, and no outcome.
		got = read(league.TrailQuery{Player: "p9"})
		if len(got) != 1 || got[0].Kind != league.TrailAdmin || got[0].Action == nil || got[0].Action.Action != league.Hide ||
			got[0].Action.Reason != "smurf" || !got[0].Period.Equal(week1.Start) {
			t.Fatalf("p9's trail: %+v", got)
		}

		// Week 1: 9 outcomes, 3 rewards, 3 claims, 1 action; p0's decay is
		// week 3's.
		all := read(league.TrailQuery{Period: week1.Start})
		count := map[league.TrailKind]int{}
		for _, e := range all {
			count[e.Kind]++
		}
		if want := map[league.TrailKind]int{league.TrailSettlement: 9, league.TrailReward: 3, league.TrailClaim: 3, league.TrailAdmin: 1}; !reflect.DeepEqual(count, want) {
			t.Fatalf("week 1's trail: %v, want %v", count, want)
		}
		if got := read(league.TrailQuery{Period: week3.Start, Player: "p0"}); len(got) != 1 || got[0].Kind != league.TrailDecay {
			t.Fatalf("p0's trail of week 3: %+v", got)
		}
		for i := 1; i < len(all); i++ {
			if league.CursorOf(all[i-1]).Compare(league.CursorOf(all[i])) >= 0 {
				t.Fatalf("week 1's trail out of order at %d: %+v before %+v", i, all[i-1], all[i])
			}
		}

		// Paged, the same entries in the same order, through the period's
		// fast path (outcomes by player) and the player's.
		for _, q := range []league.TrailQuery{{Period: week1.Start}, {Player: "p0"}} {
			want := read(q)
			for _, size := range []int{1, 2, 5} {
				var paged []league.TrailEntry
				q := q
				q.League, q.Limit = "weekly", size
				for pages := 0; ; pages++ {
					page, err := trail.Trail(f.ctx, q)
					testsvc.Must(t, err, "Trail %+v", q)
					paged = append(paged, page.Entries...)
					if page.Next == "" {
						break
					}
					if len(page.Entries) != size || pages > len(want) {
						t.Fatalf("page %d of %d: %d entries", pages, size, len(page.Entries))
					}
					q.After = page.Next
				}
				if !reflect.DeepEqual(paged, want) {
					t.Fatalf("%+v read %d at a time: %d entries, want %d\n%v\n%v", q, size, len(paged), len(want), kindsOf(paged), kindsOf(want))
				}
			}
		}

		// Bad queries: refused, naming the field.
		for _, q := range []league.TrailQuery{
			{League: "weekly", Limit: 10},
			{League: "weekly", Player: "p0", Limit: 0},
			{League: "weekly", Player: "p0", Limit: 10, After: "not-a-cursor"},
			{League: "", Player: "p0", Limit: 10},
		} {
			if _, err := trail.Trail(f.ctx, q); league.ErrorCode(err) != league.Invalid {
				t.Errorf("Trail %+v: %v, want Invalid", q, err)
			}
		}
	})
}

func kindsOf(es []league.TrailEntry) []league.TrailKind {
	out := make([]league.TrailKind, len(es))
	for i, e := range es {
		out[i] = e.Kind
	}
	return out
}
