package api_test

import (
	"testing"

	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/league"
	"github.com/league-engine/league/tiers"
)

// TestProtectedReplies: a player promoted into a tier that protects, ranked
// in its demotion zone, is answered with zone stay and protected true by
// the board, the score write and the player routes (each reply checked
// against openapi.yaml); a player not promoted there is not; the league's
// tiers say which protect.
func TestProtectedReplies(t *testing.T) {
	f := onRedis(t, withLeague(func(l *league.League) {
		ld, err := tiers.NewLadder([]tiers.Tier{
			{ID: "bronze", Name: "Bronze", PromoteCount: 1, MinPromoteScore: 1},
			{ID: "silver", Name: "Silver", DemoteCount: 2, ProtectPromoted: true},
		})
		testsvc.Must(t, err, "NewLadder")
		l.Ladder = ld
	}))
	week1 := f.period()
	f.join("up")
	f.join("down")
	f.score("up", 10)
	f.clock.After(week1.End)
	settle(t, f, f.store, week1)

	f.join("up")   // promoted into silver
	f.join("down") // still bronze
	if r := f.score("up", 5); r["tier"] != "silver" || r["zone"] != "stay" || r["protected"] != true {
		t.Errorf("score reply: %v; want silver, stay, protected", r)
	}
	if r := f.score("down", 5); r["tier"] != "bronze" || r["protected"] != nil {
		t.Errorf("score reply of a player not protected: %v; want no protected field", r)
	}
	board := f.must("GET", "/v1/leagues/weekly/boards/silver-1", "")
	if e := board["entries"].([]any)[0].(map[string]any); e["player_id"] != "up" || e["zone"] != "stay" || e["protected"] != true {
		t.Errorf("board entry: %v; want up, stay, protected", e)
	}
	if p := f.must("GET", "/v1/leagues/weekly/players/up", ""); p["zone"] != "stay" || p["protected"] != true {
		t.Errorf("player: %v; want stay, protected", p)
	}
	lg := f.must("GET", "/v1/leagues/weekly", "")
	ts := lg["tiers"].([]any)
	if ts[0].(map[string]any)["protect_promoted"] != nil || ts[1].(map[string]any)["protect_promoted"] != true {
		t.Errorf("tiers: %v; want silver protecting", ts)
	}
}
