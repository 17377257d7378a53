package scheduler

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/league-engine/league/leaderboard"
)

// The scheduler also keeps the leaderboards' rolling boards filled
// (leaderboard.Engine.PreFill): as soon as a bucket begins it carries every
// member into the next rolling board, a whole bucket ahead of the boundary,
// and after downtime it first completes the current board. Replicas share
// the work through PreFill's lease in Redis and its progress kept there, not
// through the store: the boards, the lease and the progress live together,
// and leaderboards need no Postgres.

// WithLeaderboards makes the scheduler pre-fill the rolling boards of e's
// leaderboards.
func WithLeaderboards(e *leaderboard.Engine) Option { return func(s *Scheduler) { s.boards = e } }

// fillRetry is how soon a pre-fill is tried again after another replica
// held the lease: it may have died holding it.
const fillRetry = time.Second

type fillMetrics struct {
	incomplete *prometheus.GaugeVec
	members    *prometheus.CounterVec
	failures   *prometheus.CounterVec
}

func newFillMetrics(r prometheus.Registerer) *fillMetrics {
	m := &fillMetrics{
		incomplete: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "league_leaderboard_rolling_incomplete",
			Help: "1 while a leaderboard's current rolling board is not filled (its boundary passed before the pre-fill finished): reads of it say incomplete.",
		}, []string{"leaderboard", "window"}),
		members: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "league_leaderboard_prefill_members_total", Help: "Members the pre-fill put on rolling boards.",
		}, []string{"leaderboard"}),
		failures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "league_leaderboard_prefill_failures_total", Help: "Pre-fill attempts that failed (Redis down or slow).",
		}, []string{"leaderboard"}),
	}
	if r != nil {
		r.MustRegister(m.incomplete, m.members, m.failures)
	}
	return m
}

// start shows every series of leaderboard l at 0 before the first fill.
func (m *fillMetrics) start(l *leaderboard.Leaderboard) {
	for _, w := range l.Windows {
		m.incomplete.WithLabelValues(l.ID, string(w.Kind()))
	}
	m.members.WithLabelValues(l.ID)
	m.failures.WithLabelValues(l.ID)
}

// preFillOnce runs one pre-fill of l and returns how long to wait for the
// next: until the next bucket begins, at most a poll; negative after a
// failure.
func (s *Scheduler) preFillOnce(ctx context.Context, l *leaderboard.Leaderboard) time.Duration {
	fills, err := s.boards.PreFill(ctx, l.ID)
	now := s.boards.Now()
	wait := s.poll
	busy := false
	for _, f := range fills {
		s.fills.members.WithLabelValues(l.ID).Add(float64(f.Added))
		if f.Period.Start.After(now) {
			continue // the next board, filled ahead
		}
		s.fills.incomplete.WithLabelValues(l.ID, string(f.Period.Kind)).Set(b2f(!f.Filled))
		wait = min(wait, f.Period.End.Sub(now)+10*time.Millisecond)
		busy = busy || f.Busy
		if f.Added > 0 {
			s.log.Info("rolling board filled after its bucket began (downtime at the boundary, or a new window)", "leaderboard", l.ID,
				"window", f.Period.Kind, "period", f.Period.ID(), "method", f.Method, "members", f.Added, "filled", f.Filled)
		}
	}
	if err != nil {
		s.fills.failures.WithLabelValues(l.ID).Inc()
		s.log.Warn("pre-filling rolling boards failed; retrying", "leaderboard", l.ID, "err", err)
		return -1
	}
	if busy {
		wait = min(wait, fillRetry)
	}
	return max(wait, 10*time.Millisecond)
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
