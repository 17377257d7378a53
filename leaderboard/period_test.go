package leaderboard

import (
	"strings"
	"testing"
	"time"
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
	for _, s := range []string{"", "year", "Day", "all", "alltime", " hour"} {
		_, err := ParseKind(s)
		if err == nil || !strings.Contains(err.Error(), "hour, day, week, month or all_time") {
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
