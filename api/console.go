package api

import (
	"context"
	"crypto/sha256"
	"net/http"

	"github.com/league-engine/league/console"
	"github.com/league-engine/league/league"
)

// The back-office console (package console) is served under /console by
// this server, which owns the keys: an operator signs in with an admin key
// and the console asks the keyring, as it is now (SIGHUP reloads), whose
// key it is. Its pages are HTML, not the API's JSON: a raw route, as
// /metrics is, absent from openapi.yaml.

// consoleKeys answers the console's questions from the server's keyring.
type consoleKeys struct{ s *Server }

func (k consoleKeys) Off() bool { return k.s.keys.Load().off() }

func (k consoleKeys) Admin(secret string) (string, error) {
	ring := k.s.keys.Load()
	if secret == "" {
		return "", league.Errorf(league.Unauthorized, "enter an admin key")
	}
	key, known := ring.byDigest[sha256.Sum256([]byte(secret))]
	switch {
	case !known:
		return "", league.Errorf(league.Unauthorized, "unknown key: check it and retry")
	case !key.Admin:
		return "", league.Errorf(league.Forbidden, "key %q is a game server's key: the console needs an admin key", key.Name)
	}
	return key.Name, nil
}

func (k consoleKeys) IsAdmin(name string) bool {
	for _, key := range k.s.keys.Load().byDigest {
		if key.Name == name && key.Admin {
			return true
		}
	}
	return false
}

// mountConsole serves the console, when configured.
func (s *Server) mountConsole(cfg *console.Config) {
	if cfg == nil {
		return
	}
	c := *cfg
	c.Engine, c.Leaderboards, c.Store, c.Audit, c.Keys, c.Status, c.Metrics = s.engine, s.boards, s.store, s.audit, consoleKeys{s}, status, s.registry
	if s.settler != nil {
		c.Settler = s.settler
	}
	if c.Logger == nil {
		c.Logger = s.log
	}
	h := console.New(c)
	s.handleRaw(console.Prefix+"/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// A page's reads have a request's deadline, as the API's do.
		ctx, cancel := context.WithTimeout(r.Context(), s.requestTimeout)
		defer cancel()
		h.ServeHTTP(w, r.WithContext(ctx))
	}))
	s.handleRaw("GET "+console.Prefix, http.RedirectHandler(console.Prefix+"/", http.StatusMovedPermanently))
}
