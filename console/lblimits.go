package console

import (
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/league-engine/league/leaderboard"
)

// A leaderboard's rate limits and the writes they refused lately, as GET
// /v1/admin/leaderboards/{id}/limits reads them: each limit's name, what
// it counts by, its rate and extras, and the last refusals from the
// leaderboard's log (who wrote, for which member, from where).

// refusalsShown is how many refusals the page lists.
const refusalsShown = 50

type limitsView struct {
	ID       string
	L        *leaderboard.Leaderboard
	Limits   []limitRow
	Refusals []leaderboard.Refused
	Shown    int // refusalsShown
	Kept     int // leaderboard.RefusalLog
}

type limitRow struct {
	leaderboard.Limit
	By     string   // "actor, member"
	Rate   string   // "5 a day", "1, ever"
	Extras []string // "5 more from channel partner_x"
	Across bool     // taken across shards before the write
}

func (c *Console) limitsPage(w http.ResponseWriter, r *http.Request, sess *session) {
	id := r.PathValue("leaderboard")
	v := view{Title: "Rate limits of " + id, Data: Prefix + "/leaderboards"}
	l, err := c.leaderboard(id)
	if err != nil {
		c.failure(w, r, "message", sess, v, err)
		return
	}
	refused, err := c.cfg.Leaderboards.Refusals(r.Context(), id, refusalsShown)
	if err != nil {
		v.Data = Prefix + "/leaderboards/" + url.PathEscape(id)
		c.failure(w, r, "message", sess, v, err)
		return
	}
	d := limitsView{ID: id, L: l, Refusals: refused, Shown: refusalsShown, Kept: leaderboard.RefusalLog}
	for _, lim := range l.Limits {
		d.Limits = append(d.Limits, newLimitRow(l, lim))
	}
	v.Data = d
	c.render(w, r, http.StatusOK, "lblimits", sess, v)
}

func newLimitRow(l *leaderboard.Leaderboard, lim leaderboard.Limit) limitRow {
	row := limitRow{Limit: lim, Rate: rateOf(lim.Max, lim.Per), Across: l.AcrossShards(lim)}
	by := make([]string, len(lim.By))
	for i, d := range lim.By {
		by[i] = string(d)
	}
	row.By = strings.Join(by, ", ")
	for d, more := range lim.Extra {
		for v, n := range more {
			row.Extras = append(row.Extras, thousands(n)+" more from "+string(d)+" "+v)
		}
	}
	slices.Sort(row.Extras)
	return row
}

// rateOf writes a limit's rate: "5 a day", "1, ever".
func rateOf(max int64, per leaderboard.Per) string {
	if per == leaderboard.PerEver {
		return thousands(max) + ", ever"
	}
	return thousands(max) + " a " + string(per)
}
