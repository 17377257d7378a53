package console

import (
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// Rates from the service's own metrics (the registry /metrics serves):
// each look at the health page samples the counters, and a rate is the
// change since the oldest sample of the last minute. The console runs
// nothing in the background, so the first look after a quiet minute
// samples twice, a second apart.

// writeRoutes are the API's write routes, as its metrics label them
// (league_http_requests_total's route): joins and score writes to leagues
// and leaderboards. A batch counts once, whatever it carries.
var writeRoutes = map[string]bool{
	"POST /v1/leagues/{league}/join":                   true,
	"POST /v1/leagues/{league}/scores":                 true,
	"POST /v1/leagues/{league}/scores/batch":           true,
	"POST /v1/leaderboards/{leaderboard}/scores":       true,
	"POST /v1/leaderboards/{leaderboard}/scores/batch": true,
	"POST /v1/leaderboards/scores/batch":               true,
}

// counters are the totals a rate is computed from.
type counters struct {
	writes float64 // write routes answered 2xx
	errors float64 // requests answered 5xx, on any route
	deps   map[string]float64
}

// readCounters sums the counters out of the registry.
func readCounters(g prometheus.Gatherer) (counters, error) {
	c := counters{deps: map[string]float64{}}
	mfs, err := g.Gather()
	for _, mf := range mfs {
		switch mf.GetName() {
		case "league_http_requests_total":
			for _, m := range mf.GetMetric() {
				route, code, v := label(m, "route"), label(m, "code"), m.GetCounter().GetValue()
				if writeRoutes[route] && strings.HasPrefix(code, "2") {
					c.writes += v
				}
				if strings.HasPrefix(code, "5") {
					c.errors += v
				}
			}
		case "league_dependency_errors_total":
			for _, m := range mf.GetMetric() {
				c.deps[label(m, "dependency")] += m.GetCounter().GetValue()
			}
		}
	}
	// A Gather error names collectors that failed; the others still count.
	return c, err
}

func label(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

// rateWindow is how far back a rate looks; minSpan the least time between
// the two samples it compares.
const (
	rateWindow = time.Minute
	minSpan    = time.Second
)

type sample struct {
	at time.Time
	c  counters
}

// rates keeps the samples of the last rateWindow.
type rates struct {
	mu      sync.Mutex
	samples []sample
}

// add records c, taken at now, and returns the rates per second since the
// oldest sample of the window, and over how long; ok is false when no
// sample is minSpan old yet.
func (r *rates) add(now time.Time, c counters) (per counters, span time.Duration, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	keep := r.samples[:0]
	for _, s := range r.samples {
		if now.Sub(s.at) <= rateWindow {
			keep = append(keep, s)
		}
	}
	r.samples = append(keep, sample{at: now, c: c})
	first := r.samples[0]
	span = now.Sub(first.at)
	if span < minSpan {
		return counters{}, 0, false
	}
	secs := span.Seconds()
	per = counters{writes: (c.writes - first.c.writes) / secs, errors: (c.errors - first.c.errors) / secs, deps: map[string]float64{}}
	for dep, v := range c.deps {
		per.deps[dep] = (v - first.c.deps[dep]) / secs
	}
	return per, span, true
}
