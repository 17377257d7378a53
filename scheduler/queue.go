package scheduler

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/league-engine/league/leaderboard"
)

// The scheduler drains the queued leaderboards' write queues
// (leaderboard.Engine.Drain): every replica joins the consumer group, so
// they share the work, and a replica killed mid-batch leaves its entries
// for the others to claim. The queue lives in Redis beside the boards it
// feeds, so this needs no Postgres either.

// drainIdle is how long a consumer waits when its queue was empty: short,
// since a write may wait that long before it is applied; an idle queued
// leaderboard costs each replica one XREADGROUP per shard that often.
const drainIdle = 100 * time.Millisecond

type queueMetrics struct {
	lag                        *prometheus.GaugeVec
	applied, refused, failures *prometheus.CounterVec
}

func newQueueMetrics(r prometheus.Registerer) *queueMetrics {
	m := &queueMetrics{
		lag: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "league_leaderboard_queue_lag",
			Help: "Writes waiting in a queued leaderboard's queue, as this replica last looked: reads may be that far behind.",
		}, []string{"leaderboard"}),
		applied: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "league_leaderboard_queue_applied_total", Help: "Queued writes this replica applied.",
		}, []string{"leaderboard"}),
		refused: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "league_leaderboard_queue_refused_total",
			Help: "Queued writes the leaderboard's rules (maximum score, limits) refused when applied: dropped.",
		}, []string{"leaderboard"}),
		failures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "league_leaderboard_queue_failures_total", Help: "Drain attempts that failed (Redis down or slow); retried with backoff.",
		}, []string{"leaderboard"}),
	}
	if r != nil {
		r.MustRegister(m.lag, m.applied, m.refused, m.failures)
	}
	return m
}

func (m *queueMetrics) start(l *leaderboard.Leaderboard) {
	m.lag.WithLabelValues(l.ID)
	m.applied.WithLabelValues(l.ID)
	m.refused.WithLabelValues(l.ID)
	m.failures.WithLabelValues(l.ID)
}

// drainOnce applies a batch of l's queue and says how soon to go on: at
// once while there was work, drainIdle when there was none.
func (s *Scheduler) drainOnce(ctx context.Context, l *leaderboard.Leaderboard) time.Duration {
	res, err := s.boards.Drain(ctx, l.ID)
	s.queues.applied.WithLabelValues(l.ID).Add(float64(res.Applied))
	s.queues.refused.WithLabelValues(l.ID).Add(float64(res.Refused))
	if res.Claimed > 0 {
		s.log.Info("queued writes claimed from a consumer that held them too long (it stopped)", "leaderboard", l.ID, "entries", res.Claimed)
	}
	if err != nil {
		s.queues.failures.WithLabelValues(l.ID).Inc()
		s.log.Warn("draining a leaderboard's queue failed; retrying", "leaderboard", l.ID, "err", err)
		return -1
	}
	if lag, err := s.boards.Lag(ctx, l.ID); err == nil {
		s.queues.lag.WithLabelValues(l.ID).Set(float64(lag))
	}
	if res.Applied+res.Refused > 0 {
		return 0
	}
	return drainIdle
}
