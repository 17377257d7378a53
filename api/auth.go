package api

import (
	"crypto/sha256"
	"net/http"
	"slices"
	"strings"

	"github.com/league-engine/league/internal/excerpt"
	"github.com/league-engine/league/league"
)

// Key is an API key as configured: a name, which is what logs, metrics and
// request ids know it by (never the secret); a role; and the leagues it may
// call.
type Key struct {
	Name string
	// Admin opens the admin routes as well as the game-server routes.
	Admin bool
	// Leagues and Leaderboards the key may call; nil: every one.
	Leagues, Leaderboards []string
	// Secrets are what a caller sends: one, or two while a secret is
	// rotated (a retry sent with the new one still replays a write sent
	// with the old: request ids belong to the name).
	Secrets []string

	requests *keyMetrics // set by newKeyring
}

// mayCall reports whether the key opens league l.
func (k *Key) mayCall(l string) bool { return k.Leagues == nil || slices.Contains(k.Leagues, l) }

// mayCallLeaderboard reports whether the key opens leaderboard l.
func (k *Key) mayCallLeaderboard(l string) bool {
	return k.Leaderboards == nil || slices.Contains(k.Leaderboards, l)
}

// keyring finds the key of a presented secret by its SHA-256 digest. A map
// lookup by digest tells an attacker nothing of the secrets: the time it
// takes depends on the digest of what they sent, and finding a secret from
// a digest's neighbourhood is what SHA-256 makes infeasible. Equal-length
// digests also hide a secret's length.
type keyring struct {
	byDigest map[[sha256.Size]byte]*Key
	anyAdmin bool
}

// newKeyring holds copies of keys, each counted in m (nil: not counted).
func newKeyring(keys []Key, m *metrics) *keyring {
	k := &keyring{byDigest: map[[sha256.Size]byte]*Key{}}
	for i := range keys {
		key := new(Key)
		*key = keys[i]
		if m != nil {
			key.requests = m.key(key.Name)
		}
		for _, s := range key.Secrets {
			if s != "" {
				k.byDigest[sha256.Sum256([]byte(s))] = key
			}
		}
		k.anyAdmin = k.anyAdmin || key.Admin
	}
	return k
}

// off reports that no key is configured: authentication is off (leagued
// then listens on loopback only).
func (k *keyring) off() bool { return len(k.byDigest) == 0 }

// anonymous is the caller of every request while authentication is off.
var anonymous = &Key{}

// check decides whether r may call a route that needs `need`, and returns
// the caller's key (anonymous when authentication is off or the route is
// public; a known key refused for its role or scope comes with the error,
// for the metrics and the log). A route of one league (its path names it)
// also needs the key to open that league.
func (k *keyring) check(r *http.Request, need access) (*Key, error) {
	if need == public || k.off() {
		return anonymous, nil
	}
	secret, given := presentedKey(r)
	if !given && r.Header.Get("Authorization") != "" {
		return nil, league.Errorf(league.Unauthorized, "Authorization: not a key; send Authorization: Bearer <key> or X-API-Key")
	}
	if !given {
		return nil, league.Errorf(league.Unauthorized, "missing key: send Authorization: Bearer <key> or X-API-Key")
	}
	key, known := k.byDigest[sha256.Sum256([]byte(secret))]
	switch {
	case !known:
		return nil, league.Errorf(league.Unauthorized, "unknown key")
	case need == admin && !key.Admin && !k.anyAdmin:
		// Said only to a caller with a key: a stranger learns nothing of
		// the configuration.
		return key, league.Errorf(league.Forbidden, "admin routes are disabled: no admin keys are configured")
	case need == admin && !key.Admin:
		return key, league.Errorf(league.Forbidden, "this route needs an admin key")
	}
	// The same answer whether or not the league exists: a key learns
	// nothing of leagues outside its scope.
	if l := r.PathValue("league"); l != "" && !key.mayCall(l) {
		return key, league.Errorf(league.Forbidden, "key %q may not call league %q", key.Name, excerpt.Of(l))
	}
	if l := r.PathValue("leaderboard"); l != "" && !key.mayCallLeaderboard(l) {
		return key, league.Errorf(league.Forbidden, "key %q may not call leaderboard %q", key.Name, excerpt.Of(l))
	}
	return key, nil
}

// presentedKey returns the key of "Authorization: Bearer <key>", else of
// "X-API-Key: <key>". The scheme may end in spaces or tabs.
func presentedKey(r *http.Request) (string, bool) {
	if h := r.Header.Get("Authorization"); h != "" {
		if i := strings.IndexAny(h, " \t"); i > 0 && strings.EqualFold(h[:i], "Bearer") {
			if key := strings.Trim(h[i:], " \t"); key != "" {
				return key, true
			}
		}
	}
	if key := r.Header.Get("X-API-Key"); key != "" {
		return key, true
	}
	return "", false
}
