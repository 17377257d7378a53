package console

import (
	"net/http"
	"strconv"
	"time"
)

// Sign-in takes an admin key in a form (never in the URL: it would reach
// logs and the browser's history) and trades it for a session; the key is
// not kept, in the cookie or in Redis, only its name. With authentication
// off there is nothing to sign in with: the console is open (session.go).

func (c *Console) signinPage(w http.ResponseWriter, r *http.Request) {
	if c.cfg.Keys.Off() {
		http.Redirect(w, r, Prefix+"/", http.StatusSeeOther)
		return
	}
	c.render(w, r, http.StatusOK, "signin", nil, view{Title: "Sign in", Data: c.cfg.SessionTTL})
}

func (c *Console) signin(w http.ResponseWriter, r *http.Request) {
	if c.cfg.Keys.Off() {
		http.Redirect(w, r, Prefix+"/", http.StatusSeeOther)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	v := view{Title: "Sign in", Data: c.cfg.SessionTTL}
	if !sameOrigin(r) {
		// Another site signing an operator in with its own key would have
		// them act, unknowing, under that key.
		v.Error = "This sign-in came from another site, so it was refused."
		c.render(w, r, http.StatusForbidden, "signin", nil, v)
		return
	}
	client := c.client(r)
	if wait, err := c.limit.check(r.Context(), client); err != nil {
		if wait > 0 {
			w.Header().Set("Retry-After", strconv.Itoa(int(wait/time.Second)))
		}
		c.failure(w, r, "signin", nil, v, err)
		return
	}
	name, err := c.cfg.Keys.Admin(r.PostFormValue("key"))
	if err != nil {
		c.cfg.Logger.Warn("console: sign-in refused", "client", client, "err", err)
		if ferr := c.limit.failed(r.Context(), client); ferr != nil {
			err = ferr // not counted: refuse rather than let guesses through uncounted
		}
		c.failure(w, r, "signin", nil, v, err)
		return
	}
	sess, err := c.sessions.create(r.Context(), name)
	if err != nil {
		c.failure(w, r, "signin", nil, v, err)
		return
	}
	c.cfg.Logger.Info("console: signed in", "key", name, "client", client)
	c.setCookie(w, r, sess)
	http.Redirect(w, r, Prefix+"/", http.StatusSeeOther)
}

// signout ends the session in Redis, for every replica, not only in this
// browser.
func (c *Console) signout(w http.ResponseWriter, r *http.Request, sess *session) {
	if err := c.sessions.end(r.Context(), sess.id); err != nil {
		c.failure(w, r, "message", sess, view{Title: "Sign out"}, err)
		return
	}
	c.clearCookie(w, r)
	c.cfg.Logger.Info("console: signed out", "key", sess.Key)
	if c.cfg.Keys.Off() {
		http.Redirect(w, r, Prefix+"/", http.StatusSeeOther)
		return
	}
	c.render(w, r, http.StatusOK, "signin", nil, view{Title: "Sign in", Notice: "You are signed out.", Data: c.cfg.SessionTTL})
}
