package api_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/league-engine/league/api"
	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/league"
	"github.com/league-engine/league/migrations"
	"github.com/league-engine/league/postgres"
)

// TestCorrectionRoute: POST .../corrections removes the rank 1 of a settled
// period; the same request again answers the same correction; bad input is
// a 4xx naming it, and writes nothing.
func TestCorrectionRoute(t *testing.T) {
	pool, url := testsvc.Postgres(t)
	ctx := context.Background()
	_, err := migrations.Apply(ctx, pool)
	testsvc.Must(t, err, "migrations.Apply")
	pg, err := postgres.Open(ctx, url)
	testsvc.Must(t, err, "postgres.Open")
	t.Cleanup(pg.Close)
	f := onRedis(t, withConfig(func(c *api.Config) { c.Store = pg }))
	for i := range 5 {
		player := fmt.Sprintf("p%d", i)
		f.join(player)
		f.score(player, int64(100-i))
	}
	p := f.period()
	f.clock.After(p.End)
	settle(t, f, pg, p)

	body := `{"period": "` + p.ID() + `", "player_id": "p0", "action": "remove", "reason": "aimbot"}`
	first := f.must("POST", "/v1/admin/leagues/weekly/corrections", body)
	if first["status"] != "applied" || first["actor"] != "admin-1" || len(first["changes"].([]any)) == 0 {
		t.Fatalf("correction: got %v", first)
	}
	again := f.must("POST", "/v1/admin/leagues/weekly/corrections", body)
	if again["id"] != first["id"] || fmt.Sprint(again["changes"]) != fmt.Sprint(first["changes"]) {
		t.Fatalf("the same correction again: got %v, want %v", again, first)
	}
	list := f.must("GET", "/v1/admin/leagues/weekly/corrections?period="+p.ID(), "")
	if cs := list["corrections"].([]any); len(cs) != 1 || cs[0].(map[string]any)["id"] != first["id"] {
		t.Fatalf("corrections listed: got %v, want the one", list)
	}
	if w := f.do("GET", "/v1/admin/leagues/weekly/corrections", "", adminKey); w.Code != http.StatusBadRequest {
		t.Fatalf("corrections without a period: status %d, want 400", w.Code)
	}
	var n int
	testsvc.Must(t, pool.QueryRow(ctx, `SELECT count(*) FROM corrections`).Scan(&n), "count")

	for _, tc := range []struct {
		name, body string
		key        string
		status     int
		says       string
	}{
		{"no reason", `{"period": "` + p.ID() + `", "player_id": "p1", "action": "zero"}`, adminKey, http.StatusBadRequest, "reason"},
		{"bad action", `{"period": "` + p.ID() + `", "player_id": "p1", "action": "ban", "reason": "x"}`, adminKey, http.StatusBadRequest, "action"},
		{"bad period", `{"period": "yesterday", "player_id": "p1", "action": "zero", "reason": "x"}`, adminKey, http.StatusBadRequest, "period"},
		{"unknown player", `{"period": "` + p.ID() + `", "player_id": "nobody", "action": "zero", "reason": "x"}`, adminKey, http.StatusNotFound, `"nobody"`},
		{"never settled", `{"period": "20260105T000000Z", "player_id": "p1", "action": "zero", "reason": "x"}`, adminKey, http.StatusNotFound, "never settled"},
		{"running", `{"period": "` + league.Period{Start: p.End}.ID() + `", "player_id": "p1", "action": "zero", "reason": "x"}`, adminKey, http.StatusConflict, "still running"},
		{"game key", body, gameKey, http.StatusForbidden, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := f.do("POST", "/v1/admin/leagues/weekly/corrections", tc.body, tc.key)
			_, msg := errorOf(t, w)
			if w.Code != tc.status || !strings.Contains(msg, tc.says) {
				t.Fatalf("status %d %q, want %d saying %q", w.Code, msg, tc.status, tc.says)
			}
			var m int
			testsvc.Must(t, pool.QueryRow(ctx, `SELECT count(*) FROM corrections`).Scan(&m), "count")
			if m != n {
				t.Fatalf("%d corrections after a refused one, want %d", m, n)
			}
		})
	}
}
