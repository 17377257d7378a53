package console

import (
	"crypto/subtle"
	"net/http"
	"net/url"
)

// Cross-site request forgery: another site's page must not make a signed-
// in operator's browser approve, reject or sign out. Three guards, any one
// of which stops it: the cookie is SameSite=Strict (a modern browser does
// not send it with another site's request); a state-changing request is a
// POST carrying the session's token in a hidden field, which another site
// cannot read; and its Origin (or, without one, its Referer) must name
// this host when the browser sends one.

// csrfField is the name of the form field of the token.
const csrfField = "csrf"

// sameOrigin reports whether r came from a page of this host, as far as
// the browser says: a request saying nothing passes (the token still
// guards it), one from elsewhere, or from an opaque origin ("null": a
// sandboxed frame, a data: URL), does not.
func sameOrigin(r *http.Request) bool {
	from := r.Header.Get("Origin")
	if from == "" {
		from = r.Header.Get("Referer")
	}
	if from == "" {
		return true
	}
	u, err := url.Parse(from)
	return err == nil && u.Host != "" && u.Host == r.Host
}

// validToken reports whether the form of r carries sess's token.
func validToken(r *http.Request, sess session) bool {
	got := r.PostFormValue(csrfField)
	return got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(sess.CSRF)) == 1
}
