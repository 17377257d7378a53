package api

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strings"

	"github.com/league-engine/league/league"
)

// keyring holds the SHA-256 digests of the configured keys. Comparing
// digests of equal length in constant time, against every key without
// stopping at a match, tells an attacker neither a key's bytes nor its
// length nor which key matched.
type keyring struct {
	api, admin [][sha256.Size]byte
}

func newKeyring(apiKeys, adminKeys []string) keyring {
	digests := func(keys []string) [][sha256.Size]byte {
		var out [][sha256.Size]byte
		for _, k := range keys {
			if k != "" {
				out = append(out, sha256.Sum256([]byte(k)))
			}
		}
		return out
	}
	return keyring{api: digests(apiKeys), admin: digests(adminKeys)}
}

// off reports that no key is configured: authentication is off (leagued
// then listens on loopback only).
func (k keyring) off() bool { return len(k.api) == 0 && len(k.admin) == 0 }

// check decides whether r may call a route that needs `need`.
func (k keyring) check(r *http.Request, need access) error {
	if need == public || k.off() {
		return nil
	}
	key, given := presentedKey(r)
	if !given && r.Header.Get("Authorization") != "" {
		return league.Errorf(league.Unauthorized, "Authorization: not a key; send Authorization: Bearer <key> or X-API-Key")
	}
	if !given {
		return league.Errorf(league.Unauthorized, "missing key: send Authorization: Bearer <key> or X-API-Key")
	}
	d := sha256.Sum256([]byte(key))
	isAdmin, isAPI := matches(k.admin, d), matches(k.api, d)
	switch {
	case isAdmin:
		return nil
	case isAPI && need == game:
		return nil
	case isAPI && len(k.admin) == 0:
		// Said only to a caller with a key: a stranger learns nothing of
		// the configuration.
		return league.Errorf(league.Forbidden, "admin routes are disabled: no admin keys are configured")
	case isAPI:
		return league.Errorf(league.Forbidden, "this route needs an admin key")
	default:
		return league.Errorf(league.Unauthorized, "unknown key")
	}
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

// matches compares d with every digest, in constant time.
func matches(keys [][sha256.Size]byte, d [sha256.Size]byte) bool {
	found := 0
	for i := range keys {
		found |= subtle.ConstantTimeCompare(keys[i][:], d[:])
	}
	return found == 1
}
