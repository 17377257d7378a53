// Package leaderboard keeps plain leaderboards, beside league's tiered
// leagues: one board per period of a kind (an hour, a day, a week, a month,
// or all time), the periods placed by a Calendar in the leaderboard's zone.
package leaderboard

import (
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/league-engine/league/internal/excerpt"
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

// ParseKind parses a kind as configs and URLs spell it.
func ParseKind(s string) (Kind, error) {
	switch k := Kind(s); k {
	case Hour, Day, Week, Month, AllTime:
		return k, nil
	}
	return "", fmt.Errorf("%q is not a kind of board: hour, day, week, month or all_time", excerpt.Of(s))
}

// Calendar places periods in a time zone, weeks starting on WeekStart.
// NewCalendar makes one from a config. The zero Calendar is UTC with weeks
// from Sunday, time.Weekday's zero: a config's default is Monday.
type Calendar struct {
	Loc       *time.Location
	WeekStart time.Weekday
}

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
	case path.Clean(zone) != zone:
		// The tz loader reads a zone as a path under the zoneinfo
		// directory: ./localtime would be the host's zone under another
		// name. A zone has one spelling, the tz database's.
		return nil, fmt.Errorf("time_zone %q is not a zone name as the tz database spells it (Europe/Paris)", excerpt.Of(zone))
	case NamesHostZone(zone):
		// the host's zone, under a name every host shares: replicas on
		// hosts in other zones would each read it their own way
		return nil, fmt.Errorf("time_zone %q is the host's zone, which hosts may not share; name the zone (Europe/Paris)", excerpt.Of(zone))
	case path.IsAbs(zone):
		// a zone file, not a zone: the loader refuses it anyway, less clearly
		return nil, fmt.Errorf("time_zone %q is a file, not a zone name as the tz database spells it (Europe/Paris)", excerpt.Of(zone))
	}
	loc, err := time.LoadLocation(zone)
	if err != nil {
		return nil, fmt.Errorf("time_zone %q: %v", excerpt.Of(zone), err)
	}
	return loc, nil
}

// NamesHostZone reports whether a zone stands for whatever the host is set
// to: Go's own Local, or the tz database's links to the host's zone file
// (localtime) and to its default rules (posixrules), in any of its
// directories (posix/localtime) and any case (a case-insensitive file
// system finds LOCALTIME too). league refuses the same names in a
// schedule's CRON_TZ.
func NamesHostZone(zone string) bool {
	base := path.Base(zone)
	return strings.EqualFold(base, "Local") || strings.EqualFold(base, "localtime") || strings.EqualFold(base, "posixrules")
}
