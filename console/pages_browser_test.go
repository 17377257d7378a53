package console_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// TestBrowserPages: the pages of a league with a past, in the browser:
// each audited at 390 and 1280 px (labels, text alternatives, no sideways
// scroll) and showing what it is for. With CONSOLE_SCREENSHOTS=dir it
// also saves the README's screenshots there (docs/img; see
// docs/operations.md for the command).
func TestBrowserPages(t *testing.T) {
	f := newDemo(t)
	b := newTab(t, f)
	b.signinByKeyboard(adminKey)
	b.waitFor("the leagues page", `location.pathname === "/console/"`)
	b.audit()
	b.shot("leagues", 1280, 720)

	b.do("following the league's link", chromedp.Click(`h2 a[href="/console/leagues/weekly"]`))
	b.waitText("Last settlements")
	b.audit()
	for _, want := range []string{"Players per tier", "Tier populations over past periods", "done", "bronze-1"} {
		if !strings.Contains(b.text(), want) {
			t.Errorf("the league page lacks %q", want)
		}
	}
	b.shot("league", 1280, 0)

	b.do("following the settle link", chromedp.Click(`a[href="/console/leagues/weekly/settle"]`))
	b.waitText("decided as if it ended now")
	b.audit()
	b.open("/console/leagues/weekly")

	b.do("opening board silver-1", chromedp.Click(`a[href="/console/leagues/weekly/boards/silver-1"]`))
	b.waitText("Ranking of silver-1")
	b.audit()
	b.shot("board", 1280, 800)
	b.shot("board-390", 390, 844)

	// A player, looked up with the league page's form and the keyboard.
	b.open("/console/leagues/weekly")
	b.tabTo("#find-player")
	b.do("typing a player id and Enter", chromedp.KeyEvent("p000"), chromedp.KeyEvent(kb.Enter))
	b.waitText("Tier history")
	if got := b.path(); got != "/console/leagues/weekly/players/p000" {
		t.Errorf("the player form: got to %s, want p000's page", got)
	}
	b.audit()
	if n := eval[int](b, `document.querySelectorAll("#history-chart-t ~ circle, svg[aria-labelledby^=history-chart] circle").length`); n != demoWeeks {
		t.Errorf("the tier history chart has %d points, want one per settled week (%d)", n, demoWeeks)
	}
	b.shot("player", 1280, 0)

	// Health: the rates are of what the API served between two looks.
	b.do("following the Health link", chromedp.Click(`nav a[href="/console/health"]`))
	b.waitText("Settlement on this replica")
	b.audit()
	for i := range 120 {
		f.apiPost("/v1/leagues/weekly/scores", fmt.Sprintf(`{"player_id":"p%03d","value":%d}`, i%100, 10+i))
	}
	b.open("/console/health")
	b.waitText("Writes per second")
	if got := eval[string](b, `document.querySelector("dl.figures dd").textContent`); got == "0.00" {
		t.Errorf("after 120 score writes: the health page shows %s writes per second, want more than 0", got)
	}
	if !strings.Contains(b.text(), "20261109T000000Z at") {
		t.Errorf("the health page does not name the last period settled here: %s", b.text())
	}
	b.shot("health", 1280, 800)
}

// shot saves the page as name.png at width x height (height 0: the whole
// page), when CONSOLE_SCREENSHOTS names a directory.
func (b *tab) shot(name string, width, height int64) {
	b.t.Helper()
	whole := height == 0
	dir := os.Getenv("CONSOLE_SCREENSHOTS")
	if dir == "" {
		return
	}
	if height == 0 {
		height = 900 // the whole page is taken, beyond the window
	}
	b.do("resizing", chromedp.EmulateViewport(width, height))
	b.waitFor("the layout at the new width", fmt.Sprintf(`document.documentElement.clientWidth === %d`, width))
	shoot := chromedp.CaptureScreenshot()
	if whole {
		shoot = chromedp.FullScreenshot(100)
	}
	png, err := chromedp.Run(b.ctx, shoot)
	if err != nil {
		b.t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		b.t.Fatal(err)
	}
	b.do("resizing back", chromedp.EmulateViewport(1280, 900))
}
