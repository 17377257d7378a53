package storetest

import (
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/league-engine/league/league"
)

// RunAudit runs the contract of league.AuditLog: newLog returns an empty
// log of the test's own.
func RunAudit(t *testing.T, newLog func(t *testing.T) league.AuditLog) {
	for _, tc := range []struct {
		name string
		fn   func(t *testing.T, a league.AuditLog)
	}{
		{"Empty", testAuditEmpty},
		{"RoundTrip", testAuditRoundTrip},
		{"FiltersAndPages", testAuditPages},
		{"OnceOnly", testAuditOnce},
		{"Concurrent", testAuditConcurrent},
		{"BadInput", testAuditBadInput},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.fn(t, newLog(t))
		})
	}
}

// action is the nth action of the tests: its id's sequence number crosses
// 9 to 10, so ids that sort as text would come out of order.
func action(lg string, n int, player string, period time.Time) league.Action {
	ms := int64(1_800_000_000_000 + n/3)
	return league.Action{
		League: lg, ID: fmt.Sprintf("%d-%d", ms, n%3*5), At: time.UnixMilli(ms).UTC(), Actor: "ops", Reason: fmt.Sprintf("reason %d", n),
		Action: league.Hide, Player: player, Period: period,
		Before: league.PlayerState{Board: league.Ranked, Score: int64(n)}, After: league.PlayerState{Board: league.Hidden, Score: int64(n)},
	}
}

func testAuditEmpty(t *testing.T, a league.AuditLog) {
	got, err := a.Actions(t.Context(), league.AuditQuery{League: "weekly", Limit: 10})
	must(t, err, "Actions")
	if got == nil || len(got) != 0 {
		t.Fatalf("Actions of nothing: %#v, want an empty slice", got)
	}
	must(t, a.RecordActions(t.Context(), nil), "RecordActions(nil)")
}

func testAuditRoundTrip(t *testing.T, a league.AuditLog) {
	ctx := t.Context()
	ban := league.Action{League: "weekly", ID: "1800000000000-0", At: time.UnixMilli(1_800_000_000_000).UTC(), Actor: "ops-eu",
		Reason: "chargeback fraud", Action: league.Ban, Player: "p1",
		Before: league.PlayerState{Board: league.Absent}, After: league.PlayerState{Board: league.Absent, BannedUntil: week(3)}}
	set := league.Action{League: "weekly", ID: "1800000000001-0", At: time.UnixMilli(1_800_000_000_001).UTC(), Actor: "ops-eu",
		Reason: "score restored after an appeal", Action: league.SetScore, Player: "p1", Period: week(0),
		Before: league.PlayerState{Board: league.Hidden, Score: 0, BannedUntil: week(3)}, After: league.PlayerState{Board: league.Hidden, Score: 1234, BannedUntil: week(3)}}
	must(t, a.RecordActions(ctx, []league.Action{ban, set}), "RecordActions")
	got, err := a.Actions(ctx, league.AuditQuery{League: "weekly", Limit: 10})
	must(t, err, "Actions")
	if want := []league.Action{set, ban}; !reflect.DeepEqual(got, want) {
		t.Fatalf("Actions:\n got %+v\nwant %+v", got, want)
	}
	for _, x := range got {
		wantUTC(t, "action "+x.ID, x.At, x.Period, x.Before.BannedUntil, x.After.BannedUntil)
	}
}

func testAuditPages(t *testing.T, a league.AuditLog) {
	ctx := t.Context()
	var all []league.Action
	for n := 0; n < 30; n++ {
		all = append(all, action("weekly", n, fmt.Sprintf("p%d", n%4), week(n%2)))
	}
	must(t, a.RecordActions(ctx, all[:17]), "RecordActions")
	must(t, a.RecordActions(ctx, all[17:]), "RecordActions")
	must(t, a.RecordActions(ctx, []league.Action{action("daily", 99, "p0", week(0))}), "RecordActions, another league")

	newest := func(keep func(league.Action) bool) []league.Action {
		var out []league.Action
		for i := len(all) - 1; i >= 0; i-- {
			if keep(all[i]) {
				out = append(out, all[i])
			}
		}
		return out
	}
	for _, tc := range []struct {
		name string
		q    league.AuditQuery
		want []league.Action
	}{
		{"all", league.AuditQuery{}, newest(func(league.Action) bool { return true })},
		{"by player", league.AuditQuery{Player: "p1"}, newest(func(x league.Action) bool { return x.Player == "p1" })},
		{"by period", league.AuditQuery{Period: week(1)}, newest(func(x league.Action) bool { return x.Period.Equal(week(1)) })},
		{"by both", league.AuditQuery{Player: "p2", Period: week(0)}, newest(func(x league.Action) bool { return x.Player == "p2" && x.Period.Equal(week(0)) })},
		{"nobody", league.AuditQuery{Player: "p9"}, nil},
	} {
		for _, limit := range []int{1, 4, 1000} {
			q := tc.q
			q.League, q.Limit = "weekly", limit
			var got []league.Action
			for pages := 0; ; pages++ {
				page, err := a.Actions(ctx, q)
				must(t, err, "%s: Actions(%+v)", tc.name, q)
				if len(page) > limit {
					t.Fatalf("%s: page of %d, limit %d", tc.name, len(page), limit)
				}
				got = append(got, page...)
				if len(page) < limit || pages > 40 {
					break
				}
				q.Before = page[len(page)-1].ID
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("%s, pages of %d:\n got %v\nwant %v", tc.name, limit, ids(got), ids(tc.want))
			}
		}
	}
}

func ids(as []league.Action) []string {
	out := make([]string, len(as))
	for i, x := range as {
		out[i] = x.ID
	}
	return out
}

func testAuditOnce(t *testing.T, a league.AuditLog) {
	ctx := t.Context()
	first := action("weekly", 1, "p1", week(0))
	must(t, a.RecordActions(ctx, []league.Action{first}), "RecordActions")
	again := first
	again.Reason, again.Actor = "a second copy", "someone else"
	must(t, a.RecordActions(ctx, []league.Action{again, first, action("weekly", 2, "p1", week(0))}), "RecordActions again")
	got, err := a.Actions(ctx, league.AuditQuery{League: "weekly", Limit: 10})
	must(t, err, "Actions")
	if len(got) != 2 || !reflect.DeepEqual(got[1], first) {
		t.Fatalf("after copying an action twice: %+v; want it once, as first recorded", got)
	}
}

func testAuditConcurrent(t *testing.T, a league.AuditLog) {
	ctx := t.Context()
	var batch []league.Action
	for n := 0; n < 50; n++ {
		batch = append(batch, action("weekly", n, "p1", week(0)))
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- a.RecordActions(ctx, batch)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		must(t, err, "RecordActions concurrently")
	}
	got, err := a.Actions(ctx, league.AuditQuery{League: "weekly", Limit: 1000})
	must(t, err, "Actions")
	if len(got) != len(batch) {
		t.Fatalf("8 copiers of %d actions left %d", len(batch), len(got))
	}
}

func testAuditBadInput(t *testing.T, a league.AuditLog) {
	ctx := t.Context()
	for _, q := range []league.AuditQuery{
		{League: "weekly", Limit: 0},
		{League: "weekly", Limit: league.MaxAuditPage + 1},
		{League: "weekly", Limit: 10, Before: "yesterday"},
		{League: "weekly", Limit: 10, Before: "12-"},
		{League: "weekly", Limit: 10, Player: "has space"},
		{Limit: 10},
	} {
		_, err := a.Actions(ctx, q)
		wantCode(t, err, league.Invalid, "Actions(%+v)", q)
	}
	good := action("weekly", 1, "p1", week(0))
	for _, edit := range []func(*league.Action){
		func(x *league.Action) { x.ID = "" },
		func(x *league.Action) { x.ID = "1-2-3" },
		func(x *league.Action) { x.Reason = "" },
		func(x *league.Action) { x.Actor = "" },
		func(x *league.Action) { x.League = "" },
	} {
		bad := good
		edit(&bad)
		wantCode(t, a.RecordActions(ctx, []league.Action{good, bad}), league.Invalid, "RecordActions(%+v)", bad)
	}
	got, err := a.Actions(ctx, league.AuditQuery{League: "weekly", Limit: 10})
	must(t, err, "Actions")
	if len(got) != 0 {
		t.Fatalf("a refused batch wrote %d actions", len(got))
	}
}
