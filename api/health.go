package api

import (
	"context"
	_ "embed"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/league-engine/league/league"
)

// OpenAPI is the document of this API, served at /openapi.yaml.
//
//go:embed openapi.yaml
var OpenAPI []byte

func serveOpenAPI(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/yaml")
	w.Write(OpenAPI)
}

// statusOK is the reply of /healthz.
type statusOK struct{}

func (statusOK) appendJSON(b []byte) ([]byte, error) { return append(b, `{"status":"ok"}`...), nil }

// readyReply is the reply of a ready /readyz: the store's state rides
// along, since a replica serves joins, writes and boards without it.
type readyReply struct{ store string }

func (r readyReply) appendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"status":"ok","store":`...)
	return append(appendString(b, r.store), '}'), nil
}

// healthz says the process serves HTTP; it asks no dependency, so a Redis
// outage does not get the process restarted.
func (s *Server) healthz(*http.Request, *Key) (reply, error) { return statusOK{}, nil }

// readyTimeout bounds each dependency's ping.
const readyTimeout = 2 * time.Second

// storeCheckEvery is how often readiness probes have the store pinged. The
// store's state is read from the last ping, never waited for: a Postgres
// that hangs must not slow a probe past a load balancer's timeout.
const storeCheckEvery = 5 * time.Second

// Drain makes /readyz answer 503 from now on, so that load balancers stop
// sending requests before the server stops taking them (leagued calls it
// at the start of a graceful shutdown).
func (s *Server) Drain() { s.health.draining.Store(true) }

// readyz says whether this replica can serve: it is not shutting down,
// Redis answers, and Redis still holds the leagues this process opened.
// Those are what the game-server routes need. The store (Postgres) is only
// reported ("store": "ok", "unavailable" or "unknown" before its first
// check): joins, writes, boards and standings go on without it, and
// settlement waits for it, so its outage must not pull every replica out of
// a load balancer.
func (s *Server) readyz(r *http.Request, _ *Key) (reply, error) {
	if s.health.draining.Load() {
		return nil, league.Errorf(league.Unavailable, "not ready: shutting down")
	}
	s.health.checkStore(s)
	if err := s.health.ping(r.Context(), s, "redis", s.engine.Ping); err != nil {
		return nil, league.Errorf(league.Unavailable, "not ready: redis does not answer")
	}
	// Redis answers, but may have lost a league since this process opened
	// it (or a restore replaced it): every join would fail, so not ready.
	if err := within(r.Context(), s.engine.CheckEpochs); err != nil {
		s.redisErr(err)
		s.health.warn(s, "redis", "not ready", err)
		return nil, league.Errorf(league.Unavailable, "not ready: %s", league.ErrorMessage(err))
	}
	return readyReply{store: s.health.storeState()}, nil
}

// health is what readiness keeps between probes.
type health struct {
	draining atomic.Bool
	up       *prometheus.GaugeVec
	// store: the last ping's answer, when it was sent, and whether one is
	// in flight.
	mu            sync.Mutex
	storeChecked  bool
	storeUp       bool
	storeAt       time.Time
	storeChecking bool
	// warnings, by dependency: one line per warnEvery (warn).
	warnings map[string]*warning
}

type warning struct {
	last   time.Time // of the last line logged
	missed int       // failures since, not logged
	down   bool      // a line said it failed, and none since that it answers
}

// warnEvery spaces the warnings of a dependency that does not answer:
// probes need no key, so anyone could otherwise write a line per request.
const warnEvery = 10 * time.Second

func newHealth(s *Server) *health {
	h := &health{warnings: map[string]*warning{"redis": {}, "postgres": {}}}
	h.up = register(s.registry, prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "league_dependency_up",
		Help: "Whether a dependency answered its last readiness check (1) or not (0): redis at every /readyz, postgres every 5 s while /readyz is probed.",
	}, []string{"dependency"}))
	return h
}

// ping runs a dependency's ping within readyTimeout, and records, counts
// and (sparingly) logs the outcome.
func (h *health) ping(ctx context.Context, s *Server, name string, ping func(context.Context) error) error {
	err := within(ctx, ping)
	h.record(s, name, err)
	return err
}

func (h *health) record(s *Server, name string, err error) {
	if err == nil {
		h.up.WithLabelValues(name).Set(1)
		h.recovered(s, name)
		return
	}
	h.up.WithLabelValues(name).Set(0)
	if name == "redis" {
		s.metrics.redisErrors.Inc()
	} else {
		s.metrics.postgresErrors.Inc()
	}
	h.warn(s, name, "a dependency does not answer", err)
}

// checkStore has the store pinged in the background when the last ping is
// older than storeCheckEvery and none is in flight.
func (h *health) checkStore(s *Server) {
	h.mu.Lock()
	due := !h.storeChecking && time.Since(h.storeAt) >= storeCheckEvery
	if due {
		h.storeChecking, h.storeAt = true, time.Now()
	}
	h.mu.Unlock()
	if !due {
		return
	}
	go func() {
		err := within(context.Background(), s.store.Ping)
		h.record(s, "postgres", err)
		h.mu.Lock()
		h.storeChecking, h.storeChecked, h.storeUp = false, true, err == nil
		h.mu.Unlock()
	}()
}

func (h *health) storeState() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case !h.storeChecked:
		return "unknown"
	case h.storeUp:
		return "ok"
	}
	return "unavailable"
}

// warn logs that a dependency failed, at most once per warnEvery, saying
// how many failures the quiet time hid.
func (h *health) warn(s *Server, dependency, msg string, err error) {
	h.mu.Lock()
	w, now := h.warnings[dependency], time.Now()
	if now.Sub(w.last) < warnEvery {
		w.missed++
		h.mu.Unlock()
		return
	}
	missed := w.missed
	w.last, w.missed, w.down = now, 0, true
	h.mu.Unlock()
	s.log.Warn("api: "+msg, "dependency", dependency, "err", err, "failures_not_logged", missed)
}

// recovered logs that a dependency answers again, once after each warning.
func (h *health) recovered(s *Server, dependency string) {
	h.mu.Lock()
	w := h.warnings[dependency]
	was := w.down
	w.down = false
	h.mu.Unlock()
	if was {
		s.log.Info("api: a dependency answers again", "dependency", dependency)
	}
}

// countFailing pings Redis and the store and counts (and sparingly logs)
// the one that does not answer: after a settlement failed, whose error
// does not say which of the two it came from.
func (s *Server) countFailing(ctx context.Context) {
	s.health.ping(ctx, s, "redis", s.engine.Ping)
	s.health.ping(ctx, s, "postgres", s.store.Ping)
}

// within runs call with a context that ends after readyTimeout, and waits
// no longer than that, even for a call that ignores its context: a probe
// must answer in time whatever a client library does.
func within(ctx context.Context, call func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	answer := make(chan error, 1) // a call that ends after the wait has somewhere to go
	go func() { answer <- call(ctx) }()
	select {
	case err := <-answer:
		return err
	case <-ctx.Done():
		return &league.Error{Code: league.Unavailable, Message: "no answer within " + readyTimeout.String(), Err: ctx.Err()}
	}
}
