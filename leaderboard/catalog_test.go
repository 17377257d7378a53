package leaderboard_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/leaderboard"
	"github.com/league-engine/league/league"
)

// TestCatalog: names and metadata ride on reads; initial scores start the
// all-time board once, however often the catalog is imported; a bad entry
// imports nothing of its file.
func TestCatalog(t *testing.T) {
	shardings(t, func(t *testing.T, b testsvc.Backend, shards int) {
		f := open(t, b, func(l *leaderboard.Leaderboard) {
			l.Kinds = []leaderboard.Kind{leaderboard.Day, leaderboard.AllTime}
			l.Catalog, l.MaxScore, l.Shards = true, 1000, shards
		})
		imp := func(body string) (int, error) {
			t.Helper()
			entries, err := leaderboard.ParseCatalogJSON(strings.NewReader(body))
			testsvc.Must(t, err, "parse")
			return f.engine.Import(f.ctx, "kills", entries)
		}
		named := func(k leaderboard.Kind) string {
			t.Helper()
			b, err := f.engine.Top(f.ctx, "kills", k, "", 0, 10)
			testsvc.Must(t, err, "top")
			s := ""
			for _, e := range b.Entries {
				s += e.Member + "=" + strconv.FormatInt(e.Score, 10) + ":" + e.Name + string(e.Metadata) + " "
			}
			return s
		}
		first := `{"entries":[{"member":"alice","name":"Alice","metadata":{"avatar": "a.png"},"initial_score":10},
			{"member":"bob","initial_score":5},{"member":"cid","name":"Cid"}]}`
		if n, err := imp(first); n != 3 || err != nil {
			t.Fatalf("import: %d, %v", n, err)
		}
		if got := named(leaderboard.AllTime); got != `alice=10:Alice{"avatar":"a.png"} bob=5: ` {
			t.Fatalf("all-time after the import: %s", got)
		}
		f.write("alice", 3)
		f.write("cid", 1)
		if got := named(leaderboard.Day); got != `alice=3:Alice{"avatar":"a.png"} cid=1:Cid ` {
			t.Fatalf("day board: %s (initial scores start the all-time board only)", got)
		}
		if n, err := imp(first); n != 0 || err != nil {
			t.Fatalf("the same import again: %d changed, %v; want 0", n, err)
		}
		if n, err := imp(`{"entries":[{"member":"alice","name":"Alice B.","initial_score":20}]}`); n != 1 || err != nil {
			t.Fatalf("a new initial score: %d, %v", n, err)
		}
		if got := named(leaderboard.AllTime); got != "alice=23:Alice B. bob=5: cid=1:Cid " {
			t.Fatalf("all-time after alice's initial score moved 10 -> 20: %s", got)
		}
		for body, want := range map[string]string{
			`{"entries":[{"member":"bob","name":"Bob"},{"member":"dan","name":"a\u0007b"}]}`:                        "entries[1].name: holds a control character",
			`{"entries":[{"member":"bob","name":"Bob"},{"member":"bob"}]}`:                                          `entries[1].member: "bob" is also entries[0]`,
			`{"entries":[{"member":"bob","name":"Bob"},{"member":"a b"}]}`:                                          "entries[1].member",
			`{"entries":[{"member":"bob","name":"Bob"},{"member":"dan","metadata":[1]}]}`:                           "entries[1].metadata: is not a JSON object",
			`{"entries":[{"member":"bob","name":"Bob"},{"member":"dan","initial_score":1001}]}`:                     "entries[1].initial_score: 1001 is past",
			`{"entries":[{"member":"bob","name":"Bob"},{"member":"alice","initial_score":999}]}`:                    `would take "alice"'s all-time score from 23 past the maximum 1000`,
			`{"entries":[{"member":"bob","name":"Bob"},{"member":"dan","name":"` + strings.Repeat("x", 65) + `"}]}`: "entries[1].name: is not UTF-8 text of at most 64",
		} {
			if _, err := imp(body); err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: %v, want %q", body, err, want)
			}
		}
		if got := named(leaderboard.AllTime); got != "alice=23:Alice B. bob=5: cid=1:Cid " {
			t.Fatalf("refused imports wrote: %s", got)
		}
		// An import sets each entry whole: bob's initial score, left
		// out, goes back to 0.
		if n, err := imp(`{"entries":[{"member":"bob","name":"Bob"}]}`); n != 1 || err != nil {
			t.Fatalf("bob again: %d, %v", n, err)
		}
		if got := named(leaderboard.AllTime); got != "alice=23:Alice B. cid=1:Cid bob=0:Bob " {
			t.Fatalf("after bob's initial score was left out: %s", got)
		}
		around, err := f.engine.Around(f.ctx, "kills", leaderboard.AllTime, "", "cid", 1)
		testsvc.Must(t, err, "around")
		if len(around.Entries) != 3 || around.Entries[0].Name != "Alice B." || around.Entries[2].Name != "Bob" {
			t.Fatalf("around cid: %+v", around.Entries)
		}
	})
}

func TestCatalogCSV(t *testing.T) {
	entries, err := leaderboard.ParseCatalogCSV(strings.NewReader("\ufeffmember,name,avatar,initial_score\nalice,Alice,a.png,10\nbob,\"Bob, Jr.\",,\n"))
	testsvc.Must(t, err, "parse")
	if len(entries) != 2 || entries[0].Name != "Alice" || string(entries[0].Metadata) != `{"avatar":"a.png"}` || entries[0].InitialScore != 10 ||
		entries[1].Name != "Bob, Jr." || entries[1].Metadata != nil || entries[1].Place != "row 3" {
		t.Fatalf("%+v", entries)
	}
	for csv, want := range map[string]string{
		"name\nalice\n":                    "row 1: no member column",
		"member,member\na,b\n":             `row 1: column 2: "member" is empty or named twice`,
		"member,initial_score\na,1\nb,x\n": `row 3.initial_score: "x" is not a whole number`,
		"member,name\na,A\nb\n":            "row 3: record on line 3: wrong number of fields",
		"":                                 "row 1: no header row",
	} {
		if _, err := leaderboard.ParseCatalogCSV(strings.NewReader(csv)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", csv, err, want)
		}
	}
	// a CSV row is named by its row in errors of the import
	f := open(t, testsvc.Backends[0], func(l *leaderboard.Leaderboard) { l.Catalog = true })
	entries, _ = leaderboard.ParseCatalogCSV(strings.NewReader("member,name\nalice,A\nbob,\"B\x01\"\n"))
	if _, err := f.engine.Import(f.ctx, "kills", entries); err == nil || !strings.Contains(err.Error(), "row 3.name") {
		t.Fatalf("import of a bad row: %v", err)
	}
	g := open(t, testsvc.Backends[0], nil)
	if _, err := g.engine.Import(g.ctx, "kills", entries[:1]); league.ErrorCode(err) != league.Invalid || !strings.Contains(err.Error(), "no catalog") {
		t.Fatalf("import without a catalog: %v", err)
	}
}

// TestPublicBoards: a public twin counts each write times the member's
// multiplier, the raw board the true count; a new multiplier counts from
// the next write on; ranks differ between the two.
func TestPublicBoards(t *testing.T) {
	shardings(t, func(t *testing.T, b testsvc.Backend, shards int) {
		f := open(t, b, func(l *leaderboard.Leaderboard) {
			l.Kinds = []leaderboard.Kind{leaderboard.Day, leaderboard.AllTime}
			l.Windows = []leaderboard.Window{{N: 7, Unit: leaderboard.Day}}
			l.Catalog, l.PublicBoards, l.MaxScore, l.Shards = true, true, 1000, shards
			l.CarryOver = map[leaderboard.Kind]int{leaderboard.Day: 50}
		})
		imp := func(entries ...leaderboard.CatalogEntry) {
			t.Helper()
			_, err := f.engine.Import(f.ctx, "kills", entries)
			testsvc.Must(t, err, "import")
		}
		imp(leaderboard.CatalogEntry{Member: "alice", Multiplier: 3}, leaderboard.CatalogEntry{Member: "bob"})
		res := f.write("alice", 2)
		if res.Boards[0].Score != 2 || res.Public[0].Score != 6 || res.Public[1].Score != 6 || res.Boards[2].Score != 2 {
			t.Fatalf("alice's write of 2 at x3: %+v", res)
		}
		f.write("bob", 5)
		imp(leaderboard.CatalogEntry{Member: "alice", Multiplier: 5}, leaderboard.CatalogEntry{Member: "bob"})
		f.write("alice", 1) // at x5 from now on: history stays
		view := func(e *leaderboard.Engine, k leaderboard.Kind) string {
			t.Helper()
			b, err := e.Top(f.ctx, "kills", k, "", 0, 10)
			testsvc.Must(t, err, "top of %s", k)
			return entries(b.Entries)
		}
		for k, want := range map[string]string{
			"raw day":    "1.bob=5 2.alice=3 ",
			"raw 7d":     "1.bob=5 2.alice=3 ",
			"public day": "1.alice=11 2.bob=5 ",
			"public all": "1.alice=11 2.bob=5 ",
		} {
			e, kind := f.engine, leaderboard.Day
			if strings.HasPrefix(k, "public") {
				e = f.engine.Public()
			}
			switch {
			case strings.HasSuffix(k, "7d"):
				kind = "7d"
			case strings.HasSuffix(k, "all"):
				kind = leaderboard.AllTime
			}
			if got := view(e, kind); got != want {
				t.Errorf("%s: %s, want %s", k, got, want)
			}
		}
		// past the maximum on a public twin only: refused, naming it
		if _, err := f.engine.Write(f.ctx, "kills", leaderboard.Write{Member: "alice", Value: 198}); league.ErrorCode(err) != league.Overflow ||
			!strings.Contains(err.Error(), "on the public day board from 11") {
			t.Errorf("a write past the maximum on the public boards: %v", err)
		}
		st, err := f.engine.Public().Member(f.ctx, "kills", "bob")
		testsvc.Must(t, err, "public member")
		if len(st) != 2 || st[0].Rank != 2 || st[0].Gap != 6 {
			t.Errorf("bob on the public boards: %+v", st)
		}
		if _, err := f.engine.Public().Top(f.ctx, "kills", "7d", "", 0, 10); league.ErrorCode(err) != league.NotFound {
			t.Errorf("the public 7d board: %v, want not found", err)
		}
		// carry-over on the public twin too: 50% of 11
		day := f.engine.Leaderboards()[0].Calendar.At(leaderboard.Day, start)
		f.clock.Set(day.End.Add(time.Minute))
		if got := view(f.engine.Public(), leaderboard.Day); got != "1.alice=5 2.bob=2 " {
			t.Errorf("the next public day opens with %s", got)
		}
		if got := view(f.engine, leaderboard.Day); got != "1.bob=2 2.alice=1 " {
			t.Errorf("the next raw day opens with %s", got)
		}
		// bad multipliers
		for _, c := range []leaderboard.CatalogEntry{{Member: "x", Multiplier: -2}, {Member: "x", Multiplier: 1000001}} {
			if _, err := f.engine.Import(f.ctx, "kills", []leaderboard.CatalogEntry{c}); err == nil || !strings.Contains(err.Error(), "multiplier") {
				t.Errorf("multiplier %d: %v", c.Multiplier, err)
			}
		}
	})
	g := open(t, testsvc.Backends[0], func(l *leaderboard.Leaderboard) { l.Catalog = true })
	if _, err := g.engine.Import(g.ctx, "kills", []leaderboard.CatalogEntry{{Member: "x", Multiplier: 2}}); err == nil || !strings.Contains(err.Error(), "no public boards") {
		t.Errorf("a multiplier without public boards: %v", err)
	}
	if _, err := g.engine.Public().Top(g.ctx, "kills", leaderboard.Day, "", 0, 1); league.ErrorCode(err) != league.Invalid {
		t.Errorf("a public view without public boards: %v", err)
	}
}
