package api

import (
	"context"
	_ "embed"
	"net/http"
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

// statusOK is the reply of healthy probes.
type statusOK struct{}

func (statusOK) appendJSON(b []byte) ([]byte, error) { return append(b, `{"status":"ok"}`...), nil }

// healthz says the process serves HTTP; it asks no dependency, so a Redis
// outage does not get the process restarted.
func (s *Server) healthz(*http.Request) (reply, error) { return statusOK{}, nil }

// readyTimeout bounds each dependency's ping.
const readyTimeout = 2 * time.Second

// storeTimeout bounds a route's read of the store. pgx obeys a context's
// deadline, and nothing else bounds a query to a Postgres that hangs
// rather than refuses (the request's context never ends by itself).
const storeTimeout = 5 * time.Second

// readyz says whether the dependencies answer, and whether Redis still holds
// the leagues this process opened: 503 naming what is wrong.
func (s *Server) readyz(r *http.Request) (reply, error) {
	redisOK, storeOK := s.dependenciesAnswer(r.Context())
	switch {
	case !redisOK && !storeOK:
		return nil, league.Errorf(league.Unavailable, "not ready: redis and the store (postgres) do not answer")
	case !redisOK:
		return nil, league.Errorf(league.Unavailable, "not ready: redis does not answer")
	case !storeOK:
		return nil, league.Errorf(league.Unavailable, "not ready: the store (postgres) does not answer")
	}
	// Redis answers, but may have lost a league since this process opened
	// it (or a restore replaced it): every join would fail, so not ready.
	if err := within(r.Context(), s.engine.CheckEpochs); err != nil {
		s.redisErr(err)
		s.log.Warn("api: not ready", "err", err)
		return nil, league.Errorf(league.Unavailable, "not ready: %s", league.ErrorMessage(err))
	}
	return statusOK{}, nil
}

// dependenciesAnswer pings Redis and the store, and counts and logs the
// one that does not answer within readyTimeout.
func (s *Server) dependenciesAnswer(ctx context.Context) (redisOK, storeOK bool) {
	answers := func(name string, ping func(context.Context) error, failures prometheus.Counter) bool {
		if err := within(ctx, ping); err != nil {
			failures.Inc()
			s.log.Warn("api: a dependency does not answer", "dependency", name, "err", err)
			return false
		}
		return true
	}
	return answers("redis", s.engine.Ping, s.metrics.redisErrors), answers("postgres", s.store.Ping, s.metrics.postgresErrors)
}

// within runs call with a context that ends after readyTimeout, and waits
// no longer than that. The wait is bounded here, not only by the context:
// go-redis goes by its own timeouts, not a context's deadline, so a Redis
// that stopped answering would hold a probe for its whole read timeout (5 s
// by default).
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
