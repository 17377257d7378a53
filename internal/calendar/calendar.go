// Package calendar places spans of time on a zone's clock: the second,
// minute, hour, day, week or month holding an instant, as people in that
// zone count them across clock changes. Leaderboards place their periods
// with it, and both products their rate limits' windows.
package calendar

import (
	"strconv"
	"time"
)

// Unit is a span of the clock.
type Unit string

const (
	Second Unit = "second"
	Minute Unit = "minute"
	Hour   Unit = "hour"
	Day    Unit = "day"
	Week   Unit = "week"
	Month  Unit = "month"
)

// Calendar is a zone's clock, weeks starting on WeekStart. The zero
// Calendar is UTC with weeks from Sunday, time.Weekday's zero.
type Calendar struct {
	Loc       *time.Location
	WeekStart time.Weekday
}

func (c Calendar) loc() *time.Location {
	if c.Loc == nil {
		return time.UTC // the zero Calendar
	}
	return c.Loc
}

// Span returns the span of unit u holding t: [start, end), in UTC.
//
// Spans follow the local clock. An hour starts whenever the clock shows
// HH:00:00, so the hour shown twice when the clock goes back is two
// spans, and an hour the clock skips is none: the one before runs on to
// the next HH:00:00 (in Paris on 2026-03-29, 01:00 CET to 03:00 CEST, an
// hour of real time; at Lord Howe, whose clock moves by half an hour, an
// hour and a half). A day starts at the first instant that shows its
// date: midnight, or where the clock jumps over midnight (Santiago,
// Havana, Beirut), the jump, the first instant of the day that exists. A
// clock going back over midnight does not start the day again. A week
// starts with its first day (WeekStart), a month with its 1st; where the
// clock skips that date, with the next (Samoa skipped 2011-12-30).
// Seconds and minutes are the same in every zone that has them whole.
//
// Span panics on a unit that is not one of the constants, as a caller
// that did not check its config has a bug.
func (c Calendar) Span(u Unit, t time.Time) (start, end time.Time) {
	switch u {
	case Second:
		start = t.UTC().Truncate(time.Second)
		return start, start.Add(time.Second)
	case Minute:
		start = t.UTC().Truncate(time.Minute)
		return start, start.Add(time.Minute)
	case Hour:
		return c.hourStart(t), c.hourAfter(t)
	case Day, Week, Month:
	default:
		panic("calendar: no unit " + strconv.Quote(string(u)))
	}
	first, next := c.bounds(u, c.wall(t))
	start = c.firstShowing(first)
	for {
		end = c.firstShowing(next)
		if t.Before(end) {
			return start, end
		}
		// The next span had begun: the clock went back over its start,
		// or the date t shows never came (Samoa skipped 2011-12-30).
		start = end
		_, next = c.bounds(u, next)
	}
}

// Zone returns the offset from UTC in force at t and the span it holds
// over, [began, ends), in UTC; zero where the zone has no bound. The time
// package may cut a span at a year's end where the offset goes on; that
// does no harm here, the next span having the same offset.
func (c Calendar) Zone(t time.Time) (off time.Duration, began, ends time.Time) {
	lt := t.In(c.loc())
	_, sec := lt.Zone()
	began, ends = lt.ZoneBounds()
	if !ends.IsZero() && !ends.After(t) {
		// go.dev/issue/81583: past a zone file's last transition, on the
		// last UTC day of a leap year, the span ends before t. Its rule
		// changes the offset next in the following year.
		ends = time.Date(t.UTC().Year()+1, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	return time.Duration(sec) * time.Second, began.UTC(), ends.UTC()
}

// sinceHour is how long the clock, at offset off, has shown t's hour.
func sinceHour(t time.Time, off time.Duration) time.Duration {
	shown := t.UTC().Add(off)
	return shown.Sub(shown.Truncate(time.Hour))
}

// hourStart returns the last instant at or before t at which the clock
// showed HH:00:00. Under t's offset that is t less the minutes and seconds
// shown, unless the offset began later: the clock then jumped past that
// HH:00 (Lord Howe: 02:00 to 02:30), and the hour began under the old one.
func (c Calendar) hourStart(t time.Time) time.Time {
	for {
		off, began, _ := c.Zone(t)
		start := t.Add(-sinceHour(t, off))
		if began.IsZero() || !start.Before(began) {
			return start.UTC()
		}
		t = began.Add(-time.Nanosecond)
	}
}

// hourAfter returns the first instant after t at which the clock shows
// HH:00:00: the next hour under t's offset, unless the offset changes
// first; the change itself may land on an hour (Paris: 02:00 to 03:00).
func (c Calendar) hourAfter(t time.Time) time.Time {
	for {
		off, _, ends := c.Zone(t)
		next := t.Add(time.Hour - sinceHour(t, off))
		if ends.IsZero() || next.Before(ends) {
			return next.UTC()
		}
		if off, _, _ := c.Zone(ends); sinceHour(ends, off) == 0 {
			return ends
		}
		t = ends
	}
}

// wall is what the clock shows at t, as a time in UTC: calendar arithmetic
// on it (AddDate) has no clock changes to trip on.
func (c Calendar) wall(t time.Time) time.Time {
	off, _, _ := c.Zone(t)
	return t.UTC().Add(off)
}

// bounds returns the first clock reading of the day, week or month that
// the reading w falls in, and that of the next one.
func (c Calendar) bounds(u Unit, w time.Time) (first, next time.Time) {
	y, m, d := w.Date()
	switch u {
	case Day:
		first = time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
		return first, first.AddDate(0, 0, 1)
	case Week:
		// modulo twice: a WeekStart set outside Sunday..Saturday still
		// gives a first day at or before w
		back := ((int(w.Weekday())-int(c.WeekStart))%7 + 7) % 7
		first = time.Date(y, m, d-back, 0, 0, 0, 0, time.UTC)
		return first, first.AddDate(0, 0, 7)
	default: // Month
		first = time.Date(y, m, 1, 0, 0, 0, 0, time.UTC)
		return first, first.AddDate(0, 1, 0)
	}
}

// firstShowing returns the first instant at which the clock shows w or
// later: the start of the day, week or month whose first reading is w, or,
// where the clock jumps over w, the jump. Under one offset that instant is
// w less the offset, if the offset holds then; spans are tried in order
// from two days before w, as offsets stay within a day of UTC (Samoa's
// skipped day included).
func (c Calendar) firstShowing(w time.Time) time.Time {
	for t := w.Add(-48 * time.Hour); ; {
		off, began, ends := c.Zone(t)
		at := w.Add(-off)
		if !began.IsZero() && at.Before(began) {
			at = began
		}
		if ends.IsZero() || at.Before(ends) {
			return at.UTC()
		}
		t = ends
	}
}
