package api_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/league-engine/league/api"
	"github.com/league-engine/league/events"
)

const scopedAdminKey = "admin-weekly-key-0123456789"

// someEvents adds one event of each type to the feed, the player.stayed of
// another league: ids 1..6.
func someEvents(f *fixture) {
	at := monday.AddDate(0, 0, 7).Add(time.Second)
	f.feed.add(
		events.Event{Type: events.PeriodClosed, League: "weekly", Period: monday, At: at,
			Data: json.RawMessage(`{"period_end":"2026-11-23T00:00:00Z","players":2,"tiers":[{"tier":"bronze","players":2,"promoted":1,"demoted":0,"rewarded":1}]}`)},
		events.Event{Type: events.PlayerPromoted, League: "weekly", Period: monday, Player: "alice", At: at,
			Data: json.RawMessage(`{"from":"bronze","to":"silver","board":"bronze-1","rank":1,"score":7}`)},
		events.Event{Type: events.RewardGranted, League: "weekly", Period: monday, Player: "alice", At: at,
			Data: json.RawMessage(`{"tier":"bronze","rank":1,"items":[{"id":"gems","qty":100}]}`)},
		events.Event{Type: events.PlayerStayed, League: "blitz", Period: monday, Player: "bob", At: at,
			Data: json.RawMessage(`{"from":"rookie","to":"rookie","board":"rookie-1","rank":2,"score":0}`)},
		events.Event{Type: events.PlayerDemoted, League: "weekly", Period: monday, Player: "carol", At: at,
			Data: json.RawMessage(`{"from":"silver","to":"bronze","board":"silver-1","rank":10,"score":0}`)},
		events.Event{Type: events.RewardClaimed, League: "weekly", Period: monday, Player: "alice", At: at.Add(time.Hour),
			Data: json.RawMessage(`{"tier":"bronze","rank":1,"items":[{"id":"gems","qty":100}],"claimed_period":"20261123T000000Z","claimed_at":"2026-11-23T01:00:01Z"}`)},
	)
}

type feedPage struct {
	Events []events.Event `json:"events"`
	Next   int64          `json:"next"`
}

func (f *fixture) feedPage(query, key string) feedPage {
	f.tb.Helper()
	w := f.do("GET", "/v1/admin/events"+query, "", key)
	if w.Code != http.StatusOK {
		f.tb.Fatalf("GET /v1/admin/events%s: status %d: %s", query, w.Code, w.Body)
	}
	var p feedPage
	if err := json.Unmarshal(w.Body.Bytes(), &p); err != nil {
		f.tb.Fatalf("GET /v1/admin/events%s: %v in %s", query, err, w.Body)
	}
	return p
}

func ids(evs []events.Event) []int64 {
	out := []int64{}
	for _, e := range evs {
		out = append(out, e.ID)
	}
	return out
}

// TestEventFeed: the feed pages through the outbox with a cursor, an
// empty page keeps the cursor, a key scoped to a league reads that league's
// events only, and bad queries, game keys and a server without Postgres are
// refused.
func TestEventFeed(t *testing.T) {
	f := onMini(t, withConfig(func(c *api.Config) {
		c.Keys = append(c.Keys, api.Key{Name: "ops-weekly", Admin: true, Leagues: []string{"weekly"}, Secrets: []string{scopedAdminKey}})
	}))
	if p := f.feedPage("", adminKey); len(p.Events) != 0 || p.Next != 0 {
		t.Fatalf("empty outbox: %+v, want no events and next 0", p)
	}
	someEvents(f)
	var got []int64
	after := "0"
	for range 4 {
		p := f.feedPage("?limit=4&after="+after, adminKey)
		got = append(got, ids(p.Events)...)
		after = strconv.FormatInt(p.Next, 10)
	}
	if want := []int64{1, 2, 3, 4, 5, 6}; !slices.Equal(got, want) || after != "6" {
		t.Fatalf("paging by 4: ids %v, last cursor %s; want %v and 6", got, after, want)
	}
	p := f.feedPage("?after=6", adminKey)
	if len(p.Events) != 0 || p.Next != 6 {
		t.Fatalf("past the end: %+v, want no events and next 6 (the cursor sent)", p)
	}
	p = f.feedPage("", adminKey)
	if len(p.Events) != 6 || p.Events[1].Player != "alice" || p.Events[0].Player != "" || p.Events[3].League != "blitz" {
		t.Fatalf("default page: %+v", p)
	}
	// The reply is the events' own JSON: player_id null for period.closed.
	w := f.do("GET", "/v1/admin/events?limit=1", "", adminKey)
	if body := w.Body.String(); !strings.Contains(body, `"player_id":null`) || !strings.Contains(body, `"period":"20261116T000000Z"`) ||
		!strings.Contains(body, `"at":"2026-11-23T00:00:01Z"`) {
		t.Fatalf("first event as JSON: %s", body)
	}
	if p := f.feedPage("", scopedAdminKey); !slices.Equal(ids(p.Events), []int64{1, 2, 3, 5, 6}) {
		t.Fatalf("a key scoped to weekly read %v, want 1 2 3 5 6 (4 is blitz's)", ids(p.Events))
	}

	for _, c := range []struct {
		query, key string
		status     int
		want       string
	}{
		{"?after=-1", adminKey, 400, "after"},
		{"?after=x", adminKey, 400, "after"},
		{"?after=99999999999999999999", adminKey, 400, "after"},
		{"?limit=0", adminKey, 400, "limit"},
		{"?limit=1001", adminKey, 400, "limit"},
		{"?limit=ten", adminKey, 400, "limit"},
		{"?league=weekly", adminKey, 400, "league"},
		{"", gameKey, 403, "admin key"},
		{"", noKey, 401, "missing key"},
	} {
		w := f.do("GET", "/v1/admin/events"+c.query, "", c.key)
		if w.Code != c.status || !strings.Contains(w.Body.String(), c.want) {
			t.Errorf("GET /v1/admin/events%s: status %d %s; want %d naming %q", c.query, w.Code, w.Body, c.status, c.want)
		}
	}

	f.feed.err = errStoreDown
	if w := f.do("GET", "/v1/admin/events", "", adminKey); w.Code != http.StatusServiceUnavailable {
		t.Errorf("feed with Postgres down: status %d, want 503", w.Code)
	}
	none := onMini(t, withConfig(func(c *api.Config) { c.Events = nil }))
	if w := none.do("GET", "/v1/admin/events", "", adminKey); w.Code != http.StatusServiceUnavailable ||
		!strings.Contains(w.Body.String(), "DATABASE_URL") {
		t.Errorf("feed without an outbox: status %d %s, want 503 naming DATABASE_URL", w.Code, w.Body)
	}
}
