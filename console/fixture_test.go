package console_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/league-engine/league/api"
	"github.com/league-engine/league/console"
	"github.com/league-engine/league/inmem"
	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/leaderboard"
	"github.com/league-engine/league/league"
	"github.com/league-engine/league/scheduler"
	"github.com/league-engine/league/tiers"
)

// Keys of the test servers.
const (
	gameKey  = "game-key-0123456789"
	adminKey = "admin-key-0123456789"
)

// monday starts the test week; the engine's clock is an hour into it.
var monday = time.Date(2026, 11, 16, 0, 0, 0, 0, time.UTC)

const firstPeriod = "20261116T000000Z"

var bothKeys = []api.Key{
	{Name: "game-1", Secrets: []string{gameKey}},
	{Name: "admin-1", Admin: true, Secrets: []string{adminKey}},
}

// fixture is leagued's API server, the console mounted, on a fresh
// namespace of the real Redis: league "weekly" holds writes past a gain of
// 50 for an operator.
type fixture struct {
	t      *testing.T
	ctx    context.Context
	rdb    *redis.Client
	ns     string
	clock  *testsvc.Clock
	engine *league.Engine
	boards *leaderboard.Engine // the leaderboards of newLeaderboards
	store  *inmem.Store
	sched  *scheduler.Scheduler // not started: tests settle with SettleNow
	server *api.Server
	http   *httptest.Server
	client *http.Client
}

func newFixture(t *testing.T, keys []api.Key) *fixture {
	return newFixtureOn(t, keys, httptest.NewServer)
}

// newFixtureOn serves the fixture with serve (httptest.NewServer or
// NewTLSServer).
func newFixtureOn(t *testing.T, keys []api.Key, serve func(http.Handler) *httptest.Server) *fixture {
	t.Helper()
	return newFixtureWith(t, keys, serve, func(*console.Config) {})
}

// newFixtureWith is newFixtureOn with the console's config edited.
func newFixtureWith(t *testing.T, keys []api.Key, serve func(http.Handler) *httptest.Server, edit func(*console.Config)) *fixture {
	t.Helper()
	ladder, err := tiers.NewLadder([]tiers.Tier{
		{ID: "bronze", Name: "Bronze", Promote: 2000, MinPromoteScore: 1},
		{ID: "silver", Name: "Silver", Demote: 2000},
	})
	testsvc.Must(t, err, "NewLadder")
	sched, err := league.ParseSchedule("0 0 * * MON")
	testsvc.Must(t, err, "ParseSchedule")
	l := &league.League{ID: "weekly", BoardSize: 10, Schedule: sched, Ladder: ladder, MaxScore: 1_000_000, MaxGain: 50, Hold: true}
	// Live boards refresh fast: the browser tests wait for them.
	return newFixtureOf(t, keys, serve, l, func(c *console.Config) {
		c.Refresh = 250 * time.Millisecond
		edit(c)
	})
}

// newFixtureOf is the fixture of league l (not yet Init'ed), its console's
// config edited by edit.
func newFixtureOf(t *testing.T, keys []api.Key, serve func(http.Handler) *httptest.Server, l *league.League, edit func(*console.Config)) *fixture {
	t.Helper()
	ns := testsvc.Namespace(t)
	f := &fixture{t: t, ctx: context.Background(), rdb: testsvc.Redis(t, ns), ns: ns, store: inmem.New()}
	f.clock = testsvc.NewClock(monday.Add(time.Hour))
	quiet := slog.New(slog.NewTextHandler(&testsvc.Log{}, nil))
	testsvc.Must(t, l.Init(), "Init")
	var err error
	f.engine, err = league.Open(f.ctx, f.rdb, []*league.League{l},
		league.WithNamespace(ns), league.WithClock(f.clock.Now), league.WithLogger(quiet))
	testsvc.Must(t, err, "league.Open")
	f.boards, err = leaderboard.Open(f.ctx, f.rdb, newLeaderboards(t),
		leaderboard.WithNamespace(ns), leaderboard.WithClock(f.clock.Now), leaderboard.WithLogger(quiet))
	testsvc.Must(t, err, "leaderboard.Open")
	f.sched = scheduler.New(f.engine, f.store, scheduler.WithLogger(quiet))
	cc := &console.Config{Redis: f.rdb, Namespace: ns, Now: f.clock.Now, Scheduler: f.sched}
	edit(cc)
	f.server = api.New(api.Config{Engine: f.engine, Leaderboards: f.boards, Store: f.store, Keys: keys, Logger: quiet, Console: cc})
	f.http = serve(f.server.Handler())
	t.Cleanup(f.http.Close)
	f.client = f.http.Client()
	// Redirects are what is tested: not followed.
	f.client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return f
}

// newLeaderboards are the fixture's leaderboards:
//   - kills: day, week and all-time boards and the last 7 days, with a
//     catalog and public boards;
//   - votes: day and all-time boards counting their voters, two votes a
//     day for one candidate (one more from a partner), five in all;
//   - big: over 3 shards, pages to rank 1,000;
//   - peak: queued, over 2 shards.
func newLeaderboards(t *testing.T) []*leaderboard.Leaderboard {
	t.Helper()
	kills := &leaderboard.Leaderboard{ID: "kills", Kinds: []leaderboard.Kind{leaderboard.Day, leaderboard.Week, leaderboard.AllTime},
		Windows: []leaderboard.Window{{N: 7, Unit: leaderboard.Day}}, Catalog: true, PublicBoards: true, MaxScore: 1_000_000_000}
	votes := &leaderboard.Leaderboard{ID: "votes", Kinds: []leaderboard.Kind{leaderboard.Day, leaderboard.AllTime},
		Participants: []leaderboard.Kind{leaderboard.Day, leaderboard.AllTime}, Channels: []string{"web", "partner"},
		Limits: []leaderboard.Limit{
			{Name: "per-candidate", By: []leaderboard.Dimension{leaderboard.OfActor, leaderboard.OfMember}, Per: leaderboard.PerDay, Max: 2,
				Extra: map[leaderboard.Dimension]map[string]int64{leaderboard.OfChannel: {"partner": 1}}},
			{By: []leaderboard.Dimension{leaderboard.OfActor}, Per: leaderboard.PerDay, Max: 5},
		}}
	big := &leaderboard.Leaderboard{ID: "big", Kinds: []leaderboard.Kind{leaderboard.Day, leaderboard.AllTime}, Shards: 3, MaxDepth: 1000}
	peak := &leaderboard.Leaderboard{ID: "peak", Kinds: []leaderboard.Kind{leaderboard.Day}, Shards: 2, Queue: &leaderboard.QueuePolicy{MaxLag: 100}}
	out := []*leaderboard.Leaderboard{kills, votes, big, peak}
	for _, l := range out {
		testsvc.Must(t, l.Init(), "Init of leaderboard %s", l.ID)
	}
	return out
}

// reply is a response, its body read.
type reply struct {
	status int
	header http.Header
	body   string
}

// send sends a request with the session cookie (none: "") and headers.
func (f *fixture) send(method, path string, form url.Values, cookie string, header map[string]string) reply {
	f.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	r, err := http.NewRequest(method, f.http.URL+path, body)
	testsvc.Must(f.t, err, "request")
	if form != nil {
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if cookie != "" {
		r.AddCookie(&http.Cookie{Name: "league_console", Value: cookie})
	}
	for k, v := range header {
		r.Header.Set(k, v)
	}
	resp, err := f.client.Do(r)
	testsvc.Must(f.t, err, "%s %s", method, path)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	testsvc.Must(f.t, err, "reading the reply")
	return reply{status: resp.StatusCode, header: resp.Header, body: string(b)}
}

func (f *fixture) get(path, cookie string) reply { return f.send("GET", path, nil, cookie, nil) }

// post sends a form as a page of the console would: Origin its own.
func (f *fixture) post(path string, form url.Values, cookie string) reply {
	return f.send("POST", path, form, cookie, map[string]string{"Origin": f.http.URL})
}

// sessionCookie returns the session cookie a reply sets, or nil.
func sessionCookie(rep reply) *http.Cookie {
	for _, c := range (&http.Response{Header: rep.header}).Cookies() {
		if c.Name == "league_console" {
			return c
		}
	}
	return nil
}

// signin signs in with key and returns the session cookie's value.
func (f *fixture) signin(key string) string {
	f.t.Helper()
	rep := f.post("/console/signin", url.Values{"key": {key}}, "")
	c := sessionCookie(rep)
	if rep.status != http.StatusSeeOther || c == nil {
		f.t.Fatalf("sign-in: status %d, cookie %v; want 303 and a cookie: %s", rep.status, c, rep.body)
	}
	return c.Value
}

var csrfRE = regexp.MustCompile(`name="csrf" value="([0-9a-f]+)"`)

// csrf returns the token the forms of a session carry: the sign-out
// form's on every page, else (authentication off) a held write's.
func (f *fixture) csrf(cookie string) string {
	f.t.Helper()
	for _, path := range []string{"/console/", "/console/leagues/weekly/held"} {
		rep := f.get(path, cookie)
		if m := csrfRE.FindStringSubmatch(rep.body); rep.status == http.StatusOK && m != nil {
			return m[1]
		}
	}
	f.t.Fatalf("no CSRF token in the pages of session %s", cookie)
	return ""
}

// sessions counts the console's sessions in Redis.
func (f *fixture) sessions() int {
	f.t.Helper()
	keys, err := f.rdb.Keys(f.ctx, f.ns+":console:s:*").Result()
	testsvc.Must(f.t, err, "KEYS")
	return len(keys)
}

// hold makes player write value past the gain cap: held.
func (f *fixture) hold(player string, value int64) {
	f.t.Helper()
	_, err := f.engine.Join(f.ctx, "weekly", league.JoinRequest{Player: player, Name: "name " + player})
	testsvc.Must(f.t, err, "Join")
	res, err := f.engine.Score(f.ctx, "weekly", league.ScoreWrite{Player: player, Value: value})
	testsvc.Must(f.t, err, "Score")
	if res.Held == nil {
		f.t.Fatalf("a write of %d was not held", value)
	}
}

// state is what a decision on a held write changes: the writes held and
// the player's score.
func (f *fixture) state(player string) (held int, score int64) {
	f.t.Helper()
	_, list, err := f.engine.HeldWrites(f.ctx, "weekly", "")
	testsvc.Must(f.t, err, "HeldWrites")
	st, err := f.engine.Standing(f.ctx, "weekly", player)
	testsvc.Must(f.t, err, "Standing")
	return len(list), st.Score
}

// apiPost sends body to the API with the game key and fails the test
// unless it answers 200.
func (f *fixture) apiPost(path, body string) {
	f.t.Helper()
	r, err := http.NewRequest("POST", f.http.URL+path, strings.NewReader(body))
	testsvc.Must(f.t, err, "request")
	r.Header.Set("Authorization", "Bearer "+gameKey)
	r.Header.Set("Content-Type", "application/json")
	resp, err := f.client.Do(r)
	testsvc.Must(f.t, err, "POST %s", path)
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		f.t.Fatalf("POST %s: got %d, want 200: %s", path, resp.StatusCode, b)
	}
}
