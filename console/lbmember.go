package console

import (
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/league-engine/league/leaderboard"
)

// A member of a leaderboard: its rank and score on every board this
// period, where it stood in the period before, and how many distinct
// actors (voters) wrote for it where the leaderboard counts them, as GET
// /v1/leaderboards/{id}/members/{member} reads it; on a leaderboard with
// public boards both views, raw and public; on one with a catalog, its
// entry.

type lbMemberView struct {
	ID        string
	L         *leaderboard.Leaderboard
	Member    string
	Raw       []lbStanding
	Public    []lbStanding // nil without public boards
	OnABoard  bool         // on some board this period or the one before
	Counted   bool         // some board counts participants
	Catalog   *leaderboard.CatalogEntry
	Catalogue bool // the leaderboard has a catalog
}

type lbStanding struct {
	leaderboard.Standing
	Kind    leaderboard.Kind
	Counted bool
	From    time.Time // a rolling board's window start; zero for others
}

func (c *Console) lbMemberPage(w http.ResponseWriter, r *http.Request, sess *session) {
	id, member := r.PathValue("leaderboard"), r.PathValue("member")
	title := view{Title: "Member " + member + " of " + id, Data: Prefix + "/leaderboards/" + url.PathEscape(id)}
	v, err := c.lbMember(r, id, member)
	if err != nil {
		c.failure(w, r, "message", sess, title, err)
		return
	}
	title.Data = v
	c.render(w, r, http.StatusOK, "lbmember", sess, title)
}

func (c *Console) lbMember(r *http.Request, id, member string) (lbMemberView, error) {
	l, err := c.leaderboard(id)
	if err != nil {
		return lbMemberView{}, err
	}
	e := c.cfg.Leaderboards
	v := lbMemberView{ID: id, L: l, Member: member, Counted: len(l.Participants) > 0, Catalogue: l.Catalog}
	raw, err := e.Member(r.Context(), id, member)
	if err != nil {
		return lbMemberView{}, err
	}
	v.Raw = v.standings(l, raw)
	if l.PublicBoards {
		pub, err := e.Public().Member(r.Context(), id, member)
		if err != nil {
			return lbMemberView{}, err
		}
		v.Public = v.standings(l, pub)
	}
	if l.Catalog {
		entry, found, err := e.CatalogEntry(r.Context(), id, member)
		if err != nil {
			return lbMemberView{}, err
		}
		if found {
			v.Catalog = &entry
		}
	}
	return v, nil
}

// standings are sts as the page's rows, noting whether the member is on
// any board.
func (v *lbMemberView) standings(l *leaderboard.Leaderboard, sts []leaderboard.Standing) []lbStanding {
	out := make([]lbStanding, len(sts))
	for i, st := range sts {
		out[i] = lbStanding{Standing: st, Kind: st.Period.Kind, Counted: slices.Contains(l.Participants, st.Period.Kind)}
		if st.Period.Kind.Rolling() {
			out[i].From = l.WindowStart(st.Period)
		}
		if st.Rank > 0 || (st.Previous != nil && st.Previous.Rank > 0) {
			v.OnABoard = true
		}
	}
	return out
}

// standingsTable is what the member page's standings template is given.
type standingsTable struct {
	Rows       []lbStanding
	ID, Member string
	Counted    bool
	Public     bool
}

func standingsOf(rows []lbStanding, id, member string, counted, public bool) standingsTable {
	return standingsTable{Rows: rows, ID: id, Member: member, Counted: counted, Public: public}
}
