package leaderboard_test

import (
	"bytes"
	"testing"

	"github.com/league-engine/league/leaderboard"
)

// FuzzCatalog: any body, as CSV or JSON, parses to entries or an error
// naming where it failed; never a panic, and a CSV entry always names its
// row.
func FuzzCatalog(f *testing.F) {
	for _, s := range []string{
		"member,name,avatar,initial_score,multiplier\nalice,Alice,a.png,10,2\n",
		"\ufeffmember\n\"a,b\"\n",
		"member,name\na\n",
		`{"entries":[{"member":"a","name":"A","metadata":{"x":1},"initial_score":3,"multiplier":2}]}`,
		`{"entries":[{"member":"a","initial_score":1.5}]}`,
		`{"entries":null}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if entries, err := leaderboard.ParseCatalogCSV(bytes.NewReader(body)); err == nil {
			for _, e := range entries {
				if e.Place == "" {
					t.Fatalf("a CSV entry without its row: %+v", e)
				}
			}
		}
		leaderboard.ParseCatalogJSON(bytes.NewReader(body))
	})
}
