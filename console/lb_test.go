package console_test

import (
	"bytes"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/leaderboard"
)

// The leaderboard pages: the list, a board a page at a time, a member,
// the catalog with its import and multipliers, and the rate limits with
// the writes they refused.

// lbWrite writes value for member to leaderboard id, failing the test on
// an error.
func (f *fixture) lbWrite(id string, w leaderboard.Write) {
	f.t.Helper()
	_, err := f.boards.Write(f.ctx, id, w)
	testsvc.Must(f.t, err, "write to %s: %+v", id, w)
}

// lbFill writes n members m001... to leaderboard id, member i scoring
// 1,000 × i, in batches.
func (f *fixture) lbFill(id string, n int) {
	f.t.Helper()
	for from := 1; from <= n; from += leaderboard.MaxBatch {
		var ws []leaderboard.Write
		for i := from; i <= n && i < from+leaderboard.MaxBatch; i++ {
			ws = append(ws, leaderboard.Write{Member: fmt.Sprintf("m%03d", i), Value: int64(1000 * i)})
		}
		_, errs, err := f.boards.WriteBatch(f.ctx, id, ws)
		testsvc.Must(f.t, err, "WriteBatch")
		for _, err := range errs {
			testsvc.Must(f.t, err, "a write of the batch")
		}
	}
}

// upload posts a multipart form as the catalog page's import form would:
// its fields and a file.
func (f *fixture) upload(path string, fields map[string]string, file, content, cookie string) reply {
	f.t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for k, v := range fields {
		mw.WriteField(k, v)
	}
	if file != "" {
		fw, err := mw.CreateFormFile("file", file)
		testsvc.Must(f.t, err, "CreateFormFile")
		fw.Write([]byte(content))
	}
	mw.Close()
	r, err := http.NewRequest("POST", f.http.URL+path, &body)
	testsvc.Must(f.t, err, "request")
	r.Header.Set("Content-Type", mw.FormDataContentType())
	r.Header.Set("Origin", f.http.URL)
	r.AddCookie(&http.Cookie{Name: "league_console", Value: cookie})
	resp, err := f.client.Do(r)
	testsvc.Must(f.t, err, "POST %s", path)
	defer resp.Body.Close()
	var out bytes.Buffer
	out.ReadFrom(resp.Body)
	return reply{status: resp.StatusCode, header: resp.Header, body: out.String()}
}

// page gets path and fails the test unless it answers status.
func (f *fixture) page(path, cookie string, status int) string {
	f.t.Helper()
	rep := f.get(path, cookie)
	if rep.status != status {
		f.t.Fatalf("%s: got %d, want %d: %s", path, rep.status, status, rep.body)
	}
	return rep.body
}

// lacks fails the test for each of unwanted that body holds.
func lacks(t *testing.T, what, body string, unwanted ...string) {
	t.Helper()
	for _, u := range unwanted {
		if strings.Contains(body, u) {
			t.Errorf("%s holds %q:\n%s", what, u, body)
		}
	}
}

// TestLeaderboardsPage: every leaderboard with its boards, shards, queue,
// catalog and limits, linked from the console's navigation; one
// leaderboard's page; an unknown one.
func TestLeaderboardsPage(t *testing.T) {
	f := newFixture(t, bothKeys)
	cookie := f.signin(adminKey)
	wants(t, "the leagues page", f.page("/console/", cookie, 200), `<a href="/console/leaderboards">Leaderboards</a>`)
	body := f.page("/console/leaderboards", cookie, 200)
	wants(t, "the leaderboards page", body,
		`<a href="/console/leaderboards" aria-current="page">Leaderboards</a>`,
		`<th scope="row"><a href="/console/leaderboards/kills">kills</a></th>
<td><ul class="boards"><li><a href="/console/leaderboards/kills/boards/day">Day</a></li><li><a href="/console/leaderboards/kills/boards/week">Week</a></li><li><a href="/console/leaderboards/kills/boards/all_time">All time</a></li><li><a href="/console/leaderboards/kills/boards/7d">Last 7 days</a></li></ul></td>
<td class="num">1</td>
<td>at once</td>
<td><a href="/console/leaderboards/kills/catalog">catalog</a>, multipliers</td>
<td>none</td>`,
		`<td class="num">3</td>`,     // big
		`<td>queued, 0 waiting</td>`, // peak
		`<td><a href="/console/leaderboards/votes/limits">2 limits</a></td>`)
	one := f.page("/console/leaderboards/kills", cookie, 200)
	wants(t, "kills' page", one, `<title>Leaderboard kills · league console</title>`,
		`<th scope="row">Day</th>
<td><code>20261116T000000Z</code></td>`,
		`<a href="/console/leaderboards/kills/boards/day">current</a> · <a href="/console/leaderboards/kills/boards/day?period=20261115T000000Z">previous</a>`,
		`<th scope="row">All time <code>all_time</code></th>`,
		`<a href="/console/leaderboards/kills/boards/all_time">current</a></td>`,
		`<a href="/console/leaderboards/kills/catalog">names, metadata and initial scores, multipliers</a>`,
		`<label for="find-member">Look up a member</label>`)
	wants(t, "big's page", f.page("/console/leaderboards/big", cookie, 200), `<dd>3: pages reach rank 1,000 at most (<code>max_page_depth</code>)</dd>`)
	wants(t, "peak's page", f.page("/console/leaderboards/peak", cookie, 200), `queued: up to 100 may wait, 0 waiting now`)
	wants(t, "votes' page", f.page("/console/leaderboards/votes", cookie, 200), `distinct actors counted on the Day, All time boards`,
		`<a href="/console/leaderboards/votes/limits">2 limits, and the writes they refused</a>`)
	if rep := f.get("/console/leaderboards/nope", cookie); rep.status != 404 || !strings.Contains(rep.body, `unknown leaderboard &#34;nope&#34;`) {
		t.Errorf("an unknown leaderboard: %d %s", rep.status, rep.body)
	}
	for q, want := range map[string]string{
		"member=+m001+":   "/console/leaderboards/kills/members/m001",
		"member=a%2Fb%3F": "/console/leaderboards/kills/members/a%2Fb%3F",
	} {
		if rep := f.get("/console/leaderboards/kills/find?"+q, cookie); rep.status != http.StatusSeeOther || rep.header.Get("Location") != want {
			t.Errorf("find?%s: %d to %q, want 303 to %s", q, rep.status, rep.header.Get("Location"), want)
		}
	}
	if rep := f.get("/console/leaderboards/kills/find?member=a+b", cookie); rep.status != 400 || !strings.Contains(rep.body, "not printable ASCII without spaces") {
		t.Errorf("find a bad member id: %d %s", rep.status, rep.body)
	}
	if rep := f.get("/console/leaderboards", ""); rep.status != http.StatusSeeOther {
		t.Errorf("the leaderboards page without a session: %d, want 303 to sign in", rep.status)
	}
}

// TestLeaderboardBoardPage: a board in pages of 50 with thousands
// separators and names from the catalog, the pages linked; the previous
// period and a chosen one; raw and public views; the window around a
// member; empty and expired boards; bad input refused.
func TestLeaderboardBoardPage(t *testing.T) {
	f := newFixture(t, bothKeys)
	cookie := f.signin(adminKey)
	_, err := f.boards.Import(f.ctx, "kills", []leaderboard.CatalogEntry{{Member: "m120", Name: "Top Gun", Multiplier: 2}})
	testsvc.Must(t, err, "Import")
	f.lbFill("kills", 120)

	first := f.page("/console/leaderboards/kills/boards/day", cookie, 200)
	wants(t, "the first page", first,
		`<caption>Day, period 20261116T000000Z: ranks 1 to 50 of 120</caption>`,
		`<td class="num">1</td>
<td class="who"><a href="/console/leaderboards/kills/members/m120">m120</a></td>
<td>Top Gun</td>
<td class="num">240,000</td>`, // public by default: 120,000 × 2
		`public (each write counted times the member's multiplier)`,
		`<a href="/console/leaderboards/kills/boards/day?period=20261116T000000Z&amp;offset=50" rel="next">ranks 51 to 100 →</a>`,
		`<option value="20261116T000000Z" selected>current (2026-11-16)</option>`,
		`<option value="20261115T000000Z">previous (2026-11-15)</option>`,
		`<a href="/console/leaderboards/kills/boards/day?period=20261115T000000Z" rel="prev">← previous period</a>`)
	lacks(t, "the first page", first, `rel="prev">← ranks`, "next period")
	second := f.page("/console/leaderboards/kills/boards/day?period=20261116T000000Z&offset=50", cookie, 200)
	wants(t, "the second page", second, `ranks 51 to 100 of 120`, `<td class="num">70,000</td>`,
		`rel="prev">← ranks 1 to 50</a>`, `rel="next">ranks 101 to 150 →</a>`)
	last := f.page("/console/leaderboards/kills/boards/day?offset=100&view=raw", cookie, 200)
	wants(t, "the last page, raw", last, `ranks 101 to 120 of 120`, `raw (the true counts)`, `<td class="num">1,000</td>`,
		`rel="prev">← ranks 51 to 100</a>`)
	lacks(t, "the last page", last, `rel="next">ranks`)
	raw := f.page("/console/leaderboards/kills/boards/day?view=raw", cookie, 200)
	wants(t, "the raw first page", raw, `<td class="num">120,000</td>`, `the public board (what players see)`)
	past := f.page("/console/leaderboards/kills/boards/day?offset=500", cookie, 200)
	wants(t, "a page past the end", past, "No member ranks 501 or below: the board has 120.")

	// the previous day: empty, then written; the next period's link
	prev := f.page("/console/leaderboards/kills/boards/day?period=20261115T000000Z", cookie, 200)
	wants(t, "the previous day", prev, "No member has a score on this board in this period yet.",
		`<option value="20261115T000000Z" selected>previous (2026-11-15)</option>`,
		`rel="next">next period →</a>`, `>current period</a>`)
	// an older day than the list offers, chosen
	old := f.page("/console/leaderboards/kills/boards/day?period=20261001T000000Z", cookie, 200)
	wants(t, "a day six weeks back", old, `<option value="20261001T000000Z" selected>2026-10-01</option>`,
		"This period's board has expired: boards of this kind stay 14 days after their period.")
	// the window around a member, on the public board
	around := f.page("/console/leaderboards/kills/boards/day?around=m060", cookie, 200)
	wants(t, "around m060", around, `The ranks around <strong>m060</strong>`, `<tr class="found">`, `ranks 51 to 71 of 120`)
	// the week and the last 7 days, all time
	wants(t, "the 7d board", f.page("/console/leaderboards/kills/boards/7d", cookie, 200), `the window from <time datetime="2026-11-10T00:00:00Z"`,
		"This rolling board is not pre-filled yet")
	wants(t, "the all-time board", f.page("/console/leaderboards/kills/boards/all_time", cookie, 200), "<dd>all time</dd>", "ranks 1 to 50 of 120")

	for path, c := range map[string]struct {
		status int
		says   string
	}{
		"/console/leaderboards/kills/boards/year":                           {404, "is not a kind of board"},
		"/console/leaderboards/kills/boards/hour":                           {404, "keeps no hour board"},
		"/console/leaderboards/kills/boards/day?period=20261116T013000Z":    {400, "starts no day"},
		"/console/leaderboards/kills/boards/day?period=20301116T000000Z":    {400, "has not begun"},
		"/console/leaderboards/kills/boards/day?offset=-5":                  {400, "is not a rank offset"},
		"/console/leaderboards/kills/boards/day?view=both":                  {400, "is not public or raw"},
		"/console/leaderboards/kills/boards/day?around=nobody":              {404, "is not on the day board"},
		"/console/leaderboards/kills/boards/7d?view=public":                 {404, "rolling boards count raw values"},
		"/console/leaderboards/nope/boards/day":                             {404, "unknown leaderboard"},
		"/console/leaderboards/kills/boards/day?around=%3Cscript%3Ex%3C%2F": {404, "&lt;script&gt;x&lt;/"},
	} {
		if rep := f.get(path, cookie); rep.status != c.status || !strings.Contains(rep.body, c.says) {
			t.Errorf("%s: got %d, want %d saying %q: %s", path, rep.status, c.status, c.says, rep.body)
		}
	}
}

// TestLeaderboardDeepPages: on a sharded leaderboard a page past its
// max_page_depth is not read; the page says so and offers a member's
// window, and the page before it does not link past the depth.
func TestLeaderboardDeepPages(t *testing.T) {
	f := newFixture(t, bothKeys)
	cookie := f.signin(adminKey)
	f.lbFill("big", 30)
	deep := f.page("/console/leaderboards/big/boards/day?offset=1000", cookie, 200)
	wants(t, "a page past the depth", deep, `<p class="notice" role="status">Ranks past 1,000 are not read on this board: big is split over 3 shards`,
		`<a href="/console/leaderboards/big/boards/day?period=20261116T000000Z&amp;offset=950">go to the deepest page read</a>`,
		`<label for="around">Find a member on this board</label>`)
	lacks(t, "a page past the depth", deep, `role="alert"`, `<table class="board">`)
	// a board deep enough to reach the limit: 1,000 members over 3 shards
	f.lbFill("big", 1000)
	edge := f.page("/console/leaderboards/big/boards/day?offset=900", cookie, 200)
	wants(t, "the page before the depth", edge, "ranks 901 to 950 of 1,000", `rel="next">ranks 951 to 1,000 →</a>`)
	last := f.page("/console/leaderboards/big/boards/day?offset=950", cookie, 200)
	wants(t, "the deepest page", last, "ranks 951 to 1,000 of 1,000")
	lacks(t, "the deepest page", last, `rel="next">ranks`)
	f.lbFill("big", 1001)
	if body := f.page("/console/leaderboards/big/boards/day?offset=950", cookie, 200); !strings.Contains(body, "The next page is past rank 1,000") {
		t.Errorf("the deepest page of 1,001 members does not say the next is past the depth: %s", body)
	}
	around := f.page("/console/leaderboards/big/boards/day?around=m020", cookie, 200)
	wants(t, "around a member of a sharded board", around, "ranks 972 to 992 of 1,001", `<tr class="found">`)
}

// TestLeaderboardMemberPage: a member on every board, raw and public, with
// its ranks, gaps, the period before and its participants; its catalog
// entry; a member on no board says so.
func TestLeaderboardMemberPage(t *testing.T) {
	f := newFixture(t, bothKeys)
	cookie := f.signin(adminKey)
	_, err := f.boards.Import(f.ctx, "kills", []leaderboard.CatalogEntry{{Member: "ann", Name: "Ann <b>", Metadata: []byte(`{"avatar":"a.png"}`), Multiplier: 3}})
	testsvc.Must(t, err, "Import")
	f.clock.Set(monday.Add(-12 * time.Hour)) // the day before
	f.lbWrite("kills", leaderboard.Write{Member: "ann", Value: 7})
	f.clock.Set(monday.Add(time.Hour))
	f.lbWrite("kills", leaderboard.Write{Member: "ann", Value: 1500})
	f.lbWrite("kills", leaderboard.Write{Member: "bob", Value: 2000})
	body := f.page("/console/leaderboards/kills/members/ann", cookie, 200)
	wants(t, "ann's page", body,
		`<dd>Ann &lt;b&gt;</dd>`, `<code class="meta">{&#34;avatar&#34;:&#34;a.png&#34;}</code>`,
		`<dd>× 3 · <a href="/console/leaderboards/kills/catalog?edit=ann#multiplier">change</a></dd>`,
		`<h2 id="standings">Raw boards (the true counts)</h2>`,
		// raw day: 1,500, second to bob's 2,000, 500 behind; the day before rank 1 with 7
		`<td class="num">2</td>
<td class="num">1,500</td>
<td class="num">500</td>`,
		`<code>20261115T000000Z</code></a>: rank 1, 7</td>`,
		// public day: 4,500 ahead of bob's 2,000
		`<td class="num">1</td>
<td class="num">4,500</td>
<td class="num">–</td>`,
		`<a href="/console/leaderboards/kills/boards/7d?period=20261116T000000Z&amp;around=ann&amp;view=raw">Last 7 days</a>`)
	lacks(t, "ann's page", body, "Participants", "<b>")

	// votes: participants per board
	for _, actor := range []string{"v1", "v2", "v3"} {
		f.lbWrite("votes", leaderboard.Write{Member: "band", Value: 1, Actor: actor, Channel: "web"})
	}
	votes := f.page("/console/leaderboards/votes/members/band", cookie, 200)
	wants(t, "band's page", votes, `<th scope="col" class="num">Participants</th>`, `<td class="num">3</td>`)
	lacks(t, "band's page", votes, "Catalog entry", "Public boards")

	nobody := f.page("/console/leaderboards/kills/members/nobody", cookie, 200)
	wants(t, "nobody's page", nobody, "nobody is on no board of kills this period or the one before.",
		"nobody has no catalog entry", "not on it")
	if rep := f.get("/console/leaderboards/kills/members/a%20b", cookie); rep.status != 400 {
		t.Errorf("a bad member id: %d, want 400: %s", rep.status, rep.body)
	}
}

// TestLeaderboardCatalog: the catalog lists its entries; a CSV file with
// bad rows imports nothing and lists each row refused, its column and
// why; fixed, it imports; a multiplier is set by the form, a bad value
// refused changing nothing; forms without the session's token are
// refused; what members wrote shows as text.
func TestLeaderboardCatalog(t *testing.T) {
	f := newFixture(t, bothKeys)
	cookie := f.signin(adminKey)
	token := f.csrf(cookie)
	page := f.page("/console/leaderboards/kills/catalog", cookie, 200)
	wants(t, "the empty catalog", page, "The catalog is empty: import a CSV file to give members names and multipliers.",
		`<label for="catalog-file">CSV file</label>`, `enctype="multipart/form-data"`, `<label for="mult-value">Multiplier</label>`)

	const importPath = "/console/leaderboards/kills/catalog/import"
	bad := "member,name,initial_score,multiplier,avatar\n" +
		"ann,Ann,10,2,a.png\n" +
		"a b,Spacey,,,\n" +
		"cy,Cy,lots,,\n" +
		"dee,Dee\n" +
		"eve,<script>alert(1)</script>,,2000000,\n"
	rep := f.upload(importPath, map[string]string{"csrf": token}, "bad <rows>.csv", bad, cookie)
	if rep.status != 400 {
		t.Fatalf("a file with bad rows: %d: %s", rep.status, rep.body)
	}
	wants(t, "the refused import", rep.body,
		`<p class="error" role="alert">Nothing was imported: bad &lt;rows&gt;.csv has 4 problems, listed below. Fix them and import the file again.</p>`,
		`<th scope="row">row 3</th><td><code>member</code></td><td>byte 1 (&#34; &#34;) is not printable ASCII without spaces</td>`,
		`<th scope="row">row 4</th><td><code>initial_score</code></td><td>&#34;lots&#34; is not a whole number</td>`,
		`<th scope="row">row 5</th><td>the whole row</td><td>record on line 5: wrong number of fields</td>`,
		`<th scope="row">row 6</th><td><code>multiplier</code></td><td>2000000 is not from 1 to 1000000</td>`)
	if got, err := f.boards.Catalog(f.ctx, "kills", "", 10); err != nil || len(got.Entries) != 0 {
		t.Fatalf("after a refused import the catalog holds %+v (%v); want nothing", got.Entries, err)
	}
	if b, _ := f.boards.Top(f.ctx, "kills", leaderboard.AllTime, "", 0, 10); b.Size != 0 {
		t.Fatalf("a refused import moved the all-time board: %+v", b)
	}

	good := "member,name,initial_score,multiplier,avatar\nann,Ann,10,2,a.png\neve,<script>alert(1)</script>,,,\n<img>,Img,,,\n"
	if rep := f.upload(importPath, map[string]string{"csrf": "0000"}, "good.csv", good, cookie); rep.status != 403 {
		t.Fatalf("an import with a wrong token: %d, want 403", rep.status)
	}
	if got, _ := f.boards.Catalog(f.ctx, "kills", "", 10); len(got.Entries) != 0 {
		t.Fatalf("an import with a wrong token wrote %+v", got.Entries)
	}
	rep = f.upload(importPath, map[string]string{"csrf": token}, "good.csv", good, cookie)
	wants(t, "the import", rep.body, `<p class="notice" role="status">Imported 3 entries from good.csv: 3 members changed.</p>`,
		`<td>&lt;script&gt;alert(1)&lt;/script&gt;</td>`,
		`<a href="/console/leaderboards/kills/members/%3Cimg%3E">&lt;img&gt;</a>`,
		`<code class="meta">{&#34;avatar&#34;:&#34;a.png&#34;}</code>`, `<td class="num">× 2</td>`)
	lacks(t, "the import", rep.body, "<script>alert", "<img>")
	if rep := f.upload(importPath, map[string]string{"csrf": token}, "", "", cookie); rep.status != 400 || !strings.Contains(rep.body, "choose a CSV file") {
		t.Errorf("an import without a file: %d %s", rep.status, rep.body)
	}
	huge := strings.Repeat("x", 2<<20)
	if rep := f.upload(importPath, map[string]string{"csrf": token}, "huge.csv", huge, cookie); rep.status != 413 || !strings.Contains(rep.body, "nothing was changed") {
		t.Errorf("an import of 2 MiB: %d %s", rep.status, rep.body)
	}

	// the multiplier: the Change link fills the form; bad values change nothing
	edit := f.page("/console/leaderboards/kills/catalog?edit=ann", cookie, 200)
	wants(t, "the Change link's page", edit, `<input id="mult-member" name="member" value="ann"`, `name="multiplier" value="2" type="number"`)
	const multPath = "/console/leaderboards/kills/catalog/multiplier"
	for value, says := range map[string]string{
		"abc":     `Nothing was changed: multiplier: &#34;abc&#34; is not a whole number from 1 to 1,000,000`,
		"0":       `Nothing was changed: multiplier: 0 is not from 1 to 1000000`,
		"2.5":     `is not a whole number`,
		"":        `enter a whole number from 1 to 1,000,000`,
		"9999999": `9999999 is not from 1 to 1000000`,
	} {
		rep := f.post(multPath, url.Values{"csrf": {token}, "member": {"ann"}, "multiplier": {value}}, cookie)
		if rep.status != 400 || !strings.Contains(rep.body, says) || !strings.Contains(rep.body, `aria-invalid="true"`) {
			t.Errorf("multiplier %q: %d, want 400 saying %q: %s", value, rep.status, says, rep.body)
		}
	}
	if rep := f.post(multPath, url.Values{"member": {"ann"}, "multiplier": {"7"}}, cookie); rep.status != 403 {
		t.Errorf("a multiplier without the token: %d, want 403", rep.status)
	}
	if c, _, _ := f.boards.CatalogEntry(f.ctx, "kills", "ann"); c.Multiplier != 2 {
		t.Fatalf("refused forms changed ann's multiplier to %d", c.Multiplier)
	}
	rep = f.post(multPath, url.Values{"csrf": {token}, "member": {"ann"}, "multiplier": {"7"}}, cookie)
	wants(t, "a multiplier set", rep.body, "The multiplier of ann is now 7 (it was 2).")
	if c, _, _ := f.boards.CatalogEntry(f.ctx, "kills", "ann"); c.Multiplier != 7 || c.Name != "Ann" || c.InitialScore != 10 {
		t.Fatalf("ann after the form: %+v, want multiplier 7, the rest kept", c)
	}
	if rep := f.post("/console/leaderboards/votes/catalog/multiplier", url.Values{"csrf": {token}, "member": {"x"}, "multiplier": {"2"}}, cookie); rep.status != 400 ||
		!strings.Contains(rep.body, "has no catalog") {
		t.Errorf("a multiplier on a leaderboard without a catalog: %d %s", rep.status, rep.body)
	}
	if rep := f.get("/console/leaderboards/votes/catalog", cookie); rep.status != 400 || !strings.Contains(rep.body, "has no catalog") {
		t.Errorf("the catalog page of a leaderboard without one: %d %s", rep.status, rep.body)
	}
}

// TestLeaderboardCatalogPages: a catalog of 120 entries in pages of 50.
func TestLeaderboardCatalogPages(t *testing.T) {
	f := newFixture(t, bothKeys)
	cookie := f.signin(adminKey)
	var cat []leaderboard.CatalogEntry
	for i := range 120 {
		cat = append(cat, leaderboard.CatalogEntry{Member: fmt.Sprintf("c%03d", i), Name: fmt.Sprintf("Name %d", i)})
	}
	_, err := f.boards.Import(f.ctx, "kills", cat)
	testsvc.Must(t, err, "Import")
	seen := map[string]bool{}
	path := "/console/leaderboards/kills/catalog"
	for pages := 0; path != ""; pages++ {
		body := f.page(path, cookie, 200)
		n := strings.Count(body, `<th scope="row" class="who">`)
		if n > 50 {
			t.Fatalf("a page of %d entries", n)
		}
		for i := range 120 {
			if strings.Contains(body, fmt.Sprintf(">c%03d</a>", i)) {
				seen[fmt.Sprintf("c%03d", i)] = true
			}
		}
		path = ""
		if i := strings.Index(body, `<a href="/console/leaderboards/kills/catalog?cursor=`); i >= 0 {
			rest := body[i+len(`<a href="`):]
			path = strings.ReplaceAll(rest[:strings.Index(rest, `"`)], "&amp;", "&")
		}
		if pages > 10 {
			t.Fatal("no last page")
		}
	}
	if len(seen) != 120 {
		t.Fatalf("the pages list %d of 120 entries", len(seen))
	}
}

// TestLeaderboardLimitsPage: each limit with its rate and extras, and the
// writes they refused, newest first, actor ids shown as text.
func TestLeaderboardLimitsPage(t *testing.T) {
	f := newFixture(t, bothKeys)
	cookie := f.signin(adminKey)
	empty := f.page("/console/leaderboards/votes/limits", cookie, 200)
	wants(t, "the limits page", empty,
		`<th scope="row"><code>per-candidate</code></th>
<td>actor, member</td>
<td>2 a day</td>
<td>1 more from channel partner</td>`,
		`<th scope="row"><code>actor-day</code></th>
<td>actor</td>
<td>5 a day</td>
<td>none</td>`,
		"No write has been refused.")
	const actor = `<script>alert("x")</script>`
	for i := range 3 {
		_, err := f.boards.Write(f.ctx, "votes", leaderboard.Write{Member: "band", Value: 1, Actor: actor, Channel: "web"})
		if (err != nil) != (i == 2) {
			t.Fatalf("vote %d: %v", i, err)
		}
	}
	body := f.page("/console/leaderboards/votes/limits", cookie, 200)
	wants(t, "the refusals", body, `<caption>The last 1 write a limit refused, newest first</caption>`,
		`<td><code>per-candidate</code> (2)</td>`,
		`<td>&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;</td>`,
		`<td><time datetime="2026-11-16T01:00:00Z"`, `<td>web</td>`)
	lacks(t, "the refusals", body, actor)
	wants(t, "a leaderboard without limits", f.page("/console/leaderboards/kills/limits", cookie, 200),
		"kills has no rate limits", "No write has been refused: there is no limit to refuse one.")
	wants(t, "a sharded leaderboard's limits", f.page("/console/leaderboards/big/limits", cookie, 200), "big has no rate limits")
}

// TestLeaderboardPagesEscape: member ids and names that look like markup
// show as text on every page.
func TestLeaderboardPagesEscape(t *testing.T) {
	f := newFixture(t, bothKeys)
	cookie := f.signin(adminKey)
	const member = `<script>alert(1)</script>`
	_, err := f.boards.Import(f.ctx, "kills", []leaderboard.CatalogEntry{{Member: member, Name: `<img src=x onerror=alert(2)>`}})
	testsvc.Must(t, err, "Import")
	f.lbWrite("kills", leaderboard.Write{Member: member, Value: 5})
	for _, path := range []string{
		"/console/leaderboards/kills/boards/day",
		"/console/leaderboards/kills/boards/day?around=" + url.QueryEscape(member),
		"/console/leaderboards/kills/members/" + url.PathEscape(member),
		"/console/leaderboards/kills/catalog",
	} {
		body := f.page(path, cookie, 200)
		wants(t, path, body, `&lt;script&gt;alert(1)&lt;/script&gt;`)
		lacks(t, path, body, member, "<img src=x")
	}
	wants(t, "the board", f.page("/console/leaderboards/kills/boards/day", cookie, 200),
		`<a href="/console/leaderboards/kills/members/%3Cscript%3Ealert%281%29%3C%2Fscript%3E">`, `<td>&lt;img src=x onerror=alert(2)&gt;</td>`)
}
