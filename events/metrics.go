package events

import "github.com/prometheus/client_golang/prometheus"

type metrics struct {
	delivered *prometheus.CounterVec
	failed    *prometheus.CounterVec
	dead      *prometheus.CounterVec
	deadNow   *prometheus.GaugeVec
	waiting   *prometheus.GaugeVec
	lag       *prometheus.GaugeVec
	paused    *prometheus.GaugeVec
	leading   prometheus.Gauge
}

// hookMetrics are one webhook's series.
type hookMetrics struct {
	delivered, failed, dead       prometheus.Counter
	deadNow, waiting, lag, paused prometheus.Gauge
}

// newMetrics creates the delivery metrics and registers them on r (if any).
func newMetrics(r prometheus.Registerer) *metrics {
	m := &metrics{
		delivered: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "league_events_delivered_total", Help: "Events this replica delivered to the webhook (a 2xx answer).",
		}, []string{"webhook"}),
		failed: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "league_events_delivery_failures_total", Help: "Deliveries to the webhook that failed (not 2xx, no answer in time, unreachable); retried.",
		}, []string{"webhook"}),
		dead: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "league_events_dead_total", Help: "Events this replica gave up on after the webhook's max_attempts (dead until replayed).",
		}, []string{"webhook"}),
		deadNow: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "league_events_dead", Help: "Dead events of the webhook now, waiting for an operator (leaguectl events dead, replay).",
		}, []string{"webhook"}),
		waiting: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "league_events_waiting", Help: "Events of the webhook retried or held behind a retried or dead one, now.",
		}, []string{"webhook"}),
		lag: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "league_events_lag_seconds", Help: "Age of the oldest event neither delivered to the webhook nor dead (0: it keeps up).",
		}, []string{"webhook"}),
		paused: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "league_events_webhook_paused", Help: "1 while the webhook is paused for failing every delivery (on the delivering replica).",
		}, []string{"webhook"}),
		leading: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "league_events_delivering", Help: "1 on the replica that holds the delivery lease and delivers, 0 on the others.",
		}),
	}
	if r != nil {
		r.MustRegister(m.delivered, m.failed, m.dead, m.deadNow, m.waiting, m.lag, m.paused, m.leading)
	}
	return m
}

func (m *metrics) hook(name string) hookMetrics {
	return hookMetrics{
		delivered: m.delivered.WithLabelValues(name), failed: m.failed.WithLabelValues(name), dead: m.dead.WithLabelValues(name),
		deadNow: m.deadNow.WithLabelValues(name), waiting: m.waiting.WithLabelValues(name), lag: m.lag.WithLabelValues(name),
		paused: m.paused.WithLabelValues(name),
	}
}

// start shows every series of the webhook at 0 before anything happens.
func (m *metrics) start(name string) { m.hook(name) }
