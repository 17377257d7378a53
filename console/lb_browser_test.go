package console_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/leaderboard"
)

// newLBDemo is the fixture with leaderboards worth looking at, the same
// every time (its screenshots too): kills has a catalog of 140 named
// members, a few of them with multipliers, most of whom scored yesterday
// and today;
// votes has had a dozen fans voting for six bands this last hour, some of
// their votes refused by its limits.
func newLBDemo(t *testing.T) *fixture {
	t.Helper()
	f := newFixture(t, bothKeys)
	rng := rand.New(rand.NewPCG(3, 2026))
	var cat []leaderboard.CatalogEntry
	for i := range 140 {
		c := leaderboard.CatalogEntry{Member: fmt.Sprintf("p%03d", i), Name: demoName(i), Metadata: []byte(fmt.Sprintf(`{"avatar":"a%d"}`, i%12))}
		if i%9 == 4 {
			c.Multiplier = int64(2 + i%3)
		}
		cat = append(cat, c)
	}
	_, err := f.boards.Import(f.ctx, "kills", cat)
	testsvc.Must(t, err, "Import")
	write := func(at time.Time, skip int) {
		f.clock.Set(at)
		var ws []leaderboard.Write
		for i := range 140 {
			if i%skip != skip-1 { // every skip-th member does not write
				ws = append(ws, leaderboard.Write{Member: fmt.Sprintf("p%03d", i), Value: int64(rng.IntN(42_000))})
			}
		}
		_, errs, err := f.boards.WriteBatch(f.ctx, "kills", ws)
		testsvc.Must(t, err, "WriteBatch")
		for _, err := range errs {
			testsvc.Must(t, err, "a write")
		}
	}
	write(monday.Add(-10*time.Hour), 3)
	write(monday.Add(time.Hour), 10)
	bands := []string{"band-aurora", "band-basalt", "band-cinder", "band-delta", "band-ember", "band-fjord"}
	for i := range 12 {
		f.clock.Set(monday.Add(time.Hour + time.Duration(i)*4*time.Minute))
		for range 7 {
			channel := "web"
			if rng.IntN(4) == 0 {
				channel = "partner"
			}
			f.boards.Write(f.ctx, "votes", leaderboard.Write{Member: bands[rng.IntN(3)+rng.IntN(4)], Value: 1,
				Actor: fmt.Sprintf("fan-%02d", i+1), Channel: channel}) // refusals expected: they are the point
		}
	}
	f.clock.Set(monday.Add(2 * time.Hour))
	return f
}

// TestBrowserLeaderboards: an operator opens the leaderboards from the
// navigation, a board and its next page, a member found by the board's
// form; imports a CSV file with bad rows (refused, each row listed,
// nothing written) then a good one; changes a multiplier; sees the
// limits' refusals. Every page is audited at 390 and 1280 px. With
// CONSOLE_SCREENSHOTS=dir the pages' screenshots are saved there.
func TestBrowserLeaderboards(t *testing.T) {
	f := newLBDemo(t)
	b := newTab(t, f)
	b.signinByKeyboard(adminKey)
	b.waitFor("the leagues page", `location.pathname === "/console/"`)

	b.tabTo(`nav a[href="/console/leaderboards"]`)
	b.do("pressing Enter on Leaderboards", chromedp.KeyEvent(kb.Enter))
	b.waitText("Each leaderboard, its boards and how it is kept")
	b.audit()
	b.shot("leaderboards", 1280, 720)
	b.do("opening kills", chromedp.Click(`a[href="/console/leaderboards/kills"]`))
	b.waitText("Boards of kills, this period")
	b.audit()
	b.shot("leaderboard", 1280, 0)

	// a board, and its next page by the keyboard
	b.do("opening the day board of kills", chromedp.Click(`a[href="/console/leaderboards/kills/boards/day"]`))
	b.waitText("ranks 1 to 50 of")
	b.audit()
	b.shot("lb-board", 1280, 900)
	b.shot("lb-board-390", 390, 844)
	b.tabTo(`nav[aria-label="Pages of this board"] a[rel=next]`)
	b.do("pressing Enter on the next page", chromedp.KeyEvent(kb.Enter))
	b.waitText("ranks 51 to 100 of")
	if got := eval[string](b, `document.querySelector("table.board tbody td").textContent`); got != "51" {
		t.Errorf("the second page starts at rank %q, want 51", got)
	}

	// a member, found with the board's form
	b.tabTo("#around")
	b.do("typing a member id and Enter", chromedp.KeyEvent("p042"), chromedp.KeyEvent(kb.Enter))
	b.waitText("The ranks around p042")
	b.do("opening p042's page", chromedp.Click(`tr.found a[href="/console/leaderboards/kills/members/p042"]`))
	b.waitText("p042 on every board")
	b.audit()
	for _, want := range []string{"Catalog entry", "Raw boards (the true counts)", "Public boards", "Period before"} {
		if !strings.Contains(b.text(), want) {
			t.Errorf("the member page lacks %q", want)
		}
	}
	b.shot("lb-member", 1280, 0)

	// the catalog: a file with bad rows refused, nothing written; fixed, imported
	dir := t.TempDir()
	bad, good := filepath.Join(dir, "bands.csv"), filepath.Join(dir, "bands-fixed.csv")
	testsvc.Must(t, os.WriteFile(bad, []byte("member,name,initial_score,avatar\nnew-1,Nova,5,n.png\nnew 2,Second,,\nnew-3,Third,lots,\n"), 0o644), "writing the bad file")
	testsvc.Must(t, os.WriteFile(good, []byte("member,name,initial_score,avatar\nnew-1,Nova,5,n.png\nnew-2,Second,,\nnew-3,Third,12,\n"), 0o644), "writing the good file")
	b.open("/console/leaderboards/kills/catalog")
	b.waitText("Import a CSV file")
	b.audit()
	b.do("choosing the bad file", chromedp.SetUploadFiles("#catalog-file", []string{bad}))
	b.do("importing it", chromedp.Click(`form.upload button`))
	b.waitText("Nothing was imported: bands.csv has 2 problems")
	for _, want := range []string{"row 3\tmember", "row 4\tinitial_score\t\"lots\" is not a whole number"} {
		if !strings.Contains(b.text(), want) {
			t.Errorf("the refused import's table lacks %q: %s", want, b.text())
		}
	}
	if _, found, err := f.boards.CatalogEntry(f.ctx, "kills", "new-1"); found || err != nil {
		t.Errorf("the refused file's good row was written (%v, %v)", found, err)
	}
	b.audit()
	b.shot("lb-catalog-refused", 1280, 760)
	b.do("choosing the fixed file", chromedp.SetUploadFiles("#catalog-file", []string{good}))
	b.do("importing it", chromedp.Click(`form.upload button`))
	b.waitText("Imported 3 entries from bands-fixed.csv: 3 members changed.")
	if c, found, err := f.boards.CatalogEntry(f.ctx, "kills", "new-3"); !found || err != nil || c.Name != "Third" || c.InitialScore != 12 {
		t.Errorf("after the import new-3 is %+v (%v, %v)", c, found, err)
	}

	// a multiplier, changed from its row's link with the keyboard
	b.open("/console/leaderboards/kills/catalog")
	b.tabTo(`a[aria-label="Change the multiplier of p004"]`)
	b.do("pressing Enter on change", chromedp.KeyEvent(kb.Enter))
	b.waitFor("the form filled", `document.querySelector("#mult-member").value === "p004" && document.querySelector("#mult-value").value === "3"`)
	b.do("clearing the multiplier", chromedp.Clear("#mult-value"))
	b.tabTo("#mult-value")
	b.do("typing 0 and Enter", chromedp.KeyEvent("0"), chromedp.KeyEvent(kb.Enter))
	time.Sleep(200 * time.Millisecond)
	if valid := eval[bool](b, `document.querySelector("#mult-value").checkValidity()`); valid || b.path() != "/console/leaderboards/kills/catalog" {
		t.Errorf("a multiplier of 0: the browser let it through (valid %v, page %s)", valid, b.path())
	}
	b.do("clearing the multiplier", chromedp.Clear("#mult-value"))
	b.do("typing 5 and Enter", chromedp.KeyEvent("5"), chromedp.KeyEvent(kb.Enter))
	b.waitText("The multiplier of p004 is now 5 (it was 3).")
	if c, _, _ := f.boards.CatalogEntry(f.ctx, "kills", "p004"); c.Multiplier != 5 || c.Name != demoName(4) {
		t.Errorf("p004 after the form: %+v, want multiplier 5 and its name kept", c)
	}
	b.audit()

	// the limits and the votes they refused
	b.do("following the Leaderboards link", chromedp.Click(`nav a[href="/console/leaderboards"]`))
	b.waitText("Each leaderboard")
	b.do("following votes' limits", chromedp.Click(`a[href="/console/leaderboards/votes/limits"]`))
	b.waitText("Recent refusals")
	if n := eval[int](b, `document.querySelectorAll("section[aria-labelledby=refusals] tbody tr").length`); n == 0 {
		t.Errorf("the demo's refused votes are not listed: %s", b.text())
	}
	b.audit()
	b.shot("lb-limits", 1280, 900)
}
