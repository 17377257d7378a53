// Package console is the back office leagued serves at /console: server-
// rendered pages (html/template, embedded with go:embed: nothing fetched
// from the internet) where an operator signs in with an admin key, sees
// every league, its boards, players and settlements, decides its held
// writes, and sees the service's health. Charts are inline SVG drawn on the
// server; one small script (static/console.js) refreshes live boards and
// shows times in the operator's zone, and every page works without it.
// Beside the leagues it shows the leaderboards (package leaderboard): their
// boards a page at a time, a member on every board, the catalog with its
// import and multipliers, and the rate limits with the writes they refused.
//
// The api package mounts it, as it owns the keys (Keys); sessions live in
// Redis, so any replica of leagued serves a signed-in operator. Every
// request that changes state is a POST carrying the session's CSRF token
// from a same-origin page (csrf.go).
package console

import (
	"embed"
	"log/slog"
	"net/http"
	"net/netip"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/league-engine/league/leaderboard"
	"github.com/league-engine/league/league"
	"github.com/league-engine/league/scheduler"
)

//go:embed templates/*.html static/*.css static/*.js
var files embed.FS

// Keys is what the console asks of the API's keys (api's keyring answers;
// a SIGHUP reload is seen at once).
type Keys interface {
	// Off reports that authentication is off: no key is configured.
	Off() bool
	// Admin returns the name of the admin key whose secret is secret: an
	// Unauthorized error for no key, Forbidden for a game key.
	Admin(secret string) (name string, err error)
	// IsAdmin reports that name is still an admin key's: a session of a
	// key removed or demoted since it signed in ends.
	IsAdmin(name string) bool
}

// Config is what a Console needs. The api package sets Engine,
// Leaderboards, Store, Audit, Keys, Status, Metrics, Logger and Settler;
// leagued sets the rest.
type Config struct {
	Engine *league.Engine
	// Leaderboards has the leaderboards the leaderboard pages show (nil:
	// none).
	Leaderboards *leaderboard.Engine
	// Store has the settlements a league's page lists (nil: none shown).
	Store league.Store
	// Audit records the player page's moderation actions and lists them
	// (nil: actions wait in Redis for the scheduler, and none is listed).
	Audit league.AuditLog
	Keys  Keys
	// Metrics is the service's Prometheus registry, which the health page
	// reads its rates from (nil: none shown).
	Metrics prometheus.Gatherer
	// Scheduler tells the health page this process's settlement leases
	// and last errors (scheduler.Scheduler; nil: it runs none).
	Scheduler interface{ Status() []scheduler.Status }
	// RedisNote and StoreNote tell the health page what Redis and the
	// store are when an operator must know: in process memory, say, where
	// nothing survives a restart (leagued sets them).
	RedisNote, StoreNote string
	// Status is the HTTP status of an error: api's one table from codes to
	// statuses, so a page answers what the JSON route would.
	Status func(error) int
	// Redis holds the sessions, under Namespace:console:.
	Redis     redis.UniversalClient
	Namespace string
	// SessionTTL is how long a sign-in lasts (default DefaultSessionTTL).
	SessionTTL time.Duration
	// Refresh is how often a live board's page fetches its rows (default
	// DefaultRefresh).
	Refresh time.Duration
	// TrustedProxies are the proxies whose X-Forwarded-Proto and
	// X-Forwarded-For are believed (client.go).
	TrustedProxies []netip.Prefix
	Logger         *slog.Logger     // nil: slog.Default()
	Now            func() time.Time // nil: time.Now

	// Settler runs the Settle now form's settlements (the api package
	// passes its own); nil: the page previews, and says it cannot settle.
	Settler Settler
}

// DefaultSessionTTL is a working day: a session is not renewed by use, so
// a cookie left on a shared machine stops working by the evening.
const DefaultSessionTTL = 8 * time.Hour

// DefaultRefresh is how often a live board refreshes: a board is read in
// one round trip to Redis, and an operator watching sees a write within
// seconds.
const DefaultRefresh = 5 * time.Second

// Console serves the pages. Build it with New.
type Console struct {
	cfg      Config
	rates    rates
	sessions *sessions
	limit    *signinLimit
	pages    *pages
	mux      *http.ServeMux
}

// New builds the console.
func New(cfg Config) *Console {
	if cfg.SessionTTL <= 0 {
		cfg.SessionTTL = DefaultSessionTTL
	}
	if cfg.Refresh <= 0 {
		cfg.Refresh = DefaultRefresh
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Status == nil {
		cfg.Status = func(error) int { return http.StatusInternalServerError }
	}
	c := &Console{cfg: cfg, sessions: newSessions(cfg.Redis, cfg.Namespace, cfg.SessionTTL),
		limit: newSigninLimit(cfg.Redis, cfg.Namespace), pages: parsePages(), mux: http.NewServeMux()}
	c.routes()
	return c
}

// Prefix is where the console is served.
const Prefix = "/console"

func (c *Console) routes() {
	c.mux.Handle("GET /console/static/", http.StripPrefix("/console", http.FileServerFS(files)))
	c.mux.HandleFunc("GET /console/signin", c.signinPage)
	c.mux.HandleFunc("POST /console/signin", c.signin)
	c.mux.HandleFunc("POST /console/signout", c.action(c.signout))
	c.mux.HandleFunc("GET /console/{$}", c.page(c.leagues))
	c.mux.HandleFunc("GET /console/health", c.page(c.healthPage))
	c.mux.HandleFunc("GET /console/health/live", c.page(c.healthLive))
	c.mux.HandleFunc("GET /console/leagues/{league}", c.page(c.leaguePage))
	c.mux.HandleFunc("GET /console/leagues/{league}/find", c.page(c.find))
	c.mux.HandleFunc("GET /console/leagues/{league}/boards/{board}", c.page(c.boardPage))
	c.mux.HandleFunc("GET /console/leagues/{league}/boards/{board}/rows", c.page(c.boardRows))
	c.mux.HandleFunc("GET /console/leagues/{league}/players/{player}", c.page(c.playerPage))
	c.mux.HandleFunc("POST /console/leagues/{league}/players/{player}/moderate", c.action(c.moderate))
	c.mux.HandleFunc("GET /console/leagues/{league}/held", c.page(c.held))
	c.mux.HandleFunc("POST /console/leagues/{league}/held/{id}/{decision}", c.action(c.decide))
	c.mux.HandleFunc("GET /console/leagues/{league}/settle", c.page(c.settle))
	c.mux.HandleFunc("POST /console/leagues/{league}/settle", c.action(c.settleNow))
	c.mux.HandleFunc("GET /console/leaderboards", c.page(c.leaderboardsPage))
	c.mux.HandleFunc("GET /console/leaderboards/{leaderboard}", c.page(c.leaderboardsPage))
	c.mux.HandleFunc("GET /console/leaderboards/{leaderboard}/find", c.page(c.findMember))
	c.mux.HandleFunc("GET /console/leaderboards/{leaderboard}/boards/{kind}", c.page(c.lbBoardPage))
	c.mux.HandleFunc("GET /console/leaderboards/{leaderboard}/members/{member}", c.page(c.lbMemberPage))
	c.mux.HandleFunc("GET /console/leaderboards/{leaderboard}/catalog", c.page(c.catalogPage))
	c.mux.HandleFunc("POST /console/leaderboards/{leaderboard}/catalog/import", c.actionUpTo(maxUpload, c.importCatalog))
	c.mux.HandleFunc("POST /console/leaderboards/{leaderboard}/catalog/multiplier", c.action(c.setMultiplier))
	c.mux.HandleFunc("GET /console/leaderboards/{leaderboard}/limits", c.page(c.limitsPage))
	c.mux.HandleFunc("/console/", c.notFound)
}

// ServeHTTP serves everything under /console/.
func (c *Console) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	// Pages name no outside resource and run only the console's own
	// script, which fetches only from the console (a live board's rows);
	// nothing may frame them (clickjacking of the approve buttons), and
	// none is cached.
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; img-src 'self'; script-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Cache-Control", "no-store")
	c.mux.ServeHTTP(w, r)
}

func (c *Console) notFound(w http.ResponseWriter, r *http.Request) {
	c.render(w, r, http.StatusNotFound, "message", nil, view{Title: "Not found", Error: "No page at " + r.URL.Path + "."})
}
