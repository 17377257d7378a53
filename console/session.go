package console

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/league-engine/league/league"
)

// Sessions live in Redis, so that every replica of leagued knows them:
//
//	<ns>:console:s:<sha256 of the session id, hex>  hash  key -> the admin key's name ("" with authentication off);
//	                                                      csrf -> the session's CSRF token; TTL: the session's life
//
// The cookie holds the id (32 random bytes, hex); Redis only its digest,
// so a dump of Redis or a MONITOR opens no session.

// cookieName is the session cookie's name.
const cookieName = "league_console"

// session is a signed-in operator.
type session struct {
	id   string // the cookie's value
	Key  string // the admin key's name; "" with authentication off
	CSRF string
}

type sessions struct {
	rdb    redis.UniversalClient
	prefix string
	ttl    time.Duration
}

func newSessions(rdb redis.UniversalClient, ns string, ttl time.Duration) *sessions {
	return &sessions{rdb: rdb, prefix: ns + ":console:s:", ttl: ttl}
}

func (s *sessions) key(id string) string {
	d := sha256.Sum256([]byte(id))
	return s.prefix + hex.EncodeToString(d[:])
}

// randomHex is n random bytes as hex.
func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b) // never fails (crypto/rand)
	return hex.EncodeToString(b)
}

// create starts a session of the admin key named key.
func (s *sessions) create(ctx context.Context, key string) (session, error) {
	sess := session{id: randomHex(32), Key: key, CSRF: randomHex(32)}
	k := s.key(sess.id)
	_, err := s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.HSet(ctx, k, "key", sess.Key, "csrf", sess.CSRF)
		p.Expire(ctx, k, s.ttl)
		return nil
	})
	return sess, league.RedisError("console session", err)
}

// get returns the session of id; ok is false when there is none (never
// made, expired or ended).
func (s *sessions) get(ctx context.Context, id string) (sess session, ok bool, err error) {
	if len(id) != 64 {
		return session{}, false, nil // not one of ours: spare Redis
	}
	v, err := s.rdb.HMGet(ctx, s.key(id), "key", "csrf").Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return session{}, false, league.RedisError("console session", err)
	}
	key, _ := v[0].(string)
	csrf, _ := v[1].(string)
	if csrf == "" {
		return session{}, false, nil
	}
	return session{id: id, Key: key, CSRF: csrf}, true, nil
}

// end ends the session of id.
func (s *sessions) end(ctx context.Context, id string) error {
	return league.RedisError("console session", s.rdb.Del(ctx, s.key(id)).Err())
}

// setCookie gives the browser the session: HttpOnly (no script reads it),
// SameSite=Strict (no other site's page sends it), Secure when the request
// came over TLS (directly or through a trusted proxy: client.go), scoped
// to the console and expiring with the session.
func (c *Console) setCookie(w http.ResponseWriter, r *http.Request, sess session) {
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: sess.id, Path: Prefix, MaxAge: int(c.cfg.SessionTTL / time.Second),
		HttpOnly: true, Secure: c.secure(r), SameSite: http.SameSiteStrictMode})
}

// clearCookie tells the browser to forget the session.
func (c *Console) clearCookie(w http.ResponseWriter, r *http.Request) {
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: "", Path: Prefix, MaxAge: -1,
		HttpOnly: true, Secure: c.secure(r), SameSite: http.SameSiteStrictMode})
}

// session returns the request's session, if it has a live one whose key
// is still an admin key. With authentication off there is no sign-in: a
// request without a session gets one (of no key), made here.
func (c *Console) session(w http.ResponseWriter, r *http.Request) (session, bool, error) {
	if ck, err := r.Cookie(cookieName); err == nil {
		sess, ok, err := c.sessions.get(r.Context(), ck.Value)
		if err != nil {
			return session{}, false, err
		}
		if ok && (c.cfg.Keys.Off() || c.cfg.Keys.IsAdmin(sess.Key)) {
			return sess, true, nil
		}
	}
	if !c.cfg.Keys.Off() {
		return session{}, false, nil
	}
	sess, err := c.sessions.create(r.Context(), "")
	if err != nil {
		return session{}, false, err
	}
	c.setCookie(w, r, sess)
	return sess, true, nil
}
