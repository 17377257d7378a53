package console

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/league-engine/league/leaderboard"
	"github.com/league-engine/league/league"
)

// The leaderboards page: each configured leaderboard with its boards and
// their current periods, how it is kept (shards, queue, catalog, public
// boards, participants) and its rate limits, as GET /v1/leaderboards and
// GET /v1/admin/leaderboards/{id}/limits read them; a form finds a member.
// /console/leaderboards/{id} is the same page for one leaderboard, which
// the other pages' crumbs link to.

// lbRow is a leaderboard on the leaderboards page.
type lbRow struct {
	ID     string
	L      *leaderboard.Leaderboard
	Boards []lbBoardRow
	// Behind: the writes waiting in a queued leaderboard's queue.
	Behind int64
	Error  string // what could not be read; the other leaderboards still show
}

// lbBoardRow is one board of a leaderboard: its current period, and the
// one before (none for the all-time board).
type lbBoardRow struct {
	Kind     leaderboard.Kind
	Rolling  bool
	Period   leaderboard.Period
	From     time.Time // a rolling board's window start
	Previous string    // the period before's id, "" for the all-time board
	Counted  bool      // its periods count participants
	Public   bool      // it has a public twin
}

type leaderboardsPage struct {
	Rows []lbRow
	One  bool // one leaderboard's page
}

func (c *Console) leaderboardsPage(w http.ResponseWriter, r *http.Request, sess *session) {
	id := r.PathValue("leaderboard")
	title := "Leaderboards"
	var boards []*leaderboard.Leaderboard
	if e := c.cfg.Leaderboards; e != nil {
		boards = e.Leaderboards()
	}
	if id != "" {
		l, err := c.leaderboard(id)
		if err != nil {
			c.failure(w, r, "message", sess, view{Title: "Leaderboard " + id, Data: Prefix + "/leaderboards"}, err)
			return
		}
		boards, title = []*leaderboard.Leaderboard{l}, "Leaderboard "+id
	}
	page := leaderboardsPage{One: id != ""}
	for _, l := range boards {
		row, err := c.lbRow(r, l)
		if err != nil {
			row = lbRow{ID: l.ID, L: l, Error: c.logged(r, err)}
		}
		page.Rows = append(page.Rows, row)
	}
	c.render(w, r, http.StatusOK, "leaderboards", sess, view{Title: title, Data: page})
}

// leaderboard returns leaderboard id, NotFound when there is none (or no
// leaderboard engine).
func (c *Console) leaderboard(id string) (*leaderboard.Leaderboard, error) {
	if c.cfg.Leaderboards == nil {
		return nil, league.Errorf(league.NotFound, "unknown leaderboard %q: this server keeps no leaderboards", id)
	}
	return c.cfg.Leaderboards.Leaderboard(id)
}

func (c *Console) lbRow(r *http.Request, l *leaderboard.Leaderboard) (lbRow, error) {
	e := c.cfg.Leaderboards
	cur, err := e.Current(l.ID)
	if err != nil {
		return lbRow{}, err
	}
	row := lbRow{ID: l.ID, L: l}
	for i, k := range l.Boards() {
		b := lbBoardRow{Kind: k, Rolling: k.Rolling(), Period: cur[i], Counted: slices.Contains(l.Participants, k),
			Public: l.PublicBoards && !k.Rolling()}
		if b.Rolling {
			b.From = l.WindowStart(cur[i])
		}
		if k != leaderboard.AllTime {
			b.Previous = l.Calendar.Previous(cur[i]).ID()
		}
		row.Boards = append(row.Boards, b)
	}
	if l.Queue != nil {
		if row.Behind, err = e.Lag(r.Context(), l.ID); err != nil {
			return lbRow{}, err
		}
	}
	return row, nil
}

// findMember opens the member the form names: ?member=, refused here,
// saying why, when it is no member id.
func (c *Console) findMember(w http.ResponseWriter, r *http.Request, sess *session) {
	id := r.PathValue("leaderboard")
	back := Prefix + "/leaderboards/" + url.PathEscape(id)
	if _, err := c.leaderboard(id); err != nil {
		c.failure(w, r, "message", sess, view{Title: "Find a member", Data: Prefix + "/leaderboards"}, err)
		return
	}
	member := strings.TrimSpace(r.URL.Query().Get("member"))
	err := leaderboard.CheckMember(member)
	if err == nil {
		http.Redirect(w, r, back+"/members/"+url.PathEscape(member), http.StatusSeeOther)
		return
	}
	c.failure(w, r, "message", sess, view{Title: "Find a member of " + id, Data: back}, err)
}
