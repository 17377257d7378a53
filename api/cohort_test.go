package api_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/league-engine/league/league"
)

// TestJoinCohort: a join naming one of the league's cohorts lands on its
// tier's boards of that cohort, whose ids name it, and every reader names
// the same board; a cohort the league lacks is refused naming the field,
// with nothing written; each reply conforms to openapi.yaml (the fixture
// checks it).
func TestJoinCohort(t *testing.T) {
	f := onRedis(t, withLeague(func(l *league.League) { l.Cohorts = []string{"casual", "core"} }))
	p := f.must("POST", "/v1/leagues/weekly/join", `{"player_id":"alice","name":"Alice","cohort":"core"}`)
	if p["board"] != "bronze.core-1" || p["tier"] != "bronze" || p["slot"] != 1.0 {
		t.Fatalf("join in core: %v", p)
	}
	if p := f.must("POST", "/v1/leagues/weekly/join", `{"player_id":"bob","name":"Bob","cohort":null}`); p["board"] != "bronze-1" {
		t.Fatalf("join without a cohort: %v", p)
	}
	l := f.must("GET", "/v1/leagues/weekly", "")
	if fmt.Sprint(l["cohorts"]) != "[casual core]" || fmt.Sprint(l["cohort_populations"]) != "map[bronze:map[core:1]]" ||
		fmt.Sprint(l["populations"]) != "map[bronze:2 gold:0 silver:0]" {
		t.Fatalf("league: cohorts %v, cohort populations %v, populations %v", l["cohorts"], l["cohort_populations"], l["populations"])
	}
	if s := f.score("alice", 5); s["board"] != "bronze.core-1" {
		t.Fatalf("score: %v", s)
	}
	if st := f.must("GET", "/v1/leagues/weekly/players/alice", ""); st["board"] != "bronze.core-1" {
		t.Fatalf("standing: %v", st)
	}
	entries := f.must("GET", "/v1/leagues/weekly/boards/bronze.core-1", "")["entries"].([]any)
	if len(entries) != 1 || entries[0].(map[string]any)["player_id"] != "alice" {
		t.Fatalf("board bronze.core-1: %v", entries)
	}
	for path, want := range map[string]int{
		"/v1/leagues/weekly/boards/bronze.pro-1":  http.StatusNotFound,
		"/v1/leagues/weekly/boards/bronze.Core-1": http.StatusBadRequest,
	} {
		if w := f.do("GET", path, "", gameKey); w.Code != want {
			t.Errorf("GET %s: %d %s, want %d", path, w.Code, w.Body, want)
		}
	}
	w := f.do("POST", "/v1/leagues/weekly/join", `{"player_id":"carol","name":"Carol","cohort":"pro"}`, gameKey)
	var e struct {
		Error struct{ Code, Message string }
	}
	_ = json.Unmarshal(w.Body.Bytes(), &e)
	if w.Code != http.StatusBadRequest || e.Error.Code != "invalid" || !strings.HasPrefix(e.Error.Message, "cohort: ") {
		t.Fatalf("an unknown cohort: %d %s", w.Code, w.Body)
	}
	if w := f.do("GET", "/v1/leagues/weekly/players/carol", "", gameKey); w.Code != http.StatusNotFound {
		t.Fatalf("carol after a refused join: %d %s, want never joined", w.Code, w.Body)
	}
}
