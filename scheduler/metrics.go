package scheduler

import (
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/league-engine/league/league"
)

type metrics struct {
	settlements   *prometheus.CounterVec
	duration      *prometheus.HistogramVec
	players       *prometheus.CounterVec
	failures      *prometheus.CounterVec
	claims        *prometheus.CounterVec
	claimFailures *prometheus.CounterVec
	unsettled     *prometheus.GaugeVec
}

// newMetrics creates the settlement metrics and registers them on r (if any).
func newMetrics(r prometheus.Registerer) *metrics {
	m := &metrics{
		settlements: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "league_settlements_total", Help: "Periods settled to the end.",
		}, []string{"league"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "league_settlement_duration_seconds", Help: "Time to settle a period, all steps.",
			Buckets: prometheus.ExponentialBuckets(0.01, 4, 10),
		}, []string{"league"}),
		players: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "league_settled_players_total", Help: "Player outcomes settled.",
		}, []string{"league"}),
		failures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "league_settlement_failures_total", Help: "Settlement attempts that did not complete, by cause.",
		}, []string{"league", "cause"}),
		claims: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "league_reward_claims_recorded_total", Help: "Reward claims copied from Redis to the store.",
		}, []string{"league"}),
		claimFailures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "league_reward_claim_failures_total", Help: "Failed attempts to record reward claims.",
		}, []string{"league"}),
		unsettled: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "league_unsettled_periods",
			Help: "Ended periods waiting for settlement, as this process last saw them (alert when above 0 for long).",
		}, []string{"league"}),
	}
	if r != nil {
		r.MustRegister(m.settlements, m.duration, m.players, m.failures, m.claims, m.claimFailures, m.unsettled)
	}
	return m
}

// start shows every series of league id at 0 before anything happens: a
// rate or an alert over a series that does not exist yet sees nothing.
func (m *metrics) start(id string) {
	m.settlements.WithLabelValues(id)
	m.players.WithLabelValues(id)
	m.claims.WithLabelValues(id)
	m.claimFailures.WithLabelValues(id)
	m.unsettled.WithLabelValues(id)
}

func (m *metrics) settled(id string, players int, took time.Duration) {
	m.settlements.WithLabelValues(id).Inc()
	m.players.WithLabelValues(id).Add(float64(players))
	m.duration.WithLabelValues(id).Observe(took.Seconds())
}

// failed counts a failed attempt by its cause: the error code, or "stopped".
func (m *metrics) failed(id string, err error) {
	cause := string(league.ErrorCode(err))
	if errors.Is(err, errStopped) {
		cause = "stopped"
	}
	m.failures.WithLabelValues(id, cause).Inc()
}
