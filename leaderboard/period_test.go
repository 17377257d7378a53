package leaderboard

import (
	"strings"
	"testing"
	"time"

	"github.com/league-engine/league/internal/calendar"
)

// The zone cases below read the host's tz database (Go embeds none unless
// a program imports time/tzdata); every zone they name is in tzdata 2025b.

func mustCalendar(t *testing.T, zone, weekStart string) Calendar {
	t.Helper()
	c, err := NewCalendar(zone, weekStart)
	if err != nil {
		t.Fatalf("NewCalendar(%q, %q): %v", zone, weekStart, err)
	}
	return c
}

// at parses an instant written in RFC 3339.
func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

var kinds = []Kind{Hour, Day, Week, Month, AllTime}

func TestParseKind(t *testing.T) {
	for _, k := range kinds {
		if got, err := ParseKind(string(k)); got != k || err != nil {
			t.Errorf("ParseKind(%q): got %q, %v; want %q", k, got, err, k)
		}
	}
	for s, want := range map[string]Window{"7d": {7, Day}, "24h": {24, Hour}, "1d": {1, Day}, "744h": {744, Hour}} {
		if got, err := ParseKind(s); got != Kind(s) || err != nil || !got.Rolling() || got.window() != want {
			t.Errorf("ParseKind(%q): got %q, %v; want the window %v", s, got, err, want)
		}
	}
	for _, s := range []string{"", "year", "Day", "all", "alltime", " hour", "0d", "07d", "+7d", "7w", "d", "745h", "7D", "-1h"} {
		_, err := ParseKind(s)
		if err == nil || !strings.Contains(err.Error(), "hour, day, week, month, all_time, or a rolling window") {
			t.Errorf("ParseKind(%q): got %v, want an error naming the kinds", s, err)
		}
	}
}

func TestNewCalendar(t *testing.T) {
	for _, tc := range []struct {
		name, zone, weekStart string
		wantZone              string
		wantStart             time.Weekday
	}{
		{"defaults", "", "", "UTC", time.Monday},
		{"zone and sunday", "Europe/Paris", "sunday", "Europe/Paris", time.Sunday},
		{"another spelling of UTC", "Etc/UTC", "saturday", "Etc/UTC", time.Saturday},
		{"half-hour zone", "Asia/Kolkata", "monday", "Asia/Kolkata", time.Monday},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := mustCalendar(t, tc.zone, tc.weekStart)
			if got := c.Loc.String(); got != tc.wantZone {
				t.Errorf("zone: got %s, want %s", got, tc.wantZone)
			}
			if c.WeekStart != tc.wantStart {
				t.Errorf("week start: got %v, want %v", c.WeekStart, tc.wantStart)
			}
		})
	}
	for _, tc := range []struct{ name, zone, weekStart, want string }{
		{"Local", "Local", "", `time_zone "Local" is the host's zone`},
		{"local", "local", "", "is the host's zone"},
		{"localtime", "localtime", "", "is the host's zone"},
		{"LOCALTIME", "LOCALTIME", "", "is the host's zone"},
		{"posixrules", "posixrules", "", "is the host's zone"},
		{"posix/localtime", "posix/localtime", "", "is the host's zone"},
		{"/etc/localtime", "/etc/localtime", "", "is the host's zone"},
		{"./localtime", "./localtime", "", "is not a zone name as the tz database spells it"},
		{"dot dot", "Europe/../localtime", "", "is not a zone name"},
		{"double slash", "Europe//Paris", "", "is not a zone name"},
		{"trailing slash", "Europe/Paris/", "", "is not a zone name"},
		{"file path", "/usr/share/zoneinfo/Europe/Paris", "", "is a file, not a zone name"},
		{"unknown", "Mars/Base", "", `time_zone "Mars/Base": unknown time zone`},
		{"lower case", "europe/paris", "", "time_zone"},
		{"spaces", " Europe/Paris", "", "time_zone"},
		{"short day", "", "mon", `week_start "mon" is not a day of the week: monday,`},
		{"capitalised day", "", "Monday", "week_start"},
		{"no day", "", "funday", "week_start"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewCalendar(tc.zone, tc.weekStart)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("NewCalendar(%q, %q): got %v, want an error saying %q", tc.zone, tc.weekStart, err, tc.want)
			}
		})
	}
}

// TestAt: each kind in UTC, and each DST case in a zone that has it.
func TestAt(t *testing.T) {
	for _, tc := range []struct {
		name, zone, weekStart string
		kind                  Kind
		at                    string
		start, end            string
	}{
		{"UTC hour", "", "", Hour, "2026-11-25T01:30:00Z", "2026-11-25T01:00:00Z", "2026-11-25T02:00:00Z"},
		{"UTC hour on its start", "", "", Hour, "2026-11-25T01:00:00Z", "2026-11-25T01:00:00Z", "2026-11-25T02:00:00Z"},
		{"UTC day", "", "", Day, "2026-11-25T23:59:59Z", "2026-11-25T00:00:00Z", "2026-11-26T00:00:00Z"},
		{"UTC week from Monday", "", "", Week, "2026-11-25T12:00:00Z", "2026-11-23T00:00:00Z", "2026-11-30T00:00:00Z"},
		{"UTC week on its Monday", "", "", Week, "2026-11-23T00:00:00Z", "2026-11-23T00:00:00Z", "2026-11-30T00:00:00Z"},
		{"UTC week from Sunday", "", "sunday", Week, "2026-11-25T12:00:00Z", "2026-11-22T00:00:00Z", "2026-11-29T00:00:00Z"},
		{"UTC week from Saturday, on a Friday", "", "saturday", Week, "2026-11-27T12:00:00Z", "2026-11-21T00:00:00Z", "2026-11-28T00:00:00Z"},
		{"UTC month", "", "", Month, "2026-11-25T12:00:00Z", "2026-11-01T00:00:00Z", "2026-12-01T00:00:00Z"},
		{"UTC December", "", "", Month, "2026-12-31T23:59:59Z", "2026-12-01T00:00:00Z", "2027-01-01T00:00:00Z"},
		{"UTC leap February", "", "", Month, "2028-02-29T12:00:00Z", "2028-02-01T00:00:00Z", "2028-03-01T00:00:00Z"},

		// Paris leaves winter time at 02:00 CET on 2026-03-29 (01:00Z), for
		// 03:00 CEST: 02:00 never shows, and the hour holding 01:59:59 runs
		// to 03:00, an hour of real time.
		{"Paris spring-forward day, 23h", "Europe/Paris", "", Day, "2026-03-29T12:00:00Z", "2026-03-28T23:00:00Z", "2026-03-29T22:00:00Z"},
		{"Paris hour at 01:59:59 CET", "Europe/Paris", "", Hour, "2026-03-29T00:59:59Z", "2026-03-29T00:00:00Z", "2026-03-29T01:00:00Z"},
		{"Paris hour at 03:00 CEST", "Europe/Paris", "", Hour, "2026-03-29T01:00:00Z", "2026-03-29T01:00:00Z", "2026-03-29T02:00:00Z"},
		// It goes back at 03:00 CEST on 2026-10-25 (01:00Z) to 02:00 CET:
		// 02:00-03:00 shows twice, two hours.
		{"Paris fall-back day, 25h", "Europe/Paris", "", Day, "2026-10-25T12:00:00Z", "2026-10-24T22:00:00Z", "2026-10-25T23:00:00Z"},
		{"Paris first 02:30 (CEST)", "Europe/Paris", "", Hour, "2026-10-25T00:30:00Z", "2026-10-25T00:00:00Z", "2026-10-25T01:00:00Z"},
		{"Paris second 02:30 (CET)", "Europe/Paris", "", Hour, "2026-10-25T01:30:00Z", "2026-10-25T01:00:00Z", "2026-10-25T02:00:00Z"},
		{"Paris fall-back week, 7d+1h", "Europe/Paris", "", Week, "2026-10-25T12:00:00Z", "2026-10-18T22:00:00Z", "2026-10-25T23:00:00Z"},
		{"Paris October, 31d+1h", "Europe/Paris", "", Month, "2026-10-15T12:00:00Z", "2026-09-30T22:00:00Z", "2026-10-31T23:00:00Z"},
		// past the zone file's transitions, on the last UTC day of a leap
		// year, where ZoneBounds errs (go.dev/issue/81583)
		{"Paris hour, 2040-12-31", "Europe/Paris", "", Hour, "2040-12-31T12:30:00Z", "2040-12-31T12:00:00Z", "2040-12-31T13:00:00Z"},
		{"Paris day, 2040-12-31", "Europe/Paris", "", Day, "2040-12-31T12:30:00Z", "2040-12-30T23:00:00Z", "2040-12-31T23:00:00Z"},

		{"New York spring-forward day, 23h", "America/New_York", "", Day, "2026-03-08T12:00:00Z", "2026-03-08T05:00:00Z", "2026-03-09T04:00:00Z"},
		{"New York hour at 01:59:59 EST", "America/New_York", "", Hour, "2026-03-08T06:59:59Z", "2026-03-08T06:00:00Z", "2026-03-08T07:00:00Z"},
		{"New York fall-back day, 25h", "America/New_York", "", Day, "2026-11-01T12:00:00Z", "2026-11-01T04:00:00Z", "2026-11-02T05:00:00Z"},
		{"New York first 01:30 (EDT)", "America/New_York", "", Hour, "2026-11-01T05:30:00Z", "2026-11-01T05:00:00Z", "2026-11-01T06:00:00Z"},
		{"New York second 01:30 (EST)", "America/New_York", "", Hour, "2026-11-01T06:30:00Z", "2026-11-01T06:00:00Z", "2026-11-01T07:00:00Z"},

		// +05:30: hours start at half past in UTC.
		{"Kolkata hour", "Asia/Kolkata", "", Hour, "2026-11-25T10:45:00Z", "2026-11-25T10:30:00Z", "2026-11-25T11:30:00Z"},
		{"Kolkata day", "Asia/Kolkata", "", Day, "2026-11-25T20:00:00Z", "2026-11-25T18:30:00Z", "2026-11-26T18:30:00Z"},
		{"Kolkata month", "Asia/Kolkata", "", Month, "2026-11-30T19:00:00Z", "2026-11-30T18:30:00Z", "2026-12-31T18:30:00Z"},

		// Lord Howe moves its clock by half an hour. On 2026-10-04 02:00
		// +10:30 (15:30Z) becomes 02:30 +11: the hour from 01:00 runs to
		// 03:00, an hour and a half.
		{"Lord Howe spring-forward day, 23h30", "Australia/Lord_Howe", "", Day, "2026-10-04T00:00:00Z", "2026-10-03T13:30:00Z", "2026-10-04T13:00:00Z"},
		{"Lord Howe hour over the jump, 1h30", "Australia/Lord_Howe", "", Hour, "2026-10-03T15:45:00Z", "2026-10-03T14:30:00Z", "2026-10-03T16:00:00Z"},
		{"Lord Howe hour before the jump", "Australia/Lord_Howe", "", Hour, "2026-10-03T14:00:00Z", "2026-10-03T13:30:00Z", "2026-10-03T14:30:00Z"},
		// On 2026-04-05 02:00 +11 (15:00Z) becomes 01:30 +10:30: 01:30-02:00
		// shows twice, inside one hour of an hour and a half.
		{"Lord Howe fall-back day, 24h30", "Australia/Lord_Howe", "", Day, "2026-04-05T00:00:00Z", "2026-04-04T13:00:00Z", "2026-04-05T13:30:00Z"},
		{"Lord Howe hour over the repeat, 1h30", "Australia/Lord_Howe", "", Hour, "2026-04-04T15:15:00Z", "2026-04-04T14:00:00Z", "2026-04-04T15:30:00Z"},

		// Santiago's clock jumps from 00:00 -04 to 01:00 -03 on 2026-09-06
		// (04:00Z): that day, and a week from Sunday, start at 01:00, the
		// first instant of the day that exists.
		{"Santiago day without a midnight", "America/Santiago", "", Day, "2026-09-06T12:00:00Z", "2026-09-06T04:00:00Z", "2026-09-07T03:00:00Z"},
		{"Santiago day before it, ending at the jump", "America/Santiago", "", Day, "2026-09-05T12:00:00Z", "2026-09-05T04:00:00Z", "2026-09-06T04:00:00Z"},
		{"Santiago week from that Sunday", "America/Santiago", "sunday", Week, "2026-09-08T12:00:00Z", "2026-09-06T04:00:00Z", "2026-09-13T03:00:00Z"},
		{"Santiago week from Monday over it", "America/Santiago", "", Week, "2026-09-06T12:00:00Z", "2026-08-31T04:00:00Z", "2026-09-07T03:00:00Z"},
		{"Santiago hour before the jump", "America/Santiago", "", Hour, "2026-09-06T03:59:59Z", "2026-09-06T03:00:00Z", "2026-09-06T04:00:00Z"},
		// On 2026-04-05 00:00 -03 (03:00Z) becomes 23:00 -04 on the 4th.
		{"Santiago fall-back Saturday, 25h", "America/Santiago", "", Day, "2026-04-04T12:00:00Z", "2026-04-04T03:00:00Z", "2026-04-05T04:00:00Z"},

		// Havana goes back from 01:00 CDT to 00:00 CST on 2026-11-01
		// (05:00Z): midnight shows twice on one date, which starts once,
		// while its two 00:00 hours are two hours.
		{"Havana day with two midnights, 25h", "America/Havana", "", Day, "2026-11-01T05:30:00Z", "2026-11-01T04:00:00Z", "2026-11-02T05:00:00Z"},
		{"Havana first 00:00 hour", "America/Havana", "", Hour, "2026-11-01T04:30:00Z", "2026-11-01T04:00:00Z", "2026-11-01T05:00:00Z"},
		{"Havana second 00:00 hour", "America/Havana", "", Hour, "2026-11-01T05:30:00Z", "2026-11-01T05:00:00Z", "2026-11-01T06:00:00Z"},
		// and jumps from 00:00 CST to 01:00 CDT on 2026-03-08 (05:00Z)
		{"Havana day without a midnight", "America/Havana", "", Day, "2026-03-08T12:00:00Z", "2026-03-08T05:00:00Z", "2026-03-09T04:00:00Z"},

		// Beirut jumps from 00:00 EET to 01:00 EEST on 2026-03-29
		// (2026-03-28T22:00Z), and goes back from 00:00 EEST on 2026-10-25
		// to 23:00 EET on the 24th.
		{"Beirut day without a midnight", "Asia/Beirut", "", Day, "2026-03-29T12:00:00Z", "2026-03-28T22:00:00Z", "2026-03-29T21:00:00Z"},
		{"Beirut month holding it", "Asia/Beirut", "", Month, "2026-03-29T12:00:00Z", "2026-02-28T22:00:00Z", "2026-03-31T21:00:00Z"},
		{"Beirut fall-back Saturday, 25h", "Asia/Beirut", "", Day, "2026-10-24T21:30:00Z", "2026-10-23T21:00:00Z", "2026-10-24T22:00:00Z"},

		// St. John's went back from 00:01 NDT to 23:01 NST the day before on
		// 2006-10-29 (02:31Z): the 29th had started at 00:00 NDT, and the
		// 28th showing again does not start the 28th again.
		{"St. John's day holding the 28th shown again", "America/St_Johns", "", Day, "2006-10-29T03:00:00Z", "2006-10-29T02:30:00Z", "2006-10-30T03:30:00Z"},
		{"St. John's 28th, before", "America/St_Johns", "", Day, "2006-10-29T02:30:59Z", "2006-10-29T02:30:00Z", "2006-10-30T03:30:00Z"},
		{"St. John's 28th, 24h", "America/St_Johns", "", Day, "2006-10-29T02:29:59Z", "2006-10-28T02:30:00Z", "2006-10-29T02:30:00Z"},
		{"St. John's hour over the 28th shown again", "America/St_Johns", "", Hour, "2006-10-29T03:00:00Z", "2006-10-29T02:30:00Z", "2006-10-29T03:30:00Z"},

		// Samoa skipped 2011-12-30, from 24:00 -10 on the 29th to 00:00
		// +14 on the 31st (2011-12-30T10:00Z): no day of the 30th, a week
		// of six days, a December of thirty.
		{"Apia 29th", "Pacific/Apia", "", Day, "2011-12-30T09:59:59Z", "2011-12-29T10:00:00Z", "2011-12-30T10:00:00Z"},
		{"Apia 31st", "Pacific/Apia", "", Day, "2011-12-30T10:00:00Z", "2011-12-30T10:00:00Z", "2011-12-31T10:00:00Z"},
		{"Apia week of six days", "Pacific/Apia", "", Week, "2011-12-30T12:00:00Z", "2011-12-26T10:00:00Z", "2012-01-01T10:00:00Z"},
		{"Apia week from the Friday it skipped", "Pacific/Apia", "friday", Week, "2011-12-30T12:00:00Z", "2011-12-30T10:00:00Z", "2012-01-05T10:00:00Z"},
		{"Apia week from Friday before it", "Pacific/Apia", "friday", Week, "2011-12-30T09:00:00Z", "2011-12-23T10:00:00Z", "2011-12-30T10:00:00Z"},
		{"Apia December of thirty days", "Pacific/Apia", "", Month, "2011-12-15T12:00:00Z", "2011-12-01T10:00:00Z", "2011-12-31T10:00:00Z"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := mustCalendar(t, tc.zone, tc.weekStart)
			got := c.At(tc.kind, at(tc.at))
			want := Period{Kind: tc.kind, Start: at(tc.start), End: at(tc.end)}
			if got != want {
				t.Errorf("At(%s, %s): got %v to %v, want %v to %v", tc.kind, tc.at,
					got.Start.Format(time.RFC3339), got.End.Format(time.RFC3339), tc.start, tc.end)
			}
		})
	}
}

// TestRepeatedHour: the hour shown twice when the clock goes back is two
// periods, two ids, each parsed back to itself.
func TestRepeatedHour(t *testing.T) {
	c := mustCalendar(t, "Europe/Paris", "")
	first, second := c.At(Hour, at("2026-10-25T00:30:00Z")), c.At(Hour, at("2026-10-25T01:30:00Z"))
	if first == second || first.ID() == second.ID() {
		t.Fatalf("got one hour %v for both 02:30s, want two", first)
	}
	for _, tc := range []struct {
		p      Period
		id     string
		shows  string
		offset string
	}{
		{first, "20261025T000000Z", "02:00", "+02:00"},
		{second, "20261025T010000Z", "02:00", "+01:00"},
	} {
		if got := tc.p.ID(); got != tc.id {
			t.Errorf("ID: got %s, want %s", got, tc.id)
		}
		if got := tc.p.Start.In(c.Loc).Format("15:04 -07:00"); got != tc.shows+" "+tc.offset {
			t.Errorf("%s starts at %s local, want %s %s", tc.id, got, tc.shows, tc.offset)
		}
		if got, err := c.Parse(Hour, tc.id); got != tc.p || err != nil {
			t.Errorf("Parse(hour, %s): got %v, %v; want %v", tc.id, got, err, tc.p)
		}
	}
	if c.Next(first) != second || c.Previous(second) != first {
		t.Errorf("Next(%v) = %v, Previous(%v) = %v: want each other", first, c.Next(first), second, c.Previous(second))
	}
}

// TestCalendarWalk: over a year of instants in each zone, for every kind,
// the period holds the instant, starts where the rules say, follows and
// precedes its neighbours, and parses back from its id.
func TestCalendarWalk(t *testing.T) {
	for _, tc := range []struct {
		name, zone, weekStart string
		year                  int
	}{
		{"UTC 2026", "UTC", "", 2026},
		{"UTC 2028, a leap year, weeks from Sunday", "UTC", "sunday", 2028},
		{"Paris 2026", "Europe/Paris", "", 2026},
		{"New York 2026, weeks from Sunday", "America/New_York", "sunday", 2026},
		{"Kolkata 2026", "Asia/Kolkata", "", 2026},
		{"Lord Howe 2026", "Australia/Lord_Howe", "", 2026},
		{"Santiago 2026, weeks from Sunday", "America/Santiago", "sunday", 2026},
		{"Havana 2026", "America/Havana", "", 2026},
		{"Beirut 2026", "Asia/Beirut", "", 2026},
		{"St. John's 2006", "America/St_Johns", "", 2006},
		{"Apia 2011, weeks from Friday", "Pacific/Apia", "friday", 2011},
		{"Paris 2040 (go.dev/issue/81583)", "Europe/Paris", "", 2040},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := mustCalendar(t, tc.zone, tc.weekStart)
			from := time.Date(tc.year, 1, 1, 0, 0, 0, 0, time.UTC)
			to := from.AddDate(1, 0, 0)
			// Every 97m13s (a step that drifts over the minutes), and
			// around every clock change.
			var instants []time.Time
			for t := from; t.Before(to); t = t.Add(97*time.Minute + 13*time.Second) {
				instants = append(instants, t)
			}
			for t := from; ; {
				_, _, change := calendar.Calendar(c).Zone(t)
				if change.IsZero() || !change.Before(to) {
					break
				}
				for _, d := range []time.Duration{-time.Hour, -time.Nanosecond, 0, time.Second, 30 * time.Minute, time.Hour} {
					instants = append(instants, change.Add(d))
				}
				t = change
			}
			longest := map[Kind]time.Duration{}
			for _, k := range kinds {
				longest[k] = c.MaxLength(k)
			}
			for _, now := range instants {
				for _, k := range kinds {
					checkPeriod(t, c, k, now, longest[k])
				}
			}
		})
	}
}

func checkPeriod(t *testing.T, c Calendar, k Kind, now time.Time, longest time.Duration) {
	t.Helper()
	p := c.At(k, now)
	if k == AllTime {
		if want := (Period{Kind: AllTime}); p != want || c.Next(p) != p || c.Previous(p) != p {
			t.Fatalf("all time at %v: got %v, next %v, previous %v; want %v for each", now, p, c.Next(p), c.Previous(p), want)
		}
		return
	}
	if now.Before(p.Start) || !now.Before(p.End) {
		t.Fatalf("At(%s, %v): got %v to %v, not holding it", k, now, p.Start, p.End)
	}
	if n := p.End.Sub(p.Start); n <= 0 || n > longest {
		t.Fatalf("At(%s, %v): got %v to %v, %v long; want at most MaxLength %v", k, now, p.Start, p.End, n, longest)
	}
	next, prev := c.Next(p), c.Previous(p)
	if next.Start != p.End || prev.End != p.Start {
		t.Fatalf("%v: got next from %v, previous to %v; want %v and %v", p, next.Start, prev.End, p.End, p.Start)
	}
	if c.Previous(next) != p || c.Next(prev) != p {
		t.Fatalf("%v: got %v before the next, %v after the previous; want itself", p, c.Previous(next), c.Next(prev))
	}
	if got, err := c.Parse(k, p.ID()); got != p || err != nil {
		t.Fatalf("Parse(%s, %s): got %v, %v; want %v", k, p.ID(), got, err, p)
	}
	// Where it starts: hours at HH:00:00 on the clock; days, weeks and
	// months at the first instant of their first date, or of the date
	// after it where the clock skipped it.
	// what the clock shows, as a UTC time
	wall := func(t time.Time) time.Time {
		off, _, _ := calendar.Calendar(c).Zone(t)
		return t.UTC().Add(off)
	}
	shows, before := wall(p.Start), wall(p.Start.Add(-time.Nanosecond))
	skipped := shows.Truncate(24*time.Hour).Sub(before.Truncate(24*time.Hour)) > 24*time.Hour
	switch {
	case k == Hour && (shows.Minute() != 0 || shows.Second() != 0):
		t.Fatalf("%v starts at %v on the clock, want HH:00:00", p, shows)
	case k != Hour && shows.YearDay() == before.YearDay():
		t.Fatalf("%v starts at %v on the clock, after %v: want the first instant of a date", p, shows, before)
	case k == Week && shows.Weekday() != c.WeekStart && !skipped:
		t.Fatalf("%v starts on a %v, want %v", p, shows.Weekday(), c.WeekStart)
	case k == Month && shows.Day() != 1 && !skipped:
		t.Fatalf("%v starts on day %d of the month, want 1", p, shows.Day())
	}
}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name, zone string
		kind       Kind
		id         string
		want       string // the start, RFC 3339; or "all"
	}{
		{"a day", "", Day, "20261125T000000Z", "2026-11-25T00:00:00Z"},
		{"in Unix seconds", "", Day, "1763251200", "2025-11-16T00:00:00Z"},
		{"all time", "", AllTime, "all", "all"},
		{"Kolkata day", "Asia/Kolkata", Day, "20261124T183000Z", "2026-11-24T18:30:00Z"},
		{"Santiago day from 01:00", "America/Santiago", Day, "20260906T040000Z", "2026-09-06T04:00:00Z"},
		{"Apia 31st, after the day it skipped", "Pacific/Apia", Day, "20111230T100000Z", "2011-12-30T10:00:00Z"},
		{"the first start", "", Day, "19700102T000000Z", "1970-01-02T00:00:00Z"},
		{"the first start in Unix seconds", "", Hour, "86400", "1970-01-02T00:00:00Z"},
		{"the last month", "", Month, "21051201T000000Z", "2105-12-01T00:00:00Z"},
		{"the last hour", "", Hour, "21051231T230000Z", "2105-12-31T23:00:00Z"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := mustCalendar(t, tc.zone, "")
			got, err := c.Parse(tc.kind, tc.id)
			if err != nil {
				t.Fatalf("Parse(%s, %s): %v", tc.kind, tc.id, err)
			}
			want := c.At(tc.kind, time.Time{})
			if tc.want != "all" {
				want = c.At(tc.kind, at(tc.want))
			}
			if got != want || got.Kind != tc.kind || (tc.want != "all" && !got.Start.Equal(at(tc.want))) {
				t.Errorf("Parse(%s, %s): got %v, want %v from %s", tc.kind, tc.id, got, want, tc.want)
			}
		})
	}
}

func TestParseRefuses(t *testing.T) {
	for _, tc := range []struct {
		name, zone, weekStart string
		kind                  Kind
		id, want              string
	}{
		{"day at half past one", "", "", Day, "20261125T013000Z", `"20261125T013000Z" starts no day in UTC: the clock there shows Wed 2026-11-25 01:30:00 +00:00, within the day 20261125T000000Z`},
		{"hour at half past", "", "", Hour, "20261125T013000Z", "starts no hour in UTC"},
		{"hour at a fraction of a second", "", "", Hour, "20261125T010000.5Z", "starts no hour"},
		{"week on a Tuesday", "", "", Week, "20261124T000000Z", "starts no week in UTC: the clock there shows Tue"},
		{"week on a Monday, weeks from Sunday", "", "sunday", Week, "20261123T000000Z", "starts no week"},
		{"month on the 2nd", "", "", Month, "20261102T000000Z", "starts no month"},
		{"UTC midnight in Kolkata", "Asia/Kolkata", "", Day, "20261125T000000Z", "starts no day in Asia/Kolkata: the clock there shows Wed 2026-11-25 05:30:00 +05:30, within the day 20261124T183000Z"},
		{"UTC hour in Kolkata", "Asia/Kolkata", "", Hour, "20261125T100000Z", "starts no hour in Asia/Kolkata"},
		{"Santiago midnight under the new offset", "America/Santiago", "", Day, "20260906T030000Z", "shows Sat 2026-09-05 23:00:00 -04:00, within the day 20260905T040000Z"},
		{"Havana second midnight", "America/Havana", "", Day, "20261101T050000Z", "shows Sun 2026-11-01 00:00:00 -05:00, within the day 20261101T040000Z"},
		{"Lord Howe 02:30 after the jump", "Australia/Lord_Howe", "", Hour, "20261003T153000Z", "starts no hour in Australia/Lord_Howe: the clock there shows Sun 2026-10-04 02:30:00 +11:00, within the hour 20261003T143000Z"},
		{"all for a day", "", "", Day, "all", `"all" is not a period of the day board: all_time has the one period all`},
		{"an instant for all time", "", "", AllTime, "20261125T000000Z", "is not a period of the all_time board"},
		{"no kind", "", "", Kind("year"), "20260101T000000Z", `"year" is not a kind of board`},
		{"a date", "", "", Day, "2026-11-25", "is not a period id like 20261116T000000Z (or its start in Unix seconds)"},
		{"no Z", "", "", Day, "20261125T000000", "is not a period id"},
		{"empty", "", "", Day, "", "is not a period id"},
		{"long", "", "", Day, strings.Repeat("9", 100), "(100 bytes)"},
		{"1970-01-01", "", "", Day, "19700101T000000Z", "is outside the periods a leaderboard can have (starts from 1970-01-02 to the end of 2105)"},
		{"zero seconds", "", "", Hour, "0", "is outside the periods"},
		{"negative seconds", "", "", Hour, "-3600", "is outside the periods"},
		{"a second before 1970-01-02", "", "", Hour, "86399", "is outside the periods"},
		{"2106", "", "", Month, "21060101T000000Z", "is outside the periods"},
		{"32-bit seconds' last", "", "", Hour, "4294967295", "is outside the periods"},
		{"year 1", "", "", Week, "00010101T000000Z", "is outside the periods"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := mustCalendar(t, tc.zone, tc.weekStart)
			got, err := c.Parse(tc.kind, tc.id)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Parse(%s, %s): got %v, %v; want an error saying %q", tc.kind, tc.id, got, err, tc.want)
			}
		})
	}
}

func TestMaxLength(t *testing.T) {
	const h, d = time.Hour, 24 * time.Hour
	for _, tc := range []struct {
		name, zone string
		kind       Kind
		want       time.Duration
	}{
		{"UTC hour", "UTC", Hour, h},
		{"UTC day", "UTC", Day, d},
		{"UTC week", "UTC", Week, 7 * d},
		{"UTC month", "UTC", Month, 31 * d},
		{"UTC all time", "UTC", AllTime, 0},
		{"Kolkata day", "Asia/Kolkata", Day, d},
		{"Paris hour", "Europe/Paris", Hour, h},
		{"Paris day", "Europe/Paris", Day, 25 * h},
		{"Paris week", "Europe/Paris", Week, 7*d + h},
		{"Paris month: October", "Europe/Paris", Month, 31*d + h},
		// New York goes back in November, 30 days, but did in October
		// until 2006.
		{"New York month", "America/New_York", Month, 31*d + h},
		// from 01:00 to 03:00 when the clock moves half an hour forward
		{"Lord Howe hour", "Australia/Lord_Howe", Hour, h + 30*time.Minute},
		// its summer time was an hour from 1981 to 1985
		{"Lord Howe day", "Australia/Lord_Howe", Day, 25 * h},
		// from +05:30 to +05:45 at midnight on 1986-01-01: the clock went
		// from 23:00 to 01:00 in 1h45 without showing 00:00
		{"Kathmandu hour", "Asia/Kathmandu", Hour, h + 45*time.Minute},
		{"Kathmandu day", "Asia/Kathmandu", Day, d},
		// double summer time in 1988: two hours back in one change
		{"St. John's day", "America/St_Johns", Day, 26 * h},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := mustCalendar(t, tc.zone, "").MaxLength(tc.kind); got != tc.want {
				t.Errorf("MaxLength(%s): got %v, want %v", tc.kind, got, tc.want)
			}
		})
	}
}

// TestMaxLengthWalk: MaxLength is the longest of every period Parse
// accepts, found by walking them all (days and longer: hours would take
// seconds).
func TestMaxLengthWalk(t *testing.T) {
	for _, zone := range []string{"Europe/Paris", "Australia/Lord_Howe", "America/St_Johns", "Pacific/Apia"} {
		for _, k := range []Kind{Day, Week, Month} {
			t.Run(zone+"/"+string(k), func(t *testing.T) {
				t.Parallel()
				c := mustCalendar(t, zone, "")
				var longest time.Duration
				for p := c.At(k, firstStart); p.Start.Before(startsEnd); p = c.Next(p) {
					longest = max(longest, p.End.Sub(p.Start))
				}
				if got := c.MaxLength(k); got != longest {
					t.Errorf("MaxLength(%s): got %v, want %v, the longest of the walk", k, got, longest)
				}
			})
		}
	}
}

// TestPeriodEquality: one instant, in any Location or with a monotonic
// reading, gives periods equal with ==, usable as map keys.
func TestPeriodEquality(t *testing.T) {
	c := mustCalendar(t, "Europe/Paris", "")
	now := time.Now() // has a monotonic reading
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range kinds {
		a, b, u := c.At(k, now), c.At(k, now.In(tokyo)), c.At(k, now.UTC().Round(0))
		if a != b || a != u {
			t.Errorf("%s: got %v, %v and %v for one instant, want them ==", k, a, b, u)
		}
		if got, err := c.Parse(k, a.ID()); got != a || err != nil {
			t.Errorf("%s: got %v, %v from the id, want == %v", k, got, err, a)
		}
	}
}

// TestZeroCalendar: the zero Calendar is UTC, weeks from Sunday.
func TestZeroCalendar(t *testing.T) {
	var c Calendar
	got := c.At(Week, at("2026-11-25T12:00:00Z"))
	if want := (Period{Kind: Week, Start: at("2026-11-22T00:00:00Z"), End: at("2026-11-29T00:00:00Z")}); got != want {
		t.Errorf("At(week): got %v to %v, want %v to %v", got.Start, got.End, want.Start, want.End)
	}
}

func TestAllTime(t *testing.T) {
	c := mustCalendar(t, "Europe/Paris", "")
	p := c.At(AllTime, at("2026-11-25T12:00:00Z"))
	if want := (Period{Kind: AllTime}); p != want {
		t.Fatalf("At(all_time): got %v, want %v", p, want)
	}
	if got := p.ID(); got != "all" {
		t.Errorf("ID: got %q, want all", got)
	}
	if c.Next(p) != p || c.Previous(p) != p {
		t.Errorf("got next %v, previous %v; want itself", c.Next(p), c.Previous(p))
	}
	if got, err := c.Parse(AllTime, "all"); got != p || err != nil {
		t.Errorf("Parse(all_time, all): got %v, %v; want %v", got, err, p)
	}
	if got := c.MaxLength(AllTime); got != 0 {
		t.Errorf("MaxLength(all_time): got %v, want 0", got)
	}
}
