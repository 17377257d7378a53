package console_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/league"
)

// The console in a real browser: a headless Chromium driven through the
// DevTools protocol (chromedp). One browser serves the package's run; each
// test has a tab in a browser context of its own (its own cookies: the
// test servers all listen on 127.0.0.1, and cookies ignore ports).
//
// `make test` (and so CI) installs Debian's chromium package when it is
// missing (.ci/chromium). Without one, a test fails under CI=true and
// skips otherwise, naming the install command either way.

const installChromium = "apt-get install --no-install-recommends chromium (Debian/Ubuntu, as root; `make test` does it), or set CHROME to a Chromium or Chrome binary"

var browser struct {
	once   sync.Once
	ctx    context.Context
	cancel context.CancelFunc
	err    error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if browser.cancel != nil {
		browser.cancel()
	}
	os.Exit(code)
}

// chromiumPath finds the browser: CHROME, else the usual names on PATH.
func chromiumPath() (string, error) {
	if p := os.Getenv("CHROME"); p != "" {
		return p, nil
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("no Chromium found: %s", installChromium)
}

func startBrowser() {
	path, err := chromiumPath()
	if err != nil {
		browser.err = err
		return
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.DisableGPU,
		chromedp.WindowSize(1280, 900))
	if os.Geteuid() == 0 {
		// Chromium refuses to run its sandbox as root (CI runs as root).
		opts = append(opts, chromedp.NoSandbox)
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(alloc)
	browser.ctx, browser.cancel = ctx, func() { cancel(); cancelAlloc() }
	if err := chromedp.Do(ctx); err != nil { // starts it, bound to ctx: no timeout here
		browser.err = fmt.Errorf("starting %s: %w", path, err)
	}
}

// tab is a browser tab of its own browser context, open until the test
// ends; its actions share the test's 60-second budget.
type tab struct {
	t   *testing.T
	ctx context.Context
	f   *fixture
}

func newTab(t *testing.T, f *fixture) *tab {
	t.Helper()
	browser.once.Do(startBrowser)
	if browser.err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the console's browser tests need Chromium: %v", browser.err)
		}
		t.Skipf("the console's browser tests need Chromium: %v", browser.err)
	}
	ctx, cancel := chromedp.NewContext(browser.ctx, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx); err != nil { // opens the tab
		t.Fatalf("opening a tab: %v", err)
	}
	ctx, stop := context.WithTimeout(ctx, 60*time.Second)
	t.Cleanup(stop)
	return &tab{t: t, ctx: ctx, f: f}
}

// do runs steps, failing the test on an error.
func (b *tab) do(what string, steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	if err := chromedp.Do(b.ctx, steps...); err != nil {
		b.t.Fatalf("%s: %v (page: %s)", what, err, b.text())
	}
}

// eval evaluates a script expression on the page.
func eval[T any](b *tab, expr string) T {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		b.t.Fatalf("evaluating %s: %v", expr, err)
	}
	return v
}

// text is the page's visible text, for failure messages.
func (b *tab) text() string {
	ctx, cancel := context.WithTimeout(b.ctx, 2*time.Second)
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body ? document.body.innerText : ""`))
	if err != nil {
		return "(unreadable: " + err.Error() + ")"
	}
	return s
}

// open loads path of the fixture's server.
func (b *tab) open(path string) {
	b.t.Helper()
	b.do("opening "+path, chromedp.Navigate(b.f.http.URL+path))
}

// path is the path of the page shown.
func (b *tab) path() string {
	b.t.Helper()
	return eval[string](b, `location.pathname`)
}

// waitFor waits until the script expression is true. It asks again
// every 50 ms rather than through chromedp.Poll, whose evaluation fails
// when the page it ran in is navigated away (a form's submission).
func (b *tab) waitFor(what, expr string) {
	b.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	var err error
	for time.Now().Before(deadline) {
		var ok bool
		if ok, err = chromedp.Run(b.ctx, chromedp.Evaluate[bool](expr)); err == nil && ok {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	b.t.Fatalf("waiting for %s: not within 10 s (last error: %v; page %s: %s)", what, err, b.path(), b.text())
}

// waitText waits until the page's visible text contains s.
func (b *tab) waitText(s string) {
	b.t.Helper()
	b.waitFor(fmt.Sprintf("%q on the page", s), fmt.Sprintf(`document.body && document.body.innerText.includes(%q)`, s))
}

// tabTo presses Tab until the element matching selector has the focus,
// as a keyboard user would; failing after 30 presses.
func (b *tab) tabTo(selector string) {
	b.t.Helper()
	for range 30 {
		if eval[bool](b, fmt.Sprintf(`document.activeElement === document.querySelector(%q)`, selector)) {
			return
		}
		b.do("pressing Tab", chromedp.KeyEvent(kb.Tab))
	}
	b.t.Fatalf("30 presses of Tab did not reach %s (focus is on %s)", selector, eval[string](b, `document.activeElement.outerHTML.slice(0, 120)`))
}

// signinByKeyboard opens the sign-in page, tabs to the key's field, types
// key and presses Enter.
func (b *tab) signinByKeyboard(key string) {
	b.t.Helper()
	b.open("/console/signin")
	b.tabTo("#key")
	b.do("typing the key and Enter", chromedp.KeyEvent(key), chromedp.KeyEvent(kb.Enter))
}

// audit checks the page shown, at 1280 and at 390 px wide: every form
// control has a label (a <label>, aria-label or aria-labelledby; a button
// its text), every image a text alternative, and the page never scrolls
// sideways (a wide table scrolls in its own box).
func (b *tab) audit() {
	b.t.Helper()
	page := b.path()
	problems := eval[[]string](b, auditScript)
	for _, p := range problems {
		b.t.Errorf("%s: %s", page, p)
	}
	for _, width := range []int64{390, 1280} {
		b.do("resizing", chromedp.EmulateViewport(width, 900))
		// After a resize the layout is redone before the next frame.
		b.waitFor("the layout at the new width", fmt.Sprintf(`document.documentElement.clientWidth === %d`, width))
		if over := eval[[]string](b, overflowScript); len(over) > 0 {
			b.t.Errorf("%s at %d px: the page scrolls sideways (%s)", page, width, strings.Join(over, "; "))
		}
	}
	b.do("resizing back", chromedp.EmulateViewport(1280, 900))
}

// auditScript lists the controls without an accessible name and the
// images without a text alternative.
const auditScript = `(() => {
  const out = [];
  const named = el => (el.labels && el.labels.length > 0 && [...el.labels].some(l => l.textContent.trim() !== ""))
    || (el.getAttribute("aria-label") || "").trim() !== ""
    || (el.getAttribute("aria-labelledby") || "").split(/\s+/).some(id => id && document.getElementById(id) && document.getElementById(id).textContent.trim() !== "");
  for (const el of document.querySelectorAll("input, select, textarea, button")) {
    if (el.type === "hidden") continue;
    if (el.tagName === "BUTTON" && el.textContent.trim() !== "") continue;
    if (!named(el)) out.push("a " + el.tagName.toLowerCase() + " without a label: " + el.outerHTML.slice(0, 100));
  }
  for (const img of document.querySelectorAll("img")) {
    if (!img.hasAttribute("alt")) out.push("an image without alt: " + img.outerHTML.slice(0, 100));
  }
  for (const svg of document.querySelectorAll("svg[role=img]")) {
    if (!named(svg) && !svg.querySelector("title")) out.push("a chart without a title: " + svg.outerHTML.slice(0, 100));
  }
  for (const svg of document.querySelectorAll("svg:not([role]):not([aria-hidden=true])")) {
    out.push("an svg neither role=img nor aria-hidden: " + svg.outerHTML.slice(0, 100));
  }
  return out;
})()`

// overflowScript names what sticks out of the page's width, if the page
// scrolls sideways.
const overflowScript = `(() => {
  const doc = document.documentElement;
  if (doc.scrollWidth <= doc.clientWidth) return [];
  const out = ["page " + doc.scrollWidth + " px wide in a " + doc.clientWidth + " px window"];
  for (const el of document.body.querySelectorAll("*")) {
    const r = el.getBoundingClientRect();
    if (r.right > doc.clientWidth + 1 && out.length < 6) out.push(el.tagName.toLowerCase() + (el.className ? "." + el.className : "") + " ends at " + Math.round(r.right));
  }
  return out;
})()`

// TestBrowserSignIn: an operator signs in with the keyboard only (Tab to
// the key's field, type it, Enter) and lands on the leagues page; a wrong
// key and a game key are refused with a message, and leave no session.
func TestBrowserSignIn(t *testing.T) {
	f := newFixture(t, bothKeys)
	b := newTab(t, f)

	b.signinByKeyboard("wrong-key-0123456789")
	b.waitText("unknown key")
	if got := eval[string](b, `document.querySelector("[role=alert]").textContent`); !strings.Contains(got, "unknown key") {
		t.Errorf("a wrong key: the alert says %q, want it to name an unknown key", got)
	}
	b.audit()

	b.signinByKeyboard(gameKey)
	b.waitText("the console needs an admin key")
	if n := f.sessions(); n != 0 {
		t.Errorf("after a wrong key and a game key: %d sessions in Redis, want 0", n)
	}
	b.open("/console/")
	if got := b.path(); got != "/console/signin" {
		t.Errorf("the leagues page without a session: got %s, want the sign-in page", got)
	}

	b.signinByKeyboard(adminKey)
	b.waitFor("the leagues page", `location.pathname === "/console/" && document.querySelector("h1").textContent === "Leagues"`)
	b.waitText("Signed in as admin-1")
	b.audit()
}

// TestBrowserHeldWrite: a held write approved with the page's button
// reaches the player's score once; signing out ends the session.
func TestBrowserHeldWrite(t *testing.T) {
	f := newFixture(t, bothKeys)
	f.hold("ann", 80)
	b := newTab(t, f)
	b.signinByKeyboard(adminKey)
	b.waitFor("the leagues page", `location.pathname === "/console/"`)

	b.do("following the held writes' link", chromedp.Click(`a[href="/console/leagues/weekly/held"]`))
	b.waitText("Held writes, oldest first")
	b.audit()
	b.tabTo(`button[aria-label="Approve write 1 of ann"]`)
	b.do("pressing Enter on Approve", chromedp.KeyEvent(kb.Enter))
	b.waitText("Held write 1 approved: the player's score is now 80.")
	if held, score := f.state("ann"); held != 0 || score != 80 {
		t.Errorf("after approving in the browser: got %d held and score %d, want 0 and 80", held, score)
	}
	b.waitText("No writes are held in this period.")

	b.do("clicking Sign out", chromedp.Click(`.signout button`))
	b.waitText("You are signed out.")
	if n := f.sessions(); n != 0 {
		t.Errorf("after signing out: %d sessions in Redis, want 0", n)
	}
	b.open("/console/")
	if got := b.path(); got != "/console/signin" {
		t.Errorf("the leagues page after signing out: got %s, want the sign-in page", got)
	}
}

// TestBrowserLiveBoard: a board's page shows a new score by itself, not
// while paused, and again once resumed.
func TestBrowserLiveBoard(t *testing.T) {
	f := newFixture(t, bothKeys)
	score := func(value int64) {
		t.Helper()
		_, err := f.engine.Score(f.ctx, "weekly", league.ScoreWrite{Player: "ann", Value: value})
		testsvc.Must(t, err, "Score")
	}
	_, err := f.engine.Join(f.ctx, "weekly", league.JoinRequest{Player: "ann", Name: "Ann"})
	testsvc.Must(t, err, "Join")
	score(10)
	b := newTab(t, f)
	b.signinByKeyboard(adminKey)
	b.waitFor("the leagues page", `location.pathname === "/console/"`)
	b.open("/console/leagues/weekly/boards/bronze-1")
	const cell = `document.querySelector("table.board tbody td:nth-child(3)").textContent`
	b.waitFor("the score 10", cell+` === "10"`)
	b.audit()

	score(25)
	b.waitFor("the score 35 without a reload", cell+` === "35"`)
	b.waitText("Updated at")

	b.do("pausing", chromedp.Click(`#live-pause`))
	b.waitFor("the pause button pressed", `document.querySelector("#live-pause").getAttribute("aria-pressed") === "true"`)
	score(5)
	time.Sleep(1500 * time.Millisecond) // six refreshes' time
	if got := eval[string](b, cell); got != "35" {
		t.Errorf("while paused: the score shows %q, want 35 still", got)
	}
	b.do("resuming", chromedp.Click(`#live-pause`))
	b.waitFor("the score 40 once resumed", cell+` === "40"`)
}

// TestBrowserLocalTimes: with script, a time shows in the operator's zone
// (Tokyo here), naming it, and its title keeps the UTC time; the page as
// sent says UTC (TestPages).
func TestBrowserLocalTimes(t *testing.T) {
	f := newFixture(t, bothKeys)
	b := newTab(t, f)
	b.do("setting the zone to Tokyo", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: "Asia/Tokyo"})
		return err
	}))
	b.signinByKeyboard(adminKey)
	b.waitFor("the leagues page", `location.pathname === "/console/"`)
	const end = `document.querySelector('time[datetime="2026-11-23T00:00:00Z"]')`
	b.waitFor("the local time", end+`.dataset.local === "1"`)
	text, title := eval[string](b, end+".textContent"), eval[string](b, end+".title")
	if !strings.Contains(text, "23") || !strings.Contains(text, "09:00") || !strings.Contains(text, "GMT+9") {
		t.Errorf("the period's end in Tokyo: got %q, want Nov 23, 09:00, GMT+9", text)
	}
	if title != "2026-11-23 00:00:00 UTC" {
		t.Errorf("its title: got %q, want the UTC time", title)
	}
}
