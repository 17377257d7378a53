package api_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/league-engine/league/api"
)

// TestAuthMatrix checks who may call what, for each way of configuring
// keys and each way of sending one.
func TestAuthMatrix(t *testing.T) {
	type route struct{ method, path, body string }
	gameRoute := route{"GET", "/v1/leagues", ""}
	adminRoute := route{"GET", "/v1/admin/leagues/weekly/settlements", ""}
	publicRoutes := []route{{"GET", "/healthz", ""}, {"GET", "/readyz", ""}, {"GET", "/metrics", ""}, {"GET", "/openapi.yaml", ""}}

	bearer := func(k string) http.Header { return http.Header{"Authorization": {"Bearer " + k}} }
	headers := map[string]http.Header{
		"none":                {},
		"wrong bearer":        bearer("wrong"),
		"game bearer":         bearer(gameKey),
		"admin bearer":        bearer(adminKey),
		"game x-api-key":      {"X-Api-Key": {gameKey}},
		"admin x-api-key":     {"X-Api-Key": {adminKey}},
		"lowercase scheme":    {"Authorization": {"bearer " + gameKey}},
		"tab after scheme":    {"Authorization": {"Bearer\t" + gameKey}},
		"basic scheme":        {"Authorization": {"Basic " + gameKey}},
		"empty bearer":        {"Authorization": {"Bearer "}},
		"game key prefix":     bearer(gameKey[:len(gameKey)-1]),
		"game key extended":   bearer(gameKey + "x"),
		"wrong bearer, x-key": {"Authorization": {"Bearer wrong"}, "X-Api-Key": {gameKey}},
	}
	configs := []struct {
		name        string
		apiKeys     []string
		adminKeys   []string
		game, admin map[string]int // header -> status; absent: allowed; "*": every header
	}{
		{
			name: "api and admin keys", apiKeys: []string{"other", gameKey}, adminKeys: []string{adminKey},
			game: map[string]int{"none": 401, "wrong bearer": 401, "basic scheme": 401, "empty bearer": 401,
				"game key prefix": 401, "game key extended": 401, "wrong bearer, x-key": 401},
			admin: map[string]int{"none": 401, "wrong bearer": 401, "basic scheme": 401, "empty bearer": 401,
				"game key prefix": 401, "game key extended": 401, "wrong bearer, x-key": 401,
				"game bearer": 403, "game x-api-key": 403, "lowercase scheme": 403, "tab after scheme": 403},
		},
		{
			name: "api keys only", apiKeys: []string{gameKey},
			game: map[string]int{"none": 401, "wrong bearer": 401, "basic scheme": 401, "empty bearer": 401,
				"game key prefix": 401, "game key extended": 401, "wrong bearer, x-key": 401,
				"admin bearer": 401, "admin x-api-key": 401},
			admin: map[string]int{"none": 401, "wrong bearer": 401, "basic scheme": 401, "empty bearer": 401,
				"game key prefix": 401, "game key extended": 401, "wrong bearer, x-key": 401,
				"admin bearer": 401, "admin x-api-key": 401,
				"game bearer": 403, "game x-api-key": 403, "lowercase scheme": 403, "tab after scheme": 403},
		},
		{
			name: "no keys: auth off", game: map[string]int{}, admin: map[string]int{},
		},
	}
	for _, cfg := range configs {
		t.Run(cfg.name, func(t *testing.T) {
			f := onRedis(t, withConfig(func(c *api.Config) { c.APIKeys, c.AdminKeys = cfg.apiKeys, cfg.adminKeys }))
			send := func(r route, h http.Header) *httptest.ResponseRecorder {
				req := httptest.NewRequest(r.method, r.path, nil)
				req.Header = h.Clone()
				w := httptest.NewRecorder()
				f.handler.ServeHTTP(w, req)
				conform(t, r.method, r.path, r.body, req.Header, w)
				return w
			}
			for name, h := range headers {
				for _, c := range []struct {
					r    route
					want map[string]int
				}{{gameRoute, cfg.game}, {adminRoute, cfg.admin}} {
					want, denied := c.want[name]
					if all, ok := c.want["*"]; ok {
						want, denied = all, true
					}
					w := send(c.r, h)
					switch {
					case denied && w.Code != want:
						t.Errorf("%s %s with %s: status %d, want %d", c.r.method, c.r.path, name, w.Code, want)
					case !denied && (w.Code == 401 || w.Code == 403):
						t.Errorf("%s %s with %s: status %d, want it allowed: %s", c.r.method, c.r.path, name, w.Code, w.Body)
					}
					if w.Code == 401 && w.Header().Get("WWW-Authenticate") == "" {
						t.Errorf("%s with %s: 401 without WWW-Authenticate", c.r.path, name)
					}
				}
				for _, r := range publicRoutes {
					if w := send(r, h); w.Code != http.StatusOK {
						t.Errorf("%s with %s: status %d, want 200 (no key needed)", r.path, name, w.Code)
					}
				}
			}
			if log := f.log.String(); strings.Contains(log, gameKey) || strings.Contains(log, adminKey) {
				t.Errorf("a key reached the log:\n%s", log)
			}
		})
	}
}

// TestAuthMessages: a refused key says what was wrong with it.
func TestAuthMessages(t *testing.T) {
	f := onRedis(t)
	for _, c := range []struct {
		name string
		h    http.Header
		want string
	}{
		{"none", http.Header{}, "missing key"},
		{"basic scheme", http.Header{"Authorization": {"Basic " + gameKey}}, "Authorization: not a key"},
		{"empty bearer", http.Header{"Authorization": {"Bearer "}}, "Authorization: not a key"},
		{"wrong key", http.Header{"Authorization": {"Bearer wrong"}}, "unknown key"},
	} {
		req := httptest.NewRequest("GET", "/v1/leagues", nil)
		req.Header = c.h
		w := httptest.NewRecorder()
		f.handler.ServeHTTP(w, req)
		if w.Code != http.StatusUnauthorized || !strings.Contains(w.Body.String(), c.want) {
			t.Errorf("%s: %d %s, want 401 saying %q", c.name, w.Code, w.Body, c.want)
		}
	}
}
