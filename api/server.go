// Package api is the HTTP API game servers and operators call: JSON under
// /v1, keys in headers, one table from error codes to statuses (error.go),
// Prometheus metrics per route, and the OpenAPI document that describes it
// all (openapi.yaml, held to the real responses by the tests).
//
// It speaks the domain's types only: the engine and the store do the work,
// this package decodes, checks keys, and encodes.
package api

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"path"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/trace"

	"github.com/league-engine/league/console"
	"github.com/league-engine/league/internal/excerpt"
	"github.com/league-engine/league/leaderboard"
	"github.com/league-engine/league/league"
)

// Settler runs a settlement now (the admin route); the scheduler implements it.
type Settler interface {
	SettleNow(ctx context.Context, league string, period time.Time) (league.Settlement, error) // zero period: the last ended one
}

// Config is what a Server needs. Engine and Store are required.
type Config struct {
	Engine *league.Engine
	Store  league.Store
	// Leaderboards serves the leaderboard routes; nil: they answer 404.
	Leaderboards *leaderboard.Engine
	// Settler runs settlements for the admin route; nil makes it answer 503.
	Settler Settler
	// Audit keeps the admin actions (moderation); nil: Store, when it is
	// an audit log (postgres.Store and inmem.Store are).
	Audit league.AuditLog
	// Events serves the pull feed of the outbox (GET /v1/admin/events);
	// nil (no Postgres) makes it answer 503.
	Events EventFeed
	// Keys open the routes (Key). No keys at all turns authentication off.
	Keys []Key
	// Registry receives the metrics and is served at /metrics; nil: a
	// private registry.
	Registry *prometheus.Registry
	Logger   *slog.Logger // nil: slog.Default()
	// AccessLog is the level of the line logged per request; nil: none.
	AccessLog slog.Leveler
	// HistoryLimit is how many settled periods a player lookup returns
	// (default 10).
	HistoryLimit int
	// RequestTimeout is every request's deadline (default
	// DefaultRequestTimeout), but for running a settlement, which has the
	// settler's own.
	RequestTimeout time.Duration
	// Tracer starts a span for every request (internal/tracing); nil:
	// none, at no cost.
	Tracer trace.Tracer
	// Console serves the back office at /console (package console) with
	// its sessions in this Redis; nil: no console. The server supplies
	// the engine, the keys and the logger.
	Console *console.Config
}

// Defaults of a zero Config.
const (
	DefaultHistoryLimit   = 10
	DefaultRequestTimeout = 5 * time.Second
)

// Server is the HTTP API. Build it with New; it is safe for concurrent use.
type Server struct {
	engine         *league.Engine
	boards         *leaderboard.Engine
	store          league.Store
	audit          league.AuditLog        // nil: actions wait in Redis, the audit route answers 503
	archive        league.Archive         // nil: boards past Redis's retention are not found
	corrections    league.CorrectionStore // nil: corrections answer 503
	settler        Settler
	feed           EventFeed
	keys           atomic.Pointer[keyring]
	metrics        *metrics
	registry       *prometheus.Registry
	log            *slog.Logger
	accessLog      slog.Leveler
	historyLimit   int
	requestTimeout time.Duration
	health         *health
	mux            *http.ServeMux
	// unmatchedRoute answers what no route takes (see unmatched).
	unmatchedRoute http.Handler
	tracer         trace.Tracer // nil: no spans
}

// New builds the server and registers its metrics on cfg.Registry.
func New(cfg Config) *Server {
	s := &Server{
		engine:         cfg.Engine,
		boards:         cfg.Leaderboards,
		store:          cfg.Store,
		settler:        cfg.Settler,
		audit:          cfg.Audit,
		feed:           cfg.Events,
		registry:       cfg.Registry,
		log:            cfg.Logger,
		accessLog:      cfg.AccessLog,
		historyLimit:   cfg.HistoryLimit,
		requestTimeout: cfg.RequestTimeout,
		mux:            http.NewServeMux(),
		tracer:         cfg.Tracer,
	}
	if s.registry == nil {
		s.registry = prometheus.NewRegistry()
	}
	if s.audit == nil {
		s.audit, _ = cfg.Store.(league.AuditLog)
	}
	s.archive, _ = cfg.Store.(league.Archive)
	s.corrections, _ = cfg.Store.(league.CorrectionStore)
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.historyLimit <= 0 {
		s.historyLimit = DefaultHistoryLimit
	}
	if s.requestTimeout <= 0 {
		s.requestTimeout = DefaultRequestTimeout
	}
	s.metrics = newMetrics(s.registry)
	s.keys.Store(newKeyring(cfg.Keys, s.metrics))
	registerEngine(s.registry, s.engine, s.boards)
	s.health = newHealth(s)
	s.routes()
	s.mountConsole(cfg.Console)
	return s
}

// SetKeys replaces the keys, for requests that arrive from now on (leagued
// reloads them on SIGHUP). Authentication cannot be turned on or off this
// way: that decides which addresses leagued listens on.
func (s *Server) SetKeys(keys []Key) error {
	next := newKeyring(keys, s.metrics)
	if next.off() != s.keys.Load().off() {
		return errors.New("api: keys cannot be added to or removed from a server started without them, or all removed: restart it")
	}
	s.keys.Store(next)
	return nil
}

// Handler returns the root handler.
func (s *Server) Handler() http.Handler { return http.HandlerFunc(s.serveHTTP) }

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	if p := r.URL.EscapedPath(); p == "" || cleanPath(p) != p {
		// net/http would answer a redirect in HTML (to "/" for a target
		// with no path: CONNECT's host:port, http://host) and a plain-text
		// 404 to CONNECT; no client of this API sends such paths, so they
		// get the JSON errors of unmatched. The path is judged as sent, as
		// the mux does: a player id "a/b" is addressed as a%2Fb, whose
		// decoded path would look unclean.
		s.unmatchedRoute.ServeHTTP(w, r)
		return
	}
	s.mux.ServeHTTP(w, r)
}

// cleanPath is the path net/http's mux redirects p to (its own cleanPath):
// path.Clean, keeping a trailing slash. No allocation when p is clean.
func cleanPath(p string) string {
	if p[0] != '/' {
		p = "/" + p
	}
	np := path.Clean(p)
	if p[len(p)-1] == '/' && np != "/" {
		if len(p) == len(np)+1 && strings.HasPrefix(p, np) {
			return p
		}
		return np + "/"
	}
	return np
}

// access is who may call a route.
type access int

const (
	public access = iota // probes, metrics and the API document
	game                 // game servers: an API key (an admin key also opens it)
	admin                // operators: an admin key
)

func (s *Server) routes() {
	s.handle("POST /v1/leagues/{league}/join", game, s.join)
	s.handle("POST /v1/leagues/{league}/scores", game, s.score, takes("rank"))
	s.handle("POST /v1/leagues/{league}/scores/batch", game, s.scoreBatch, takes("rank"))
	s.handle("GET /v1/leagues/{league}/players/{player_id}", game, s.player)
	s.handle("POST /v1/leagues/{league}/standings", game, s.standings)
	s.handle("GET /v1/leagues/{league}/boards/{board}", game, s.board, takes("period"))
	s.handle("GET /v1/leagues", game, s.leagues)
	s.handle("GET /v1/leagues/{league}", game, s.league)

	s.handle("GET /v1/leaderboards", game, s.leaderboards)
	s.handle("GET /v1/leaderboards/{leaderboard}", game, s.leaderboard)
	s.handle("POST /v1/leaderboards/{leaderboard}/scores", game, s.lbScore)
	s.handle("POST /v1/leaderboards/{leaderboard}/scores/batch", game, s.lbScoreBatch)
	s.handle("POST /v1/leaderboards/scores/batch", game, s.lbScoreMany)
	s.handle("GET /v1/leaderboards/{leaderboard}/boards/{kind}", game, s.lbBoard, takes("period", "offset", "limit", "around", "view"))
	s.handle("GET /v1/leaderboards/{leaderboard}/members/{member}", game, s.lbMember, takes("view"))
	s.handle("POST /v1/leaderboards/{leaderboard}/members", game, s.lbMembers)

	// A settlement has its own deadline (the settler's), longer than a
	// request's: it may read a million players.
	s.handle("POST /v1/admin/leagues/{league}/settle", admin, s.settle, ownDeadline)
	s.handle("GET /v1/admin/leagues/{league}/settlements", admin, s.settlements, takes("limit"))
	s.handle("GET /v1/admin/leagues/{league}/preview", admin, s.preview, takes("period", "limit", "after"))
	s.handle("GET /v1/admin/leagues/{league}/outcomes", admin, s.archivedOutcomes, takes("period", "limit", "after"))
	s.handle("GET /v1/admin/leagues/{league}/held", admin, s.held, takes("period"))
	s.handle("POST /v1/admin/leagues/{league}/held/{id}/approve", admin, s.approve)
	s.handle("POST /v1/admin/leagues/{league}/corrections", admin, s.correction)
	s.handle("GET /v1/admin/leagues/{league}/corrections", admin, s.correctionsRoute, takes("period"))
	s.handle("POST /v1/admin/leagues/{league}/held/{id}/reject", admin, s.reject)
	s.handle("POST /v1/admin/leaderboards/{leaderboard}/catalog", admin, s.lbImport)
	for _, a := range league.ModActions {
		s.handle("POST /v1/admin/leagues/{league}/players/{player_id}/"+string(a), admin, s.moderate(a))
	}
	s.handle("GET /v1/admin/leagues/{league}/audit", admin, s.auditRoute, takes("player", "period", "limit", "before"))
	s.handle("GET /v1/admin/leagues/{league}/trail", admin, s.trailRoute, takes("player", "period", "limit", "after"))
	s.handle("GET /v1/admin/leaderboards/{leaderboard}/catalog", admin, s.lbCatalog, takes("cursor", "limit"))
	s.handle("GET /v1/admin/leaderboards/{leaderboard}/catalog/{member}", admin, s.lbCatalogEntry)
	s.handle("PUT /v1/admin/leaderboards/{leaderboard}/catalog/{member}/multiplier", admin, s.lbMultiplier)
	s.handle("GET /v1/admin/leaderboards/{leaderboard}/limits", admin, s.lbLimits, takes("limit"))
	s.handle("GET /v1/admin/events", admin, s.events, takes("after", "limit"))

	s.handle("GET /healthz", public, s.healthz)
	s.handle("GET /readyz", public, s.readyz)
	s.handleRaw("GET /metrics", s.metricsHandler())
	s.handleRaw("GET /openapi.yaml", http.HandlerFunc(serveOpenAPI))

	// Everything else: a JSON 404 or 405 rather than net/http's plain text.
	s.unmatchedRoute = s.handle("/", public, s.unmatched)
}

// endpoint serves one JSON route: the reply of a 200, or an error that
// writeError turns into its status and body. caller is the key the
// request was made with (anonymous when authentication is off).
type endpoint func(r *http.Request, caller *Key) (reply, error)

// route is a JSON route as registered.
type route struct {
	pattern string
	need    access
	ep      endpoint
	metrics *routeMetrics
	// takes are the query parameters an API route takes (checkQuery).
	// Public routes (the probes and the catch-all's 404 and 405) answer
	// whatever the query.
	takes       []string
	selfBounded bool // no request deadline: the endpoint bounds itself
}

// routeOption sets a route's options at registration.
type routeOption func(*route)

func takes(params ...string) routeOption { return func(rt *route) { rt.takes = params } }
func ownDeadline(rt *route)              { rt.selfBounded = true }

// handle registers a JSON route behind the key check, the deadline and the
// metrics, and returns its handler.
func (s *Server) handle(pattern string, need access, ep endpoint, opts ...routeOption) http.Handler {
	rt := &route{pattern: pattern, need: need, ep: ep, metrics: s.metrics.route(pattern)}
	for _, o := range opts {
		o(rt)
	}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { s.serve(w, r, rt) })
	s.mux.Handle(pattern, h)
	return h
}

// serve runs one JSON request, then counts it and logs its access line.
func (s *Server) serve(w http.ResponseWriter, r *http.Request, rt *route) {
	start := time.Now()
	var span trace.Span
	if s.tracer != nil {
		r, span = s.startSpan(r, rt)
	}
	x := exchange{w: w, r: r}
	status := s.run(&x, rt)
	if span != nil {
		endSpan(span, &x, status)
	}
	d := time.Since(start)
	rt.metrics.observe(status, d)
	if x.caller != nil && x.caller.requests != nil {
		x.caller.requests.get(status).Inc()
	}
	if s.accessLog != nil {
		s.logAccess(&x, rt.pattern, status, d)
	}
}

// run checks the key, the query and the body's announced size, in that
// order and before anything is read of the body, then runs the endpoint
// under the request's deadline and writes its reply.
func (s *Server) run(x *exchange, rt *route) (status int) {
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			// Logged here with the stack, so not through writeError.
			s.log.Error("api: handler panicked", "method", x.r.Method, "route", rt.pattern, "request_id", x.requestID(),
				"panic", v, "stack", string(debug.Stack()))
			x.echoRequestID(true)
			status = s.writeReply(x, statusOf[league.Internal], errorReply{code: league.Internal, message: "internal error"})
		}
	}()
	x.echoRequestID(false)
	caller, err := s.keys.Load().check(x.r, rt.need)
	x.caller = caller
	if err != nil {
		return s.writeError(x, err)
	}
	r := x.r
	if rt.need != public && r.URL.RawQuery != "" {
		if err := checkQuery(r, rt.takes); err != nil {
			return s.writeError(x, err)
		}
	}
	if r.ContentLength > MaxBody {
		// Refused on its headers: net/http has not told a client that
		// sent "Expect: 100-continue" to go ahead, and closes the
		// connection rather than read a body nobody wants.
		return s.writeError(x, errTooLarge)
	}
	if r.Body != nil && r.Body != http.NoBody {
		// Past MaxBody the read fails and net/http closes the connection.
		r.Body = http.MaxBytesReader(x.w, r.Body, MaxBody)
	}
	if !rt.selfBounded {
		ctx, cancel := context.WithTimeout(r.Context(), s.requestTimeout)
		defer cancel()
		x.r = r.WithContext(ctx)
	}
	rep, err := rt.ep(x.r, caller)
	if err != nil {
		return s.writeError(x, err)
	}
	if a, ok := rep.(accepted); ok && a.accepted() {
		return s.writeReply(x, http.StatusAccepted, rep)
	}
	return s.writeReply(x, http.StatusOK, rep)
}

// handleRaw registers a non-JSON public route, with metrics.
func (s *Server) handleRaw(pattern string, h http.Handler) {
	route := s.metrics.route(pattern)
	s.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		h.ServeHTTP(sw, r)
		route.observe(sw.status, time.Since(start))
	})
}

// statusWriter remembers the status of a raw route, for its metrics.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(status int) {
	w.status = status
	w.ResponseWriter.WriteHeader(status)
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// probeMethods are the methods a 405 may list as allowed.
var probeMethods = []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}

// unmatched answers requests no route takes: 405 naming the allowed
// methods when the path is a route's, else 404. The catch-all "/" takes
// wrong methods too (net/http only answers 405 when no pattern matches), so
// the allowed methods are found by asking the mux.
func (s *Server) unmatched(r *http.Request, _ *Key) (reply, error) {
	if r.URL.Path == "*" { // OPTIONS *, or HTTP/2's preface sent to HTTP/1.1
		return nil, invalid("request target", "%s * names no resource of this API; paths start at /v1/", r.Method)
	}
	p := r.URL.EscapedPath()
	if p == "" {
		return nil, league.Errorf(league.NotFound, "no route %s %s: the request target names no path; paths start at /v1/", excerpt.Of(r.Method), excerpt.Of(r.RequestURI))
	}
	if cleanPath(p) != p {
		return nil, league.Errorf(league.NotFound, "no route %s %s: the path is not in canonical form", excerpt.Of(r.Method), excerpt.Of(p))
	}
	var allowed []string
	for _, m := range probeMethods {
		probe := &http.Request{Method: m, URL: r.URL, Host: r.Host, Header: http.Header{}}
		if _, pattern := s.mux.Handler(probe); pattern != "/" && pattern != "" {
			allowed = append(allowed, m)
			if m == http.MethodGet {
				allowed = append(allowed, http.MethodHead) // the mux serves HEAD with GET's handler
			}
		}
	}
	if len(allowed) > 0 {
		return nil, methodNotAllowed(r.Method, allowed)
	}
	// The path as sent (escaped, so no control characters), shortened.
	return nil, league.Errorf(league.NotFound, "no route %s %s", excerpt.Of(r.Method), excerpt.Of(p))
}
