package console_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/league-engine/league/api"
	"github.com/league-engine/league/internal/testsvc"
)

// TestSignIn: an admin key gets a session cookie that is HttpOnly,
// SameSite=Strict, scoped to /console and expiring in 8 hours, Secure over
// TLS only; the session is in Redis under the id's digest, with that TTL.
func TestSignIn(t *testing.T) {
	for _, c := range []struct {
		name   string
		serve  func(http.Handler) *httptest.Server
		secure bool
	}{
		{"http", httptest.NewServer, false},
		{"tls", httptest.NewTLSServer, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixtureOn(t, bothKeys, c.serve)
			rep := f.post("/console/signin", url.Values{"key": {adminKey}}, "")
			if rep.status != http.StatusSeeOther || rep.header.Get("Location") != "/console/" {
				t.Fatalf("got status %d to %q, want 303 to /console/: %s", rep.status, rep.header.Get("Location"), rep.body)
			}
			ck := sessionCookie(rep)
			if ck == nil {
				t.Fatalf("no session cookie: %v", rep.header)
			}
			if !ck.HttpOnly || ck.SameSite != http.SameSiteStrictMode || ck.Path != "/console" || ck.MaxAge != 8*3600 || ck.Secure != c.secure {
				t.Errorf("got cookie %q, want HttpOnly, SameSite=Strict, Path=/console, Max-Age=28800, Secure=%v", rep.header.Get("Set-Cookie"), c.secure)
			}
			keys, err := f.rdb.Keys(f.ctx, f.ns+":console:s:*").Result()
			testsvc.Must(t, err, "KEYS")
			if len(keys) != 1 || strings.Contains(keys[0], ck.Value) {
				t.Fatalf("got session keys %v, want one, named by the digest of the cookie's id", keys)
			}
			if ttl := f.rdb.TTL(f.ctx, keys[0]).Val(); ttl <= 7*time.Hour || ttl > 8*time.Hour {
				t.Errorf("got TTL %v, want 8h", ttl)
			}
			if page := f.get("/console/", ck.Value); page.status != http.StatusOK || !strings.Contains(page.body, "admin-1") {
				t.Errorf("leagues page with the cookie: got %d, want 200 naming the key admin-1: %s", page.status, page.body)
			}
		})
	}
}

// TestSignInRefused: a game key, a wrong key, no key, and an admin key
// sent from another site's page get a message and no session.
func TestSignInRefused(t *testing.T) {
	f := newFixture(t, bothKeys)
	for _, c := range []struct {
		name, key, origin string
		status            int
		says              string
	}{
		{"game key", gameKey, f.http.URL, http.StatusForbidden, "game server&#39;s key: the console needs an admin key"},
		{"wrong key", "wrong-key-0123456789", f.http.URL, http.StatusUnauthorized, "unknown key"},
		{"no key", "", f.http.URL, http.StatusUnauthorized, "enter an admin key"},
		{"admin key from elsewhere", adminKey, "https://evil.example", http.StatusForbidden, "came from another site"},
	} {
		t.Run(c.name, func(t *testing.T) {
			rep := f.send("POST", "/console/signin", url.Values{"key": {c.key}}, "", map[string]string{"Origin": c.origin})
			if rep.status != c.status || !strings.Contains(rep.body, c.says) {
				t.Errorf("got %d, want %d saying %q: %s", rep.status, c.status, c.says, rep.body)
			}
			if ck := sessionCookie(rep); ck != nil {
				t.Errorf("got a cookie %v, want none", ck)
			}
			if n := f.sessions(); n != 0 {
				t.Errorf("got %d sessions in Redis, want 0", n)
			}
			if strings.Contains(rep.body, c.key) && c.key != "" {
				t.Errorf("the page shows the key sent")
			}
		})
	}
}

// TestPagesNeedSession: without a live session every page sends the
// browser to sign in.
func TestPagesNeedSession(t *testing.T) {
	f := newFixture(t, bothKeys)
	for _, path := range []string{"/console/", "/console/leagues/weekly/held"} {
		for name, cookie := range map[string]string{"no cookie": "", "unknown cookie": strings.Repeat("ab", 32), "short cookie": "x"} {
			rep := f.get(path, cookie)
			if rep.status != http.StatusSeeOther || rep.header.Get("Location") != "/console/signin" {
				t.Errorf("%s, %s: got %d to %q, want 303 to /console/signin", path, name, rep.status, rep.header.Get("Location"))
			}
		}
	}
	if rep := f.get("/console", ""); rep.status != http.StatusMovedPermanently || rep.header.Get("Location") != "/console/" {
		t.Errorf("/console: got %d to %q, want 301 to /console/", rep.status, rep.header.Get("Location"))
	}
	if rep := f.get("/console/signin", ""); rep.status != http.StatusOK || !strings.Contains(rep.body, `<label for="key">`) {
		t.Errorf("sign-in page: got %d, want 200 with the key's label: %s", rep.status, rep.body)
	}
}

// TestCSRF: a decision without the session's token, with another's, from
// another site, or without a session is refused with 403 and changes
// nothing.
func TestCSRF(t *testing.T) {
	f := newFixture(t, bothKeys)
	f.hold("ann", 80)
	cookie := f.signin(adminKey)
	token := f.csrf(cookie)
	other := f.signin(adminKey)
	otherToken := f.csrf(other)
	if token == otherToken {
		t.Fatal("two sessions share a token")
	}
	const approve = "/console/leagues/weekly/held/1/approve"
	for _, c := range []struct {
		name   string
		form   url.Values
		cookie string
		header map[string]string
		says   string
	}{
		{"no token", url.Values{"period": {firstPeriod}}, cookie, map[string]string{"Origin": f.http.URL}, "security token"},
		{"wrong token", url.Values{"period": {firstPeriod}, "csrf": {"00" + token[2:]}}, cookie, map[string]string{"Origin": f.http.URL}, "security token"},
		{"another session's token", url.Values{"period": {firstPeriod}, "csrf": {otherToken}}, cookie, nil, "security token"},
		{"other origin", url.Values{"period": {firstPeriod}, "csrf": {token}}, cookie, map[string]string{"Origin": "https://evil.example"}, "another site"},
		{"null origin", url.Values{"period": {firstPeriod}, "csrf": {token}}, cookie, map[string]string{"Origin": "null"}, "another site"},
		{"other referer", url.Values{"period": {firstPeriod}, "csrf": {token}}, cookie, map[string]string{"Referer": "https://evil.example/x"}, "another site"},
		{"no session", url.Values{"period": {firstPeriod}, "csrf": {token}}, "", nil, "session has ended"},
	} {
		t.Run(c.name, func(t *testing.T) {
			rep := f.send("POST", approve, c.form, c.cookie, c.header)
			if rep.status != http.StatusForbidden || !strings.Contains(rep.body, c.says) || !strings.Contains(rep.body, "nothing was changed") {
				t.Errorf("got %d, want 403 saying %q and that nothing was changed: %s", rep.status, c.says, rep.body)
			}
			if held, score := f.state("ann"); held != 1 || score != 0 {
				t.Errorf("got %d held and score %d, want the write still held and score 0", held, score)
			}
		})
	}
	// GET does not decide.
	if rep := f.get(approve, cookie); rep.status == http.StatusOK {
		t.Errorf("GET %s: got 200, want a refusal", approve)
	}
	if held, _ := f.state("ann"); held != 1 {
		t.Errorf("after a GET: got %d held, want 1", held)
	}
}

// TestDecide: approving a held write through the console applies it once,
// and a second click says it was decided already; rejecting drops one.
func TestDecide(t *testing.T) {
	f := newFixture(t, bothKeys)
	f.hold("ann", 80)
	f.hold("bob", 90)
	cookie := f.signin(adminKey)
	token := f.csrf(cookie)
	form := url.Values{"period": {firstPeriod}, "csrf": {token}}

	rep := f.post("/console/leagues/weekly/held/1/approve", form, cookie)
	if rep.status != http.StatusOK || !strings.Contains(rep.body, "Held write 1 approved: the player&#39;s score is now 80.") {
		t.Fatalf("approve: got %d, want 200 confirming it: %s", rep.status, rep.body)
	}
	if held, score := f.state("ann"); held != 1 || score != 80 {
		t.Fatalf("after approving: got %d held and score %d, want 1 and 80", held, score)
	}
	rep = f.post("/console/leagues/weekly/held/1/approve", form, cookie)
	if rep.status != http.StatusNotFound || !strings.Contains(rep.body, "approved or rejected already") {
		t.Errorf("second approve: got %d, want 404 saying it was decided already: %s", rep.status, rep.body)
	}
	if _, score := f.state("ann"); score != 80 {
		t.Errorf("after approving twice: got score %d, want 80 (applied once)", score)
	}

	rep = f.post("/console/leagues/weekly/held/2/reject", form, cookie)
	if rep.status != http.StatusOK || !strings.Contains(rep.body, "Held write 2 of player bob (90) rejected") {
		t.Fatalf("reject: got %d, want 200 confirming it: %s", rep.status, rep.body)
	}
	if held, score := f.state("bob"); held != 0 || score != 0 {
		t.Errorf("after rejecting: got %d held and score %d, want 0 and 0", held, score)
	}
	if !strings.Contains(rep.body, "No writes are held in this period.") {
		t.Errorf("the list after the last decision is not empty: %s", rep.body)
	}

	// An approval of a page of another period is refused: ids count from 1
	// in each period.
	rep = f.post("/console/leagues/weekly/held/1/approve", url.Values{"period": {"20261109T000000Z"}, "csrf": {token}}, cookie)
	if rep.status != http.StatusConflict || !strings.Contains(rep.body, "can only be rejected") {
		t.Errorf("approve in a past period: got %d, want 409: %s", rep.status, rep.body)
	}
}

// TestSignOut: signing out ends the session in Redis: the old cookie no
// longer opens a page, nor decides.
func TestSignOut(t *testing.T) {
	f := newFixture(t, bothKeys)
	cookie := f.signin(adminKey)
	token := f.csrf(cookie)
	rep := f.post("/console/signout", url.Values{"csrf": {token}}, cookie)
	if rep.status != http.StatusOK || !strings.Contains(rep.body, "You are signed out.") {
		t.Fatalf("sign-out: got %d, want 200 saying so: %s", rep.status, rep.body)
	}
	if ck := sessionCookie(rep); ck == nil || ck.MaxAge >= 0 {
		t.Errorf("sign-out: got cookie %v, want it cleared", ck)
	}
	if n := f.sessions(); n != 0 {
		t.Errorf("got %d sessions in Redis, want 0", n)
	}
	if rep := f.get("/console/", cookie); rep.status != http.StatusSeeOther {
		t.Errorf("the old cookie: got %d, want 303 to sign in", rep.status)
	}
}

// TestKeyRemoved: a session ends when its key is no longer an admin key
// (a SIGHUP reload removed it).
func TestKeyRemoved(t *testing.T) {
	f := newFixture(t, bothKeys)
	cookie := f.signin(adminKey)
	testsvc.Must(t, f.server.SetKeys(bothKeys[:1]), "SetKeys")
	if rep := f.get("/console/", cookie); rep.status != http.StatusSeeOther {
		t.Errorf("a session of a removed key: got %d, want 303 to sign in", rep.status)
	}
}

// TestPages: the leagues page shows each league, its period in UTC and
// players per tier; the held page each held write's player.
func TestPages(t *testing.T) {
	f := newFixture(t, bothKeys)
	cookie := f.signin(adminKey)
	rep := f.get("/console/", cookie)
	for _, want := range []string{`<h2 id="league-weekly"><a href="/console/leagues/weekly">weekly</a></h2>`, firstPeriod, "No player has joined this period yet.",
		`<time datetime="2026-11-23T00:00:00Z" title="2026-11-23 00:00:00 UTC">2026-11-23 00:00 UTC</time> (6d 23h 0m left)`,
		`<nav aria-label="Console">`, `<main>`, `name="viewport"`} {
		if !strings.Contains(rep.body, want) {
			t.Errorf("leagues page lacks %q: %s", want, rep.body)
		}
	}
	if rep := f.get("/console/leagues/weekly/held", cookie); !strings.Contains(rep.body, "No writes are held in this period.") {
		t.Errorf("held page of none lacks its empty state: %s", rep.body)
	}

	f.hold("ann", 80)
	rep = f.get("/console/", cookie)
	for _, want := range []string{`<th scope="row">Bronze <code>bronze</code></th><td class="num">1</td>`, "1 waiting for a decision"} {
		if !strings.Contains(rep.body, want) {
			t.Errorf("leagues page lacks %q: %s", want, rep.body)
		}
	}
	rep = f.get("/console/leagues/weekly/held", cookie)
	for _, want := range []string{"<td>ann</td>", `<td class="num">80</td>`, "<code>max_gain</code>", `action="/console/leagues/weekly/held/1/approve"`} {
		if !strings.Contains(rep.body, want) {
			t.Errorf("held page lacks %q: %s", want, rep.body)
		}
	}
	if rep := f.get("/console/leagues/nope/held", cookie); rep.status != http.StatusNotFound || !strings.Contains(rep.body, `unknown league &#34;nope&#34;`) {
		t.Errorf("held page of an unknown league: got %d, want 404 naming it: %s", rep.status, rep.body)
	}
	if rep := f.get("/console/static/console.css", ""); rep.status != http.StatusOK || !strings.HasPrefix(rep.header.Get("Content-Type"), "text/css") {
		t.Errorf("stylesheet: got %d %q, want 200 text/css", rep.status, rep.header.Get("Content-Type"))
	}
}

// TestAuthOff: with no keys the console opens without sign-in, says so on
// every page, and still needs the token to change anything.
func TestAuthOff(t *testing.T) {
	f := newFixture(t, nil)
	f.hold("ann", 80)
	rep := f.get("/console/", "")
	ck := sessionCookie(rep)
	if rep.status != http.StatusOK || ck == nil || !strings.Contains(rep.body, "Authentication is off") {
		t.Fatalf("got %d, cookie %v, want 200, a session and the warning: %s", rep.status, ck, rep.body)
	}
	if strings.Contains(rep.body, "Sign out") {
		t.Errorf("a console without sign-in offers to sign out")
	}
	if rep := f.get("/console/signin", ""); rep.status != http.StatusSeeOther {
		t.Errorf("sign-in page: got %d, want 303 to the console", rep.status)
	}
	form := url.Values{"period": {firstPeriod}}
	if rep := f.post("/console/leagues/weekly/held/1/approve", form, ck.Value); rep.status != http.StatusForbidden {
		t.Errorf("approve without the token: got %d, want 403", rep.status)
	}
	form.Set("csrf", f.csrf(ck.Value))
	if rep := f.post("/console/leagues/weekly/held/1/approve", form, ck.Value); rep.status != http.StatusOK {
		t.Errorf("approve with the token: got %d, want 200: %s", rep.status, rep.body)
	}
	if held, score := f.state("ann"); held != 0 || score != 80 {
		t.Errorf("got %d held and score %d, want 0 and 80", held, score)
	}
}

// TestNoConsole: a server configured without one answers the API's 404.
func TestNoConsole(t *testing.T) {
	f := newFixture(t, bothKeys)
	s := api.New(api.Config{Engine: f.engine, Store: nil, Keys: bothKeys})
	w := httptest.NewRecorder()
	s.Handler().ServeHTTP(w, httptest.NewRequest("GET", "/console/", nil))
	if w.Code != http.StatusNotFound || w.Header().Get("Content-Type") != "application/json" {
		t.Errorf("got %d %q, want the JSON 404", w.Code, w.Header().Get("Content-Type"))
	}
}
