package console

import (
	"net/http"
	"time"

	"github.com/league-engine/league/league"
)

// leagueRow is a league on the leagues page: what GET /v1/leagues/{league}
// reads (its current period and the players of each tier), and how many
// writes it holds for a decision.
type leagueRow struct {
	ID      string
	Period  league.Period
	Left    time.Duration
	Tiers   []tierRow // lowest first
	Players int64
	Holds   bool
	Held    int64
	Error   string // what could not be read; the other leagues still show
}

type tierRow struct {
	ID, Name string
	Players  int64
}

func (c *Console) leagues(w http.ResponseWriter, r *http.Request, sess *session) {
	var rows []leagueRow
	for _, l := range c.cfg.Engine.Leagues() {
		row, err := c.leagueRow(r, l)
		if err != nil {
			if league.ErrorCode(err) == league.Internal {
				c.cfg.Logger.Error("console: reading a league", "league", l.ID, "err", err)
			}
			row = leagueRow{ID: l.ID, Error: league.ErrorMessage(err)}
		}
		rows = append(rows, row)
	}
	c.render(w, r, http.StatusOK, "leagues", sess, view{Title: "Leagues", Data: rows})
}

func (c *Console) leagueRow(r *http.Request, l *league.League) (leagueRow, error) {
	e := c.cfg.Engine
	cur, err := e.Current(l.ID)
	if err != nil {
		return leagueRow{}, err
	}
	pop, err := e.Populations(r.Context(), l.ID, cur)
	if err != nil {
		return leagueRow{}, err
	}
	row := leagueRow{ID: l.ID, Period: cur, Left: cur.End.Sub(c.cfg.Now()), Holds: l.Hold}
	for _, t := range l.Ladder.Tiers() {
		n := int64(pop[t.ID])
		row.Tiers = append(row.Tiers, tierRow{ID: t.ID, Name: t.Name, Players: n})
		row.Players += n
	}
	if l.Hold {
		_, held, err := e.HeldWrites(r.Context(), l.ID, "")
		if err != nil {
			return leagueRow{}, err
		}
		row.Held = int64(len(held))
	}
	return row, nil
}
