package api_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/league-engine/league/league"
)

// TestLeagueGuards: a league's limit by player answers 429 with the limit
// and Retry-After; a write past max_gain in a league that holds is 202
// with held, listed for the admin, approved once, or rejected.
func TestLeagueGuards(t *testing.T) {
	f := onRedis(t, withLeague(func(l *league.League) {
		l.MaxGain, l.Hold = 50, true
		l.Limits = []league.Limit{{By: []league.LimitBy{league.ByPlayer}, Per: league.PerMinute, Max: 4}}
	}))
	f.must("POST", "/v1/leagues/weekly/join", `{"player_id":"ann","name":"Ann"}`)
	f.must("POST", "/v1/leagues/weekly/scores", `{"player_id":"ann","value":10}`)
	w := f.do("POST", "/v1/leagues/weekly/scores", `{"player_id":"ann","value":80,"request_id":"big"}`, gameKey)
	var held struct {
		Score int64 `json:"score"`
		Held  struct {
			ID  int64  `json:"id"`
			Cap string `json:"cap"`
		} `json:"held"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &held); w.Code != http.StatusAccepted || err != nil || held.Held.ID != 1 || held.Held.Cap != "max_gain" || held.Score != 10 {
		t.Fatalf("a write past max_gain: %d %s", w.Code, w.Body)
	}
	if w := f.do("POST", "/v1/leagues/weekly/scores", `{"player_id":"ann","value":90}`, gameKey); w.Code != http.StatusAccepted {
		t.Fatalf("a second write past max_gain: %d %s", w.Code, w.Body)
	}
	list := f.must("GET", "/v1/admin/leagues/weekly/held", "")
	if h := list["held"].([]any); len(h) != 2 || h[0].(map[string]any)["player_id"] != "ann" || h[1].(map[string]any)["value"] != 90.0 || list["period"] != firstPeriod {
		t.Fatalf("held: %v", list)
	}
	if w := f.do("GET", "/v1/admin/leagues/weekly/held", "", gameKey); w.Code != http.StatusForbidden {
		t.Fatalf("a game key lists held writes: %d", w.Code)
	}
	if r := f.must("POST", "/v1/admin/leagues/weekly/held/1/approve", ""); r["score"] != 90.0 {
		t.Fatalf("approved: %v", r)
	}
	if w := f.do("POST", "/v1/admin/leagues/weekly/held/1/approve", "", adminKey); w.Code != http.StatusNotFound {
		t.Fatalf("approved twice: %d %s", w.Code, w.Body)
	}
	if r := f.must("POST", "/v1/admin/leagues/weekly/held/2/reject", `{"period":"`+firstPeriod+`"}`); r["rejected"].(map[string]any)["value"] != 90.0 {
		t.Fatalf("rejected: %v", r)
	}
	for path, want := range map[string]string{
		"/v1/admin/leagues/weekly/held/x/approve": `id: "x" is not a held write's id`,
		"/v1/admin/leagues/weekly/held/0/reject":  `id: "0" is not a held write's id`,
	} {
		w := f.do("POST", path, "", adminKey)
		if _, msg := errorOf(t, w); w.Code != 400 || !strings.Contains(msg, want) {
			t.Errorf("%s: %d %q, want 400 %q", path, w.Code, msg, want)
		}
	}
	// 4 writes this minute: the 10, the two held, and this one
	f.must("POST", "/v1/leagues/weekly/scores", `{"player_id":"ann","value":1}`)
	w = f.do("POST", "/v1/leagues/weekly/scores", `{"player_id":"ann","value":1}`, gameKey)
	code, msg := errorOf(t, w)
	if w.Code != http.StatusTooManyRequests || code != "rate_limited" || !strings.Contains(msg, `limit "player-minute" of league "weekly" allows 4 writes a minute`) ||
		w.Header().Get("Retry-After") == "" {
		t.Fatalf("a fifth write this minute: %d %s %q (Retry-After %q)", w.Code, code, msg, w.Header().Get("Retry-After"))
	}
	if st := f.must("GET", "/v1/leagues/weekly/players/ann", ""); st["score"] != 91.0 {
		t.Fatalf("ann after it all: %v", st)
	}
	if got := metricValue(t, f, "league_score_limit_refusals_total", "league", "weekly", "limit", "player-minute"); got != 1 {
		t.Errorf("refusals counted: %v, want 1", got)
	}
	if got := metricValue(t, f, "league_score_held_total", "league", "weekly", "cap", "max_gain"); got != 2 {
		t.Errorf("held writes counted: %v, want 2", got)
	}
}
