package league_test

import (
	"testing"
	"time"

	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/league"
)

// TestReadsFollowRedisClock: a process whose host clock is behind Redis's
// shows Redis's period from Open on, without a write to learn it from
// (miniredis's clock stands in for a Redis 90 s ahead of this host). A
// player who joined a period the process's clock has not reached yet is
// shown in it, not as someone who has yet to join.
func TestReadsFollowRedisClock(t *testing.T) {
	rdb, m := testsvc.Mini(t)
	minutes := func(l *league.League) {
		s, err := league.ParseSchedule("* * * * *")
		testsvc.Must(t, err, "schedule")
		l.Schedule = s
	}
	redisNow := time.Now().UTC().Truncate(time.Minute).Add(90 * time.Second)
	m.SetTime(redisNow)
	reader, err := league.Open(t.Context(), rdb, []*league.League{testLeague(t, minutes)})
	testsvc.Must(t, err, "Open")
	if p, _ := reader.Current("weekly"); !p.Start.Equal(redisNow.Truncate(time.Minute)) {
		t.Fatalf("current period %s; Redis's clock is in the one starting %s", p.ID(), redisNow.Truncate(time.Minute).Format(time.RFC3339))
	}

	// Redis's clock moves on a minute; the reader has not asked it since.
	m.SetTime(redisNow.Add(time.Minute))
	writer, err := league.Open(t.Context(), rdb, []*league.League{testLeague(t, minutes)})
	testsvc.Must(t, err, "Open the writer")
	joined, err := writer.Join(t.Context(), "weekly", league.JoinRequest{Player: "a", Name: "a"})
	testsvc.Must(t, err, "Join")
	s, err := reader.Standing(t.Context(), "weekly", "a")
	testsvc.Must(t, err, "Standing")
	if !s.Joined || s.Period != joined.Period || s.Rank != 1 || s.Earned != nil {
		t.Fatalf("standing on a process behind: %+v; want joined in %s, rank 1, nothing earned", s, joined.Period.ID())
	}
}
