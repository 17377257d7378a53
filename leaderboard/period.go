// Package leaderboard keeps plain leaderboards, beside league's tiered
// leagues: one board per period of a kind (an hour, a day, a week, a month,
// or all time), the periods placed by a Calendar in the leaderboard's zone.
package leaderboard

import (
	"fmt"
	"strconv"
	"time"

	"github.com/league-engine/league/internal/calendar"
	"github.com/league-engine/league/internal/excerpt"
	"github.com/league-engine/league/internal/tzname"
)

// Kind is a kind of periodic board.
type Kind string

const (
	Hour    Kind = "hour"
	Day     Kind = "day"
	Week    Kind = "week"
	Month   Kind = "month"
	AllTime Kind = "all_time"
)

// ParseKind parses a kind as configs and URLs spell it: a periodic kind,
// or a rolling window (Window).
func ParseKind(s string) (Kind, error) {
	switch k := Kind(s); k {
	case Hour, Day, Week, Month, AllTime:
		return k, nil
	}
	if w, err := ParseWindow(s); err == nil {
		return w.Kind(), nil
	}
	return "", fmt.Errorf("%q is not a kind of board: hour, day, week, month, all_time, or a rolling window such as 7d or 24h", excerpt.Of(s))
}

// Rolling reports whether k is a rolling window's board.
func (k Kind) Rolling() bool {
	_, err := ParseWindow(string(k))
	return err == nil
}

// unit is the kind of period that places k's boards: k itself, or a
// rolling window's bucket (an hour or a day).
func (k Kind) unit() Kind {
	if w, err := ParseWindow(string(k)); err == nil {
		return w.Unit
	}
	return k
}

// Calendar places periods in a time zone, weeks starting on WeekStart.
// NewCalendar makes one from a config. The zero Calendar is UTC with weeks
// from Sunday, time.Weekday's zero: a config's default is Monday.
type Calendar calendar.Calendar

var weekdays = map[string]time.Weekday{
	"monday": time.Monday, "tuesday": time.Tuesday, "wednesday": time.Wednesday,
	"thursday": time.Thursday, "friday": time.Friday, "saturday": time.Saturday, "sunday": time.Sunday,
}

// NewCalendar makes the calendar of a config's time_zone (a tz database
// name, "" for UTC) and week_start ("monday" to "sunday", "" for monday).
func NewCalendar(zone string, weekStart string) (Calendar, error) {
	loc, err := loadZone(zone)
	if err != nil {
		return Calendar{}, err
	}
	start := time.Monday
	if weekStart != "" {
		d, ok := weekdays[weekStart]
		if !ok {
			return Calendar{}, fmt.Errorf("week_start %q is not a day of the week: monday, tuesday, wednesday, thursday, friday, saturday or sunday", excerpt.Of(weekStart))
		}
		start = d
	}
	return Calendar{Loc: loc, WeekStart: start}, nil
}

func loadZone(zone string) (*time.Location, error) {
	switch {
	case zone == "":
		// UTC, not the host's zone: replicas on hosts in other zones (or
		// a host whose zone changed) must agree on every period.
		return time.UTC, nil
	}
	if why := tzname.Problem(zone); why != "" {
		return nil, fmt.Errorf("time_zone %q %s", excerpt.Of(zone), why)
	}
	loc, err := time.LoadLocation(zone)
	if err != nil {
		return nil, fmt.Errorf("time_zone %q: %v", excerpt.Of(zone), err)
	}
	return loc, nil
}

// Period is one board's span: [Start, End). Both are in UTC, so that
// periods compare with ==: a time.Time holds its Location, and one instant
// in two Locations is not ==. An AllTime period, which never ends, has zero
// Start and End.
type Period struct {
	Kind       Kind
	Start, End time.Time
}

// idLayout is league's period id layout: the two products name periods
// alike.
const idLayout = "20060102T150405Z"

// ID is the stable name of the period, in a key or a URL: its start in UTC
// as 20060102T150405Z, or "all" for AllTime. The start is enough: the hour
// the clock shows twice when it goes back is two periods with two starts.
func (p Period) ID() string {
	if p.Kind == AllTime {
		return "all"
	}
	return p.Start.UTC().Format(idLayout)
}

func (p Period) String() string { return string(p.Kind) + " " + p.ID() }

// At returns the period of kind k holding the instant t: periods follow
// the local clock, as calendar.Calendar.Span says.
//
// At panics on a kind that is not one of the constants, as a caller that
// skipped ParseKind has a bug.
func (c Calendar) At(k Kind, t time.Time) Period {
	if u := k.unit(); u != k {
		p := c.At(u, t)
		p.Kind = k
		return p
	}
	switch k {
	case AllTime:
		return Period{Kind: AllTime}
	case Hour, Day, Week, Month:
	default:
		panic("leaderboard: no kind of board " + strconv.Quote(string(k)))
	}
	start, end := calendar.Calendar(c).Span(calendar.Unit(k), t)
	return Period{Kind: k, Start: start, End: end}
}

// Next returns the period after p; for AllTime, p.
func (c Calendar) Next(p Period) Period { return c.At(p.Kind, p.End) }

// Previous returns the period before p; for AllTime, p. Periods start on
// whole seconds, so a nanosecond before p is in the one before.
func (c Calendar) Previous(p Period) Period { return c.At(p.Kind, p.Start.Add(-time.Nanosecond)) }

// Parse returns the period of kind k that id names: the inverse of ID. As
// league's ParsePeriodID, it also takes the start in Unix seconds. It
// refuses an instant that no period of kind k starts at in this calendar
// (20261125T013000Z is no day's start in UTC), and starts before
// 1970-01-02 or after 2105: league records a start as 32-bit Unix seconds,
// zero meaning none, and every period starting between those bounds, in
// any zone, starts and ends within 32 bits (a local 1970-01-01 may start
// in 1969 UTC; the last month of 2105 ends in January 2106, before 32-bit
// seconds run out in February).
func (c Calendar) Parse(k Kind, id string) (Period, error) {
	if _, err := ParseKind(string(k)); err != nil {
		return Period{}, err
	}
	if k == AllTime || id == "all" {
		if k == AllTime && id == "all" {
			return Period{Kind: AllTime}, nil
		}
		return Period{}, fmt.Errorf("%q is not a period of the %s board: all_time has the one period all, the others start at instants (20261116T000000Z)", excerpt.Of(id), k)
	}
	start, err := parseStart(id)
	if err != nil {
		return Period{}, err
	}
	p := c.At(k, start)
	if !p.Start.Equal(start) {
		k := k.unit()
		return Period{}, fmt.Errorf("%q starts no %s in %s: the clock there shows %s, within the %s %s",
			excerpt.Of(id), k, c.location(), start.In(c.location()).Format("Mon 2006-01-02 15:04:05 -07:00"), k, p.ID())
	}
	return p, nil
}

// The starts Parse accepts: from firstStart, before startsEnd.
var (
	firstStart = time.Date(1970, 1, 2, 0, 0, 0, 0, time.UTC)
	startsEnd  = time.Date(2106, 1, 1, 0, 0, 0, 0, time.UTC)
)

func parseStart(id string) (time.Time, error) {
	t, err := time.Parse(idLayout, id)
	if err != nil {
		sec, err := strconv.ParseInt(id, 10, 64)
		if err != nil {
			return time.Time{}, fmt.Errorf("%q is not a period id like 20261116T000000Z (or its start in Unix seconds)", excerpt.Of(id))
		}
		t = time.Unix(sec, 0)
	}
	if t.Before(firstStart) || !t.Before(startsEnd) {
		return time.Time{}, fmt.Errorf("%q is outside the periods a leaderboard can have (starts from 1970-01-02 to the end of 2105)", excerpt.Of(id))
	}
	return t.UTC(), nil
}

// MaxLength returns the longest a period of kind k lasts in this calendar,
// among those Parse accepts: the usual longest (an hour, 24 hours, 7 days,
// 31 days) unless a clock change makes one longer (a day of 25 hours, an
// hour and a half at Lord Howe). Only a period holding a change can be
// longer, so MaxLength looks at the period holding each change of the zone
// from 1970 to 2106, a few hundred: callers keep the result. AllTime,
// which never ends, has 0.
func (c Calendar) MaxLength(k Kind) time.Duration {
	var longest time.Duration
	k = k.unit()
	switch k {
	case AllTime:
		return 0
	case Hour:
		longest = time.Hour
	case Day:
		longest = 24 * time.Hour
	case Week:
		longest = 7 * 24 * time.Hour
	case Month:
		longest = 31 * 24 * time.Hour
	default:
		panic("leaderboard: no kind of board " + strconv.Quote(string(k)))
	}
	lastEnd := startsEnd.AddDate(0, 2, 0) // past the end of any period Parse accepts
	for t := firstStart; ; {
		_, _, change := calendar.Calendar(c).Zone(t)
		if change.IsZero() || !change.Before(lastEnd) {
			return longest
		}
		// the period holding the instant before the change holds it,
		// unless it ends there and is no longer for it
		p := c.At(k, change.Add(-time.Nanosecond))
		longest = max(longest, p.End.Sub(p.Start))
		t = change
	}
}

func (c Calendar) location() *time.Location {
	if c.Loc == nil {
		return time.UTC // the zero Calendar
	}
	return c.Loc
}
