package console

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/league-engine/league/league"
)

// A live sub-board: ranks, names, avatars, scores and zones, as
// GET /v1/leagues/{league}/boards/{board} reads them. The page refreshes
// its rows by itself (static/console.js polls the rows fragment, pausing
// while the tab is hidden or the operator pauses it); without script it
// is a plain page to reload.

type boardView struct {
	League    string
	Tier      string // its name
	Board     league.Board
	BoardSize int // the league's most per board
	Prev      string
	Next      string  // "" when the tier has no further board
	Every     float64 // seconds between refreshes
	Promote   int     // players in each zone now
	Demote    int
}

func (c *Console) boardPage(w http.ResponseWriter, r *http.Request, sess *session) {
	v, err := c.board(r)
	if err != nil {
		c.failure(w, r, "message", sess, view{Title: "Board " + r.PathValue("board")}, err)
		return
	}
	c.render(w, r, http.StatusOK, "board", sess, view{Title: "Board " + v.Board.ID.String() + " of " + v.League, Data: v})
}

// boardRows is the rows fragment the page's script swaps in.
func (c *Console) boardRows(w http.ResponseWriter, r *http.Request, sess *session) {
	v, err := c.board(r)
	if err != nil {
		// The script stops on an error and says so; the status is the API's.
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(c.cfg.Status(err))
		w.Write([]byte(c.logged(r, err)))
		return
	}
	c.fragment(w, r, "board", "rows", v)
}

// board reads the board of the request's path, in the current period.
func (c *Console) board(r *http.Request) (boardView, error) {
	leagueID := r.PathValue("league")
	l, err := c.cfg.Engine.League(leagueID)
	if err != nil {
		return boardView{}, err
	}
	id, err := league.ParseBoardID(r.PathValue("board"))
	if err != nil {
		return boardView{}, err
	}
	b, err := c.cfg.Engine.Board(r.Context(), leagueID, league.Period{}, id)
	if err != nil {
		return boardView{}, err
	}
	v := boardView{League: leagueID, Tier: id.Tier, Board: b, BoardSize: l.BoardSize, Every: c.cfg.Refresh.Seconds()}
	if i, err := l.TierIndex(id.Tier); err == nil {
		v.Tier = l.Ladder.Tier(i).Name
	}
	if id.N > 1 {
		v.Prev = league.BoardID{Tier: id.Tier, Cohort: id.Cohort, N: id.N - 1}.String()
	}
	if seqs, err := c.cfg.Engine.Sequences(r.Context(), leagueID, b.Period); err == nil {
		for _, q := range seqs {
			if q.Tier == id.Tier && q.Cohort == id.Cohort && id.N < q.Boards {
				v.Next = league.BoardID{Tier: id.Tier, Cohort: id.Cohort, N: id.N + 1}.String()
			}
		}
	}
	for _, e := range b.Entries {
		switch e.Zone.String() {
		case "promote":
			v.Promote++
		case "demote":
			v.Demote++
		}
	}
	return v, nil
}

// find opens what the league page's forms name: ?board= or ?player=. A
// value that is not a board id or a player id is refused here, saying
// why, rather than put in a path.
func (c *Console) find(w http.ResponseWriter, r *http.Request, sess *session) {
	leagueID := r.PathValue("league")
	if _, err := c.cfg.Engine.League(leagueID); err != nil {
		c.failure(w, r, "message", sess, view{Title: "Find"}, err)
		return
	}
	q := r.URL.Query()
	board, player := strings.TrimSpace(q.Get("board")), strings.TrimSpace(q.Get("player"))
	back := Prefix + "/leagues/" + url.PathEscape(leagueID)
	var err error
	switch {
	case board != "":
		if _, err = league.ParseBoardID(board); err == nil {
			http.Redirect(w, r, back+"/boards/"+url.PathEscape(board), http.StatusSeeOther)
			return
		}
	case player != "":
		if err = league.CheckPlayerID(player); err == nil {
			http.Redirect(w, r, back+"/players/"+url.PathEscape(player), http.StatusSeeOther)
			return
		}
	default:
		err = league.Errorf(league.Invalid, "enter a board (as gold-3) or a player id")
	}
	c.failure(w, r, "message", sess, view{Title: "Find in " + leagueID, Data: back}, err)
}
