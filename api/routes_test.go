package api_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/league-engine/league/api"
	"github.com/league-engine/league/league"
)

func TestJoinAndScore(t *testing.T) {
	f := onRedis(t)
	p := f.join("alice")
	if p["tier"] != "bronze" || p["board"] != "bronze-1" || p["slot"] != 1.0 || p["rejoined"] != false ||
		p["period"] != firstPeriod || p["period_end"] != "2026-11-23T00:00:00Z" {
		t.Fatalf("join: got %v", p)
	}
	if again := f.join("alice"); again["rejoined"] != true || again["slot"] != 1.0 {
		t.Fatalf("rejoin: got %v, want the first placement, rejoined", again)
	}
	f.join("bob")
	r := f.score("bob", 5)
	if r["score"] != 5.0 || r["rank"] != 1.0 || r["board_size"] != 2.0 || r["zone"] != "stay" || r["replayed"] != false {
		t.Fatalf("score: got %v", r)
	}
	body := `{"player_id":"alice","value":7,"request_id":"req-1"}`
	first := f.must("POST", "/v1/leagues/weekly/scores", body)
	retry := f.must("POST", "/v1/leagues/weekly/scores", body)
	if first["score"] != 7.0 || first["rank"] != 1.0 || retry["score"] != 7.0 || retry["replayed"] != true {
		t.Fatalf("idempotent write: first %v, retry %v; want score 7, the retry replayed", first, retry)
	}
	// 1e2 is an integer written with an exponent.
	if r := f.must("POST", "/v1/leagues/weekly/scores", `{"player_id":"bob","value":1e2}`); r["score"] != 105.0 {
		t.Fatalf("value 1e2: score %v, want 105", r["score"])
	}
}

func TestBatchPartialFailure(t *testing.T) {
	f := onRedis(t)
	f.join("alice")
	f.join("bob")
	f.score("bob", 995)
	res := f.must("POST", "/v1/leagues/weekly/scores/batch", `{"writes":[
		{"player_id":"alice","value":4},
		{"player_id":"nobody","value":1},
		{"player_id":"bob","value":10},
		{"player_id":"bad id","value":1},
		{"player_id":"alice","value":3,"request_id":"x1"},
		{"player_id":"bob","value":1,"request_id":"x1"}
	]}`)["results"].([]any)
	want := []struct{ player, code string }{
		{"alice", ""}, {"nobody", "not_joined"}, {"bob", "overflow"}, {"bad id", "invalid"}, {"alice", ""}, {"bob", "conflict"},
	}
	if len(res) != len(want) {
		t.Fatalf("%d results, want %d", len(res), len(want))
	}
	for i, w := range want {
		r := res[i].(map[string]any)
		got := ""
		if e, ok := r["error"].(map[string]any); ok {
			got = e["code"].(string)
		}
		if r["player_id"] != w.player || got != w.code {
			t.Errorf("result %d: player %v error %q, want %s %q", i, r["player_id"], got, w.player, w.code)
		}
	}
	if s := res[4].(map[string]any)["score"]; s != 7.0 {
		t.Errorf("alice after both writes: score %v, want 7", s)
	}
	board := f.must("GET", "/v1/leagues/weekly/boards/bronze-1", "")["entries"].([]any)
	if e := board[0].(map[string]any); e["player_id"] != "bob" || e["score"] != 995.0 {
		t.Errorf("bob's refused write changed his score: %v", e)
	}
	if empty := f.must("POST", "/v1/leagues/weekly/scores/batch", `{"writes":[]}`)["results"].([]any); len(empty) != 0 {
		t.Errorf("empty batch: %d results, want 0", len(empty))
	}
}

func TestBoard(t *testing.T) {
	f := onRedis(t)
	for i, p := range []string{"p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8", "p9", "p10", "p11"} {
		f.join(p)
		f.score(p, int64(10*(i+1)))
	}
	b := f.must("GET", "/v1/leagues/weekly/boards/bronze-1", "")
	entries := b["entries"].([]any)
	if b["board"] != "bronze-1" || b["tier"] != "bronze" || b["period"] != firstPeriod || len(entries) != 10 {
		t.Fatalf("board: got %v", b)
	}
	top, last := entries[0].(map[string]any), entries[9].(map[string]any)
	if top["player_id"] != "p10" || top["rank"] != 1.0 || top["score"] != 100.0 || top["zone"] != "promote" ||
		top["name"] != "name p10" || top["avatar"] != "a1" {
		t.Errorf("rank 1: got %v", top)
	}
	if last["player_id"] != "p1" || last["zone"] != "stay" { // bronze demotes nobody
		t.Errorf("rank 10: got %v", last)
	}
	if b2 := f.must("GET", "/v1/leagues/weekly/boards/bronze-2?period="+firstPeriod, ""); len(b2["entries"].([]any)) != 1 {
		t.Errorf("board 2: got %v, want p11 alone", b2)
	}
}

func TestPlayerAcrossSettlement(t *testing.T) {
	f := onRedis(t)
	week := f.period()
	for i := 1; i <= 10; i++ {
		p := fmt.Sprintf("p%02d", i)
		f.join(p)
		f.score(p, int64(i))
	}
	st := f.must("GET", "/v1/leagues/weekly/players/p10", "")
	if st["joined"] != true || st["rank"] != 1.0 || st["zone"] != "promote" || st["gap"] != 0.0 || len(st["history"].([]any)) != 0 {
		t.Fatalf("p10 before settlement: %v", st)
	}
	if st := f.must("GET", "/v1/leagues/weekly/players/p09", ""); st["gap"] != 1.0 || st["rank"] != 2.0 {
		t.Fatalf("p09: gap %v rank %v, want 1 and 2", st["gap"], st["rank"])
	}

	f.clock.After(week.End)
	// Between the boundary and the settlement, the reward the next join
	// delivers from the frozen board is shown pending already, once.
	st = f.must("GET", "/v1/leagues/weekly/players/p10", "")
	if pending := st["pending_rewards"].([]any); st["tier"] != "silver" || len(pending) != 1 ||
		pending[0].(map[string]any)["rank"] != 1.0 || pending[0].(map[string]any)["period"] != firstPeriod {
		t.Fatalf("p10 between the boundary and the settlement: %v; want silver with rank 1's reward pending", st)
	}
	f.settleWeek(week)
	st = f.must("GET", "/v1/leagues/weekly/players/p10", "")
	hist := st["history"].([]any)
	pending := st["pending_rewards"].([]any)
	if st["joined"] != false || st["tier"] != "silver" || st["board"] != nil || st["zone"] != nil ||
		len(hist) != 1 || len(pending) != 1 {
		t.Fatalf("p10 after settlement: %v; want promoted to silver, one history entry, one pending reward", st)
	}
	h := hist[0].(map[string]any)
	if h["period"] != firstPeriod || h["tier_before"] != "bronze" || h["tier_after"] != "silver" || h["board"] != "bronze-1" ||
		h["rank"] != 1.0 || h["score"] != 10.0 || h["claimed_at"] != nil {
		t.Errorf("history: %v", h)
	}
	joined := f.join("p10")
	if joined["tier"] != "silver" || len(joined["rewards"].([]any)) != 1 {
		t.Errorf("join after settlement: %v; want silver with the reward delivered", joined)
	}
	if st := f.must("GET", "/v1/leagues/weekly/players/p10", ""); len(st["pending_rewards"].([]any)) != 0 || st["joined"] != true {
		t.Errorf("after the join: %v; want joined, nothing pending", st)
	}

	// Redis forgets p05 (its record lost): the store still knows the player.
	keys, err := f.rdb.Keys(f.ctx, f.ns+":{weekly}:r:*").Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		f.rdb.HDel(f.ctx, k, "p05")
	}
	if st := f.must("GET", "/v1/leagues/weekly/players/p05", ""); st["joined"] != false || st["tier"] != "bronze" || len(st["history"].([]any)) != 1 {
		t.Errorf("player only the store knows: %v", st)
	}
}

func TestPlayerWithStoreDown(t *testing.T) {
	f := onRedis(t, withConfig(func(c *api.Config) { c.Store = failingStore{c.Store} }))
	f.join("alice")
	st := f.must("GET", "/v1/leagues/weekly/players/alice", "")
	if st["joined"] != true || st["history"] != nil || st["history_unavailable"] != true {
		t.Fatalf("got %v; want the live standing with history null and history_unavailable", st)
	}
	if !strings.Contains(f.log.String(), "history unavailable") {
		t.Errorf("the store failure was not logged:\n%s", f.log)
	}
	if n := metricValue(t, f, "league_dependency_errors_total", "dependency", "postgres"); n != 1 {
		t.Errorf("postgres errors %v, want 1", n)
	}
	// Unknown to Redis, and the store cannot say: the engine's answer stands.
	if w := f.do("GET", "/v1/leagues/weekly/players/nobody", "", gameKey); w.Code != http.StatusNotFound {
		t.Errorf("unknown player with the store down: status %d, want 404", w.Code)
	}
}

func TestStandings(t *testing.T) {
	f := onRedis(t)
	f.join("alice")
	f.join("bob")
	f.score("bob", 3)
	res := f.must("POST", "/v1/leagues/weekly/standings", `{"player_ids":["bob","nobody","alice","bad id"]}`)["standings"].([]any)
	if len(res) != 4 {
		t.Fatalf("%d standings, want 4", len(res))
	}
	bob, nobody, alice, bad := res[0].(map[string]any), res[1].(map[string]any), res[2].(map[string]any), res[3].(map[string]any)
	if bob["rank"] != 1.0 || bob["score"] != 3.0 || alice["rank"] != 2.0 || alice["gap"] != 3.0 {
		t.Errorf("standings: bob %v, alice %v", bob, alice)
	}
	if nobody["error"].(map[string]any)["code"] != "not_found" || bad["error"].(map[string]any)["code"] != "invalid" {
		t.Errorf("failures: %v, %v", nobody, bad)
	}
}

func TestLeagues(t *testing.T) {
	f := onRedis(t)
	f.join("alice")
	all := f.must("GET", "/v1/leagues", "")["leagues"].([]any)
	one := f.must("GET", "/v1/leagues/weekly", "")
	if len(all) != 1 || fmt.Sprint(all[0]) != fmt.Sprint(one) {
		t.Fatalf("GET /v1/leagues %v and GET /v1/leagues/weekly %v differ", all, one)
	}
	cur := one["current_period"].(map[string]any)
	tiers := one["tiers"].([]any)
	silver := tiers[1].(map[string]any)
	if one["board_size"] != 10.0 || one["max_score"] != 1000.0 || one["entry_tier"] != "bronze" ||
		cur["id"] != firstPeriod || cur["end"] != "2026-11-23T00:00:00Z" ||
		one["populations"].(map[string]any)["bronze"] != 1.0 ||
		silver["promote"] != 0.2 || silver["demote"] != 0.2 || len(silver["rewards"].([]any)) != 2 {
		t.Fatalf("league: %v", one)
	}
}

func TestSettleRoutes(t *testing.T) {
	f := onRedis(t)
	s := f.must("POST", "/v1/admin/leagues/weekly/settle", "")
	if s["period"] != firstPeriod || s["status"] != "started" || s["finished_at"] != nil {
		t.Fatalf("settle: %v", s)
	}
	f.must("POST", "/v1/admin/leagues/weekly/settle", `{"period":"20261123T000000Z"}`)
	if len(f.settler.calls) != 2 || !f.settler.calls[0].IsZero() || !f.settler.calls[1].Equal(monday.AddDate(0, 0, 7)) {
		t.Fatalf("settler calls %v; want the zero time, then the named period's start", f.settler.calls)
	}
	list := f.must("GET", "/v1/admin/leagues/weekly/settlements?limit=1", "")["settlements"].([]any)
	if len(list) != 1 || list[0].(map[string]any)["period"] != "20261123T000000Z" {
		t.Fatalf("settlements?limit=1: %v, want the newest", list)
	}
}

// TestSettleCountsTheDependencyThatFailed: a settlement's error does not say
// whether Redis or the store failed it; the one that does not answer is
// counted, and a refusal that is no dependency's failure counts nothing.
func TestSettleCountsTheDependencyThatFailed(t *testing.T) {
	down := &league.Error{Code: league.Unavailable, Message: "settle: unavailable", Err: fmt.Errorf("connection refused")}
	for _, c := range []struct {
		name      string
		f         *fixture
		err       error
		status    int
		redis, pg float64
	}{
		{"redis down", onDownRedis(t), down, http.StatusServiceUnavailable, 1, 0},
		{"store down", onRedis(t, withConfig(func(c *api.Config) { c.Store = failingStore{c.Store} })), down, http.StatusServiceUnavailable, 0, 1},
		{"a refusal", onDownRedis(t), league.Errorf(league.Conflict, "period not ended"), http.StatusConflict, 0, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.f.tb = t
			c.f.settler.err = c.err
			w := c.f.do("POST", "/v1/admin/leagues/weekly/settle", "", adminKey)
			if w.Code != c.status {
				t.Fatalf("settle: %d, want %d", w.Code, c.status)
			}
			for dep, want := range map[string]float64{"redis": c.redis, "postgres": c.pg} {
				if n := metricValue(t, c.f, "league_dependency_errors_total", "dependency", dep); n != want {
					t.Errorf("%s errors %v, want %v", dep, n, want)
				}
			}
		})
	}
}

// TestReadiness: ready follows what the game-server routes need (Redis);
// the store's state rides along in the reply and a gauge, and its outage
// leaves the replica ready.
func TestReadiness(t *testing.T) {
	f := onRedis(t)
	if st := readyStore(t, f); st != "ok" {
		t.Fatalf("store %q with everything up, want ok", st)
	}
	for dep, want := range map[string]float64{"redis": 1, "postgres": 1} {
		if got := metricValue(t, f, "league_dependency_up", "dependency", dep); got != want {
			t.Errorf("league_dependency_up{%s} = %v, want %v", dep, got, want)
		}
	}

	pg := onRedis(t, withConfig(func(c *api.Config) { c.Store = failingStore{c.Store} }))
	if st := readyStore(t, pg); st != "unavailable" {
		t.Fatalf("store %q with the store down, want unavailable", st)
	}
	if got := metricValue(t, pg, "league_dependency_up", "dependency", "postgres"); got != 0 {
		t.Errorf("league_dependency_up{postgres} = %v with the store down, want 0", got)
	}

	for _, c := range []struct {
		name string
		f    *fixture
	}{
		{"redis down", onDownRedis(t)},
		{"both down", onDownRedis(t, withConfig(func(c *api.Config) { c.Store = failingStore{c.Store} }))},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.f.tb = t
			w := c.f.do("GET", "/readyz", "", noKey)
			code, msg := errorOf(t, w)
			if w.Code != http.StatusServiceUnavailable || code != "unavailable" || !strings.Contains(msg, "redis") {
				t.Fatalf("got %d %s %q, want 503 unavailable naming redis", w.Code, code, msg)
			}
			if w.Header().Get("Retry-After") == "" {
				t.Error("a 503 without Retry-After")
			}
			if w := c.f.do("GET", "/healthz", "", noKey); w.Code != http.StatusOK {
				t.Errorf("healthz: %d, want 200 whatever the dependencies", w.Code)
			}
			if n := metricValue(t, c.f, "league_dependency_errors_total", "dependency", "redis"); n != 1 {
				t.Errorf("redis errors %v, want 1", n)
			}
			if got := metricValue(t, c.f, "league_dependency_up", "dependency", "redis"); got != 0 {
				t.Errorf("league_dependency_up{redis} = %v, want 0", got)
			}
		})
	}
}

// readyStore probes /readyz, which must answer 200, until the store's state
// is known, and returns it.
func readyStore(t *testing.T, f *fixture) string {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		w := f.do("GET", "/readyz", "", noKey)
		if w.Code != http.StatusOK {
			t.Fatalf("readyz: %d %s, want 200", w.Code, w.Body)
		}
		st, _ := decodeJSON(t, w.Body.Bytes())["store"].(string)
		if st != "unknown" || time.Now().After(deadline) {
			return st
		}
	}
}

// TestReadinessWarnsSparingly: the probes need no key, so a dependency
// that does not answer is logged once per 10 s, not once per probe; and
// once more when it answers again.
func TestReadinessWarnsSparingly(t *testing.T) {
	f := onDownRedis(t)
	for range 20 {
		f.do("GET", "/readyz", "", noKey)
	}
	if n := strings.Count(f.log.String(), "level=WARN"); n != 1 {
		t.Fatalf("%d warnings for 20 probes of a Redis that is down, want 1:\n%s", n, f.log.String())
	}
}

// TestReadinessWhileDraining: once the server drains (a shutdown began),
// readiness fails so that load balancers stop sending requests, while
// requests still in flight or arriving are served.
func TestReadinessWhileDraining(t *testing.T) {
	f := onRedis(t)
	f.server.Drain()
	w := f.do("GET", "/readyz", "", noKey)
	if _, msg := errorOf(t, w); w.Code != http.StatusServiceUnavailable || !strings.Contains(msg, "shutting down") {
		t.Fatalf("readyz while draining: %d %q, want 503 saying it is shutting down", w.Code, msg)
	}
	f.join("alice")
}

// TestReadinessAfterRedisLostTheLeague: Redis answers but lost the leagues
// this process opened: not ready, and joins are refused, both naming the fix.
func TestReadinessAfterRedisLostTheLeague(t *testing.T) {
	f := onMini(t)
	f.join("alice")
	f.mini.FlushAll()
	calls := []*httptest.ResponseRecorder{
		f.do("GET", "/readyz", "", noKey),
		f.do("POST", "/v1/leagues/weekly/join", `{"player_id":"bob","name":"Bob"}`, gameKey),
	}
	for _, w := range calls {
		code, msg := errorOf(t, w)
		if w.Code != http.StatusServiceUnavailable || code != "unavailable" || !strings.Contains(msg, "leaguectl restore -league weekly") {
			t.Fatalf("got %d %s %q, want 503 naming leaguectl restore", w.Code, code, msg)
		}
	}
	if keys := f.mini.Keys(); len(keys) != 0 {
		t.Fatalf("the refused join wrote %v", keys)
	}
	// Every call of the lost league is a 503 counted against Redis, the
	// routes that look the league up first included.
	for _, c := range [][2]string{
		{"GET", "/v1/leagues/weekly/players/alice"}, {"GET", "/v1/leagues/weekly/boards/bronze-1"},
		{"GET", "/v1/leagues/weekly"}, {"POST", "/v1/leagues/weekly/scores/batch"},
	} {
		body := ""
		if c[0] == "POST" {
			body = `{"writes":[{"player_id":"alice","value":1}]}`
		}
		w := f.do(c[0], c[1], body, gameKey)
		if w.Code != http.StatusServiceUnavailable {
			t.Errorf("%s %s: %d, want 503", c[0], c[1], w.Code)
		}
		calls = append(calls, w)
	}
	if n := metricValue(t, f, "league_dependency_errors_total", "dependency", "redis"); n != float64(len(calls)) {
		t.Errorf("redis errors %v after %d calls of a league Redis lost, want each counted", n, len(calls))
	}
}

func TestMetrics(t *testing.T) {
	f := onRedis(t)
	f.join("alice")
	f.score("alice", 1)
	f.score("alice", 1)
	f.do("POST", "/v1/leagues/weekly/scores", `{"player_id":"alice","value":-1}`, gameKey)
	f.do("GET", "/v1/leagues/weekly/players/nobody", "", gameKey)
	f.do("GET", "/nothing", "", gameKey)
	for _, c := range []struct {
		route, code string
		want        float64
	}{
		{"POST /v1/leagues/{league}/scores", "200", 2},
		{"POST /v1/leagues/{league}/scores", "400", 1},
		{"GET /v1/leagues/{league}/players/{player_id}", "404", 1},
		{"/", "404", 1},
	} {
		if n := metricValue(t, f, "league_http_requests_total", "route", c.route, "code", c.code); n != c.want {
			t.Errorf("requests{route=%q,code=%s} = %v, want %v", c.route, c.code, n, c.want)
		}
		if n := metricValue(t, f, "league_http_request_duration_seconds", "route", c.route, "code", c.code); n != c.want {
			t.Errorf("duration count{route=%q,code=%s} = %v, want %v", c.route, c.code, n, c.want)
		}
	}
	if n := metricValue(t, f, "league_dependency_errors_total", "dependency", "redis"); n != 0 {
		t.Errorf("redis errors %v, want 0: refusals of input are not dependency failures", n)
	}
	// join and two writes went to Redis as single calls, each alone
	calls := metricValue(t, f, "league_redis_shared_calls_total")
	trips := metricValue(t, f, "league_redis_shared_round_trips_total")
	if calls < 3 || trips < 1 || trips > calls {
		t.Errorf("shared calls %v over %v round trips, want at least 3 calls and 1..calls round trips", calls, trips)
	}
	w := f.do("GET", "/metrics", "", noKey)
	if !strings.Contains(w.Body.String(), `league_http_requests_total{code="200",route="POST /v1/leagues/{league}/scores"} 2`) {
		t.Errorf("/metrics lacks the score route's series:\n%s", w.Body)
	}
}

func TestPanicIsInternal(t *testing.T) {
	f := onRedis(t, withConfig(func(c *api.Config) { c.Settler = panickingSettler{} }))
	w := f.do("POST", "/v1/admin/leagues/weekly/settle", "", adminKey)
	if code, msg := errorOf(t, w); w.Code != 500 || code != "internal" || msg != "internal error" {
		t.Fatalf("got %d %s %q, want 500 internal", w.Code, code, msg)
	}
	if !strings.Contains(f.log.String(), "settler exploded") {
		t.Errorf("the panic was not logged:\n%s", f.log)
	}
}

type panickingSettler struct{}

func (panickingSettler) SettleNow(context.Context, string, time.Time) (league.Settlement, error) {
	panic("settler exploded")
}

// metricValue returns a counter's value, or a histogram's count, of the
// series with the given label pairs.
func metricValue(tb testing.TB, f *fixture, name string, labels ...string) float64 {
	tb.Helper()
	return gathered(tb, f.reg, name, labels...)
}

// gathered reads the series of a counter, gauge or histogram (its count)
// with the given label pairs from reg; 0 when there is none.
func gathered(tb testing.TB, reg *prometheus.Registry, name string, labels ...string) float64 {
	tb.Helper()
	families, err := reg.Gather()
	if err != nil {
		tb.Fatal(err)
	}
	for _, fam := range families {
		if fam.GetName() != name {
			continue
		}
		for _, m := range fam.GetMetric() {
			if hasLabels(m, labels) {
				if h := m.GetHistogram(); h != nil {
					return float64(h.GetSampleCount())
				}
				if g := m.GetGauge(); g != nil {
					return g.GetValue()
				}
				return m.GetCounter().GetValue()
			}
		}
	}
	return 0
}

func hasLabels(m *dto.Metric, pairs []string) bool {
	for i := 0; i+1 < len(pairs); i += 2 {
		found := false
		for _, l := range m.GetLabel() {
			found = found || (l.GetName() == pairs[i] && l.GetValue() == pairs[i+1])
		}
		if !found {
			return false
		}
	}
	return true
}

// TestPlayerIDsAddressedEscaped: every id a join accepts can be looked up,
// path-escaped, through the handler and over HTTP; "." and "..", which no
// URL path can carry as a segment, are refused at the join.
func TestPlayerIDsAddressedEscaped(t *testing.T) {
	direct, served := onMini(t), onMini(t)
	served.serve()
	for _, f := range []*fixture{direct, served} {
		for _, id := range []string{"a/b", "a//b", "/a", "a/", "a/../b", "x/.", "./x", "%2F", "?q=1", "#h", "..."} {
			f.join(id)
			got := f.must("GET", "/v1/leagues/weekly/players/"+url.PathEscape(id), "")
			if got["player_id"] != id || got["joined"] != true {
				t.Errorf("GET of player %q: %v", id, got)
			}
		}
		for _, id := range []string{".", ".."} {
			w := f.do("POST", "/v1/leagues/weekly/join", fmt.Sprintf(`{"player_id":%q,"name":"n"}`, id), gameKey)
			if code, msg := errorOf(t, w); w.Code != http.StatusBadRequest || code != "invalid" || !strings.HasPrefix(msg, "player_id: ") {
				t.Errorf("join of player %q: %d %s %s", id, w.Code, code, msg)
			}
		}
	}
}

// TestAllowNamesEveryMethodServed: a 405's Allow lists HEAD beside GET,
// since the mux serves HEAD with GET's handler.
func TestAllowNamesEveryMethodServed(t *testing.T) {
	f := onMini(t)
	for path, want := range map[string]string{
		"/v1/leagues/weekly":      "GET, HEAD",
		"/v1/leagues/weekly/join": "POST",
	} {
		if w := f.do("PUT", path, "", gameKey); w.Code != http.StatusMethodNotAllowed || w.Header().Get("Allow") != want {
			t.Errorf("PUT %s: %d, Allow %q; want 405 with %q", path, w.Code, w.Header().Get("Allow"), want)
		}
	}
	f.unchecked = true // HEAD is HTTP's, not a route of the API document
	if w := f.do("HEAD", "/v1/leagues/weekly", "", gameKey); w.Code != http.StatusOK {
		t.Errorf("HEAD of a GET route: %d, want 200", w.Code)
	}
}

// TestStoreThatHangs: a Postgres that hangs rather than refuses holds no
// route: a player's profile answers with the live standing once its read
// of the store times out, the settlement list with a 503; both count
// against Postgres.
func TestStoreThatHangs(t *testing.T) {
	f := onMini(t, withConfig(func(c *api.Config) { c.Store = hangingStore{c.Store} }))
	f.join("alice")
	st := f.must("GET", "/v1/leagues/weekly/players/alice", "")
	if st["joined"] != true || st["history_unavailable"] != true {
		t.Errorf("player with the store hanging: %v, want the live standing, history unavailable", st)
	}
	w := f.do("GET", "/v1/admin/leagues/weekly/settlements", "", adminKey)
	if code, msg := errorOf(t, w); w.Code != http.StatusServiceUnavailable || code != "unavailable" {
		t.Errorf("settlements with the store hanging: %d %s %q, want 503", w.Code, code, msg)
	}
	if n := metricValue(t, f, "league_dependency_errors_total", "dependency", "postgres"); n != 2 {
		t.Errorf("postgres errors %v, want 2", n)
	}
	if strings.Contains(f.log.String(), "no deadline") {
		t.Errorf("a route asked the store with no deadline:\n%s", f.log)
	}
}

// TestRedisLostItsScripts: a script Redis still lacks after the engine
// loaded it again ran nowhere: 503, retry, not an internal error.
func TestRedisLostItsScripts(t *testing.T) {
	f := onMini(t)
	f.join("alice")
	f.mini.SetError("NOSCRIPT No matching script. Please use EVAL.")
	w := f.do("POST", "/v1/leagues/weekly/scores", `{"player_id":"alice","value":5,"request_id":"m1"}`, gameKey)
	if code, msg := errorOf(t, w); w.Code != http.StatusServiceUnavailable || code != "unavailable" || !strings.Contains(msg, "lost its scripts") {
		t.Errorf("score with the scripts gone: %d %s %q, want 503 unavailable", w.Code, code, msg)
	}
}

// TestRedisOutOfMemory: a Redis at maxmemory under noeviction refuses
// writes with OOM. That is a dependency unable to serve (503, counted), not
// an internal error.
func TestRedisOutOfMemory(t *testing.T) {
	f := onMini(t)
	f.join("alice")
	f.mini.SetError("OOM command not allowed when used memory > 'maxmemory'.")
	for i, c := range []struct{ path, body string }{
		{"/v1/leagues/weekly/join", `{"player_id":"bob","name":"Bob"}`},
		{"/v1/leagues/weekly/scores", `{"player_id":"alice","value":5,"request_id":"m1"}`},
	} {
		w := f.do("POST", c.path, c.body, gameKey)
		code, msg := errorOf(t, w)
		if w.Code != http.StatusServiceUnavailable || code != "unavailable" || !strings.Contains(msg, "out of memory") {
			t.Errorf("%s with Redis out of memory: %d %s %q, want 503 unavailable saying out of memory", c.path, w.Code, code, msg)
		}
		if n := metricValue(t, f, "league_dependency_errors_total", "dependency", "redis"); n != float64(i+1) {
			t.Errorf("redis errors %v, want %d", n, i+1)
		}
	}
}
