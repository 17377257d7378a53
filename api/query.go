package api

import (
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/league-engine/league/internal/excerpt"
)

// checkQuery refuses a query string the route cannot take whole: one that
// does not parse (url.Query would drop the bad pairs, and a board read
// would then answer for the current period instead of the one asked for),
// a parameter the route does not take (a typo like ?perod= would be
// ignored the same way), or one given twice.
func checkQuery(r *http.Request, takes []string) error {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return invalid("query", "does not parse: %v", err)
	}
	for name, vs := range q {
		name = excerpt.Of(name)
		switch {
		case len(takes) == 0:
			return invalid(name, "is not a query parameter of this route, which takes none")
		case !slices.Contains(takes, name):
			return invalid(name, "is not a query parameter of this route, which takes %s", strings.Join(takes, ", "))
		case len(vs) > 1:
			return invalid(name, "is given %d times; give it once", len(vs))
		}
	}
	return nil
}

// queryParam returns a query parameter and whether it was given, from a
// query checkQuery let through (it parses, and names each parameter once).
// It scans the query rather than parse it into a map: a route reads a
// parameter or two.
func queryParam(r *http.Request, name string) (string, bool) {
	for rest := r.URL.RawQuery; rest != ""; {
		var pair string
		pair, rest, _ = strings.Cut(rest, "&")
		k, v, _ := strings.Cut(pair, "=")
		if k, err := url.QueryUnescape(k); err != nil || k != name {
			continue
		}
		v, err := url.QueryUnescape(v)
		return v, err == nil
	}
	return "", false
}
