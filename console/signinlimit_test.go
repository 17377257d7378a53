package console_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/league-engine/league/console"
)

// behindProxy serves the fixture as if through a proxy on loopback, which
// is trusted when trust is set.
func behindProxy(t *testing.T, trust bool) *fixture {
	return newFixtureWith(t, bothKeys, httptest.NewServer, func(c *console.Config) {
		if trust {
			c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}
		}
	})
}

// signinFrom posts a sign-in with key as the browser at client, through
// the proxy, over https when tls.
func (f *fixture) signinFrom(key, client string, tls bool) reply {
	f.t.Helper()
	h := map[string]string{"Origin": f.http.URL, "X-Forwarded-For": client}
	if tls {
		h["X-Forwarded-Proto"] = "https"
	}
	return f.send("POST", "/console/signin", url.Values{"key": {key}}, "", h)
}

// TestSignInLimit: past SignInFailures failed sign-ins, an address is
// refused (429, Retry-After), even with the right key, while other
// addresses still sign in; the address is the proxy's word only when the
// proxy is trusted.
func TestSignInLimit(t *testing.T) {
	f := behindProxy(t, true)
	for i := range console.SignInFailures {
		key := fmt.Sprintf("wrong-key-%02d-0123456789", i)
		if i%2 == 1 {
			key = gameKey // a game key fails as much
		}
		if rep := f.signinFrom(key, "203.0.113.7", false); rep.status != http.StatusUnauthorized && rep.status != http.StatusForbidden {
			t.Fatalf("failure %d: got %d, want 401 or 403: %s", i+1, rep.status, rep.body)
		}
	}
	rep := f.signinFrom(adminKey, "203.0.113.7", false)
	wait, _ := strconv.Atoi(rep.header.Get("Retry-After"))
	if rep.status != http.StatusTooManyRequests || !strings.Contains(rep.body, "failed sign-ins from your address") ||
		wait < 60 || wait > int(console.SignInWindow.Seconds()) || sessionCookie(rep) != nil {
		t.Fatalf("the right key after %d failures: got %d, Retry-After %q, cookie %v, want 429 within the window and no session: %s",
			console.SignInFailures, rep.status, rep.header.Get("Retry-After"), sessionCookie(rep), rep.body)
	}
	if n := f.sessions(); n != 0 {
		t.Fatalf("%d sessions, want 0", n)
	}
	// another client behind the same proxy: counted apart
	if rep := f.signinFrom(adminKey, "203.0.113.8", false); rep.status != http.StatusSeeOther {
		t.Fatalf("another address: got %d, want 303: %s", rep.status, rep.body)
	}
	// a client's own X-Forwarded-For before the proxy's hop is not believed:
	// the last hop not a trusted proxy is the address
	if rep := f.signinFrom(adminKey, "198.51.100.1, 203.0.113.7", false); rep.status != http.StatusTooManyRequests {
		t.Fatalf("a forged first hop: got %d, want 429: %s", rep.status, rep.body)
	}

	// an untrusted peer's X-Forwarded-For is ignored: its failures count
	// against the peer, whatever address it claims
	g := behindProxy(t, false)
	for i := range console.SignInFailures {
		g.signinFrom("wrong-key-0123456789", fmt.Sprintf("198.51.100.%d", i), false)
	}
	if rep := g.signinFrom(adminKey, "198.51.100.200", false); rep.status != http.StatusTooManyRequests {
		t.Fatalf("untrusted peer claiming new addresses: got %d, want 429: %s", rep.status, rep.body)
	}
}

// TestSecureBehindProxy: the cookie is Secure when a trusted proxy says
// the browser came over https, and only then.
func TestSecureBehindProxy(t *testing.T) {
	for _, c := range []struct {
		name       string
		trust, tls bool
		secure     bool
	}{
		{"trusted proxy over https", true, true, true},
		{"trusted proxy over http", true, false, false},
		{"untrusted peer claiming https", false, true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := behindProxy(t, c.trust)
			rep := f.signinFrom(adminKey, "203.0.113.9", c.tls)
			ck := sessionCookie(rep)
			if rep.status != http.StatusSeeOther || ck == nil || ck.Secure != c.secure {
				t.Fatalf("got %d, cookie %v, want 303 and Secure=%v: %s", rep.status, ck, c.secure, rep.body)
			}
		})
	}
}
