package api_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/league-engine/league/api"
	"github.com/league-engine/league/league"
)

// TestOpenAPICoversEveryRoute drives every route over HTTP against the real
// Redis, in success and in failure, checking each reply against
// openapi.yaml (fixture.do does), then checks that every operation of the
// document answered both a success and, where it has any, an error.
func TestOpenAPICoversEveryRoute(t *testing.T) {
	f := onRedis(t)
	week := f.period()

	// Join, score, batch, standings, board, player: successes.
	f.join("alice")
	f.join("bob")
	f.join("alice") // rejoined
	f.score("alice", 7)
	f.must("POST", "/v1/leagues/weekly/scores", `{"player_id":"bob","value":3,"request_id":"r1"}`)
	f.must("POST", "/v1/leagues/weekly/scores", `{"player_id":"bob","value":3,"request_id":"r1"}`) // replayed
	f.must("POST", "/v1/leagues/weekly/scores/batch",
		`{"writes":[{"player_id":"alice","value":1},{"player_id":"nobody","value":1},{"player_id":"bob","value":5000}]}`)
	f.must("POST", "/v1/leagues/weekly/standings", `{"player_ids":["alice","bob","nobody","bad id"]}`)
	f.must("GET", "/v1/leagues/weekly/boards/bronze-1", "")
	f.must("GET", "/v1/leagues/weekly/boards/bronze-1?period="+firstPeriod, "")
	f.must("GET", "/v1/leagues/weekly/players/alice", "")
	f.must("GET", "/v1/leagues", "")
	f.must("GET", "/v1/leagues/weekly", "")
	f.must("GET", "/healthz", "")
	f.must("GET", "/readyz", "")
	f.must("GET", "/metrics", "")
	f.must("GET", "/openapi.yaml", "")
	exerciseLeaderboards(t, f)

	// Failures of the game routes.
	for _, c := range []struct {
		method, path, body, key string
		status                  int
	}{
		{"POST", "/v1/leagues/weekly/join", `{"player_id":"x"}`, gameKey, 400},
		{"POST", "/v1/leagues/weekly/join", `{"player_id":"x","name":"x"}`, noKey, 401},
		{"POST", "/v1/leagues/nope/join", `{"player_id":"x","name":"x"}`, gameKey, 404},
		{"POST", "/v1/leagues/weekly/join", `{"player_id":"` + strings.Repeat("x", api.MaxBody) + `"}`, gameKey, 413},
		{"POST", "/v1/leagues/weekly/scores", `{"player_id":"alice","value":1.5}`, gameKey, 400},
		{"POST", "/v1/leagues/weekly/scores", `{"player_id":"alice","value":1}`, "wrong", 401},
		{"POST", "/v1/leagues/nope/scores", `{"player_id":"alice","value":1}`, gameKey, 404},
		{"POST", "/v1/leagues/weekly/scores", `{"player_id":"nobody","value":1}`, gameKey, 409},
		{"POST", "/v1/leagues/weekly/scores", `{"player_id":"alice","value":1001}`, gameKey, 422},
		{"POST", "/v1/leagues/weekly/scores", `{"player_id":"alice","value":1}` + strings.Repeat(" ", api.MaxBody), gameKey, 413},
		{"POST", "/v1/leagues/weekly/scores/batch", `{"writes":[{"player_id":"alice"}]}`, gameKey, 400},
		{"POST", "/v1/leagues/weekly/scores/batch", `{"writes":[]}`, noKey, 401},
		{"POST", "/v1/leagues/nope/scores/batch", `{"writes":[]}`, gameKey, 404},
		{"POST", "/v1/leagues/weekly/scores/batch", `{"writes":[` + strings.Repeat(`{"player_id":"alice","value":1},`, 40000) + `]}`, gameKey, 413},
		{"GET", "/v1/leagues/weekly/players/bad%20id", "", gameKey, 400},
		{"GET", "/v1/leagues/weekly/players/alice", "", noKey, 401},
		{"GET", "/v1/leagues/weekly/players/nobody", "", gameKey, 404},
		{"POST", "/v1/leagues/weekly/standings", `{}`, gameKey, 400},
		{"POST", "/v1/leagues/weekly/standings", `{"player_ids":[]}`, noKey, 401},
		{"POST", "/v1/leagues/nope/standings", `{"player_ids":[]}`, gameKey, 404},
		{"POST", "/v1/leagues/weekly/standings", `{"player_ids":["` + strings.Repeat("x", api.MaxBody) + `"]}`, gameKey, 413},
		{"GET", "/v1/leagues/weekly/boards/bronze", "", gameKey, 400},
		{"GET", "/v1/leagues/weekly/boards/bronze-1", "", noKey, 401},
		{"GET", "/v1/leagues/weekly/boards/bronze-9", "", gameKey, 404},
		{"GET", "/v1/leagues", "", noKey, 401},
		{"GET", "/v1/leagues/weekly", "", noKey, 401},
		{"GET", "/v1/leagues/nope", "", gameKey, 404},
	} {
		if w := f.do(c.method, c.path, c.body, c.key); w.Code != c.status {
			t.Errorf("%s %s: status %d, want %d: %.200s", c.method, c.path, w.Code, c.status, w.Body)
		}
	}

	// Admin routes.
	f.must("POST", "/v1/admin/leagues/weekly/settle", "")
	f.must("POST", "/v1/admin/leagues/weekly/settle", `{"period":"`+firstPeriod+`"}`)
	f.must("GET", "/v1/admin/leagues/weekly/settlements", "")
	f.must("GET", "/v1/admin/leagues/weekly/settlements?limit=5", "")
	f.must("GET", "/v1/admin/leagues/weekly/preview", "")
	f.must("GET", "/v1/admin/leagues/weekly/preview?limit=1&period="+firstPeriod, "")
	someEvents(f) // one of each type, checked against the document
	f.must("GET", "/v1/admin/events", "")
	f.must("GET", "/v1/admin/events?after=2&limit=3", "")
	for _, c := range []struct {
		method, path, body, key string
		status                  int
	}{
		{"POST", "/v1/admin/leagues/weekly/settle", `{"period":"monday"}`, adminKey, 400},
		{"POST", "/v1/admin/leagues/weekly/settle", ``, noKey, 401},
		{"POST", "/v1/admin/leagues/weekly/settle", ``, gameKey, 403},
		{"POST", "/v1/admin/leagues/nope/settle", ``, adminKey, 404},
		{"POST", "/v1/admin/leagues/weekly/settle", `{"period":"20261117T000000Z"}`, adminKey, 404},
		{"POST", "/v1/admin/leagues/weekly/settle", `{"period":"` + strings.Repeat("1", api.MaxBody) + `"}`, adminKey, 413},
		{"GET", "/v1/admin/leagues/weekly/settlements?limit=0", "", adminKey, 400},
		{"GET", "/v1/admin/leagues/weekly/settlements", "", noKey, 401},
		{"GET", "/v1/admin/leagues/weekly/settlements", "", gameKey, 403},
		{"GET", "/v1/admin/leagues/nope/settlements", "", adminKey, 404},
		{"GET", "/v1/admin/leagues/weekly/preview?limit=-1", "", adminKey, 400},
		{"GET", "/v1/admin/leagues/weekly/preview", "", noKey, 401},
		{"GET", "/v1/admin/leagues/weekly/preview", "", gameKey, 403},
		{"GET", "/v1/admin/leagues/nope/preview", "", adminKey, 404},
		{"GET", "/v1/admin/events?after=-1", "", adminKey, 400},
		{"GET", "/v1/admin/events", "", noKey, 401},
		{"GET", "/v1/admin/events", "", gameKey, 403},
	} {
		if w := f.do(c.method, c.path, c.body, c.key); w.Code != c.status {
			t.Errorf("%s %s: status %d, want %d: %.200s", c.method, c.path, w.Code, c.status, w.Body)
		}
	}
	// Moderation and the audit.
	for _, c := range []struct{ action, body string }{
		{"hide", `{"reason":"r"}`}, {"unhide", `{"reason":"r"}`}, {"set-score", `{"reason":"r","score":9}`},
		{"ban", `{"reason":"r","duration":"1h"}`}, {"unban", `{"reason":"r"}`}, {"remove", `{"reason":"r","period":null}`},
	} {
		f.must("POST", "/v1/admin/leagues/weekly/players/bob/"+c.action, c.body)
		for _, bad := range []struct {
			player, body, key string
			status            int
		}{
			{"bob", `{}`, adminKey, 400}, {"bob", c.body, noKey, 401}, {"bob", c.body, gameKey, 403},
			{"nobody", c.body, adminKey, 404}, {"bob", `{"reason":"` + strings.Repeat("x", api.MaxBody) + `"}`, adminKey, 413},
		} {
			if w := f.do("POST", "/v1/admin/leagues/weekly/players/"+bad.player+"/"+c.action, bad.body, bad.key); w.Code != bad.status {
				t.Errorf("%s %s: status %d, want %d: %.200s", c.action, bad.body, w.Code, bad.status, w.Body)
			}
		}
	}
	if w := f.do("POST", "/v1/admin/leagues/weekly/players/bob/unhide", `{"reason":"r"}`, adminKey); w.Code != http.StatusConflict {
		t.Errorf("unhide of a removed player: status %d, want 409", w.Code)
	}
	f.must("GET", "/v1/leagues/weekly/players/bob", "") // moderation: removed
	f.must("GET", "/v1/admin/leagues/weekly/audit", "")
	f.must("GET", "/v1/admin/leagues/weekly/audit?player=bob&period="+firstPeriod+"&limit=2&before=99999999999999-0", "")
	for _, c := range []struct{ query, key string }{{"?limit=0", adminKey}, {"", noKey}, {"", gameKey}} {
		f.do("GET", "/v1/admin/leagues/weekly/audit"+c.query, "", c.key)
	}
	f.do("GET", "/v1/admin/leagues/nope/audit", "", adminKey)
	f.must("GET", "/v1/admin/leagues/weekly/trail?player=bob", "")
	f.do("GET", "/v1/admin/leagues/weekly/trail", "", adminKey) // neither player nor period: 400
	if w := f.do("POST", "/v1/leagues/weekly/scores", `{"player_id":"bob","value":1}`, gameKey); w.Code != http.StatusForbidden {
		t.Errorf("write of a removed player: status %d, want 403", w.Code)
	}
	f.must("POST", "/v1/admin/leagues/weekly/players/alice/ban", `{"reason":"r","until":"2027-01-01T00:00:00Z"}`)
	if w := f.do("POST", "/v1/leagues/weekly/join", `{"player_id":"alice","name":"a"}`, gameKey); w.Code != http.StatusForbidden {
		t.Errorf("join of a banned player: status %d, want 403", w.Code)
	}
	f.must("POST", "/v1/admin/leagues/weekly/players/alice/unban", `{"reason":"r"}`)

	f.settler.err = league.ErrNotEnded
	if w := f.do("POST", "/v1/admin/leagues/weekly/settle", "", adminKey); w.Code != http.StatusConflict {
		t.Errorf("settle of a running period: status %d, want 409", w.Code)
	}

	// The week ends: late writes are refused, then settlement gives history
	// and rewards, which the next join delivers.
	f.clock.After(week.End)
	if w := f.do("POST", "/v1/leagues/weekly/scores", `{"player_id":"alice","value":1}`, gameKey); w.Code != http.StatusConflict {
		t.Errorf("late write: status %d, want 409", w.Code)
	}
	f.must("GET", "/v1/admin/leagues/weekly/preview?period="+firstPeriod, "") // final
	f.settleWeek(week)
	if w := f.do("GET", "/v1/admin/leagues/weekly/preview?period="+firstPeriod, "", adminKey); w.Code != http.StatusConflict {
		t.Errorf("preview of a settled period: status %d, want 409: %s", w.Code, w.Body)
	}
	f.must("GET", "/v1/leagues/weekly/players/alice", "") // pending rewards, history
	f.join("alice")                                       // delivers them
	f.must("GET", "/v1/leagues/weekly/players/alice", "") // claimed
	f.must("GET", "/v1/leagues/weekly/players/bob", "")   // not joined this week
	f.must("GET", "/v1/leagues/weekly/boards/bronze-1?period="+firstPeriod, "")

	// Dependencies down: Postgres (history unavailable, 503 on admin reads)
	// and Redis (503 everywhere it is needed).
	pg := onRedis(t, withConfig(func(c *api.Config) { c.Store = failingStore{c.Store} }))
	pg.join("carol")
	pg.must("GET", "/v1/leagues/weekly/players/carol", "")
	if w := pg.do("GET", "/v1/admin/leagues/weekly/settlements", "", adminKey); w.Code != http.StatusServiceUnavailable {
		t.Errorf("settlements with the store down: status %d, want 503", w.Code)
	}
	if w := pg.do("GET", "/readyz", "", noKey); w.Code != http.StatusOK {
		t.Errorf("readyz with the store down: status %d, want 200 (the store is reported, not required)", w.Code)
	}
	noSettler := onRedis(t, withConfig(func(c *api.Config) { c.Settler = nil }))
	if w := noSettler.do("POST", "/v1/admin/leagues/weekly/settle", "", adminKey); w.Code != http.StatusServiceUnavailable {
		t.Errorf("settle without a settler: status %d, want 503", w.Code)
	}
	down := onDownRedis(t)
	for _, c := range []struct{ method, path, body string }{
		{"POST", "/v1/leagues/weekly/join", `{"player_id":"x","name":"x"}`},
		{"POST", "/v1/leagues/weekly/scores", `{"player_id":"x","value":1}`},
		{"POST", "/v1/leagues/weekly/scores/batch", `{"writes":[{"player_id":"x","value":1}]}`},
		{"GET", "/v1/leagues/weekly/players/x", ""},
		{"POST", "/v1/leagues/weekly/standings", `{"player_ids":["x"]}`},
		{"GET", "/v1/leagues/weekly/boards/bronze-1", ""},
		{"GET", "/v1/leagues", ""},
		{"GET", "/v1/leagues/weekly", ""},
		{"GET", "/readyz", ""},
	} {
		if w := down.do(c.method, c.path, c.body, gameKey); w.Code != http.StatusServiceUnavailable {
			t.Errorf("%s %s with Redis down: status %d, want 503: %s", c.method, c.path, w.Code, w.Body)
		}
	}

	// Every operation answered a success, and an error where it has any.
	doc, err := openapi3.NewLoader().LoadFromData(api.OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	seen := seenStatuses()
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			got := seen[op.OperationID]
			var ok, failed bool
			for _, c := range got {
				ok = ok || c < 300
				failed = failed || c >= 400
			}
			hasErrors := false
			for code := range op.Responses.Map() {
				hasErrors = hasErrors || code >= "4"
			}
			if !ok || (hasErrors && !failed) {
				t.Errorf("%s %s (%s): statuses checked against the document %v; want a success and an error", method, path, op.OperationID, got)
			}
		}
	}
}

// TestOpenAPIServed checks /openapi.yaml serves the embedded document.
func TestOpenAPIServed(t *testing.T) {
	f := onMini(t)
	w := f.do("GET", "/openapi.yaml", "", noKey)
	if w.Code != http.StatusOK || w.Body.String() != string(api.OpenAPI) {
		t.Fatalf("status %d, body of %d bytes; want 200 and the embedded document", w.Code, w.Body.Len())
	}
	if ct := w.Header().Get("Content-Type"); ct != "application/yaml" {
		t.Fatalf("Content-Type %q, want application/yaml", ct)
	}
}
