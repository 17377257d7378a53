package scheduler

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/league-engine/league/leaderboard"
)

// The scheduler archives the closed periods of leaderboards that ask for it
// (leaderboard.Engine.Archive): after every boundary of an archived kind,
// and at every poll, which catches up the periods missed while no replica
// ran. Each period is stored once whichever replicas run it at once: the
// store's transaction decides, not a lease.

type archiveMetrics struct {
	periods  *prometheus.CounterVec
	lost     *prometheus.CounterVec
	failures *prometheus.CounterVec
}

func newArchiveMetrics(r prometheus.Registerer) *archiveMetrics {
	m := &archiveMetrics{
		periods: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "league_leaderboard_archived_periods_total", Help: "Closed leaderboard periods this process stored in the archive.",
		}, []string{"leaderboard", "kind"}),
		lost: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "league_leaderboard_archive_lost_total",
			Help: "Closed periods not archived because Redis no longer kept their board (no replica ran within the retention).",
		}, []string{"leaderboard", "kind"}),
		failures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "league_leaderboard_archive_failures_total", Help: "Archive attempts that failed (Redis or Postgres down or slow).",
		}, []string{"leaderboard"}),
	}
	if r != nil {
		r.MustRegister(m.periods, m.lost, m.failures)
	}
	return m
}

func (m *archiveMetrics) start(l *leaderboard.Leaderboard) {
	for _, k := range l.Archive.Kinds {
		m.periods.WithLabelValues(l.ID, string(k))
		m.lost.WithLabelValues(l.ID, string(k))
	}
	m.failures.WithLabelValues(l.ID)
}

// archiveOnce runs one Archive of l and returns how long to wait: until
// just after the next boundary of an archived kind, at most a poll;
// negative after a failure. A period half stored when Stop cancels ctx
// rolls back, and is stored at the next run.
func (s *Scheduler) archiveOnce(ctx context.Context, l *leaderboard.Leaderboard) time.Duration {
	done, err := s.boards.Archive(ctx, l.ID)
	for _, a := range done {
		switch {
		case a.Lost:
			s.archives.lost.WithLabelValues(l.ID, string(a.Period.Kind)).Inc()
			s.log.Warn("closed leaderboard period not archived: Redis no longer keeps its board", "leaderboard", l.ID,
				"kind", a.Period.Kind, "period", a.Period.ID())
		case a.Saved:
			s.archives.periods.WithLabelValues(l.ID, string(a.Period.Kind)).Inc()
			s.log.Info("leaderboard period archived", "leaderboard", l.ID, "kind", a.Period.Kind, "period", a.Period.ID(),
				"members", a.Members, "kept", a.Kept)
		}
	}
	if err != nil {
		s.archives.failures.WithLabelValues(l.ID).Inc()
		s.log.Warn("archiving leaderboard periods failed; retrying", "leaderboard", l.ID, "err", err)
		return -1
	}
	now, wait := s.boards.Now(), s.poll
	for _, k := range l.Archive.Kinds {
		end := l.Calendar.At(k, now).End
		wait = min(wait, end.Sub(now)+leaderboard.ArchiveGrace+10*time.Millisecond)
	}
	return max(wait, 10*time.Millisecond)
}
