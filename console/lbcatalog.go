package console

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/league-engine/league/internal/excerpt"
	"github.com/league-engine/league/leaderboard"
	"github.com/league-engine/league/league"
)

// A leaderboard's catalog: its entries a page at a time (GET
// /v1/admin/leaderboards/{id}/catalog), a form that imports a CSV file
// (as POST .../catalog does: all or nothing, every refused row listed with
// its column and why), and on a leaderboard with public boards a form that
// sets one member's multiplier (PUT .../catalog/{member}/multiplier),
// which a row's Change link fills in. Both forms carry the session's
// CSRF token (action), and a refused one changes nothing. Imports and
// multipliers are logged with the admin key's name, as the API logs them.

// catalogPageSize is how many entries a page of the catalog shows.
const catalogPageSize = 50

type catalogView struct {
	ID        string
	L         *leaderboard.Leaderboard
	Entries   []catalogRow
	Cursor    string // this page's ("" the first)
	Next      string // the next page's, "" after the last
	HasPublic bool
	CSRF      string
	// What the import form did: the file's name, and the rows it refused.
	File     string
	Problems []leaderboard.Problem
	More     int // problems past those listed
	// The multiplier form: its member and value (filled by a row's Change
	// link, or kept from a refused submission), and whether it was refused.
	Edit, EditValue string
	EditError       bool
}

type catalogRow struct {
	leaderboard.CatalogEntry
	Meta string // its metadata as JSON text
}

func (c *Console) catalogPage(w http.ResponseWriter, r *http.Request, sess *session) {
	q := r.URL.Query()
	d := catalogView{Cursor: q.Get("cursor"), Edit: strings.TrimSpace(q.Get("edit"))}
	c.renderCatalog(w, r, sess, http.StatusOK, view{}, d)
}

// renderCatalog renders the catalog page with status, v's notice or error,
// and what d says of the forms; it reads the page of entries d.Cursor
// names.
func (c *Console) renderCatalog(w http.ResponseWriter, r *http.Request, sess *session, status int, v view, d catalogView) {
	id := r.PathValue("leaderboard")
	v.Title = "Catalog of " + id
	l, err := c.leaderboard(id)
	if err != nil {
		v.Data = Prefix + "/leaderboards"
		c.failure(w, r, "message", sess, v, err)
		return
	}
	e := c.cfg.Leaderboards
	page, err := e.Catalog(r.Context(), id, d.Cursor, catalogPageSize)
	if err != nil {
		v.Data = Prefix + "/leaderboards/" + url.PathEscape(id)
		c.failure(w, r, "message", sess, v, err)
		return
	}
	d.ID, d.L, d.Next, d.HasPublic, d.CSRF = id, l, page.Next, l.PublicBoards, sess.CSRF
	for _, entry := range page.Entries {
		d.Entries = append(d.Entries, catalogRow{CatalogEntry: entry, Meta: string(entry.Metadata)})
	}
	if d.Edit != "" && d.EditValue == "" && !d.EditError {
		// a row's Change link: the form shows the member's multiplier now
		if entry, _, err := e.CatalogEntry(r.Context(), id, d.Edit); err == nil {
			d.EditValue = strconv.FormatInt(entry.Multiplier, 10)
		}
	}
	v.Data = d
	c.render(w, r, status, "lbcatalog", sess, v)
}

// importCatalog imports the CSV file the form uploads: POST
// .../catalog/import, multipart, the file in "file".
func (c *Console) importCatalog(w http.ResponseWriter, r *http.Request, sess *session) {
	id := r.PathValue("leaderboard")
	d := catalogView{}
	file, header, err := r.FormFile("file")
	if err != nil {
		msg := "Nothing was imported: choose a CSV file to import."
		if !errors.Is(err, http.ErrMissingFile) {
			msg = "Nothing was imported: the upload could not be read (" + err.Error() + ")."
		}
		c.renderCatalog(w, r, sess, http.StatusBadRequest, view{Error: msg}, d)
		return
	}
	defer file.Close()
	d.File = header.Filename
	entries, changed, err := c.cfg.Leaderboards.ImportCSV(r.Context(), id, file)
	if err != nil {
		var ie *leaderboard.ImportError
		msg := "Nothing was imported: " + c.logged(r, err)
		if errors.As(err, &ie) {
			d.Problems, d.More = ie.Problems, ie.More
			n := len(ie.Problems) + ie.More
			msg = fmt.Sprintf("Nothing was imported: %s has %s, listed below. Fix them and import the file again.", excerpt.Of(d.File), plural(n, "problem"))
			if ie.Imported > 0 {
				msg = fmt.Sprintf("The import of %s stopped at %s, listed below, after %s were imported (importing the file again, fixed, completes it).",
					excerpt.Of(d.File), plural(n, "problem"), plural(ie.Imported, "entry"))
			}
		}
		c.cfg.Logger.Info("console: catalog import refused", "leaderboard", id, "file", d.File, "err", err, "key", sess.Key)
		c.renderCatalog(w, r, sess, c.cfg.Status(err), view{Error: msg}, d)
		return
	}
	c.cfg.Logger.Info("console: catalog imported", "leaderboard", id, "file", d.File, "entries", entries, "changed", changed, "key", sess.Key)
	notice := fmt.Sprintf("Imported %s from %s: %s changed.", plural(entries, "entry"), excerpt.Of(d.File), plural(changed, "member"))
	c.renderCatalog(w, r, sess, http.StatusOK, view{Notice: notice}, d)
}

// setMultiplier sets the multiplier the form names: POST
// .../catalog/multiplier with member and multiplier.
func (c *Console) setMultiplier(w http.ResponseWriter, r *http.Request, sess *session) {
	id := r.PathValue("leaderboard")
	member, value := strings.TrimSpace(r.PostFormValue("member")), strings.TrimSpace(r.PostFormValue("multiplier"))
	d := catalogView{Edit: member, EditValue: value}
	prev, m, err := c.multiplier(r, id, member, value)
	if err != nil {
		d.EditError = true
		c.renderCatalog(w, r, sess, c.cfg.Status(err), view{Error: "Nothing was changed: " + c.logged(r, err)}, d)
		return
	}
	c.cfg.Logger.Info("console: multiplier set", "leaderboard", id, "member", member, "multiplier", m, "previous", prev, "key", sess.Key)
	d.Edit, d.EditValue = "", ""
	notice := fmt.Sprintf("The multiplier of %s is now %s (it was %s). It counts from the member's next write on: what earlier writes counted stays.",
		member, thousands(m), thousands(prev))
	c.renderCatalog(w, r, sess, http.StatusOK, view{Notice: notice}, d)
}

func (c *Console) multiplier(r *http.Request, id, member, value string) (prev, m int64, err error) {
	if _, err := c.leaderboard(id); err != nil {
		return 0, 0, err
	}
	if value == "" {
		return 0, 0, &league.Error{Code: league.Invalid, Field: "multiplier", Message: "enter a whole number from 1 to " + thousands(leaderboard.MaxMultiplier)}
	}
	m, err = strconv.ParseInt(value, 10, 64)
	if err != nil {
		return 0, 0, &league.Error{Code: league.Invalid, Field: "multiplier",
			Message: fmt.Sprintf("%q is not a whole number from 1 to %s", excerpt.Of(value), thousands(leaderboard.MaxMultiplier))}
	}
	prev, err = c.cfg.Leaderboards.SetMultiplier(r.Context(), id, member, m)
	return prev, m, err
}

// plural writes n and a noun, with an s when n is not 1: "1 entry", "3
// entries", "1,250 problems".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if strings.HasSuffix(noun, "y") && !strings.ContainsAny(noun[len(noun)-2:len(noun)-1], "aeiou") {
		return thousands(int64(n)) + " " + strings.TrimSuffix(noun, "y") + "ies"
	}
	return thousands(int64(n)) + " " + noun + "s"
}
