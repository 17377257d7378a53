// Package tzname checks the zone names both products' calendars take (a
// league's CRON_TZ, a leaderboard's time_zone): replicas on hosts in
// different zones must agree on every boundary, so a zone must be named as
// the tz database names it, never as "whatever the host is set to".
package tzname

import (
	"path"
	"strings"
)

// Problem says why zone names no shared zone, "" when it does: a path the
// tz loader would read another file by (./localtime), or a name that means
// the host's own zone. A caller puts the zone and its field before it.
func Problem(zone string) string {
	switch {
	case path.Clean(zone) != zone:
		// The tz loader reads a zone as a path under the zoneinfo
		// directory: ./localtime would be the host's zone under another
		// name. A zone has one spelling, the tz database's.
		return "is not a zone name as the tz database spells it (Europe/Paris)"
	case NamesHost(zone):
		// the host's zone, under a name every host shares: replicas on
		// hosts in other zones would each read it their own way
		return "is the host's zone, which hosts may not share; name the zone (Europe/Paris)"
	case path.IsAbs(zone):
		// a zone file, not a zone: the loader refuses it anyway, less clearly
		return "is a file, not a zone name as the tz database spells it (Europe/Paris)"
	}
	return ""
}

// NamesHost reports whether a zone stands for whatever the host is set to:
// Go's own Local, or the tz database's links to the host's zone file
// (localtime) and to its default rules (posixrules), in any of its
// directories (posix/localtime) and any case (a case-insensitive file
// system finds LOCALTIME too).
func NamesHost(zone string) bool {
	base := path.Base(zone)
	return strings.EqualFold(base, "Local") || strings.EqualFold(base, "localtime") || strings.EqualFold(base, "posixrules")
}
