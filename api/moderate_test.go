package api_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/league-engine/league/api"
	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/league"
)

const modPath = "/v1/admin/leagues/weekly/players/"

// boardPlayers returns the player ids of bronze-1, by rank.
func (f *fixture) boardPlayers() []string {
	f.tb.Helper()
	var out []string
	for _, e := range f.must("GET", "/v1/leagues/weekly/boards/bronze-1", "")["entries"].([]any) {
		out = append(out, e.(map[string]any)["player_id"].(string))
	}
	return out
}

func (f *fixture) auditLen() int {
	f.tb.Helper()
	return len(f.must("GET", "/v1/admin/leagues/weekly/audit?limit=1000", "")["actions"].([]any))
}

func TestModerationRoutes(t *testing.T) {
	f := onRedis(t)
	for i, p := range []string{"alice", "bob", "carol"} {
		f.join(p)
		f.score(p, int64(30-10*i))
	}

	r := f.must("POST", modPath+"bob/hide", `{"reason":"aimbot report #12"}`)
	if r["changed"] != true || r["recorded"] != true || r["action_id"] == nil || r["action"] != "hide" || r["player_id"] != "bob" ||
		r["period"] != firstPeriod {
		t.Fatalf("hide: %v", r)
	}
	if b, a := r["before"].(map[string]any), r["after"].(map[string]any); b["state"] != "ranked" || b["score"] != 20.0 ||
		a["state"] != "hidden" || a["score"] != 20.0 || a["banned_until"] != nil {
		t.Fatalf("hide's before and after: %v %v", b, a)
	}
	if got := f.boardPlayers(); fmt.Sprint(got) != "[alice carol]" {
		t.Fatalf("board after hiding bob: %v", got)
	}
	p := f.must("GET", "/v1/leagues/weekly/players/bob", "")
	if p["moderation"] != "hidden" || p["rank"] != 0.0 || p["zone"] != nil || p["joined"] != true || p["score"] != 20.0 || p["board_size"] != 2.0 {
		t.Fatalf("bob's player reply while hidden: %v", p)
	}
	if p := f.must("GET", "/v1/leagues/weekly/players/carol", ""); p["rank"] != 2.0 || p["moderation"] != nil {
		t.Fatalf("carol's player reply: %v", p)
	}
	w := f.do("POST", "/v1/leagues/weekly/scores", `{"player_id":"bob","value":1}`, gameKey)
	if code, _ := errorOf(t, w); w.Code != http.StatusForbidden || code != "moderated" {
		t.Fatalf("hidden bob's write: %d %s", w.Code, w.Body)
	}
	if r := f.must("POST", modPath+"bob/hide", `{"reason":"again"}`); r["changed"] != false || r["recorded"] != false || r["action_id"] != nil {
		t.Fatalf("hide again: %v", r)
	}
	f.must("POST", modPath+"bob/unhide", `{"reason":"report was false","period":"`+firstPeriod+`"}`)
	if got := f.boardPlayers(); fmt.Sprint(got) != "[alice bob carol]" {
		t.Fatalf("board after unhiding bob: %v", got)
	}
	if r := f.must("POST", modPath+"carol/set-score", `{"reason":"restored","score":500}`); r["after"].(map[string]any)["score"] != 500.0 {
		t.Fatalf("set-score: %v", r)
	}
	f.must("POST", modPath+"alice/set-score", `{"reason":"zeroed","score":0}`)
	if got := f.boardPlayers(); fmt.Sprint(got) != "[carol bob alice]" {
		t.Fatalf("board after set-score: %v", got)
	}

	r = f.must("POST", modPath+"bob/ban", `{"reason":"chargeback","duration":"7d"}`)
	until := f.clock.Now().Add(7 * 24 * time.Hour).UTC().Format(time.RFC3339)
	if a := r["after"].(map[string]any); a["state"] != "banned" || a["banned_until"] != until {
		t.Fatalf("ban: %v", r)
	}
	w = f.do("POST", "/v1/leagues/weekly/join", `{"player_id":"bob","name":"Bob"}`, gameKey)
	code, msg := errorOf(t, w)
	if w.Code != http.StatusForbidden || code != "banned" || !strings.Contains(msg, until) || w.Header().Get("Retry-After") != "604800" {
		t.Fatalf("banned bob's join: %d %s (Retry-After %q)", w.Code, w.Body, w.Header().Get("Retry-After"))
	}
	f.must("POST", modPath+"bob/unban", `{"reason":"appeal upheld"}`)
	f.join("bob")
	f.must("POST", modPath+"carol/remove", `{"reason":"multi-accounting"}`)
	w = f.do("POST", modPath+"carol/unhide", `{"reason":"oops"}`, adminKey)
	if code, _ := errorOf(t, w); w.Code != http.StatusConflict || code != "conflict" {
		t.Fatalf("unhide of a removed player: %d %s", w.Code, w.Body)
	}
	// Every change recorded once, with the admin key's name; the no-op hide none.
	acts := f.must("GET", "/v1/admin/leagues/weekly/audit", "")["actions"].([]any)
	var got []string
	for _, a := range acts {
		m := a.(map[string]any)
		if m["actor"] != "admin-1" || m["reason"] == "" || m["period"] != firstPeriod {
			t.Fatalf("audit entry: %v", m)
		}
		got = append(got, m["action"].(string)+" "+m["player_id"].(string))
	}
	want := "[remove carol unban bob ban bob set-score alice set-score carol unhide bob hide bob]"
	if fmt.Sprint(got) != want {
		t.Fatalf("audit:\n got %v\nwant %s", got, want)
	}
}

// TestModerationRefusals: a game key, bad input, an unknown league or
// player, a closed period: a clear 4xx, and nothing written or recorded.
func TestModerationRefusals(t *testing.T) {
	f := onRedis(t)
	f.join("alice")
	f.score("alice", 5)
	f.join("old")
	before := f.snapshot()
	for _, a := range []string{"hide", "unhide", "remove", "set-score", "ban", "unban"} {
		body := `{"reason":"x","score":1,"duration":"1h"}`
		for key, status := range map[string]int{gameKey: 403, noKey: 401, "wrong": 401} {
			if w := f.do("POST", modPath+"alice/"+a, body, key); w.Code != status {
				t.Errorf("%s with key %q: %d, want %d: %s", a, key, w.Code, status, w.Body)
			}
		}
	}
	for _, c := range []struct {
		path, body string
		status     int
		code       string
	}{
		{"alice/hide", ``, 400, "invalid"},
		{"alice/hide", `{}`, 400, "invalid"},
		{"alice/hide", `{"reason":""}`, 400, "invalid"},
		{"alice/hide", `{"reason":" "}`, 400, "invalid"},
		{"alice/hide", `{"reason":"` + strings.Repeat("x", 501) + `"}`, 400, "invalid"},
		{"alice/hide", `{"reason":"x","why":"y"}`, 400, "invalid"},
		{"alice/hide", `{"reason":"x","score":3}`, 400, "invalid"},
		{"alice/hide", `{"reason":"x","duration":"1h"}`, 400, "invalid"},
		{"alice/hide", `{"reason":7}`, 400, "invalid"},
		{"alice/set-score", `{"reason":"x"}`, 400, "invalid"},
		{"alice/set-score", `{"reason":"x","score":-1}`, 400, "invalid"},
		{"alice/set-score", `{"reason":"x","score":1.5}`, 400, "invalid"},
		{"alice/set-score", `{"reason":"x","score":"7"}`, 400, "invalid"},
		{"alice/set-score", `{"reason":"x","score":1001}`, 400, "invalid"},
		{"alice/ban", `{"reason":"x"}`, 400, "invalid"},
		{"alice/ban", `{"reason":"x","duration":"forever"}`, 400, "invalid"},
		{"alice/ban", `{"reason":"x","duration":"0s"}`, 400, "invalid"},
		{"alice/ban", `{"reason":"x","duration":"99999d"}`, 400, "invalid"},
		{"alice/ban", `{"reason":"x","until":"tomorrow"}`, 400, "invalid"},
		{"alice/ban", `{"reason":"x","until":"2020-01-01T00:00:00Z"}`, 400, "invalid"},
		{"alice/ban", `{"reason":"x","duration":"1h","until":"2030-01-01T00:00:00Z"}`, 400, "invalid"},
		{"alice/unban", `{"reason":"x","duration":"1h"}`, 400, "invalid"},
		{"bad%20id/hide", `{"reason":"x"}`, 400, "invalid"},
		{"alice/hide", `{"reason":"x","period":"monday"}`, 400, "invalid"},
		{"alice/hide", `{"reason":"x","period":"20261123T000000Z"}`, 400, "invalid"},
		{"nobody/hide", `{"reason":"x"}`, 404, "not_found"},
		{"nobody/ban", `{"reason":"x","duration":"1h"}`, 404, "not_found"},
		{"alice/hide", `{"reason":"x","period":"20261109T000000Z"}`, 409, "period_closed"},
		{"alice/delete", `{"reason":"x"}`, 404, "not_found"},
	} {
		w := f.do("POST", modPath+c.path, c.body, adminKey)
		if code, msg := errorOf(t, w); w.Code != c.status || code != c.code {
			t.Errorf("%s %s: %d %s (%s), want %d %s", c.path, c.body, w.Code, code, msg, c.status, c.code)
		}
	}
	if w := f.do("POST", "/v1/admin/leagues/nope/players/alice/hide", `{"reason":"x"}`, adminKey); w.Code != 404 {
		t.Errorf("unknown league: %d", w.Code)
	}
	if after := f.snapshot(); after != before {
		t.Fatalf("refused moderations wrote to Redis")
	}
	if n := f.auditLen(); n != 0 {
		t.Fatalf("refused moderations left %d audit entries", n)
	}

	// The week ends: its players can no longer be hidden; a ban still applies.
	f.clock.After(f.period().End)
	w := f.do("POST", modPath+"old/hide", `{"reason":"x"}`, adminKey)
	if code, msg := errorOf(t, w); w.Code != http.StatusConflict || code != "period_closed" || !strings.Contains(msg, firstPeriod) {
		t.Fatalf("hide after the week ended: %d %s", w.Code, w.Body)
	}
	f.must("POST", modPath+"old/ban", `{"reason":"x","until":"2027-01-01T00:00:00Z"}`)
	if n := f.auditLen(); n != 1 {
		t.Fatalf("%d audit entries, want 1", n)
	}
}

func TestAuditRoute(t *testing.T) {
	f := onRedis(t)
	week := f.period()
	for _, p := range []string{"a", "b", "c"} {
		f.join(p)
		f.must("POST", modPath+p+"/hide", `{"reason":"r `+p+`"}`)
		f.clock.Add(time.Millisecond)
	}
	f.clock.After(week.End)
	f.settleWeek(week)
	f.join("a")
	f.must("POST", modPath+"a/set-score", `{"reason":"fix","score":9}`)
	f.must("POST", modPath+"b/ban", `{"reason":"ban b","duration":"2h"}`)

	all := f.must("GET", "/v1/admin/leagues/weekly/audit", "")
	acts := all["actions"].([]any)
	if len(acts) != 5 || all["next"] != nil {
		t.Fatalf("audit: %v", all)
	}
	first := acts[0].(map[string]any)
	if first["action"] != "ban" || first["player_id"] != "b" || first["period"] != nil || first["after"].(map[string]any)["state"] != "absent" ||
		first["after"].(map[string]any)["score"] != nil {
		t.Fatalf("newest action: %v", first)
	}
	byPlayer := f.must("GET", "/v1/admin/leagues/weekly/audit?player=a", "")["actions"].([]any)
	byPeriod := f.must("GET", "/v1/admin/leagues/weekly/audit?period="+firstPeriod, "")["actions"].([]any)
	if len(byPlayer) != 2 || len(byPeriod) != 3 {
		t.Fatalf("by player a: %d, by the first period: %d; want 2 and 3", len(byPlayer), len(byPeriod))
	}
	var ids []string
	path := "/v1/admin/leagues/weekly/audit?limit=2"
	for pages := 0; pages < 5; pages++ {
		page := f.must("GET", path, "")
		for _, a := range page["actions"].([]any) {
			ids = append(ids, a.(map[string]any)["id"].(string))
		}
		next, ok := page["next"].(string)
		if !ok {
			break
		}
		path = "/v1/admin/leagues/weekly/audit?limit=2&before=" + next
	}
	if len(ids) != 5 || ids[0] != first["id"] {
		t.Fatalf("pages of 2: %v", ids)
	}
	for _, c := range []struct {
		query, key string
		status     int
	}{
		{"?limit=0", adminKey, 400}, {"?limit=x", adminKey, 400}, {"?before=abc", adminKey, 400},
		{"?period=monday", adminKey, 400}, {"?player=bad%20id", adminKey, 400}, {"?perod=1", adminKey, 400},
		{"", gameKey, 403}, {"", noKey, 401},
	} {
		if w := f.do("GET", "/v1/admin/leagues/weekly/audit"+c.query, "", c.key); w.Code != c.status {
			t.Errorf("audit%s: %d, want %d: %s", c.query, w.Code, c.status, w.Body)
		}
	}
	if w := f.do("GET", "/v1/admin/leagues/nope/audit", "", adminKey); w.Code != 404 {
		t.Errorf("audit of an unknown league: %d", w.Code)
	}
}

// downLog is an audit log whose store is down.
type downLog struct{}

func (downLog) RecordActions(context.Context, []league.Action) error { return errStoreDown }
func (downLog) Actions(context.Context, league.AuditQuery) ([]league.Action, error) {
	return nil, errStoreDown
}

// TestModerationWithStoreDown: the action stands and says it is not
// recorded yet; its record waits in Redis, and reaches the store once it
// answers, once.
func TestModerationWithStoreDown(t *testing.T) {
	f := onRedis(t, withConfig(func(c *api.Config) { c.Audit = downLog{} }))
	f.join("alice")
	r := f.must("POST", modPath+"alice/hide", `{"reason":"x"}`)
	if r["changed"] != true || r["recorded"] != false || r["action_id"] == nil {
		t.Fatalf("hide with the store down: %v", r)
	}
	if w := f.do("GET", "/v1/admin/leagues/weekly/audit", "", adminKey); w.Code != http.StatusServiceUnavailable {
		t.Fatalf("audit with the store down: %d %s", w.Code, w.Body)
	}
	for range 2 {
		_, err := f.engine.RecordActions(f.ctx, "weekly", f.store)
		testsvc.Must(t, err, "RecordActions")
	}
	got, err := f.store.Actions(f.ctx, league.AuditQuery{League: "weekly", Limit: 10})
	testsvc.Must(t, err, "Actions")
	if len(got) != 1 || got[0].ID != r["action_id"] || got[0].Actor != "admin-1" {
		t.Fatalf("the store's audit: %+v", got)
	}
}
