package console_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/league"
)

// wants fails the test for each of wants that body lacks.
func wants(t *testing.T, what, body string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(body, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, body)
		}
	}
}

// TestLeaguePage: a league's page before any settlement says so; after
// one it lists it with its counts and charts the tiers it counted.
func TestLeaguePage(t *testing.T) {
	f := newFixture(t, bothKeys)
	cookie := f.signin(adminKey)
	rep := f.get("/console/leagues/weekly", cookie)
	if rep.status != http.StatusOK {
		t.Fatalf("got %d, want 200: %s", rep.status, rep.body)
	}
	wants(t, "the league page of a new league", rep.body, "No player has joined this period yet.", "None: every ended period is settled.",
		"No settlements yet.", `<td>none yet</td>`, `(6d 23h 0m left)`)

	for i, p := range []string{"ann", "bob", "cy"} {
		_, err := f.engine.Join(f.ctx, "weekly", league.JoinRequest{Player: p, Name: "name " + p})
		testsvc.Must(t, err, "Join")
		_, err = f.engine.Score(f.ctx, "weekly", league.ScoreWrite{Player: p, Value: int64(10 * (i + 1))})
		testsvc.Must(t, err, "Score")
	}
	rep = f.get("/console/leagues/weekly", cookie)
	wants(t, "the league page with players", rep.body,
		`<svg class="chart" role="img" aria-labelledby="tiers-chart-t tiers-chart-d"`,
		`<desc id="tiers-chart-d">Bronze: 3 players; Silver: 0 players.</desc>`,
		`<a href="/console/leagues/weekly/boards/bronze-1">bronze-1</a>`)

	f.clock.After(monday.AddDate(0, 0, 7))
	rep = f.get("/console/leagues/weekly", cookie)
	wants(t, "the league page after the period ended", rep.body, "<li><code>20261116T000000Z</code>, ended")

	_, err := f.sched.SettleNow(f.ctx, "weekly", time.Time{})
	testsvc.Must(t, err, "SettleNow")
	rep = f.get("/console/leagues/weekly", cookie)
	wants(t, "the league page after a settlement", rep.body,
		"None: every ended period is settled.",
		`<th scope="row"><code>20261116T000000Z</code></th>`,
		`<span class="status status-done">done</span>`,
		`<td class="num">3</td>`, // players
		`<svg class="chart" role="img" aria-labelledby="trend-chart-t trend-chart-d"`,
		`Nov 16: 3 players (Bronze 3, Silver 0)`)

	if rep := f.get("/console/leagues/nope", cookie); rep.status != http.StatusNotFound || !strings.Contains(rep.body, `unknown league &#34;nope&#34;`) {
		t.Errorf("an unknown league: got %d, want 404 naming it: %s", rep.status, rep.body)
	}
}

// TestBoardPage: a board lists its players with their zones in words;
// names and avatars are players' text, shown as text and never as markup.
func TestBoardPage(t *testing.T) {
	f := newFixture(t, bothKeys)
	cookie := f.signin(adminKey)
	_, err := f.engine.Join(f.ctx, "weekly", league.JoinRequest{Player: "eve", Name: `<script>alert("n")</script>`, Avatar: `<img src=x onerror=alert(1)>`})
	testsvc.Must(t, err, "Join")
	_, err = f.engine.Score(f.ctx, "weekly", league.ScoreWrite{Player: "eve", Value: 12})
	testsvc.Must(t, err, "Score")

	for _, path := range []string{"/console/leagues/weekly/boards/bronze-1", "/console/leagues/weekly/boards/bronze-1/rows"} {
		rep := f.get(path, cookie)
		if rep.status != http.StatusOK {
			t.Fatalf("%s: got %d, want 200: %s", path, rep.status, rep.body)
		}
		wants(t, path, rep.body, `&lt;script&gt;alert(&#34;n&#34;)&lt;/script&gt;`, `&lt;img src=x onerror=alert(1)&gt;`,
			`<span class="zone zone-stay">● stay</span>`, `<a href="/console/leagues/weekly/players/eve">`)
		if strings.Contains(rep.body, "<img") || strings.Contains(rep.body, "<script>alert") {
			t.Errorf("%s: a player's text became markup: %s", path, rep.body)
		}
	}
	rows := f.get("/console/leagues/weekly/boards/bronze-1/rows", cookie)
	if !strings.HasPrefix(rows.body, "<tbody>") || strings.Contains(rows.body, "<html") {
		t.Errorf("the rows fragment: got %q, want a <tbody> only", rows.body)
	}
	page := f.get("/console/leagues/weekly/boards/bronze-1", cookie)
	wants(t, "the board page", page.body, `data-live="/console/leagues/weekly/boards/bronze-1/rows"`, `data-every="0.25"`,
		`<script src="/console/static/console.js" defer></script>`)

	for _, c := range []struct {
		path   string
		status int
		says   string
	}{
		{"/console/leagues/weekly/boards/bronze-2", http.StatusNotFound, "has no board bronze-2"},
		{"/console/leagues/weekly/boards/bronze-0", http.StatusBadRequest, "board number from 1"},
		{"/console/leagues/weekly/boards/bronze-2/rows", http.StatusNotFound, "has no board bronze-2"},
	} {
		if rep := f.get(c.path, cookie); rep.status != c.status || !strings.Contains(rep.body, c.says) {
			t.Errorf("%s: got %d, want %d saying %q: %s", c.path, rep.status, c.status, c.says, rep.body)
		}
	}
	if rep := f.get("/console/leagues/weekly/boards/bronze-1/rows", ""); rep.status != http.StatusSeeOther {
		t.Errorf("rows without a session: got %d, want 303 to sign in", rep.status)
	}
}

// TestPlayerPage: a player's standing, and a player nobody knows.
func TestPlayerPage(t *testing.T) {
	f := newFixture(t, bothKeys)
	cookie := f.signin(adminKey)
	for _, p := range []string{"ann", "bob"} {
		_, err := f.engine.Join(f.ctx, "weekly", league.JoinRequest{Player: p, Name: "name " + p})
		testsvc.Must(t, err, "Join")
	}
	_, err := f.engine.Score(f.ctx, "weekly", league.ScoreWrite{Player: "ann", Value: 40})
	testsvc.Must(t, err, "Score")
	rep := f.get("/console/leagues/weekly/players/bob", cookie)
	if rep.status != http.StatusOK {
		t.Fatalf("got %d, want 200: %s", rep.status, rep.body)
	}
	wants(t, "bob's page", rep.body, `<a href="/console/leagues/weekly/boards/bronze-1">bronze-1</a>`, "<dd>2 of 2</dd>",
		"(40 behind the player above)", "No rewards waiting.", "No settled period yet for this player.")
	if rep := f.get("/console/leagues/weekly/players/zed", cookie); rep.status != http.StatusNotFound || !strings.Contains(rep.body, "has never joined") {
		t.Errorf("an unknown player: got %d, want 404: %s", rep.status, rep.body)
	}
}

// TestFind: the league page's forms open a board or a player's page, and
// refuse what is neither.
func TestFind(t *testing.T) {
	f := newFixture(t, bothKeys)
	cookie := f.signin(adminKey)
	for _, c := range []struct {
		query, location string
		status          int
		says            string
	}{
		{"board=bronze-3", "/console/leagues/weekly/boards/bronze-3", http.StatusSeeOther, ""},
		{"board=+silver-1+", "/console/leagues/weekly/boards/silver-1", http.StatusSeeOther, ""},
		{"player=ann", "/console/leagues/weekly/players/ann", http.StatusSeeOther, ""},
		{"board=gold", "", http.StatusBadRequest, "is not &lt;tier&gt;-&lt;number&gt;"},
		{"board=../../x", "", http.StatusBadRequest, "is not &lt;tier&gt;-&lt;number&gt;"},
		{"", "", http.StatusBadRequest, "enter a board"},
	} {
		rep := f.get("/console/leagues/weekly/find?"+c.query, cookie)
		if rep.status != c.status || rep.header.Get("Location") != c.location || !strings.Contains(rep.body, c.says) {
			t.Errorf("find?%s: got %d to %q, want %d to %q saying %q: %s", c.query, rep.status, rep.header.Get("Location"), c.status, c.location, c.says, rep.body)
		}
	}
}
