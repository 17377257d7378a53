package console

import (
	"bytes"
	"errors"
	"fmt"
	"html/template"
	"mime"
	"net/http"

	"github.com/league-engine/league/league"
)

// view is what every page's template is given: the layout reads Title,
// Session, AuthOff, Notice and Error; the page its Data.
type view struct {
	Title   string
	Session *session // nil: signed out
	AuthOff bool
	Notice  string // what an action did
	Error   string // what failed
	Data    any
}

// pages are the parsed templates, one set per page, each with the layout.
type pages map[string]*template.Template

// pageNames are the templates/<name>.html files; "message" is the page of
// a refusal or failure with nothing else to show.
var pageNames = []string{"signin", "leagues", "league", "board", "player", "held", "settle", "health", "message",
	"leaderboards", "lbboard", "lbmember", "lbcatalog", "lblimits"}

func parsePages() *pages {
	p := pages{}
	for _, name := range pageNames {
		p[name] = template.Must(template.New(name).Funcs(funcs).ParseFS(files,
			"templates/layout.html", "templates/charts.html", "templates/"+name+".html"))
	}
	return &p
}

// maxForm bounds a form's body: the largest is a key and a token.
const maxForm = 16 << 10

// maxUpload bounds an upload's body: a catalog file as large as the API
// takes (1 MiB), and the form around it.
const maxUpload = 1<<20 + 16<<10

// render writes page name with status. html/template escapes what players
// wrote (ids, names) for where it lands.
func (c *Console) render(w http.ResponseWriter, r *http.Request, status int, name string, sess *session, v view) {
	v.Session, v.AuthOff = sess, c.cfg.Keys.Off()
	var b bytes.Buffer
	if err := (*c.pages)[name].ExecuteTemplate(&b, "layout", v); err != nil {
		c.cfg.Logger.Error("console: rendering a page", "page", name, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	w.Write(b.Bytes())
}

// fragment writes template part of page name, given data: a piece of a
// page the page's script swaps in (a live board's rows).
func (c *Console) fragment(w http.ResponseWriter, r *http.Request, name, part string, data any) {
	var b bytes.Buffer
	if err := (*c.pages)[name].ExecuteTemplate(&b, part, data); err != nil {
		c.cfg.Logger.Error("console: rendering a fragment", "page", name, "part", part, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write(b.Bytes())
}

// failure renders err on page name: its status from api's table, its
// message, and the log's full story of an internal error.
func (c *Console) failure(w http.ResponseWriter, r *http.Request, name string, sess *session, v view, err error) {
	if league.ErrorCode(err) == league.Internal {
		c.cfg.Logger.Error("console: internal error", "method", r.Method, "path", r.URL.Path, "err", err)
	}
	v.Error = league.ErrorMessage(err)
	c.render(w, r, c.cfg.Status(err), name, sess, v)
}

// page serves a page that needs a session: without one, the browser is
// sent to sign in.
func (c *Console) page(fn func(w http.ResponseWriter, r *http.Request, sess *session)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		sess, ok, err := c.session(w, r)
		if err != nil {
			c.failure(w, r, "message", nil, view{Title: "Unavailable"}, err)
			return
		}
		if !ok {
			http.Redirect(w, r, Prefix+"/signin", http.StatusSeeOther)
			return
		}
		fn(w, r, &sess)
	}
}

// action serves a POST that changes state: it needs a session, a page of
// this host as its origin and the session's token; failing any, it
// changes nothing and answers 403.
func (c *Console) action(fn func(w http.ResponseWriter, r *http.Request, sess *session)) http.HandlerFunc {
	return c.actionUpTo(maxForm, fn)
}

// actionUpTo is action for a form of up to limit bytes (a file's upload).
func (c *Console) actionUpTo(limit int64, fn func(w http.ResponseWriter, r *http.Request, sess *session)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, limit)
		sess, ok, err := c.session(w, r)
		if err != nil {
			c.failure(w, r, "message", nil, view{Title: "Unavailable"}, err)
			return
		}
		refused := view{Title: "Refused"}
		var tooBig *http.MaxBytesError
		switch {
		case ok && errors.As(parseForm(r, limit), &tooBig):
			refused.Error = fmt.Sprintf("The form is over %s bytes, so nothing was changed.", thousands(limit))
			c.render(w, r, http.StatusRequestEntityTooLarge, "message", &sess, refused)
			return
		case !ok:
			refused.Error = "Your session has ended, so nothing was changed. Sign in again, then retry."
			c.render(w, r, http.StatusForbidden, "message", nil, refused)
			return
		case !sameOrigin(r):
			refused.Error = "This request came from another site, so nothing was changed."
		case !validToken(r, sess):
			refused.Error = "This form is not one this console gave you (its security token is missing or wrong), so nothing was changed. Reload the page and retry."
		default:
			fn(w, r, &sess)
			return
		}
		c.cfg.Logger.Warn("console: a state-changing request refused", "path", r.URL.Path, "key", sess.Key, "reason", refused.Error)
		c.render(w, r, http.StatusForbidden, "message", &sess, refused)
	}
}

// parseForm reads a POST's form: a file's upload (multipart) in memory,
// up to limit bytes, or a plain form.
func parseForm(r *http.Request, limit int64) error {
	if media, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); media == "multipart/form-data" {
		return r.ParseMultipartForm(limit)
	}
	return r.ParseForm()
}
