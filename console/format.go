package console

import (
	"fmt"
	"html/template"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/league-engine/league/leaderboard"
	"github.com/league-engine/league/league"
	"github.com/league-engine/league/tiers"
)

// funcs are the templates' formatting: numbers with thousands separators,
// times as <time> elements (when).
var funcs = template.FuncMap{
	"thousands": thousandsOf,
	"when":      when,
	"left":      left,
	"took":      took,
	"sub":       func(a, b int) int { return a - b },
	"items":     items,
	"earnedIn":  earnedIn,
	"avatar":    avatar,
	"zone":      zoneText,
	"rate":      rate,
	"state":     stateWords,
	"segment":   url.PathEscape,
	"periodOf":  func(t time.Time) string { return league.Period{Start: t}.ID() },
	// leaderboards
	"pathEscape":  url.PathEscape,
	"boardName":   boardName,
	"span":        span,
	"plural":      pluralOf,
	"add":         func(a, b int) int { return a + b },
	"standingsOf": standingsOf,
	"pagesOf":     pagesOf,
	"periodDate":  periodDate,
}

// thousandsOf is thousands for the integers templates hold (int, int64).
func thousandsOf(v any) (string, error) {
	switch n := v.(type) {
	case int:
		return thousands(int64(n)), nil
	case int64:
		return thousands(n), nil
	}
	return "", fmt.Errorf("thousands of a %T", v)
}

// thousands writes n with a comma every three digits: 1,234,567.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	sign := ""
	if n < 0 {
		sign, s = "-", s[1:]
	}
	out := make([]byte, 0, len(s)+len(s)/3)
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return sign + string(out)
}

// left writes a duration to come as days, hours and minutes: "6d 23h 5m".
func left(d time.Duration) string {
	if d <= 0 {
		return "ended"
	}
	d = d.Round(time.Minute)
	days, h, m := int(d/(24*time.Hour)), int(d/time.Hour)%24, int(d/time.Minute)%60
	switch {
	case days > 0:
		return fmt.Sprintf("%dd %dh %dm", days, h, m)
	case h > 0:
		return fmt.Sprintf("%dh %dm", h, m)
	default:
		return fmt.Sprintf("%dm", m)
	}
}

// took writes how long something took: "0.4 ms", "850 ms", "12.3 s",
// "4m 05s".
func took(d time.Duration) string {
	switch {
	case d < 10*time.Millisecond:
		return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
	case d < time.Second:
		return fmt.Sprintf("%d ms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1f s", d.Seconds())
	case d < time.Hour:
		d = d.Round(time.Second)
		return fmt.Sprintf("%dm %02ds", int(d/time.Minute), int(d/time.Second)%60)
	default:
		return left(d)
	}
}

// avatar is what a board shows in a player's badge: their avatar as the
// API returns it (an id or short code, written as text, never markup or a
// URL to fetch), else their name's first letter.
func avatar(e league.Entry) string {
	if e.Avatar != "" {
		return e.Avatar
	}
	for _, r := range e.Name {
		return strings.ToUpper(string(r))
	}
	return "?"
}

// zoneText names a zone with a sign as well as its colour, so that no one
// needs to tell colours apart.
func zoneText(z tiers.Zone) string {
	switch z {
	case tiers.Promote:
		return "▲ promote"
	case tiers.Demote:
		return "▼ demote"
	}
	return "● stay"
}

// rate writes a rate per second: "0.25", "12.4", "1,234".
func rate(v float64) string {
	switch {
	case v < 10:
		return strconv.FormatFloat(v, 'f', 2, 64)
	case v < 100:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return thousands(int64(v + 0.5))
}

// when writes an instant as <time datetime="2026-11-23T00:00:00Z"
// title="2026-11-23 00:00:00 UTC">2026-11-23 00:00 UTC</time>: UTC, named
// as such, for a page read without script; static/console.js rewrites the
// text in the operator's zone and the title keeps the UTC time on hover.
// Only the time's own digits go in: nothing to escape.
func when(t time.Time) template.HTML {
	t = t.UTC()
	return template.HTML(`<time datetime="` + t.Format(time.RFC3339) + `" title="` + t.Format("2006-01-02 15:04:05 UTC") + `">` +
		t.Format("2006-01-02 15:04 UTC") + `</time>`)
}

// boardName names a leaderboard's board for a reader: "Day", "All time",
// "Last 7 days".
func boardName(k leaderboard.Kind) string {
	if w, err := leaderboard.ParseWindow(string(k)); err == nil {
		unit := "day"
		if w.Unit == leaderboard.Hour {
			unit = "hour"
		}
		return "Last " + plural(w.N, unit)
	}
	if k == leaderboard.AllTime {
		return "All time"
	}
	s := string(k)
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// span writes how long something lasts, in its largest whole unit: "14
// days", "48 hours" is "2 days", "90m0s" as Go writes it.
func span(d time.Duration) string {
	switch {
	case d <= 0:
		return "0"
	case d%(24*time.Hour) == 0:
		return plural(int(d/(24*time.Hour)), "day")
	case d%time.Hour == 0:
		return plural(int(d/time.Hour), "hour")
	case d%time.Minute == 0:
		return plural(int(d/time.Minute), "minute")
	}
	return d.String()
}

// pluralOf is plural for the integers templates hold (int, int64).
func pluralOf(v any, noun string) (string, error) {
	switch n := v.(type) {
	case int:
		return plural(n, noun), nil
	case int64:
		return plural(int(n), noun), nil
	}
	return "", fmt.Errorf("plural of a %T", v)
}
