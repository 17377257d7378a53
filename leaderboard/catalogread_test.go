package leaderboard_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/leaderboard"
	"github.com/league-engine/league/league"
)

// importError is the *ImportError under err, or nil.
func importError(err error) *leaderboard.ImportError {
	var ie *leaderboard.ImportError
	if errors.As(err, &ie) {
		return ie
	}
	return nil
}

// problems lists an import error's problems as "row 3.name" lines.
func problems(err error) string {
	ie := importError(err)
	if ie == nil {
		return fmt.Sprintf("(no ImportError: %v)", err)
	}
	var out []string
	for _, p := range ie.Problems {
		at := p.Entry
		if p.Field != "" {
			at += "." + p.Field
		}
		out = append(out, at)
	}
	return strings.Join(out, " ")
}

// TestImportRefusesWhole: a CSV file with bad rows, refused by its syntax
// (a row too short, a score that is no number) and by the leaderboard's
// rules (a bad member id, a control character, a multiplier out of range,
// a member twice, an initial score past the maximum), is refused whole:
// every bad row listed in the file's order with its column, nothing
// written, not even the good rows' names or initial scores. Fixed, it
// imports.
func TestImportRefusesWhole(t *testing.T) {
	shardings(t, func(t *testing.T, b testsvc.Backend, shards int) {
		f := open(t, b, func(l *leaderboard.Leaderboard) {
			l.Kinds = []leaderboard.Kind{leaderboard.Day, leaderboard.AllTime}
			l.Catalog, l.PublicBoards, l.MaxScore, l.Shards = true, true, 1000, shards
		})
		f.write("alice", 5)
		before := snapshot(t, f)
		bad := "member,name,initial_score,multiplier,avatar\n" +
			"alice,Alice,10,2,a.png\n" + // row 2: fine
			"bob,Bob,x,,\n" + // row 3: initial_score
			"cid,Cid\n" + // row 4: too short
			"a b,Ab,,,\n" + // row 5: member
			"dan,\"D\x01\",,0,\n" + // row 6: name; multiplier 0 is 1
			"erin,Erin,,2000000,\n" + // row 7: multiplier
			"alice,Again,,,\n" + // row 8: member twice
			"fay,Fay,5000,,\n" // row 9: initial score past the maximum
		n, changed, err := f.engine.ImportCSV(f.ctx, "kills", strings.NewReader(bad))
		if n != 0 || changed != 0 || league.ErrorCode(err) != league.Invalid {
			t.Fatalf("a file with bad rows: %d entries, %d changed, %v; want an invalid error", n, changed, err)
		}
		want := "row 3.initial_score row 4 row 5.member row 6.name row 7.multiplier row 8.member row 9.initial_score"
		if got := problems(err); got != want {
			t.Fatalf("problems: %s\nwant      %s", got, want)
		}
		ie := importError(err)
		if ie.Imported != 0 || ie.More != 0 || !strings.Contains(err.Error(), "7 problems, so nothing was imported") ||
			!strings.Contains(ie.Problems[6].Message, "past the leaderboard's maximum score 1000") ||
			!strings.Contains(ie.Problems[5].Message, `"alice" is also row 2`) {
			t.Fatalf("the error: %v (%+v)", err, ie)
		}
		if got := snapshot(t, f); got != before {
			t.Fatalf("a refused import wrote:\n%s\nwas\n%s", got, before)
		}
		page, err := f.engine.Catalog(f.ctx, "kills", "", 100)
		testsvc.Must(t, err, "Catalog")
		if len(page.Entries) != 0 {
			t.Fatalf("the catalog after a refused import: %+v", page.Entries)
		}
		good := "member,name,initial_score,multiplier,avatar\nalice,Alice,10,2,a.png\nbob,Bob,,,\n"
		n, changed, err = f.engine.ImportCSV(f.ctx, "kills", strings.NewReader(good))
		if n != 2 || changed != 2 || err != nil {
			t.Fatalf("the file fixed: %d entries, %d changed, %v", n, changed, err)
		}
		if got := entries(f.top(leaderboard.AllTime, "")); got != "1.alice=15 " {
			t.Fatalf("all time after the import: %s", got)
		}
		// the JSON body's entries likewise
		_, err = f.engine.Import(f.ctx, "kills", []leaderboard.CatalogEntry{{Member: "x", Name: "a\x02"}, {Member: "y"}, {Member: "", Multiplier: -1}})
		if got := problems(err); got != "entries[0].name entries[2].member entries[2].multiplier" {
			t.Fatalf("a JSON import's problems: %s (%v)", got, err)
		}
	})
}

// TestImportProblemsBounded: a file of 250 bad rows lists the first
// MaxProblems and counts the rest; its message names ten.
func TestImportProblemsBounded(t *testing.T) {
	f := open(t, testsvc.Backends[0], func(l *leaderboard.Leaderboard) { l.Catalog = true })
	body := "member,initial_score\n" + strings.Repeat("m,x\n", 250)
	_, _, err := f.engine.ImportCSV(f.ctx, "kills", strings.NewReader(body))
	ie := importError(err)
	if ie == nil || len(ie.Problems) != leaderboard.MaxProblems || ie.More != 150 || ie.Problems[0].Entry != "row 2" ||
		!strings.Contains(err.Error(), "250 problems") || !strings.Contains(err.Error(), "and 240 more") {
		t.Fatalf("250 bad rows: %v", err)
	}
	if _, _, err := f.engine.ImportCSV(f.ctx, "kills", strings.NewReader("name\nx\n")); problems(err) != "row 1" {
		t.Fatalf("no member column: %v", err)
	}
}

// TestCatalogPages: a catalog's pages list every member once, whichever
// hash holds its entry (a name, only an initial score, only a
// multiplier), over every shard, whatever the page size; an entry reads
// whole; a multiplier set alone keeps the rest of the entry and counts
// from the next write.
func TestCatalogPages(t *testing.T) {
	shardings(t, func(t *testing.T, b testsvc.Backend, shards int) {
		f := open(t, b, func(l *leaderboard.Leaderboard) {
			l.Kinds = []leaderboard.Kind{leaderboard.Day, leaderboard.AllTime}
			l.Catalog, l.PublicBoards, l.MaxScore, l.Shards = true, true, 1_000_000, shards
		})
		var cat []leaderboard.CatalogEntry
		want := map[string]string{}
		for i := range 300 {
			c := leaderboard.CatalogEntry{Member: fmt.Sprintf("m%03d", i)}
			switch i % 3 {
			case 0:
				c.Name, c.Metadata, c.InitialScore = fmt.Sprintf("Name %d", i), []byte(`{"team":"red"}`), int64(i)
			case 1:
				c.InitialScore = int64(i)
			case 2:
				c.Multiplier = 3
			}
			cat = append(cat, c)
			want[c.Member] = fmt.Sprintf("%s|%s|%d|%d", c.Name, c.Metadata, c.InitialScore, max(c.Multiplier, 1))
		}
		_, err := f.engine.Import(f.ctx, "kills", cat)
		testsvc.Must(t, err, "Import")
		for _, size := range []int{1, 7, 100, 1000} {
			got := map[string]string{}
			cursor, pages := "", 0
			for {
				page, err := f.engine.Catalog(f.ctx, "kills", cursor, size)
				testsvc.Must(t, err, "Catalog page %d of %d", pages, size)
				if len(page.Entries) > size {
					t.Fatalf("a page of %d holds %d", size, len(page.Entries))
				}
				for _, c := range page.Entries {
					if _, twice := got[c.Member]; twice {
						t.Fatalf("pages of %d: %s listed twice", size, c.Member)
					}
					got[c.Member] = fmt.Sprintf("%s|%s|%d|%d", c.Name, c.Metadata, c.InitialScore, c.Multiplier)
				}
				pages++
				if cursor = page.Next; cursor == "" {
					break
				}
				if pages > 1000 {
					t.Fatalf("pages of %d: no end", size)
				}
			}
			if len(got) != len(want) {
				t.Fatalf("pages of %d: %d members, want %d", size, len(got), len(want))
			}
			for m, w := range want {
				if got[m] != w {
					t.Fatalf("pages of %d: %s is %q, want %q", size, m, got[m], w)
				}
			}
		}
		c, found, err := f.engine.CatalogEntry(f.ctx, "kills", "m000")
		if err != nil || !found || c.Name != "Name 0" || c.Multiplier != 1 {
			t.Fatalf("m000's entry: %+v %v %v", c, found, err)
		}
		if _, found, err := f.engine.CatalogEntry(f.ctx, "kills", "nobody"); found || err != nil {
			t.Fatalf("nobody's entry: %v %v", found, err)
		}

		// a multiplier set alone: the name and initial score stay; the
		// next write counts it
		f.write("m003", 1)
		prev, err := f.engine.SetMultiplier(f.ctx, "kills", "m003", 4)
		if prev != 1 || err != nil {
			t.Fatalf("SetMultiplier: %d, %v", prev, err)
		}
		f.write("m003", 1)
		c, _, _ = f.engine.CatalogEntry(f.ctx, "kills", "m003")
		if c.Name != "Name 3" || c.InitialScore != 3 || c.Multiplier != 4 {
			t.Fatalf("m003 after SetMultiplier: %+v", c)
		}
		day, err := f.engine.Public().Top(f.ctx, "kills", leaderboard.Day, "", 0, 10)
		testsvc.Must(t, err, "public day")
		if got := entries(day.Entries); got != "1.m003=5 " {
			t.Fatalf("the public day after 1 at x1 then 1 at x4: %s", got)
		}
		if prev, err := f.engine.SetMultiplier(f.ctx, "kills", "m003", 1); prev != 4 || err != nil {
			t.Fatalf("back to 1: %d, %v", prev, err)
		}
		for _, c := range []struct {
			member string
			m      int64
			field  string
		}{{"m003", 0, "multiplier"}, {"m003", 1_000_001, "multiplier"}, {"a b", 2, "member"}} {
			_, err := f.engine.SetMultiplier(f.ctx, "kills", c.member, c.m)
			var le *league.Error
			if !errors.As(err, &le) || le.Code != league.Invalid || le.Field != c.field {
				t.Errorf("SetMultiplier(%q, %d): %v, want invalid %s", c.member, c.m, err, c.field)
			}
		}
		c, _, _ = f.engine.CatalogEntry(f.ctx, "kills", "m003")
		if c.Multiplier != 1 {
			t.Fatalf("refused multipliers changed it: %+v", c)
		}
		for _, cursor := range []string{"x", "1.2.3", "9999.0.0.0", "0.3.0.0", "0.0.0.-1"} {
			if _, err := f.engine.Catalog(f.ctx, "kills", cursor, 10); league.ErrorCode(err) != league.Invalid {
				t.Errorf("cursor %q: %v, want invalid", cursor, err)
			}
		}
	})
	g := open(t, testsvc.Backends[0], func(l *leaderboard.Leaderboard) { l.Catalog = true })
	if _, err := g.engine.SetMultiplier(g.ctx, "kills", "x", 2); err == nil || !strings.Contains(err.Error(), "no public boards") {
		t.Errorf("a multiplier without public boards: %v", err)
	}
	h := open(t, testsvc.Backends[0], nil)
	if _, err := h.engine.Catalog(h.ctx, "kills", "", 10); err == nil || !strings.Contains(err.Error(), "no catalog") {
		t.Errorf("the catalog of a leaderboard without one: %v", err)
	}
}

// TestRefusalsLog: each write a limit refuses, alone, in a batch or
// across shards, is logged with its limit, member and actor, newest
// first; accepted writes are not; the log keeps about RefusalLog.
func TestRefusalsLog(t *testing.T) {
	shardings(t, func(t *testing.T, b testsvc.Backend, shards int) {
		f := open(t, b, func(l *leaderboard.Leaderboard) { votes(l); l.Shards = shards })
		for i := range 3 {
			_, err := vote(f, "ann", "x", "web", fmt.Sprintf("r%d", i))
			if i < 2 {
				testsvc.Must(t, err, "vote %d", i)
			}
		}
		_, err := vote(f, "ann", "y", "web", "")
		testsvc.Must(t, err, "vote for y")
		_, err = vote(f, "ann", "z", "web", "") // the fourth in the minute
		if refusal(err) == nil {
			t.Fatalf("a fourth vote in a minute: %v", err)
		}
		_, errs, err := f.engine.WriteBatch(f.ctx, "kills", []leaderboard.Write{
			{Member: "q", Value: 1, Actor: "bob", Channel: "partner"},
			{Member: "q", Value: 1, Actor: "ann", Channel: "partner"},
		})
		testsvc.Must(t, err, "WriteBatch")
		if errs[0] != nil || refusal(errs[1]) == nil {
			t.Fatalf("the batch: %v", errs)
		}
		got, err := f.engine.Refusals(f.ctx, "kills", 10)
		testsvc.Must(t, err, "Refusals")
		var lines []string
		for _, r := range got {
			lines = append(lines, fmt.Sprintf("%s %s>%s %s %d", r.Limit, r.Actor, r.Member, r.Channel, r.Max))
			if !r.At.Equal(f.clock.Now()) || r.ID == "" {
				t.Errorf("refusal %+v: at %v, want the clock's %v", r, r.At, f.clock.Now())
			}
		}
		want := []string{"actor-minute ann>q partner 3", "actor-minute ann>z web 3", "per-candidate ann>x web 2"}
		if !slices.Equal(lines, want) {
			t.Fatalf("refusals: %q\nwant %q", lines, want)
		}
		if got, _ := f.engine.Refusals(f.ctx, "kills", 1); len(got) != 1 || got[0].Member != "q" {
			t.Fatalf("the last refusal: %+v", got)
		}
		if _, err := f.engine.Refusals(f.ctx, "kills", 0); league.ErrorCode(err) != league.Invalid {
			t.Fatalf("0 refusals: %v", err)
		}
	})
	// a queued write its consumer refuses is logged too, when applied
	for _, b := range testsvc.Backends {
		q := open(t, b, func(l *leaderboard.Leaderboard) {
			queued(100)(l)
			l.Shards = 2
			l.Limits = []leaderboard.Limit{{By: []leaderboard.Dimension{leaderboard.OfActor, leaderboard.OfMember}, Per: leaderboard.PerDay, Max: 1}}
		})
		_, errs, err := q.engine.Enqueue(q.ctx, "kills", []leaderboard.Write{{Member: "x", Value: 1, Actor: "ann"}, {Member: "x", Value: 1, Actor: "ann"}})
		testsvc.Must(t, errors.Join(append(errs, err)...), "Enqueue")
		if r := drainAll(t, q.engine, "kills"); r.Applied != 1 || r.Refused != 1 {
			t.Fatalf("%s: drained %+v, want one applied and one refused", b.Name, r)
		}
		if got, err := q.engine.Refusals(q.ctx, "kills", 10); err != nil || len(got) != 1 || got[0].Actor != "ann" || got[0].Limit != "actor-member-day" {
			t.Fatalf("%s: the queue's refusal: %+v, %v", b.Name, got, err)
		}
	}
	// the log is capped: 1,500 refusals keep about 1,000
	f := open(t, testsvc.Backends[0], func(l *leaderboard.Leaderboard) {
		l.Limits = []leaderboard.Limit{{By: []leaderboard.Dimension{leaderboard.OfActor}, Per: leaderboard.PerDay, Max: 0}}
	})
	for range 3 {
		ws := make([]leaderboard.Write, 500)
		for i := range ws {
			ws[i] = leaderboard.Write{Member: fmt.Sprintf("m%d", i), Value: 1, Actor: "a"}
		}
		_, _, err := f.engine.WriteBatch(f.ctx, "kills", ws)
		testsvc.Must(t, err, "WriteBatch")
	}
	got, err := f.engine.Refusals(f.ctx, "kills", leaderboard.RefusalLog)
	testsvc.Must(t, err, "Refusals")
	if len(got) != leaderboard.RefusalLog || got[0].Member != "m499" {
		t.Fatalf("after 1,500 refusals: %d kept, the newest %+v", len(got), got[0])
	}
	n, err := f.rdb.XLen(f.ctx, f.ns+":lb:{kills}:refusals").Result()
	testsvc.Must(t, err, "XLEN")
	if n < leaderboard.RefusalLog || n > leaderboard.RefusalLog+200 {
		t.Fatalf("the stream holds %d, want about %d", n, leaderboard.RefusalLog)
	}
}
