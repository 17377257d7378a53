package api_test

import (
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"
)

// TestPreviewRoute: the current period's preview in pages of two, then the
// ended period's, which lists it as waiting; every bad query value is a 400
// naming its parameter, and nothing the route answers changes Redis.
func TestPreviewRoute(t *testing.T) {
	f := onRedis(t)
	week := f.period()
	for i, p := range []string{"ann", "ben", "cat", "dan", "eve"} {
		f.join(p)
		f.score(p, int64(10*(5-i)))
	}
	before := f.snapshot()
	first := f.must("GET", "/v1/admin/leagues/weekly/preview?limit=2", "")
	if first["final"] != false || first["period"] != firstPeriod || first["next"] != "bronze-1:2" ||
		fmt.Sprint(first["waiting"]) != "[]" {
		t.Fatalf("first page: %v", first)
	}
	sum := first["summary"].(map[string]any)
	bronze := sum["tiers"].([]any)[0].(map[string]any)
	// Five on one board of bronze: 20% is one promoted, ranks 1-3 rewarded.
	if sum["players"] != 5.0 || sum["rewarded"] != 3.0 || bronze["promoted"] != 1.0 || bronze["stayed"] != 4.0 ||
		fmt.Sprint(sum["moves"]) != "[map[from:bronze players:1 to:silver]]" ||
		fmt.Sprint(sum["rewards"]) != "[map[id:gems players:3 qty:200]]" {
		t.Fatalf("summary: %v", sum)
	}
	row := first["rows"].([]any)[0].(map[string]any)
	if row["player_id"] != "ann" || row["board"] != "bronze-1" || row["rank"] != 1.0 || row["score"] != 50.0 ||
		row["to"] != "silver" || row["move"] != "promoted" || fmt.Sprint(row["rewards"]) != "[map[id:gems qty:100]]" {
		t.Fatalf("first row: %v", row)
	}
	var players []string
	for after := "bronze-1:2"; ; {
		page := f.must("GET", "/v1/admin/leagues/weekly/preview?limit=2&after="+after, "")
		if !reflect.DeepEqual(page["summary"], first["summary"]) {
			t.Fatalf("page after %s: summary %v, want the first page's", after, page["summary"])
		}
		for _, r := range page["rows"].([]any) {
			players = append(players, r.(map[string]any)["player_id"].(string))
		}
		if page["next"] == nil {
			break
		}
		after = page["next"].(string)
	}
	if strings.Join(players, ",") != "cat,dan,eve" {
		t.Fatalf("the pages after the first hold %v, want cat, dan, eve", players)
	}

	for _, c := range []struct{ query, param string }{
		{"limit=-1", "limit"},
		{"limit=1001", "limit"},
		{"limit=ten", "limit"},
		{"after=", "after"},
		{"after=bronze-1", "after"},
		{"after=bronze-1:0", "after"},
		{"after=platinum-1:1", "after"},
		{"period=", "period"},
		{"period=monday", "period"},
		{"period=20261123T000000Z", "period"}, // not started
		{"perod=" + firstPeriod, "perod"},
		{"limit=1&limit=2", "limit"},
	} {
		w := f.do("GET", "/v1/admin/leagues/weekly/preview?"+c.query, "", adminKey)
		msg, _ := decodeJSON(t, w.Body.Bytes())["error"].(map[string]any)["message"].(string)
		if w.Code != http.StatusBadRequest || !strings.HasPrefix(msg, c.param+": ") {
			t.Errorf("?%s: status %d %q, want 400 naming %s", c.query, w.Code, msg, c.param)
		}
	}
	if w := f.do("GET", "/v1/admin/leagues/weekly/preview?period=20261109T000000Z", "", adminKey); w.Code != http.StatusNotFound {
		t.Errorf("preview of a week nobody joined: status %d, want 404: %s", w.Code, w.Body)
	}
	if after := f.snapshot(); after != before {
		t.Fatal("previews changed Redis")
	}

	f.clock.After(week.End)
	ended := f.must("GET", "/v1/admin/leagues/weekly/preview?period="+firstPeriod+"&limit=0", "")
	if ended["final"] != true || fmt.Sprint(ended["waiting"]) != "["+firstPeriod+"]" ||
		len(ended["rows"].([]any)) != 0 || ended["next"] != nil || !reflect.DeepEqual(ended["summary"], first["summary"]) {
		t.Fatalf("ended week, summary only: %v", ended)
	}
	next := f.must("GET", "/v1/admin/leagues/weekly/preview", "")
	if next["period"] != "20261123T000000Z" || next["final"] != false || next["summary"].(map[string]any)["players"] != 0.0 {
		t.Fatalf("the new week's preview: %v", next)
	}
}
