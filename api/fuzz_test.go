package api_test

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/league-engine/league/league"
)

// The fuzz targets send arbitrary bodies (or path segments) to the real
// handler, on an engine backed by miniredis and the in-memory store, and
// assert: never a 5xx, always a JSON body that matches openapi.yaml, and a
// refused request (any 4xx), or any read, changes nothing in Redis. Their
// seed corpora run as unit tests; `go test -fuzz FuzzScore ./api/` fuzzes.

// fuzzFixture is a miniredis fixture with alice and bob joined and alice
// scored.
func fuzzFixture(f *testing.F) *fixture {
	fx := onMini(f)
	fx.seed()
	return fx
}

func (f *fixture) seed() {
	ctx := f.ctx
	for _, p := range []string{"alice", "bob"} {
		if _, err := f.engine.Join(ctx, "weekly", league.JoinRequest{Player: p, Name: p}); err != nil {
			f.tb.Fatalf("seed join %s: %v", p, err)
		}
	}
	if _, err := f.engine.Score(ctx, "weekly", league.ScoreWrite{Player: "alice", Value: 10, RequestID: "r1"}); err != nil {
		f.tb.Fatalf("seed score: %v", err)
	}
}

// maxFuzzKeys bounds the namespace: past it the fixture starts afresh, so
// snapshots stay cheap however many players the fuzzer joins.
const maxFuzzKeys = 300

// restart empties the league but for its tier codes and meta hash (its
// epoch above all), and seeds it again. Flushing those too made the engine
// see a Redis that lost the league: the seed failed, and every later call
// answered 503 (a fuzz run failed whenever it reached maxFuzzKeys).
func (f *fixture) restart() {
	for _, k := range f.mini.Keys() {
		if !strings.HasSuffix(k, ":tiers") && !strings.HasSuffix(k, ":meta") {
			f.mini.Del(k)
		}
	}
	f.seed()
}

// fuzzRequest sends one fuzzed request and checks the invariants. write
// says whether the route may write when it succeeds.
func fuzzRequest(t *testing.T, fx *fixture, method, path, body string, write bool) {
	f := *fx
	f.tb = t
	if len(f.mini.Keys()) > maxFuzzKeys {
		f.restart()
	}
	before := f.snapshot()
	w := f.do(method, path, body, adminKey)
	if w.Code >= 500 {
		t.Fatalf("%s %s %q: status %d: %s", method, path, body, w.Code, w.Body)
	}
	if !json.Valid(w.Body.Bytes()) {
		t.Fatalf("%s %s %q: status %d with a body that is not JSON: %q", method, path, body, w.Code, w.Body)
	}
	if w.Code >= 400 || !write {
		if after := f.snapshot(); after != before {
			t.Fatalf("%s %s %q: status %d changed Redis:\nbefore:\n%s\nafter:\n%s", method, path, body, w.Code, before, after)
		}
	}
}

// seedBodies adds the bodies of the bad-input table for path, plus extra.
func seedBodies(f *testing.F, path string, extra ...string) {
	for _, c := range badInputs() {
		if c.path == path && len(c.body) < 4096 {
			f.Add(c.body)
		}
	}
	for _, b := range extra {
		f.Add(b)
	}
}

func FuzzJoin(f *testing.F) {
	const path = "/v1/leagues/weekly/join"
	seedBodies(f, path,
		`{"player_id":"carol","name":"Carol","avatar":"c1"}`,
		`{"player_id":"alice","name":"Alice again"}`,
		`{"player_id":"dave","name":"D\u00e9\u2028<&>"}`,
		`{"player_id":"eve","name":"Eve","avatar":null}`,
		`{"player_id":"eve","name":"Eve","player_id":"eve2"}`,
		` {"name":"x","player_id":"~!@#$%^&*()"} `,
	)
	fx := fuzzFixture(f)
	f.Fuzz(func(t *testing.T, body string) { fuzzRequest(t, fx, "POST", path, body, true) })
}

func FuzzScore(f *testing.F) {
	const path = "/v1/leagues/weekly/scores"
	seedBodies(f, path,
		`{"player_id":"alice","value":1}`,
		`{"player_id":"alice","value":0,"request_id":"r2"}`,
		`{"player_id":"alice","value":1,"request_id":"r1"}`,
		`{"player_id":"bob","value":1,"request_id":"r1"}`,
		`{"player_id":"bob","value":1e2}`,
		`{"player_id":"bob","value":-0}`,
		`{"player_id":"bob","value":2.0}`,
		`{"player_id":"bob","value":9223372036854775807}`,
		`{"player_id":"bob","value":991}`,
		`{"player_id":"nobody","value":1}`,
	)
	fx := fuzzFixture(f)
	f.Fuzz(func(t *testing.T, body string) { fuzzRequest(t, fx, "POST", path, body, true) })
}

func FuzzScoresBatch(f *testing.F) {
	const path = "/v1/leagues/weekly/scores/batch"
	seedBodies(f, path,
		`{"writes":[]}`,
		`{"writes":[{"player_id":"alice","value":1},{"player_id":"bob","value":2,"request_id":"b1"}]}`,
		`{"writes":[{"player_id":"alice","value":1},{"player_id":"nobody","value":1},{"player_id":"bob","value":5000}]}`,
		`{"writes":[{"player_id":"bad id","value":1},{"player_id":"bob","value":1,"request_id":"r1"}]}`,
		`{"writes":[{"player_id":"alice","value":-1}]}`,
	)
	fx := fuzzFixture(f)
	f.Fuzz(func(t *testing.T, body string) { fuzzRequest(t, fx, "POST", path, body, true) })
}

func FuzzStandings(f *testing.F) {
	const path = "/v1/leagues/weekly/standings"
	seedBodies(f, path,
		`{"player_ids":[]}`,
		`{"player_ids":["alice","bob","nobody","bad id",""]}`,
		`{"player_ids":["alice","alice"]}`,
		`{"player_ids":null}`,
	)
	fx := fuzzFixture(f)
	f.Fuzz(func(t *testing.T, body string) { fuzzRequest(t, fx, "POST", path, body, false) })
}

// FuzzPaths fuzzes the path parameters of the read routes: a player id, a
// board id and a period id.
func FuzzPaths(f *testing.F) {
	for _, s := range [][3]string{
		{"alice", "bronze-1", ""}, {"bob", "bronze-1", firstPeriod}, {"nobody", "gold-1", "20261117T000000Z"},
		{"a b", "bronze", "monday"}, {"..", "bronze-0", "1"}, {"%00", "-1", "1795305600"}, {strings.Repeat("x", 65), "x-99999999999999999999", "99999999999999999999"},
	} {
		f.Add(s[0], s[1], s[2])
	}
	fx := fuzzFixture(f)
	f.Fuzz(func(t *testing.T, player, board, period string) {
		fuzzRequest(t, fx, "GET", "/v1/leagues/weekly/players/"+url.PathEscape(player), "", false)
		q := ""
		if period != "" {
			q = "?period=" + url.QueryEscape(period)
		}
		fuzzRequest(t, fx, "GET", "/v1/leagues/weekly/boards/"+url.PathEscape(board)+q, "", false)
	})
}

// FuzzLeaderboardWrite: any body to a leaderboard write answers a 4xx or
// a 200 matching the document, and a refused one writes nothing.
func FuzzLeaderboardWrite(f *testing.F) {
	const path = "/v1/leaderboards/kills/scores"
	for _, b := range []string{
		`{"member":"alice","value":1}`,
		`{"member":"alice","value":1,"request_id":"r1"}`,
		`{"member":"bob","value":1,"request_id":"r1"}`,
		`{"member":"bob","value":1000}`,
		`{"member":"bob","value":1001}`,
		`{"member":"bob","value":-1}`,
		`{"member":"a b","value":1}`,
		`{"member":"","value":1}`,
		`{"member":"alice","value":1,"extra":1}`,
		`{"writes":[]}`,
	} {
		f.Add(b)
	}
	fx := fuzzFixture(f)
	f.Fuzz(func(t *testing.T, body string) { fuzzRequest(t, fx, "POST", path, body, true) })
}
