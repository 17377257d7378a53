package leaderboard_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/leaderboard"
	"github.com/league-engine/league/league"
)

// named renders a page with its names and metadata.
func named(es []leaderboard.Entry) string {
	var b strings.Builder
	for _, e := range es {
		fmt.Fprintf(&b, "%d.%s=%d:%s%s ", e.Rank, e.Member, e.Score, e.Name, e.Metadata)
	}
	return b.String()
}

// TestShardedCatalog: a catalog and public boards on a leaderboard of 7
// shards read exactly as on one: the same import (1,200 entries, several
// chunks, with names, metadata, initial scores and multipliers),
// then the same writes, give the same pages with the same names, raw and
// public, the same windows and standings on the public boards; an import
// with one initial score past the maximum imports nothing on either.
func TestShardedCatalog(t *testing.T) {
	for _, b := range testsvc.Backends {
		t.Run(b.Name, func(t *testing.T) {
			f := sideBySide(t, b, func(l *leaderboard.Leaderboard) {
				l.Kinds = []leaderboard.Kind{leaderboard.Day, leaderboard.AllTime}
				l.Catalog, l.PublicBoards, l.MaxScore = true, true, 1_000_000
			})
			r := rand.New(rand.NewPCG(22, 4))
			var cat []leaderboard.CatalogEntry
			for i := range 1200 {
				c := leaderboard.CatalogEntry{Member: fmt.Sprintf("m%04d", i), Name: fmt.Sprintf("Member %d", i),
					InitialScore: int64(r.IntN(50)), Multiplier: int64(1 + r.IntN(5))}
				if i%3 == 0 {
					c.Metadata = []byte(fmt.Sprintf(`{"avatar":"a%d.png"}`, i))
				}
				cat = append(cat, c)
			}
			for _, id := range []string{"one", "many"} {
				n, err := f.engine.Import(f.ctx, id, cat)
				testsvc.Must(t, err, "import into %s", id)
				if n != 1200 {
					t.Fatalf("%s: %d entries imported, want 1200", id, n)
				}
			}
			for range 800 {
				w := leaderboard.Write{Member: fmt.Sprintf("m%04d", r.IntN(1300)), Value: int64(1 + r.IntN(9)), Actor: fmt.Sprintf("a%d", r.IntN(50))}
				for _, id := range []string{"one", "many"} {
					_, err := f.engine.Write(f.ctx, id, w)
					testsvc.Must(t, err, "write to %s", id)
				}
			}
			same := func(what string) {
				t.Helper()
				for _, e := range []*leaderboard.Engine{f.engine, f.engine.Public()} {
					for _, k := range []leaderboard.Kind{leaderboard.Day, leaderboard.AllTime} {
						for _, page := range [][2]int{{0, 1000}, {0, 10}, {517, 40}} {
							one, err := e.Top(f.ctx, "one", k, "", page[0], page[1])
							testsvc.Must(t, err, "Top one")
							many, err := e.Top(f.ctx, "many", k, "", page[0], page[1])
							testsvc.Must(t, err, "Top many")
							if got, want := named(many.Entries), named(one.Entries); got != want || many.Size != one.Size {
								t.Fatalf("%s, %s page %v: sharded %d members, unsharded %d; entries differ at %q",
									what, k, page, many.Size, one.Size, firstDifference(got, want))
							}
						}
						top, err := e.Top(f.ctx, "one", k, "", 0, leaderboard.MaxPage)
						testsvc.Must(t, err, "Top one")
						last := len(top.Entries) - 1
						for _, at := range []int{0, last / 2, last} {
							m := top.Entries[at].Member
							one, err := e.Around(f.ctx, "one", k, "", m, 3)
							testsvc.Must(t, err, "Around one")
							many, err := e.Around(f.ctx, "many", k, "", m, 3)
							testsvc.Must(t, err, "Around many")
							if got, want := named(many.Entries), named(one.Entries); got != want {
								t.Fatalf("%s, %s around %s: sharded %s\nunsharded %s", what, k, m, got, want)
							}
						}
					}
					members := []string{"m0000", "m0007", "m0450", "m0999", "m1250", "nobody"}
					one, errs, err := e.Members(f.ctx, "one", members, nil)
					testsvc.Must(t, errors.Join(append(errs, err)...), "Members one")
					many, errs, err := e.Members(f.ctx, "many", members, nil)
					testsvc.Must(t, errors.Join(append(errs, err)...), "Members many")
					for i, m := range members {
						if got, want := standings(many[i]), standings(one[i]); got != want {
							t.Fatalf("%s, %s: sharded %s\nunsharded %s", what, m, got, want)
						}
					}
				}
			}
			same("after the import and the writes")

			// 600 new initial scores, one past the maximum: nothing imported
			var bad []leaderboard.CatalogEntry
			for i := range 600 {
				bad = append(bad, leaderboard.CatalogEntry{Member: fmt.Sprintf("m%04d", i), Name: "changed", InitialScore: 7})
			}
			bad[555].InitialScore = 1_000_000
			for _, id := range []string{"one", "many"} {
				_, err := f.engine.Import(f.ctx, id, bad)
				if league.ErrorCode(err) != league.Overflow || !strings.Contains(err.Error(), "entries[555].initial_score") ||
					!strings.Contains(err.Error(), "nothing was imported") {
					t.Fatalf("%s: an import with an initial score past the maximum: %v", id, err)
				}
			}
			same("after an import refused")
		})
	}
}
