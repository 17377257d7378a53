package league_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/league"
)

// withSchedule returns an edit giving a league the schedule spec.
func withSchedule(tb testing.TB, spec string) func(*league.League) {
	return func(l *league.League) {
		s, err := league.ParseSchedule(spec)
		testsvc.Must(tb, err, "ParseSchedule(%q)", spec)
		l.Schedule = s
	}
}

// TestScheduleRecordedWithoutAZone: older versions read a schedule without
// CRON_TZ in the host's zone and recorded it as written; the same text now
// means UTC. A league such a version ran on a host in Asia/Kolkata holds
// periods starting at half past the hour, which "0 * * * *" in UTC does not
// start: Open refuses it, naming the zone to add, and opens once it is
// there, recording the schedule with its zone.
func TestScheduleRecordedWithoutAZone(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b testsvc.Backend) {
		const kolkata = "CRON_TZ=Asia/Kolkata 0 * * * *"
		f := newFixture(t, b, withSchedule(t, kolkata))
		first := f.join("a").Period
		meta := f.ns + ":{weekly}:meta"
		testsvc.Must(t, f.rdb.HSet(f.ctx, meta, "schedule", "0 * * * *").Err(), "record as an older version did")
		open := func(spec string) (*league.Engine, error) {
			return league.Open(f.ctx, f.rdb, []*league.League{testLeague(t, withSchedule(t, spec))},
				league.WithNamespace(f.ns), league.WithClock(f.clock.Now))
		}
		hashes := func() map[string]string {
			out, err := f.rdb.HGetAll(f.ctx, meta).Result()
			testsvc.Must(t, err, "HGETALL meta")
			return out
		}

		before := hashes()
		for _, c := range []struct{ tz, want string }{
			{"Asia/Kolkata", `write "CRON_TZ=Asia/Kolkata 0 * * * *"`},
			{"UTC", "add that zone (CRON_TZ=Area/City 0 * * * *)"},
		} {
			t.Setenv("TZ", c.tz) // the host's zone, for the hint
			_, err := open("0 * * * *")
			if err == nil || !strings.Contains(err.Error(), "not a boundary of the schedule") || !strings.Contains(err.Error(), c.want) {
				t.Errorf("host in %s: Open: %v, want refused, saying %q", c.tz, err, c.want)
			}
			if after := hashes(); !reflect.DeepEqual(after, before) {
				t.Errorf("the refused Open wrote: %v, was %v", after, before)
			}
		}

		e, err := open(kolkata)
		testsvc.Must(t, err, "Open with the zone the league ran in")
		if got := hashes()["schedule"]; got != kolkata {
			t.Errorf("schedule recorded as %q, want %q", got, kolkata)
		}
		p, err := e.Join(f.ctx, "weekly", league.JoinRequest{Player: "b", Name: "b"})
		testsvc.Must(t, err, "Join")
		if p.Period != first {
			t.Errorf("joined %v, want the running period %v", p.Period, first)
		}
		if _, err := open("0 * * * *"); err == nil || !strings.Contains(err.Error(), "schedule changed") {
			t.Errorf("UTC after the zone was recorded: Open: %v, want refused", err)
		}

		// A new league records its schedule with its zone, UTC if none.
		g := newFixture(t, b)
		if got := g.rdb.HGet(g.ctx, g.ns+":{weekly}:meta", "schedule").Val(); got != "CRON_TZ=UTC 0 0 * * MON" {
			t.Errorf("a new league's schedule recorded as %q", got)
		}
	})
}

// TestJoinRefusesToDecideAPeriodNotEnded: when two processes read the
// schedule differently (here one recorded nothing, as the oldest versions
// did), a join must not decide the period another process placed the
// player in, which has not ended.
func TestJoinRefusesToDecideAPeriodNotEnded(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b testsvc.Backend) {
		f := newFixture(t, b, withSchedule(t, "0 * * * *"))
		f.clock.Set(monday.Add(time.Hour + 50*time.Minute))
		testsvc.Must(t, f.rdb.HDel(f.ctx, f.ns+":{weekly}:meta", "schedule").Err(), "HDEL schedule")
		other, err := league.Open(f.ctx, f.rdb, []*league.League{testLeague(t, withSchedule(t, "CRON_TZ=Asia/Kolkata 0 * * * *"))},
			league.WithNamespace(f.ns), league.WithClock(f.clock.Now))
		testsvc.Must(t, err, "Open with another zone")
		p, err := other.Join(f.ctx, "weekly", league.JoinRequest{Player: "a", Name: "a"})
		testsvc.Must(t, err, "Join through the other zone")
		if want := monday.Add(time.Hour + 30*time.Minute); !p.Period.Start.Equal(want) {
			t.Fatalf("the other zone's period starts %v, want %v", p.Period.Start, want)
		}
		_, err = f.engine.Join(f.ctx, "weekly", league.JoinRequest{Player: "a", Name: "a"})
		var le *league.Error
		if !errors.As(err, &le) || le.Code != league.Unavailable || !strings.Contains(err.Error(), "disagree on the schedule") {
			t.Fatalf("join of a player placed in a later period: %v, want unavailable", err)
		}
		// The other way round: a player placed in the UTC process's period
		// (01:00, which ends at 02:00), joining through the other zone
		// (whose period began at 01:30), is not decided early either, and
		// the other zone's settler leaves that period alone.
		f.join("b")
		_, err = other.Join(f.ctx, "weekly", league.JoinRequest{Player: "b", Name: "b"})
		if !errors.As(err, &le) || le.Code != league.Unavailable || !strings.Contains(err.Error(), "disagree on the schedule") {
			t.Fatalf("join of a player placed in a period the schedule does not start: %v, want unavailable", err)
		}
		f.clock.Set(monday.Add(2*time.Hour + 40*time.Minute)) // both periods ended
		waiting, err := other.Unsettled(f.ctx, "weekly")
		testsvc.Must(t, err, "Unsettled")
		for _, p := range waiting {
			if p.Start.Minute() != 30 {
				t.Errorf("the other zone would settle %v, a period of the UTC process", p)
			}
		}
	})
}
