package api_test

import (
	"fmt"
	"testing"
)

// TestTrailRoute: the trail of a player and of a period over HTTP, newest
// first, in pages; bad queries refused, naming the field.
func TestTrailRoute(t *testing.T) {
	f := onRedis(t)
	week := f.period()
	for i, p := range []string{"a", "b", "c", "d", "e", "f"} {
		f.join(p)
		f.score(p, int64(60-10*i))
	}
	f.must("POST", modPath+"f/hide", `{"reason":"alt account"}`) // 5 settled: 20% promotes a
	f.clock.After(week.End)
	f.settleWeek(week)

	a := f.must("GET", "/v1/admin/leagues/weekly/trail?player=a", "")
	entries := a["entries"].([]any)
	if a["player_id"] != "a" || a["period"] != nil || a["next"] != nil || len(entries) == 0 {
		t.Fatalf("a's trail: %v", a)
	}
	last := entries[len(entries)-1].(map[string]any)
	if last["kind"] != "settlement" || last["tier_before"] != "bronze" || last["move"] != "promoted" || last["board"] != "bronze-1" ||
		last["rank"] != 1.0 || last["score"] != 60.0 || last["tier_after"] != "silver" || last["period"] != firstPeriod {
		t.Fatalf("a's outcome: %v", last)
	}
	hidden := f.must("GET", "/v1/admin/leagues/weekly/trail?player=f", "")["entries"].([]any)
	if len(hidden) != 1 || hidden[0].(map[string]any)["kind"] != "admin" ||
		hidden[0].(map[string]any)["action"].(map[string]any)["reason"] != "alt account" {
		t.Fatalf("f's trail: %v", hidden)
	}

	all := f.must("GET", "/v1/admin/leagues/weekly/trail?period="+firstPeriod, "")["entries"].([]any)
	var paged []any
	path := "/v1/admin/leagues/weekly/trail?limit=2&period=" + firstPeriod
	for pages := 0; pages <= len(all); pages++ {
		page := f.must("GET", path, "")
		paged = append(paged, page["entries"].([]any)...)
		next, ok := page["next"].(string)
		if !ok {
			break
		}
		path = "/v1/admin/leagues/weekly/trail?limit=2&period=" + firstPeriod + "&after=" + next
	}
	if fmt.Sprint(paged) != fmt.Sprint(all) || len(all) < 5 {
		t.Fatalf("the week's trail, 2 at a time:\n%v\nat once:\n%v", paged, all)
	}

	for _, c := range []struct {
		query, key string
		status     int
	}{
		{"", adminKey, 400}, {"?player=a&limit=0", adminKey, 400}, {"?player=a&after=%25%25", adminKey, 400},
		{"?period=monday", adminKey, 400}, {"?player=bad%20id", adminKey, 400}, {"?player=a&before=1", adminKey, 400},
		{"?player=a", gameKey, 403}, {"?player=a", noKey, 401},
	} {
		if w := f.do("GET", "/v1/admin/leagues/weekly/trail"+c.query, "", c.key); w.Code != c.status {
			t.Errorf("trail%s: %d, want %d: %s", c.query, w.Code, c.status, w.Body)
		}
	}
	if w := f.do("GET", "/v1/admin/leagues/nope/trail?player=a", "", adminKey); w.Code != 404 {
		t.Errorf("trail of an unknown league: %d", w.Code)
	}
}
