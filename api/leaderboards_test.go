package api_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/league-engine/league/api"
	"github.com/league-engine/league/internal/testsvc"
)

// exerciseLeaderboards sends every leaderboard route a success and its
// errors, each reply checked against openapi.yaml by fixture.do.
func exerciseLeaderboards(t *testing.T, f *fixture) {
	t.Helper()
	f.must("POST", "/v1/leaderboards/kills/scores", `{"member":"alice","value":5}`)
	f.must("POST", "/v1/leaderboards/kills/scores", `{"member":"bob","value":7,"request_id":"r1"}`)
	f.must("POST", "/v1/leaderboards/kills/scores", `{"member":"bob","value":7,"request_id":"r1"}`) // replayed
	f.must("POST", "/v1/leaderboards/kills/scores/batch", `{"writes":[{"member":"carol","value":1},{"member":"alice","value":5000}]}`)
	f.must("POST", "/v1/leaderboards/scores/batch", `{"writes":[{"leaderboard":"kills","member":"dan","value":2},{"member":"erin","value":1,"leaderboard":"kills","request_id":"m1"},{"leaderboard":"kills","member":"dan","value":5000}]}`)
	f.must("GET", "/v1/leaderboards/kills/boards/day", "")
	f.must("GET", "/v1/leaderboards/kills/boards/all_time?offset=1&limit=2", "")
	f.must("GET", "/v1/leaderboards/kills/boards/week?around=alice&limit=1", "")
	f.must("GET", "/v1/leaderboards/kills/boards/7d?view=raw", "")
	f.must("GET", "/v1/leaderboards/kills/boards/7d?around=bob&limit=1&view=raw", "")
	f.must("GET", "/v1/leaderboards/kills/boards/day?view=public", "")
	f.must("GET", "/v1/leaderboards/kills/members/bob?view=raw", "")
	f.must("POST", "/v1/leaderboards/kills/members", `{"members":["bob"],"view":"public"}`)
	f.must("GET", "/v1/leaderboards/kills/members/alice", "")
	f.must("GET", "/v1/leaderboards/kills/members/nobody", "")
	f.must("POST", "/v1/leaderboards/kills/members", `{"members":["alice","nobody","a b"],"boards":["7d","day"],"view":"raw"}`)
	f.must("POST", "/v1/leaderboards/kills/members", `{"members":["bob"]}`)
	f.must("GET", "/v1/leaderboards", "")
	f.must("GET", "/v1/leaderboards/kills", "")
	if w := f.do("POST", "/v1/admin/leaderboards/kills/catalog", `{"entries":[{"member":"alice","name":"Alice","metadata":{"avatar":"a.png"}}]}`, adminKey); w.Code != 200 {
		t.Errorf("import JSON: %d %s", w.Code, w.Body)
	}
	if w := f.doAs("POST", "/v1/admin/leaderboards/kills/catalog", "member,name,team\nbob,Bob,red\n", adminKey, "text/csv"); w.Code != 200 ||
		!strings.Contains(w.Body.String(), `"changed":1`) {
		t.Errorf("import CSV: %d %s", w.Code, w.Body)
	}
	// the catalog read back, a multiplier set, a refused import's rows
	f.must("GET", "/v1/admin/leaderboards/kills/catalog?limit=1", "")
	f.must("GET", "/v1/admin/leaderboards/kills/catalog/bob", "")
	if got := f.must("PUT", "/v1/admin/leaderboards/kills/catalog/bob/multiplier", `{"multiplier":3}`); got["previous"] != 1.0 || got["multiplier"] != 3.0 {
		t.Errorf("multiplier: %v", got)
	}
	w := f.doAs("POST", "/v1/admin/leaderboards/kills/catalog", "member,name,initial_score\nok,Fine,1\nx y,Bad,\nz,Z,many\n", adminKey, "text/csv")
	if w.Code != 400 || !strings.Contains(w.Body.String(), `"problems":[{"entry":"row 3","field":"member",`) ||
		!strings.Contains(w.Body.String(), `{"entry":"row 4","field":"initial_score","message":"\"many\" is not a whole number"}],"more_problems":0}`) {
		t.Errorf("a CSV import with two bad rows: %d %s", w.Code, w.Body)
	}
	if w := f.do("GET", "/v1/admin/leaderboards/kills/catalog/ok", "", adminKey); w.Code != 404 {
		t.Errorf("the refused import's good row was written: %d %s", w.Code, w.Body)
	}
	// a vote refused by its limit, in the refusals log
	f.must("POST", "/v1/leaderboards/votes/scores", `{"member":"band","value":1,"actor":"fan-1","channel":"web"}`)
	if w := f.do("POST", "/v1/leaderboards/votes/scores", `{"member":"band","value":1,"actor":"fan-1","channel":"partner"}`, gameKey); w.Code != 429 {
		t.Errorf("a second vote: %d %s", w.Code, w.Body)
	}
	if got := f.must("GET", "/v1/admin/leaderboards/votes/limits?limit=5", "")["refusals"].([]any); len(got) != 1 ||
		got[0].(map[string]any)["actor"] != "fan-1" || got[0].(map[string]any)["limit"] != "actor-day" || got[0].(map[string]any)["channel"] != "partner" {
		t.Errorf("the votes' refusals: %v", got)
	}
	f.must("GET", "/v1/admin/leaderboards/kills/limits", "")
	for _, c := range []struct {
		method, path, body, key string
		status                  int
	}{
		{"GET", "/v1/admin/leaderboards/kills/catalog", "", gameKey, 403},
		{"GET", "/v1/admin/leaderboards/kills/catalog?limit=0", "", adminKey, 400},
		{"GET", "/v1/admin/leaderboards/kills/catalog?cursor=nope", "", adminKey, 400},
		{"GET", "/v1/admin/leaderboards/votes/catalog", "", adminKey, 400},
		{"GET", "/v1/admin/leaderboards/nope/catalog", "", adminKey, 404},
		{"GET", "/v1/admin/leaderboards/kills/catalog/nobody", "", adminKey, 404},
		{"GET", "/v1/admin/leaderboards/kills/catalog/a%20b", "", adminKey, 400},
		{"GET", "/v1/admin/leaderboards/kills/catalog/bob", "", noKey, 401},
		{"PUT", "/v1/admin/leaderboards/kills/catalog/bob/multiplier", `{"multiplier":0}`, adminKey, 400},
		{"PUT", "/v1/admin/leaderboards/kills/catalog/bob/multiplier", `{"multiplier":1.5}`, adminKey, 400},
		{"PUT", "/v1/admin/leaderboards/kills/catalog/bob/multiplier", `{"multiplier":"2"}`, adminKey, 400},
		{"PUT", "/v1/admin/leaderboards/kills/catalog/bob/multiplier", `{}`, adminKey, 400},
		{"PUT", "/v1/admin/leaderboards/kills/catalog/bob/multiplier", `{"multiplier":2,"x":1}`, adminKey, 400},
		{"PUT", "/v1/admin/leaderboards/kills/catalog/bob/multiplier", `{"multiplier":2}`, gameKey, 403},
		{"PUT", "/v1/admin/leaderboards/nope/catalog/bob/multiplier", `{"multiplier":2}`, adminKey, 404},
		{"PUT", "/v1/admin/leaderboards/kills/catalog/bob/multiplier", `{"multiplier":2}` + strings.Repeat(" ", api.MaxBody), adminKey, 413},
		{"GET", "/v1/admin/leaderboards/votes/limits?limit=0", "", adminKey, 400},
		{"GET", "/v1/admin/leaderboards/votes/limits?top=1", "", adminKey, 400},
		{"GET", "/v1/admin/leaderboards/votes/limits", "", gameKey, 403},
		{"GET", "/v1/admin/leaderboards/nope/limits", "", adminKey, 404},
		{"POST", "/v1/leaderboards/kills/scores", `{"member":"","value":1}`, gameKey, 400},
		{"POST", "/v1/leaderboards/kills/scores", `{"member":"a","value":1.5}`, gameKey, 400},
		{"POST", "/v1/leaderboards/kills/scores", `{"player_id":"a","value":1}`, gameKey, 400},
		{"POST", "/v1/leaderboards/kills/scores", `{"member":"a","value":1}`, noKey, 401},
		{"POST", "/v1/leaderboards/nope/scores", `{"member":"a","value":1}`, gameKey, 404},
		{"POST", "/v1/leaderboards/kills/scores", `{"member":"carol","value":1,"request_id":"r1"}`, gameKey, 409},
		{"POST", "/v1/leaderboards/kills/scores", `{"member":"bob","value":999}`, gameKey, 422},
		{"POST", "/v1/leaderboards/kills/scores", `{"member":"a","value":1}` + strings.Repeat(" ", api.MaxBody), gameKey, 413},
		{"POST", "/v1/leaderboards/kills/scores/batch", `{"writes":[{"member":"a"}]}`, gameKey, 400},
		{"POST", "/v1/leaderboards/scores/batch", `{"writes":[{"member":"a","value":1}]}`, gameKey, 400},
		{"POST", "/v1/leaderboards/scores/batch", `{"writes":[{"leaderboard":"kills","member":"a","value":1},{"leaderboard":"nope","member":"a","value":1}]}`, gameKey, 404},
		{"POST", "/v1/leaderboards/scores/batch", `{"writes":[]}`, noKey, 401},
		{"POST", "/v1/leaderboards/kills/scores/batch", `{"writes":[]}`, noKey, 401},
		{"POST", "/v1/leaderboards/nope/scores/batch", `{"writes":[]}`, gameKey, 404},
		{"POST", "/v1/leaderboards/kills/scores/batch", `{"writes":[` + strings.Repeat(`{"member":"a","value":1},`, 45000) + `]}`, gameKey, 413},
		{"GET", "/v1/leaderboards/kills/boards/day?limit=0", "", gameKey, 400},
		{"GET", "/v1/leaderboards/kills/boards/day?offset=-1", "", gameKey, 400},
		{"GET", "/v1/leaderboards/kills/boards/day?period=20261125T013000Z", "", gameKey, 400},
		{"GET", "/v1/leaderboards/kills/boards/day?around=a&offset=1", "", gameKey, 400},
		{"GET", "/v1/leaderboards/kills/boards/day?top=1", "", gameKey, 400},
		{"GET", "/v1/leaderboards/kills/boards/day", "", noKey, 401},
		{"GET", "/v1/leaderboards/kills/boards/year", "", gameKey, 404},
		{"GET", "/v1/leaderboards/kills/boards/30d", "", gameKey, 404},
		{"GET", "/v1/leaderboards/kills/boards/7d?view=public", "", gameKey, 404},
		{"GET", "/v1/leaderboards/kills/boards/day?view=both", "", gameKey, 400},
		{"GET", "/v1/leaderboards/kills/members/alice?view=x", "", gameKey, 400},
		{"POST", "/v1/leaderboards/kills/members", `{"members":["a"],"view":"all"}`, gameKey, 400},
		{"GET", "/v1/leaderboards/kills/boards/day?around=nobody", "", gameKey, 404},
		{"GET", "/v1/leaderboards/kills/members/a%20b", "", gameKey, 400},
		{"POST", "/v1/leaderboards/kills/members", `{"boards":["day"]}`, gameKey, 400},
		{"POST", "/v1/leaderboards/kills/members", `{"members":["a"],"boards":["year"]}`, gameKey, 400},
		{"POST", "/v1/leaderboards/kills/members", `{"members":["a"],"boards":["30d"]}`, gameKey, 404},
		{"POST", "/v1/leaderboards/kills/members", `{"members":[1]}`, gameKey, 400},
		{"POST", "/v1/leaderboards/kills/members", `{"members":[]}`, noKey, 401},
		{"GET", "/v1/leaderboards/kills/members/alice", "", noKey, 401},
		{"GET", "/v1/leaderboards/nope/members/alice", "", gameKey, 404},
		{"GET", "/v1/leaderboards", "", noKey, 401},
		{"GET", "/v1/leaderboards/nope", "", gameKey, 404},
		{"GET", "/v1/leaderboards/kills", "", noKey, 401},
		{"POST", "/v1/admin/leaderboards/kills/catalog", `{"entries":[{"member":"x","name":"X"}]}`, gameKey, 403},
		{"POST", "/v1/admin/leaderboards/kills/catalog", `{"entries":[{"member":"x","name":"X"},{"member":"y","metadata":7}]}`, adminKey, 400},
		{"POST", "/v1/admin/leaderboards/kills/catalog", `{"entries":[{"member":"x","initial_score":5000}]}`, adminKey, 422},
		{"POST", "/v1/admin/leaderboards/kills/catalog", `{"members":[]}`, adminKey, 400},
		{"POST", "/v1/admin/leaderboards/nope/catalog", `{"entries":[]}`, adminKey, 404},
	} {
		if w := f.do(c.method, c.path, c.body, c.key); w.Code != c.status {
			t.Errorf("%s %.80s: status %d, want %d: %.300s", c.method, c.path, w.Code, c.status, w.Body)
		}
	}
}

// TestLeaderboardRoutes: a write lands on every board; a retry replays;
// the reads agree with the writes; refusals change nothing.
func TestLeaderboardRoutes(t *testing.T) {
	f := onRedis(t)
	exerciseLeaderboards(t, f)
	w := f.must("POST", "/v1/leaderboards/kills/scores", `{"member":"alice","value":2}`)
	boards := w["boards"].([]any)
	if len(boards) != 6 {
		t.Fatalf("boards %v, want 6", boards)
	}
	for _, b := range boards {
		b := b.(map[string]any)
		// 5 + 2; bob has 7 too, and ties go by member id, the greater first
		if b["score"] != 7.0 || b["rank"] != 2.0 {
			t.Errorf("%v board: alice %v at rank %v, want 7 at rank 2", b["kind"], b["score"], b["rank"])
		}
	}
	if day := f.must("GET", "/v1/leaderboards/kills/boards/day", "")["entries"].([]any); day[1].(map[string]any)["name"] != "Alice" ||
		day[1].(map[string]any)["metadata"].(map[string]any)["avatar"] != "a.png" {
		t.Errorf("the day board does not carry alice's catalog entry: %v", day)
	}
	many := f.must("POST", "/v1/leaderboards/kills/members", `{"members":["alice","a b","bob"],"boards":["day","7d"],"view":"raw"}`)["members"].([]any)
	alice, bad, bob := many[0].(map[string]any), many[1].(map[string]any), many[2].(map[string]any)
	if b := alice["boards"].([]any); len(b) != 2 || b[0].(map[string]any)["score"] != 7.0 || b[1].(map[string]any)["kind"] != "7d" ||
		bad["error"].(map[string]any)["code"] != "invalid" || bob["boards"].([]any)[0].(map[string]any)["rank"] != 1.0 {
		t.Errorf("members on two boards: %v", many)
	}
	if got := decodeJSON(t, f.do("GET", "/v1/leaderboards/kills/boards/month", "", gameKey).Body.Bytes()); got["size"] != 5.0 {
		t.Errorf("month board: %v, want alice, bob, carol, dan and erin (refused writes and batches wrote nothing)", got)
	}
	// No pre-fill has run: the rolling board says it is incomplete, and
	// is complete once filled.
	if got := decodeJSON(t, f.do("GET", "/v1/leaderboards/kills/boards/7d?view=raw", "", gameKey).Body.Bytes()); got["incomplete"] != true || got["size"] != 5.0 {
		t.Errorf("7d board before a pre-fill: %v, want incomplete with alice, bob, carol, dan and erin", got)
	}
	if _, err := f.boards.PreFill(f.ctx, "kills"); err != nil {
		t.Fatal(err)
	}
	got := decodeJSON(t, f.do("GET", "/v1/leaderboards/kills/boards/7d?view=raw", "", gameKey).Body.Bytes())
	if got["incomplete"] != false || got["window_start"] != "2026-11-10T00:00:00Z" {
		t.Errorf("7d board after a pre-fill: %v, want complete, from 6 days before today", got)
	}
	// The hour closes, is archived, and once past its hour of retention
	// reads from the archive.
	hour := f.clock.Now().Truncate(time.Hour)
	f.clock.Set(hour.Add(time.Hour + time.Minute))
	if _, err := f.boards.Archive(f.ctx, "kills"); err != nil {
		t.Fatal(err)
	}
	f.clock.Set(hour.Add(2*time.Hour + time.Minute))
	path := "/v1/leaderboards/kills/boards/hour?view=raw&limit=2&period=" + hour.UTC().Format("20060102T150405Z")
	got = f.must("GET", path, "")
	if got["archived"] != true || got["size"] != 5.0 || len(got["entries"].([]any)) != 2 {
		t.Errorf("an archived hour: %v", got)
	}
	f.must("GET", path+"&around=carol", "")
}

// TestLeaderboardScopes: a key opens only its leaderboards.
func TestLeaderboardScopes(t *testing.T) {
	const euKey = "eu-secret-0123456789"
	f := onRedis(t, withConfig(func(c *api.Config) {
		c.Keys = []api.Key{{Name: "eu", Leaderboards: []string{"other"}, Secrets: []string{euKey}}}
	}))
	w := f.do("POST", "/v1/leaderboards/kills/scores", `{"member":"a","value":1}`, euKey)
	if _, msg := errorOf(t, w); w.Code != http.StatusForbidden || !strings.Contains(msg, `may not call leaderboard "kills"`) {
		t.Fatalf("write outside the key's scope: %d %q", w.Code, msg)
	}
	w = f.do("POST", "/v1/leaderboards/scores/batch", `{"writes":[{"leaderboard":"kills","member":"a","value":1}]}`, euKey)
	if _, msg := errorOf(t, w); w.Code != http.StatusForbidden || !strings.Contains(msg, `writes[0].leaderboard: key "eu" may not call leaderboard "kills"`) {
		t.Fatalf("a batch with a write outside the key's scope: %d %q", w.Code, msg)
	}
	w = f.do("GET", "/v1/leaderboards", "", euKey)
	if got := decodeJSON(t, w.Body.Bytes())["leaderboards"].([]any); len(got) != 0 {
		t.Fatalf("listed %v, want none", got)
	}
	w = f.do("POST", "/v1/leagues/weekly/join", `{"player_id":"a","name":"A"}`, euKey)
	if w.Code != http.StatusOK {
		t.Fatalf("a key scoped to leaderboards still opens every league: %d", w.Code)
	}
}

// TestLeaderboardPublicBoards: a multiplier imported by an admin counts on
// the public boards the write reply and the default reads show; view=raw
// shows the true counts.
func TestLeaderboardPublicBoards(t *testing.T) {
	f := onRedis(t)
	if w := f.do("POST", "/v1/admin/leaderboards/kills/catalog", `{"entries":[{"member":"star","name":"Star","multiplier":10}]}`, adminKey); w.Code != 200 {
		t.Fatalf("import: %d %s", w.Code, w.Body)
	}
	w := f.must("POST", "/v1/leaderboards/kills/scores", `{"member":"star","value":2}`)
	if pub := w["public"].([]any); len(pub) != 5 || pub[1].(map[string]any)["score"] != 20.0 || w["boards"].([]any)[1].(map[string]any)["score"] != 2.0 {
		t.Fatalf("write reply: %v", w)
	}
	f.must("POST", "/v1/leaderboards/kills/scores", `{"member":"fan","value":5}`)
	public := f.must("GET", "/v1/leaderboards/kills/boards/day", "")["entries"].([]any)
	raw := f.must("GET", "/v1/leaderboards/kills/boards/day?view=raw", "")["entries"].([]any)
	if public[0].(map[string]any)["member"] != "star" || public[0].(map[string]any)["score"] != 20.0 || public[0].(map[string]any)["name"] != "Star" ||
		raw[0].(map[string]any)["member"] != "fan" || raw[1].(map[string]any)["score"] != 2.0 {
		t.Fatalf("public %v, raw %v", public, raw)
	}
}

// TestLeaderboardRateLimit: a vote past a limit answers 429 with the limit
// and Retry-After, writes nothing, and counts in the metric.
func TestLeaderboardRateLimit(t *testing.T) {
	f := onRedis(t)
	f.must("POST", "/v1/leaderboards/votes/scores", `{"member":"cand","value":1,"actor":"fan1","channel":"web","terminal":"mobile"}`)
	w := f.do("POST", "/v1/leaderboards/votes/scores", `{"member":"other","value":1,"actor":"fan1"}`, gameKey)
	code, msg := errorOf(t, w)
	if w.Code != http.StatusTooManyRequests || code != "rate_limited" || !strings.Contains(msg, `limit "actor-day" of leaderboard "votes" allows 1 a day`) ||
		w.Header().Get("Retry-After") == "" {
		t.Fatalf("a second vote: %d %s %q (Retry-After %q)", w.Code, code, msg, w.Header().Get("Retry-After"))
	}
	if got := f.must("GET", "/v1/leaderboards/votes/boards/day", ""); got["size"] != 1.0 || got["participants"] != 1.0 {
		t.Fatalf("the refused vote wrote: %v", got)
	}
	if got := f.must("GET", "/v1/leaderboards/votes/boards/day?around=cand", ""); got["participants"] != 1.0 {
		t.Fatalf("the window around cand: %v, want 1 participant", got)
	}
	if st := f.must("GET", "/v1/leaderboards/votes/members/cand", "")["boards"].([]any)[0].(map[string]any); st["participants"] != 1.0 {
		t.Fatalf("cand's participants: %v", st)
	}
	batch := f.must("POST", "/v1/leaderboards/scores/batch", `{"writes":[{"leaderboard":"votes","member":"cand","value":1,"actor":"fan2"},{"leaderboard":"votes","member":"cand","value":1,"actor":"fan2"}]}`)
	if r := batch["results"].([]any); r[0].(map[string]any)["error"] != nil || r[1].(map[string]any)["error"].(map[string]any)["code"] != "rate_limited" {
		t.Fatalf("a batch of two votes by one actor: %v", batch)
	}
	for body, want := range map[string]string{
		`{"member":"cand","value":1}`:                               "actor: required",
		`{"member":"cand","value":1,"actor":"fan3","channel":"tv"}`: `channel: "tv" is not one of the leaderboard's channels`,
		`{"member":"cand","value":1,"actor":"a b"}`:                 "actor: byte 1",
	} {
		w := f.do("POST", "/v1/leaderboards/votes/scores", body, gameKey)
		if _, msg := errorOf(t, w); w.Code != 400 || !strings.Contains(msg, want) {
			t.Errorf("%s: %d %q, want 400 %q", body, w.Code, msg, want)
		}
	}
	if got := metricValue(t, f, "league_leaderboard_limit_refusals_total", "leaderboard", "votes", "limit", "actor-day"); got != 2 {
		t.Errorf("refusals counted: %v, want 2", got)
	}
}

// TestQueuedLeaderboard: a queued leaderboard answers 202 with the write's
// place in its queue, reads say how far behind they are, a full queue
// answers 503 with Retry-After, and a drain applies what was queued.
func TestQueuedLeaderboard(t *testing.T) {
	f := onRedis(t)
	w := f.do("POST", "/v1/leaderboards/peak/scores", `{"member":"ann","value":3}`, gameKey)
	if w.Code != http.StatusAccepted || !strings.Contains(w.Body.String(), `"queued":{"id":"`) {
		t.Fatalf("a queued write: %d %s", w.Code, w.Body)
	}
	batch := f.must("POST", "/v1/leaderboards/peak/scores/batch", `{"writes":[{"member":"bob","value":2},{"member":"dan","value":1}]}`)
	if r := batch["results"].([]any); r[0].(map[string]any)["queued"] == nil || r[1].(map[string]any)["queued"] == nil {
		t.Fatalf("a queued batch: %v", batch)
	}
	many := f.must("POST", "/v1/leaderboards/scores/batch", `{"writes":[{"leaderboard":"peak","member":"cat","value":1},{"leaderboard":"kills","member":"cat","value":1}]}`)
	if r := many["results"].([]any); r[0].(map[string]any)["queued"] == nil || r[1].(map[string]any)["boards"] == nil {
		t.Fatalf("a batch over a queued and a direct leaderboard: %v", many)
	}
	// 4 waiting; 40 more fill every shard's 3
	full, queued := 0, 4.0
	for i := range 40 {
		w := f.do("POST", "/v1/leaderboards/peak/scores", fmt.Sprintf(`{"member":"x%d","value":1}`, i), gameKey)
		if w.Code == http.StatusAccepted {
			queued++
		} else if w.Code == http.StatusServiceUnavailable {
			if code, msg := errorOf(t, w); code != "unavailable" || !strings.Contains(msg, "queue.max_lag") || w.Header().Get("Retry-After") == "" {
				t.Fatalf("a full queue: %s %q", code, msg)
			}
			full++
		}
	}
	if full == 0 || queued != 12 {
		t.Fatalf("%d refused past max_lag, %v queued; want some, and 12", full, queued)
	}
	b := f.must("GET", "/v1/leaderboards/peak/boards/day", "")
	if b["behind"] != queued || b["size"] != 0.0 {
		t.Fatalf("the board before the drain: %v", b)
	}
	if lb := f.must("GET", "/v1/leaderboards/peak", ""); lb["shards"] != 4.0 || lb["queue"].(map[string]any)["behind"] != queued {
		t.Fatalf("the leaderboard: %v", lb)
	}
	for {
		r, err := f.boards.Drain(f.ctx, "peak")
		testsvc.Must(t, err, "Drain")
		if r.Applied == 0 {
			break
		}
	}
	b = f.must("GET", "/v1/leaderboards/peak/boards/day", "")
	if b["behind"] != 0.0 || b["size"] != queued || b["entries"].([]any)[0].(map[string]any)["member"] != "ann" {
		t.Fatalf("the board after the drain: %v", b)
	}
}
