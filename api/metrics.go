package api

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/league-engine/league/internal/evalsha"
	"github.com/league-engine/league/leaderboard"
	"github.com/league-engine/league/league"
)

// metrics are the API's Prometheus collectors.
type metrics struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
	// keyRequests counts requests by the name of the key they were made
	// with (keyMetrics).
	keyRequests *prometheus.CounterVec
	// Dependency failures, resolved once: the hot path only adds.
	redisErrors, postgresErrors prometheus.Counter
	// refusals counts leaderboard writes a rate limit refused.
	refusals *prometheus.CounterVec
	// scoreRefusals and held count league score writes a guard refused,
	// and those held for an operator.
	scoreRefusals, held *prometheus.CounterVec
}

// durationBuckets span a cached read (~100µs) to a stuck dependency.
var durationBuckets = []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5}

func newMetrics(reg *prometheus.Registry) *metrics {
	requests := register(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "league_http_requests_total",
		Help: "HTTP requests by route pattern and status code.",
	}, []string{"route", "code"}))
	duration := register(reg, prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "league_http_request_duration_seconds",
		Help:    "HTTP request duration by route pattern and status code.",
		Buckets: durationBuckets,
	}, []string{"route", "code"}))
	deps := register(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "league_dependency_errors_total",
		Help: "Calls to a dependency that failed as unavailable or internal.",
	}, []string{"dependency"}))
	keyRequests := register(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "league_http_key_requests_total",
		Help: "HTTP requests made with a valid key, by the key's name and status code (the key itself is never shown).",
	}, []string{"key", "code"}))
	refusals := register(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "league_leaderboard_limit_refusals_total",
		Help: "Leaderboard writes a rate limit refused, by leaderboard and limit.",
	}, []string{"leaderboard", "limit"}))
	scoreRefusals := register(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "league_score_limit_refusals_total",
		Help: "League score writes a guard refused (a limit, max_gain_per, max_attempts), by league and limit.",
	}, []string{"league", "limit"}))
	held := register(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "league_score_held_total",
		Help: "League score writes held for an operator (hold), by league and the cap they passed.",
	}, []string{"league", "cap"}))
	return &metrics{
		refusals:       refusals,
		scoreRefusals:  scoreRefusals,
		held:           held,
		requests:       requests,
		duration:       duration,
		keyRequests:    keyRequests,
		redisErrors:    deps.WithLabelValues("redis"),
		postgresErrors: deps.WithLabelValues("postgres"),
	}
}

// registerEngine exports the shared round trips of both engines (a league
// engine and a leaderboard one, either nil): calls over round trips is the
// average sharing, the figure to tune redis.shared_round_trips by.
func registerEngine(reg *prometheus.Registry, e *league.Engine, b *leaderboard.Engine) {
	stats := func() evalsha.Stats {
		var s evalsha.Stats
		if e != nil {
			s = e.RoundTripStats()
		}
		if b != nil {
			bs := b.RoundTripStats()
			s.Calls, s.RoundTrips = s.Calls+bs.Calls, s.RoundTrips+bs.RoundTrips
		}
		return s
	}
	register(reg, prometheus.NewCounterFunc(prometheus.CounterOpts{
		Name: "league_redis_shared_calls_total",
		Help: "Joins, score writes, standings and leaderboard writes sent to Redis through shared round trips.",
	}, func() float64 { return float64(stats().Calls) }))
	register(reg, prometheus.NewCounterFunc(prometheus.CounterOpts{
		Name: "league_redis_shared_round_trips_total",
		Help: "Round trips that carried league_redis_shared_calls_total; the ratio is the average calls per round trip.",
	}, func() float64 { return float64(stats().RoundTrips) }))
}

// register registers c, or returns the equal collector registered before
// (two servers on one registry share their metrics).
func register[C prometheus.Collector](reg *prometheus.Registry, c C) C {
	if err := reg.Register(c); err != nil {
		var are prometheus.AlreadyRegisteredError
		if errors.As(err, &are) {
			if existing, ok := are.ExistingCollector.(C); ok {
				return existing
			}
		}
		panic("api: registering metrics: " + err.Error())
	}
	return c
}

// routeMetrics are one route's series. The route label is fixed when the
// route is registered; the series of each status is made on its first
// request and kept, so a request costs an array load, not a label lookup.
type routeMetrics struct {
	byStatus[statusSeries]
}

type statusSeries struct {
	requests prometheus.Counter
	duration prometheus.Observer
}

func (m *metrics) route(pattern string) *routeMetrics {
	return &routeMetrics{byStatus[statusSeries]{make: func(code string) *statusSeries {
		return &statusSeries{requests: m.requests.WithLabelValues(pattern, code), duration: m.duration.WithLabelValues(pattern, code)}
	}}}
}

func (rm *routeMetrics) observe(status int, d time.Duration) {
	s := rm.get(status)
	s.requests.Inc()
	s.duration.Observe(d.Seconds())
}

// keyMetrics count the requests made with one key, by status.
type keyMetrics struct {
	byStatus[counter]
}

type counter struct{ prometheus.Counter }

func (m *metrics) key(name string) *keyMetrics {
	return &keyMetrics{byStatus[counter]{make: func(code string) *counter {
		return &counter{m.keyRequests.WithLabelValues(name, code)}
	}}}
}

// byStatus holds a series per HTTP status, each made on first use by make
// (a label lookup) and then loaded from an array.
type byStatus[T any] struct {
	made [600]atomic.Pointer[T]
	make func(code string) *T
}

func (b *byStatus[T]) get(status int) *T {
	if status < 0 || status >= len(b.made) {
		return b.make(strconv.Itoa(status))
	}
	s := b.made[status].Load()
	if s == nil {
		s = b.make(strconv.Itoa(status))
		b.made[status].Store(s)
	}
	return s
}

// redisErr counts err against Redis when it is a failure of Redis rather
// than of the request (unavailable or internal), and returns it.
func (s *Server) redisErr(err error) error {
	if err != nil && isDependencyFailure(err) {
		s.metrics.redisErrors.Inc()
	}
	return err
}

// postgresErr is redisErr for the store.
func (s *Server) postgresErr(err error) error {
	if err != nil && isDependencyFailure(err) {
		s.metrics.postgresErrors.Inc()
	}
	return err
}

// isDependencyFailure reports an error of a failed call to a dependency:
// internal, or unavailable with the dependency's error (or state) as its
// cause. A process refusing what its own config cannot serve (a tier a
// newer config added, during a rollout) answers unavailable too, but its
// Redis is fine: that shows as a 503 in the request counts, not here. The
// caller hanging up fails a call too, and is not counted either.
func isDependencyFailure(err error) bool {
	if errors.Is(err, context.Canceled) {
		return false
	}
	var e *league.Error
	if !errors.As(err, &e) {
		return true // internal
	}
	var full *leaderboard.Full // a queue at its bound: the leaderboard's rule, not Redis failing
	return e.Code == league.Internal || (e.Code == league.Unavailable && e.Err != nil && !errors.As(err, &full))
}

func (s *Server) metricsHandler() http.Handler {
	return promhttp.HandlerFor(s.registry, promhttp.HandlerOpts{Registry: s.registry})
}
