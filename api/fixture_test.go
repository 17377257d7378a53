package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/league-engine/league/api"
	"github.com/league-engine/league/events"
	"github.com/league-engine/league/inmem"
	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/leaderboard"
	"github.com/league-engine/league/league"
	"github.com/league-engine/league/tiers"
)

func init() {
	// Snapshots of miniredis must see whole values, not the first 60 bytes.
	miniredis.DumpMaxLineLen = 1 << 20
}

// Keys of the test servers.
const (
	gameKey  = "game-key-0123456789"
	adminKey = "admin-key-0123456789"
	noKey    = ""
)

// monday starts the test week: the first period is 20261116T000000Z.
var monday = time.Date(2026, 11, 16, 0, 0, 0, 0, time.UTC)

const firstPeriod = "20261116T000000Z"

// testLadder is bronze -> silver -> gold; ranks 1-3 of every tier earn gems.
func testLadder(tb testing.TB) *tiers.Ladder {
	tb.Helper()
	rewards := []tiers.Band{
		{From: 1, To: 1, Items: []tiers.Item{{ID: "gems", Qty: 100}}},
		{From: 2, To: 3, Items: []tiers.Item{{ID: "gems", Qty: 50}}},
	}
	l, err := tiers.NewLadder([]tiers.Tier{
		{ID: "bronze", Name: "Bronze", Promote: 2000, MinPromoteScore: 1, Rewards: rewards},
		{ID: "silver", Name: "Silver", Promote: 2000, Demote: 2000, Rewards: rewards},
		{ID: "gold", Name: "Gold", Demote: 3000, Rewards: rewards},
	})
	testsvc.Must(tb, err, "NewLadder")
	return l
}

// testLeague is "weekly": Mondays 00:00 UTC, boards of 10, scores up to 1000.
func testLeague(tb testing.TB, edit func(*league.League)) *league.League {
	tb.Helper()
	s, err := league.ParseSchedule("0 0 * * MON")
	testsvc.Must(tb, err, "ParseSchedule")
	l := &league.League{ID: "weekly", BoardSize: 10, Schedule: s, Ladder: testLadder(tb), MaxScore: 1000}
	if edit != nil {
		edit(l)
	}
	testsvc.Must(tb, l.Init(), "Init")
	return l
}

// option changes a fixture's league or server configuration.
type option struct {
	league func(*league.League)
	config func(*api.Config)
}

func withLeague(fn func(*league.League)) option { return option{league: fn} }
func withConfig(fn func(*api.Config)) option    { return option{config: fn} }

// fixture is a server on a fresh namespace of a Redis, an in-memory store
// and a fake settler, its engine's clock an hour into the test week.
type fixture struct {
	tb      testing.TB
	ctx     context.Context
	rdb     *redis.Client
	mini    *miniredis.Miniredis // nil on the real Redis
	ns      string
	clock   *testsvc.Clock
	engine  *league.Engine
	boards  *leaderboard.Engine // the "kills" leaderboard: every kind of board, incr, max 1000
	store   *inmem.Store
	settler *fakeSettler
	feed    *fakeFeed
	reg     *prometheus.Registry
	log     *testsvc.Log
	server  *api.Server
	handler http.Handler
	// unchecked turns off checking replies against openapi.yaml (fuzzing
	// and benchmarks); every other request a test sends is checked.
	unchecked bool
	// base is the URL of api.HTTPServer serving handler once serve is
	// called; requests then go over loopback instead of straight in.
	base   string
	client *http.Client
}

// onRedis opens a fixture on the real Redis (REDIS_URL).
func onRedis(tb testing.TB, opts ...option) *fixture {
	tb.Helper()
	ns := testsvc.Namespace(tb)
	return newFixture(tb, testsvc.Redis(tb, ns), nil, ns, opts...)
}

// onMini opens a fixture on a fresh miniredis.
func onMini(tb testing.TB, opts ...option) *fixture {
	tb.Helper()
	rdb, m := testsvc.Mini(tb)
	return newFixture(tb, rdb, m, testsvc.Namespace(tb), opts...)
}

// onDownRedis opens a fixture whose Redis (a miniredis) is closed once the
// engine is open: every Redis call fails as unreachable, at once.
func onDownRedis(tb testing.TB, opts ...option) *fixture {
	tb.Helper()
	m := miniredis.RunT(tb)
	rdb := redis.NewClient(&redis.Options{Addr: m.Addr(), MaxRetries: -1,
		DialerRetries: 1, DialerRetryTimeout: time.Millisecond})
	tb.Cleanup(func() { rdb.Close() })
	f := newFixture(tb, rdb, m, testsvc.Namespace(tb), opts...)
	m.Close()
	return f
}

func newFixture(tb testing.TB, rdb *redis.Client, m *miniredis.Miniredis, ns string, opts ...option) *fixture {
	tb.Helper()
	f := &fixture{tb: tb, ctx: context.Background(), rdb: rdb, mini: m, ns: ns, clock: testsvc.NewClock(monday.Add(time.Hour)),
		store: inmem.New(), reg: prometheus.NewRegistry(), log: &testsvc.Log{}}
	quiet := slog.New(slog.NewTextHandler(f.log, nil))
	var editLeague func(*league.League)
	for _, o := range opts {
		if o.league != nil {
			editLeague = o.league
		}
	}
	e, err := league.Open(f.ctx, rdb, []*league.League{testLeague(tb, editLeague)},
		league.WithNamespace(ns), league.WithClock(f.clock.Now), league.WithLogger(quiet))
	testsvc.Must(tb, err, "league.Open")
	f.engine = e
	kills := &leaderboard.Leaderboard{ID: "kills", Kinds: []leaderboard.Kind{leaderboard.Hour, leaderboard.Day,
		leaderboard.Week, leaderboard.Month, leaderboard.AllTime}, Windows: []leaderboard.Window{{N: 7, Unit: leaderboard.Day}}, MaxScore: 1000,
		Retention: map[leaderboard.Kind]time.Duration{leaderboard.Hour: time.Hour}, Archive: &leaderboard.ArchivePolicy{Kinds: []leaderboard.Kind{leaderboard.Hour}},
		Catalog: true, PublicBoards: true}
	testsvc.Must(tb, kills.Init(), "leaderboard Init")
	// votes: one vote a day for an actor, from the web or a partner, over 3
	// shards: the actor's limit is taken in its own shard before the vote
	// is written in the candidate's (leaderboard/reserve.go)
	votes := &leaderboard.Leaderboard{ID: "votes", Kinds: []leaderboard.Kind{leaderboard.Day}, Channels: []string{"web", "partner"},
		Participants: []leaderboard.Kind{leaderboard.Day}, Shards: 3,
		Limits: []leaderboard.Limit{{By: []leaderboard.Dimension{leaderboard.OfActor}, Per: leaderboard.PerDay, Max: 1}}}
	testsvc.Must(tb, votes.Init(), "leaderboard Init")
	// peak: queued, at most 12 writes waiting (3 a shard), over 4 shards
	peak := &leaderboard.Leaderboard{ID: "peak", Kinds: []leaderboard.Kind{leaderboard.Day}, Shards: 4,
		Queue: &leaderboard.QueuePolicy{MaxLag: 12}}
	testsvc.Must(tb, peak.Init(), "leaderboard Init")
	f.boards, err = leaderboard.Open(f.ctx, rdb, []*leaderboard.Leaderboard{kills, votes, peak},
		leaderboard.WithNamespace(ns), leaderboard.WithClock(f.clock.Now), leaderboard.WithLogger(quiet), leaderboard.WithArchive(f.store))
	testsvc.Must(tb, err, "leaderboard.Open")
	f.settler = &fakeSettler{store: f.store}
	f.feed = &fakeFeed{}
	cfg := api.Config{
		Engine: e, Leaderboards: f.boards, Store: f.store, Settler: f.settler, Events: f.feed,
		Keys:     keysOf([]string{gameKey}, []string{adminKey}),
		Registry: f.reg, Logger: quiet,
	}
	for _, o := range opts {
		if o.config != nil {
			o.config(&cfg)
		}
	}
	f.server = api.New(cfg)
	f.handler = f.server.Handler()
	return f
}

// do sends a request to the handler: body "" sends none; key "" sends no
// key, any other is sent as a bearer token.
func (f *fixture) do(method, path, body, key string) *httptest.ResponseRecorder {
	f.tb.Helper()
	return f.doAs(method, path, body, key, "application/json")
}

// doAs is do with a body of another media type.
func (f *fixture) doAs(method, path, body, key, contentType string) *httptest.ResponseRecorder {
	f.tb.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	r := httptest.NewRequest(method, path, rd)
	if body != "" {
		r.Header.Set("Content-Type", contentType)
	}
	if key != "" {
		r.Header.Set("Authorization", "Bearer "+key)
	}
	w := httptest.NewRecorder()
	if f.base != "" {
		f.roundTrip(r, w)
	} else {
		f.handler.ServeHTTP(w, r)
	}
	if !f.unchecked {
		conform(f.tb, method, path, body, r.Header, w)
	}
	return w
}

// keysOf names game and admin secrets game-1, game-2, ..., admin-1, ...,
// each opening every league.
func keysOf(game, admin []string) []api.Key {
	var keys []api.Key
	for i, s := range game {
		keys = append(keys, api.Key{Name: fmt.Sprintf("game-%d", i+1), Secrets: []string{s}})
	}
	for i, s := range admin {
		keys = append(keys, api.Key{Name: fmt.Sprintf("admin-%d", i+1), Admin: true, Secrets: []string{s}})
	}
	return keys
}

// serve puts api.HTTPServer, leagued's server, in front of the handler on a
// loopback port: from now on the fixture's requests travel over HTTP/1.1.
func (f *fixture) serve() {
	f.tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	testsvc.Must(f.tb, err, "listen")
	srv := api.NewHTTPServer(f.handler, api.ServeOptions{Logger: slog.New(slog.NewTextHandler(f.log, nil))})
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	f.base = "http://" + ln.Addr().String()
	f.client = &http.Client{Transport: &http.Transport{Proxy: nil, DisableCompression: true}}
	f.tb.Cleanup(func() {
		f.client.CloseIdleConnections()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			f.tb.Errorf("HTTPServer.Shutdown: %v", err)
		}
		if err := <-served; err != nil {
			f.tb.Errorf("HTTPServer.Serve: %v", err)
		}
	})
}

// roundTrip sends r to the served handler and records the response in w.
func (f *fixture) roundTrip(r *http.Request, w *httptest.ResponseRecorder) {
	f.tb.Helper()
	out, err := http.NewRequest(r.Method, f.base+r.RequestURI, r.Body)
	testsvc.Must(f.tb, err, "request")
	out.Header = r.Header.Clone()
	resp, err := f.client.Do(out)
	testsvc.Must(f.tb, err, "%s %s", r.Method, r.RequestURI)
	defer resp.Body.Close()
	for k, vs := range resp.Header {
		w.Header()[k] = vs
	}
	w.WriteHeader(resp.StatusCode)
	_, err = io.Copy(w, resp.Body)
	testsvc.Must(f.tb, err, "reading the reply")
}

// must sends a request that must answer 200 and decodes the reply.
func (f *fixture) must(method, path, body string) map[string]any {
	f.tb.Helper()
	key := gameKey
	if strings.HasPrefix(path, "/v1/admin/") {
		key = adminKey
	}
	w := f.do(method, path, body, key)
	if w.Code != http.StatusOK {
		f.tb.Fatalf("%s %s %s: status %d, want 200: %s", method, path, body, w.Code, w.Body)
	}
	if w.Header().Get("Content-Type") != "application/json" {
		return nil // /metrics, /openapi.yaml
	}
	return decodeJSON(f.tb, w.Body.Bytes())
}

func (f *fixture) join(player string) map[string]any {
	f.tb.Helper()
	return f.must("POST", "/v1/leagues/weekly/join", fmt.Sprintf(`{"player_id":%q,"name":"name %s","avatar":"a1"}`, player, player))
}

func (f *fixture) score(player string, v int64) map[string]any {
	f.tb.Helper()
	return f.must("POST", "/v1/leagues/weekly/scores", fmt.Sprintf(`{"player_id":%q,"value":%d}`, player, v))
}

func (f *fixture) period() league.Period {
	p, err := f.engine.Current("weekly")
	testsvc.Must(f.tb, err, "Current")
	return p
}

func decodeJSON(tb testing.TB, b []byte) map[string]any {
	tb.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		tb.Fatalf("reply is not a JSON object: %v: %s", err, b)
	}
	return m
}

// errorOf returns the code and message of an error reply, failing the test
// when the reply is not one.
func errorOf(tb testing.TB, w *httptest.ResponseRecorder) (code, message string) {
	tb.Helper()
	var e struct {
		Error *struct{ Code, Message string } `json:"error"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &e); err != nil || e.Error == nil {
		tb.Fatalf("status %d: not an error reply: %s", w.Code, w.Body)
	}
	return e.Error.Code, e.Error.Message
}

// snapshot returns every key of the fixture's namespace with its value, to
// prove a refused request wrote nothing.
func (f *fixture) snapshot() string {
	f.tb.Helper()
	if f.mini != nil {
		return f.mini.Dump()
	}
	keys, err := f.rdb.Keys(f.ctx, f.ns+":*").Result()
	testsvc.Must(f.tb, err, "KEYS")
	sort.Strings(keys)
	var sb strings.Builder
	for _, k := range keys {
		v, err := f.rdb.Dump(f.ctx, k).Result()
		testsvc.Must(f.tb, err, "DUMP %s", k)
		fmt.Fprintf(&sb, "%s=%q\n", k, v)
	}
	return sb.String()
}

// settleWeek settles period p as the scheduler would, through the engine
// and the store, so players have history, pending rewards and new tiers.
func (f *fixture) settleWeek(p league.Period) {
	f.tb.Helper()
	pop, err := f.engine.Close(f.ctx, "weekly", p)
	testsvc.Must(f.tb, err, "Close")
	st, err := f.store.BeginSettlement(f.ctx, league.Settlement{League: "weekly", Period: p.Start, PeriodEnd: p.End})
	testsvc.Must(f.tb, err, "BeginSettlement")
	var all []tiers.Outcome
	var outcomes []league.Outcome
	var rewards []league.EarnedReward
	st.Tiers, err = f.engine.Decide(f.ctx, "weekly", p, pop, func(b league.DecidedBoard) error {
		for k := range b.Outcomes {
			outcomes = append(outcomes, b.Row(k))
			if r, ok := b.Reward(k); ok {
				rewards = append(rewards, r)
			}
		}
		all = append(all, b.Outcomes...)
		return nil
	})
	testsvc.Must(f.tb, err, "Decide")
	st.Players = len(outcomes)
	testsvc.Must(f.tb, f.store.WriteOutcomes(f.ctx, st, outcomes, rewards), "WriteOutcomes")
	testsvc.Must(f.tb, f.engine.Apply(f.ctx, "weekly", p, all), "Apply")
	testsvc.Must(f.tb, f.engine.MarkSettled(f.ctx, "weekly", p), "MarkSettled")
	testsvc.Must(f.tb, f.store.Advance(f.ctx, "weekly", p.Start, league.StatusWritten, league.StatusApplied), "Advance")
	testsvc.Must(f.tb, f.store.Advance(f.ctx, "weekly", p.Start, league.StatusApplied, league.StatusDone), "Advance")
}

// fakeSettler stands in for the scheduler: it records the call and
// answers with the store's record of the period, or err.
type fakeSettler struct {
	store *inmem.Store
	mu    sync.Mutex
	calls []time.Time
	err   error
}

func (s *fakeSettler) SettleNow(ctx context.Context, lg string, period time.Time) (league.Settlement, error) {
	s.mu.Lock()
	s.calls = append(s.calls, period)
	err := s.err
	s.mu.Unlock()
	if err != nil {
		return league.Settlement{}, err
	}
	if period.IsZero() {
		period = monday
	}
	return s.store.BeginSettlement(ctx, league.Settlement{League: lg, Period: period, PeriodEnd: period.AddDate(0, 0, 7)})
}

// fakeFeed stands in for the outbox Postgres keeps (postgres.Store's
// Events): add appends events with the next ids; err fails every read.
type fakeFeed struct {
	mu     sync.Mutex
	events []events.Event
	err    error
}

func (f *fakeFeed) add(evs ...events.Event) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, e := range evs {
		e.ID = int64(len(f.events) + 1)
		f.events = append(f.events, e)
	}
}

func (f *fakeFeed) Events(_ context.Context, after int64, limit int, leagues []string) ([]events.Event, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return nil, f.err
	}
	var out []events.Event
	for _, e := range f.events {
		if e.ID > after && len(out) < limit && (leagues == nil || slices.Contains(leagues, e.League)) {
			out = append(out, e)
		}
	}
	return out, nil
}

// failingStore is a store whose every call fails as Postgres down would.
type failingStore struct{ league.Store }

var errStoreDown = &league.Error{Code: league.Unavailable, Message: "postgres unavailable", Err: fmt.Errorf("dial tcp 127.0.0.1:5432: connection refused")}

func (failingStore) Profile(context.Context, string, string, int) (league.Profile, error) {
	return league.Profile{}, errStoreDown
}

func (failingStore) Settlements(context.Context, string, int) ([]league.Settlement, error) {
	return nil, errStoreDown
}

func (failingStore) Ping(context.Context) error { return errStoreDown }

// hangingStore is a store whose database hangs rather than refuses: a read
// waits for its context to end, as pgx does, and fails then as the store
// does. One given no deadline gives up after a minute, so that a test of
// the route's bound fails rather than hangs.
type hangingStore struct{ league.Store }

func (hangingStore) wait(ctx context.Context) error {
	if _, ok := ctx.Deadline(); !ok {
		return fmt.Errorf("the store was asked with no deadline")
	}
	select {
	case <-ctx.Done():
		return &league.Error{Code: league.Unavailable, Message: "postgres unavailable", Err: ctx.Err()}
	case <-time.After(time.Minute):
		return fmt.Errorf("the deadline did not end the wait")
	}
}

func (h hangingStore) Profile(ctx context.Context, _, _ string, _ int) (league.Profile, error) {
	return league.Profile{}, h.wait(ctx)
}

func (h hangingStore) Settlements(ctx context.Context, _ string, _ int) ([]league.Settlement, error) {
	return nil, h.wait(ctx)
}
