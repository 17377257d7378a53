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
	"log/slog"
	"net/http"
	"path"
	"runtime/debug"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/league-engine/league/internal/excerpt"
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
	// Settler runs settlements for the admin route; nil makes it answer 503.
	Settler Settler
	// APIKeys open the game-server routes, AdminKeys the admin routes (and
	// the game-server routes). No keys at all turns authentication off.
	APIKeys, AdminKeys []string
	// Registry receives the metrics and is served at /metrics; nil: a
	// private registry.
	Registry *prometheus.Registry
	Logger   *slog.Logger // nil: slog.Default()
	// HistoryLimit is how many settled periods a player lookup returns
	// (default 10).
	HistoryLimit int
}

// DefaultHistoryLimit is the HistoryLimit of a zero Config.
const DefaultHistoryLimit = 10

// Server is the HTTP API. Build it with New; it is safe for concurrent use.
type Server struct {
	engine       *league.Engine
	store        league.Store
	settler      Settler
	keys         keyring
	metrics      *metrics
	registry     *prometheus.Registry
	log          *slog.Logger
	historyLimit int
	mux          *http.ServeMux
	// unmatchedRoute answers what no route takes (see unmatched).
	unmatchedRoute http.Handler
}

// New builds the server and registers its metrics on cfg.Registry.
func New(cfg Config) *Server {
	s := &Server{
		engine:       cfg.Engine,
		store:        cfg.Store,
		settler:      cfg.Settler,
		keys:         newKeyring(cfg.APIKeys, cfg.AdminKeys),
		registry:     cfg.Registry,
		log:          cfg.Logger,
		historyLimit: cfg.HistoryLimit,
		mux:          http.NewServeMux(),
	}
	if s.registry == nil {
		s.registry = prometheus.NewRegistry()
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.historyLimit <= 0 {
		s.historyLimit = DefaultHistoryLimit
	}
	s.metrics = newMetrics(s.registry)
	registerEngine(s.registry, s.engine)
	s.routes()
	return s
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
	s.handle("POST /v1/leagues/{league}/scores", game, s.score)
	s.handle("POST /v1/leagues/{league}/scores/batch", game, s.scoreBatch)
	s.handle("GET /v1/leagues/{league}/players/{player_id}", game, s.player)
	s.handle("POST /v1/leagues/{league}/standings", game, s.standings)
	s.handle("GET /v1/leagues/{league}/boards/{board}", game, s.board, "period")
	s.handle("GET /v1/leagues", game, s.leagues)
	s.handle("GET /v1/leagues/{league}", game, s.league)

	s.handle("POST /v1/admin/leagues/{league}/settle", admin, s.settle)
	s.handle("GET /v1/admin/leagues/{league}/settlements", admin, s.settlements, "limit")

	s.handle("GET /healthz", public, s.healthz)
	s.handle("GET /readyz", public, s.readyz)
	s.handleRaw("GET /metrics", s.metricsHandler())
	s.handleRaw("GET /openapi.yaml", http.HandlerFunc(serveOpenAPI))

	// Everything else: a JSON 404 or 405 rather than net/http's plain text.
	s.unmatchedRoute = s.handle("/", public, s.unmatched)
}

// endpoint serves one JSON route: the reply of a 200, or an error that
// writeError turns into its status and body.
type endpoint func(r *http.Request) (reply, error)

// handle registers a JSON route behind the key check and the metrics, and
// returns its handler. An API route takes the query parameters named in
// takes and refuses any other (checkQuery); public routes (the probes and
// the catch-all's 404 and 405) answer whatever the query.
func (s *Server) handle(pattern string, need access, ep endpoint, takes ...string) http.Handler {
	route := s.metrics.route(pattern)
	checked := need != public
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		status := s.serve(w, r, need, ep, checked, takes)
		route.observe(status, time.Since(start))
	})
	s.mux.Handle(pattern, h)
	return h
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request, need access, ep endpoint, checked bool, takes []string) (status int) {
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			// Logged here with the stack, so not through writeError.
			s.log.Error("api: handler panicked", "method", r.Method, "route", r.Pattern,
				"panic", v, "stack", string(debug.Stack()))
			status = s.writeReply(w, r, statusOf[league.Internal], errorReply{code: league.Internal, message: "internal error"})
		}
	}()
	if err := s.keys.check(r, need); err != nil {
		return s.writeError(w, r, err)
	}
	if checked && r.URL.RawQuery != "" {
		if err := checkQuery(r, takes); err != nil {
			return s.writeError(w, r, err)
		}
	}
	if r.Body != nil && r.Body != http.NoBody {
		// Past MaxBody the read fails and net/http closes the connection.
		r.Body = http.MaxBytesReader(w, r.Body, MaxBody)
	}
	rep, err := ep(r)
	if err != nil {
		return s.writeError(w, r, err)
	}
	return s.writeReply(w, r, http.StatusOK, rep)
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
func (s *Server) unmatched(r *http.Request) (reply, error) {
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
