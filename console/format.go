package console

import (
	"fmt"
	"html/template"
	"strconv"
	"time"
)

// funcs are the templates' formatting: numbers with thousands separators,
// times in UTC (the page names the zone; the <time> element carries the
// instant for a browser or a reader that wants its own).
var funcs = template.FuncMap{
	"thousands": thousands,
	"utc":       func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") },
	"iso":       func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
	"left":      left,
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
