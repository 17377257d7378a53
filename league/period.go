package league

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/league-engine/league/internal/excerpt"
	"github.com/league-engine/league/internal/tzname"
)

// Schedule is a league's cycle: its boundaries are the fire times of a cron
// expression (five fields, or six with seconds; CRON_TZ=Zone prefix and
// descriptors such as @weekly accepted). Time zones and DST changes are the
// cron library's: a boundary at 02:00 Paris time stays at 02:00 local.
type Schedule struct {
	Spec  string
	sched cron.Schedule
}

var cronParser = cron.NewParser(cron.SecondOptional | cron.Minute | cron.Hour |
	cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// ParseSchedule parses a cron expression.
func ParseSchedule(spec string) (*Schedule, error) {
	zone, fields := splitZone(spec)
	switch {
	case strings.TrimSpace(spec) == "":
		return nil, fmt.Errorf("empty cron expression")
	case fields == "":
		return nil, fmt.Errorf("%q: no cron fields after the zone", spec)
	case zone == "" && fields != strings.TrimSpace(spec):
		return nil, fmt.Errorf("%q: no zone after the prefix; name one (CRON_TZ=UTC)", spec)
	case zone != "" && tzname.Problem(zone) != "":
		return nil, fmt.Errorf("%q: %s %s", spec, zone, tzname.Problem(zone))
	case zone == "":
		// Without a zone, UTC, not the host's: replicas on hosts in other
		// zones (or a host whose zone changed) must agree on every boundary.
		zone = "UTC"
	}
	s, err := cronParser.Parse("CRON_TZ=" + zone + " " + fields)
	if err != nil {
		return nil, fmt.Errorf("%q: %v", spec, err)
	}
	if _, every := s.(cron.ConstantDelaySchedule); every {
		// @every counts from whenever the process started: two replicas
		// would disagree on the boundaries.
		return nil, fmt.Errorf("%q: @every has no fixed boundaries; use a cron expression", spec)
	}
	if s.Next(time.Unix(0, 0)).IsZero() {
		return nil, fmt.Errorf("%q never fires", spec)
	}
	return &Schedule{Spec: spec, sched: s}, nil
}

// splitZone splits a cron expression into its zone (of a CRON_TZ= or TZ=
// prefix; "" for none) and its fields, spaces trimmed.
func splitZone(spec string) (zone, fields string) {
	spec = strings.TrimSpace(spec)
	for _, prefix := range []string{"CRON_TZ=", "TZ="} {
		if rest, ok := strings.CutPrefix(spec, prefix); ok {
			zone, fields, _ = strings.Cut(rest, " ")
			return zone, strings.TrimSpace(fields)
		}
	}
	return "", spec
}

// Next returns the first boundary strictly after t.
func (s *Schedule) Next(t time.Time) time.Time { return s.sched.Next(t).UTC() }

// Period is one cycle of a league: [Start, End). Its ID is Start in UTC.
type Period struct {
	Start, End time.Time
}

// ID is the stable name of the period: its start as 20060102T150405Z.
func (p Period) ID() string { return p.Start.UTC().Format(periodIDLayout) }

func (p Period) String() string { return p.ID() }

// IsZero reports whether p is the zero Period.
func (p Period) IsZero() bool { return p.Start.IsZero() }

const periodIDLayout = "20060102T150405Z"

// ParsePeriodID parses a period id (or a start given as Unix seconds).
// Starts must fall after 1970 and before 2106: records keep a period's start
// as 32-bit Unix seconds, and the zero time (year 1, a Monday, so a valid
// weekly start) is how callers say "no period given".
func ParsePeriodID(id string) (time.Time, error) {
	t, err := time.Parse(periodIDLayout, id)
	if err != nil {
		sec, err := strconv.ParseInt(id, 10, 64)
		if err != nil {
			return time.Time{}, fmt.Errorf("%q is not a period id like 20261116T000000Z (or its start in Unix seconds)", excerpt.Of(id))
		}
		t = time.Unix(sec, 0).UTC()
	}
	if sec := t.Unix(); sec <= 0 || sec > math.MaxUint32 {
		return time.Time{}, fmt.Errorf("%q is outside the periods a league can have (1970 to 2106)", excerpt.Of(id))
	}
	return t, nil
}

// At returns the period that contains t: the last boundary at or before t to
// the first after it. cron only looks forward, so At looks back a doubling
// window until a boundary falls inside it, then walks forward.
func (s *Schedule) At(t time.Time) Period {
	t = t.Truncate(time.Second) // cron works in whole seconds
	for back := time.Second; ; back *= 2 {
		from := t.Add(-back)
		first := s.sched.Next(from.Add(-time.Second))
		if !first.After(t) {
			start := first
			for {
				next := s.sched.Next(start)
				if next.After(t) {
					return Period{Start: start.UTC(), End: next.UTC()}
				}
				start = next
			}
		}
		if back > 20*366*24*time.Hour {
			// A schedule that did not fire for twenty years, e.g. Feb 30:
			// ParseSchedule rejects those, so this is unreachable.
			panic("league: schedule has no boundary in twenty years: " + s.Spec)
		}
	}
}

// SameAs reports whether s and o have the same boundaries: two spellings of
// one cycle (@weekly and 0 0 * * 0, */1 and *) are the same schedule. The
// fields are compared as the cron library reads them, every value allowed;
// the mark of a field written as * only counts for day of month and day of
// week, whose matching it changes. Zones compare by name, or, when the
// names differ (UTC and Etc/UTC), by their offsets every hour of the two
// years after from, which any clock change falls in.
func (s *Schedule) SameAs(o *Schedule, from time.Time) bool {
	a, ok1 := s.sched.(*cron.SpecSchedule)
	b, ok2 := o.sched.(*cron.SpecSchedule)
	if !ok1 || !ok2 {
		return false
	}
	const star = 1 << 63
	if a.Second&^star != b.Second&^star || a.Minute&^star != b.Minute&^star || a.Hour&^star != b.Hour&^star ||
		a.Month&^star != b.Month&^star || a.Dom != b.Dom || a.Dow != b.Dow {
		return false
	}
	if a.Location.String() == b.Location.String() {
		return true
	}
	for t, end := from, from.AddDate(2, 0, 0); t.Before(end); t = t.Add(time.Hour) {
		_, x := t.In(a.Location).Zone()
		_, y := t.In(b.Location).Zone()
		if x != y {
			return false
		}
	}
	return true
}

// Following returns the period after p.
func (s *Schedule) Following(p Period) Period {
	return Period{Start: p.End, End: s.Next(p.End)}
}

// Preceding returns the period before p.
func (s *Schedule) Preceding(p Period) Period {
	return s.At(p.Start.Add(-time.Second))
}

// Containing returns the period that starts at start, or an error when no
// period starts there.
func (s *Schedule) Containing(start time.Time) (Period, error) {
	p := s.At(start)
	if !p.Start.Equal(start) {
		return Period{}, fmt.Errorf("no period of %q starts at %s", s.Spec, start.UTC().Format(time.RFC3339))
	}
	return p, nil
}

// Between counts the whole periods strictly between a and b (a before b).
// It stops counting at limit, which is all decay needs to know.
func (s *Schedule) Between(a, b Period, limit int) int {
	n := 0
	for p := s.Following(a); p.Start.Before(b.Start) && n < limit; p = s.Following(p) {
		n++
	}
	return n
}

// lengthsFrom is where MaxLength starts looking: one instant for every
// process, whenever it starts. The packing MaxLength sizes is recorded in
// Redis with the league's first data, and a process that sized it otherwise
// (started on another day, with another clock change within reach) would
// be refused at Open.
var lengthsFrom = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// MaxLength returns the longest period of the eight years from lengthsFrom,
// the bound FirstReached packs time into. It walks the first 100,000
// periods (leap days, month lengths, and all eight years of a schedule of
// an hour or longer), then looks at the period around each clock change of
// the schedule's zone: a schedule of minutes that pauses at night has its
// longest period there (* 2-23 * * * in New York: 3h01m when the clocks go
// back, otherwise 2h01m at most), months or years past its first 100,000.
func (s *Schedule) MaxLength() time.Duration {
	var longest time.Duration
	horizon := lengthsFrom.AddDate(8, 0, 0)
	t := s.Next(lengthsFrom)
	for i := 0; i < 100000 && t.Before(horizon); i++ {
		next := s.Next(t)
		longest = max(longest, next.Sub(t))
		t = next
	}
	if spec, ok := s.sched.(*cron.SpecSchedule); ok {
		for t := lengthsFrom.In(spec.Location); t.Before(horizon); {
			_, change := t.ZoneBounds()
			if change.IsZero() { // no more changes (UTC: none at all)
				break
			}
			if !change.After(t) {
				// go.dev/issue/81583: past a zone file's last transition
				// (slim zone files, as Alpine's, end early), on the last UTC
				// day of a leap year, the span ends before t, and the loop
				// would never move on. The rule changes the offset next in
				// the following year.
				t = time.Date(t.UTC().Year()+1, 1, 1, 0, 0, 0, 0, time.UTC).In(spec.Location)
				continue
			}
			p := s.At(change)
			longest = max(longest, p.End.Sub(p.Start))
			t = change
		}
	}
	return longest
}
