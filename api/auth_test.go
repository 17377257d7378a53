package api_test

import (
	"log/slog"
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
			f := onRedis(t, withConfig(func(c *api.Config) { c.Keys = keysOf(cfg.apiKeys, cfg.adminKeys) }))
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

// TestKeyScopes: a key opens only its leagues (the same 403 whether or not
// the league exists), lists only them, and an admin key's scope holds for
// the admin routes too.
func TestKeyScopes(t *testing.T) {
	const euKey, naKey, opsKey = "eu-secret-0123456789", "na-secret-0123456789", "ops-secret-0123456789"
	f := onRedis(t, withConfig(func(c *api.Config) {
		c.Keys = []api.Key{
			{Name: "eu", Leagues: []string{"weekly"}, Secrets: []string{euKey}},
			{Name: "na", Leagues: []string{"other"}, Secrets: []string{naKey}},
			{Name: "ops", Admin: true, Leagues: []string{"other"}, Secrets: []string{opsKey}},
		}
	}))
	if w := f.do("POST", "/v1/leagues/weekly/join", `{"player_id":"alice","name":"Alice"}`, euKey); w.Code != http.StatusOK {
		t.Fatalf("eu joins weekly: %d %s", w.Code, w.Body)
	}
	for _, c := range []struct{ method, path, body, key string }{
		{"POST", "/v1/leagues/weekly/join", `{"player_id":"bob","name":"Bob"}`, naKey},
		{"POST", "/v1/leagues/weekly/scores", `{"player_id":"alice","value":1}`, naKey},
		{"GET", "/v1/leagues/weekly/players/alice", "", naKey},
		{"GET", "/v1/leagues/weekly/boards/bronze-1", "", naKey},
		{"GET", "/v1/leagues/weekly", "", naKey},
		{"GET", "/v1/leagues/nope", "", euKey},
		{"GET", "/v1/admin/leagues/weekly/settlements", "", opsKey},
		{"POST", "/v1/admin/leagues/weekly/settle", "", opsKey},
	} {
		w := f.do(c.method, c.path, c.body, c.key)
		if _, msg := errorOf(t, w); w.Code != http.StatusForbidden || !strings.Contains(msg, "may not call league") {
			t.Errorf("%s %s: %d %q, want 403 naming the league", c.method, c.path, w.Code, msg)
		}
	}
	for key, want := range map[string]int{euKey: 1, naKey: 0, opsKey: 0} {
		w := f.do("GET", "/v1/leagues", "", key)
		if got := len(decodeJSON(t, w.Body.Bytes())["leagues"].([]any)); w.Code != http.StatusOK || got != want {
			t.Errorf("GET /v1/leagues: %d, %d leagues listed; want 200 and %d", w.Code, got, want)
		}
	}
	w := f.do("GET", "/v1/leagues/weekly/players/alice", "", euKey)
	if st := decodeJSON(t, w.Body.Bytes()); w.Code != http.StatusOK || st["score"] != 0.0 {
		t.Fatalf("alice after refused writes: %d %v, want 200 and score 0", w.Code, st)
	}
	// Requests are counted by key name (never the secret).
	for _, c := range []struct {
		key, code string
		want      float64
	}{{"eu", "200", 3}, {"eu", "403", 1}, {"na", "403", 5}, {"na", "200", 1}, {"ops", "403", 2}} {
		if got := metricValue(t, f, "league_http_key_requests_total", "key", c.key, "code", c.code); got != c.want {
			t.Errorf("league_http_key_requests_total{key=%s,code=%s} = %v, want %v", c.key, c.code, got, c.want)
		}
	}
}

// TestRequestIDsBelongToTheKey: two keys sending the same request_id write
// twice, each replaying only its own; a key's two secrets (a rotation) are
// one name and share its ids.
func TestRequestIDsBelongToTheKey(t *testing.T) {
	const aKey, aNewKey, bKey = "a-secret-0123456789", "a-new-secret-0123456789", "b-secret-0123456789"
	f := onRedis(t, withConfig(func(c *api.Config) {
		c.Keys = []api.Key{{Name: "a", Secrets: []string{aKey, aNewKey}}, {Name: "b", Secrets: []string{bKey}}}
	}))
	for _, p := range []string{"alice", "bob"} {
		f.do("POST", "/v1/leagues/weekly/join", `{"player_id":"`+p+`","name":"x"}`, aKey)
	}
	send := func(key, player string) map[string]any {
		w := f.do("POST", "/v1/leagues/weekly/scores", `{"player_id":"`+player+`","value":5,"request_id":"match-1"}`, key)
		if w.Code != http.StatusOK {
			t.Fatalf("%s writes for %s: %d %s", key, player, w.Code, w.Body)
		}
		return decodeJSON(t, w.Body.Bytes())
	}
	if r := send(aKey, "alice"); r["replayed"] != false {
		t.Fatalf("a's first write replayed: %v", r)
	}
	// b's id is b's own: not a conflict with a's (another player), not a replay.
	if r := send(bKey, "bob"); r["replayed"] != false || r["score"] != 5.0 {
		t.Fatalf("b's write with a's request id: %v, want it applied", r)
	}
	if r := send(aNewKey, "alice"); r["replayed"] != true || r["score"] != 5.0 {
		t.Fatalf("a's retry with its new secret: %v, want the first write replayed", r)
	}
	if w := f.do("POST", "/v1/leagues/weekly/scores", `{"player_id":"bob","value":5,"request_id":"match-1"}`, aKey); w.Code != http.StatusConflict {
		t.Fatalf("a's id reused for another player: %d, want 409", w.Code)
	}
}

// TestSetKeys: keys replaced at run time take effect for the next request;
// authentication cannot be switched off or on that way.
func TestSetKeys(t *testing.T) {
	f := onRedis(t)
	const fresh = "fresh-secret-0123456789"
	if err := f.server.SetKeys([]api.Key{{Name: "fresh", Secrets: []string{fresh}}}); err != nil {
		t.Fatal(err)
	}
	if w := f.do("GET", "/v1/leagues", "", gameKey); w.Code != http.StatusUnauthorized {
		t.Errorf("the replaced key: %d, want 401", w.Code)
	}
	if w := f.do("GET", "/v1/leagues", "", fresh); w.Code != http.StatusOK {
		t.Errorf("the new key: %d, want 200", w.Code)
	}
	if err := f.server.SetKeys(nil); err == nil {
		t.Error("SetKeys(nil) turned authentication off")
	}
	if w := f.do("GET", "/v1/leagues", "", fresh); w.Code != http.StatusOK {
		t.Errorf("the new key after a refused SetKeys: %d, want 200", w.Code)
	}
}

// TestAccessLog: one line per request, naming its route, status, key and
// request id (the client's X-Request-Id, else one made here, which a 5xx
// reply carries), never the secret.
func TestAccessLog(t *testing.T) {
	f := onRedis(t, withConfig(func(c *api.Config) { c.AccessLog = slog.LevelInfo }))
	req := httptest.NewRequest("GET", "/v1/leagues/weekly", nil)
	req.Header.Set("Authorization", "Bearer "+gameKey)
	req.Header.Set("X-Request-Id", "trace-42")
	w := httptest.NewRecorder()
	f.handler.ServeHTTP(w, req)
	if w.Code != http.StatusOK || w.Header().Get("X-Request-Id") != "trace-42" {
		t.Fatalf("%d, X-Request-Id %q: want 200 echoing trace-42", w.Code, w.Header().Get("X-Request-Id"))
	}
	f.do("GET", "/v1/leagues/weekly", "", "wrong-key-0123456789")
	log := f.log.String()
	for _, want := range []string{`msg=request method=GET route="GET /v1/leagues/{league}" status=200`, `key=game-1 request_id=trace-42`,
		`status=401`} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
	if n := strings.Count(log, "msg=request "); n != 2 {
		t.Errorf("%d access lines for 2 requests:\n%s", n, log)
	}
	if strings.Contains(log, gameKey) || strings.Contains(log, "wrong-key") {
		t.Errorf("a secret reached the log:\n%s", log)
	}
	down := onDownRedis(t)
	w = down.do("GET", "/v1/leagues/weekly/boards/bronze-1", "", gameKey)
	if id := w.Header().Get("X-Request-Id"); w.Code != http.StatusServiceUnavailable || id == "" || w.Header().Get("Retry-After") != "1" {
		t.Errorf("a 503: %d, X-Request-Id %q, Retry-After %q; want a made id and Retry-After 1", w.Code, id, w.Header().Get("Retry-After"))
	}
}
