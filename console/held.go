package console

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/league-engine/league/internal/excerpt"
	"github.com/league-engine/league/league"
)

// Held writes (league.League.Hold): a period's list, with a form to
// approve or reject each. A decision is logged with the admin key's name,
// as the admin API logs it.

// heldPage is the held page's data.
type heldPage struct {
	League  string
	Period  league.Period
	Current bool // only the current period's writes can be approved
	Held    []league.Held
	CSRF    string
}

// held lists the writes a league holds in a period: ?period=, else the
// current one.
func (c *Console) held(w http.ResponseWriter, r *http.Request, sess *session) {
	c.renderHeld(w, r, sess, r.URL.Query().Get("period"), http.StatusOK, view{})
}

// renderHeld renders the held page of period (its id, "" for the current
// one) with status, and v's notice or error.
func (c *Console) renderHeld(w http.ResponseWriter, r *http.Request, sess *session, period string, status int, v view) {
	leagueID := r.PathValue("league")
	v.Title = "Held writes of " + leagueID
	e := c.cfg.Engine
	cur, err := e.Current(leagueID)
	if err != nil {
		c.failure(w, r, "message", sess, v, err)
		return
	}
	p, list, err := e.HeldWrites(r.Context(), leagueID, period)
	if err != nil {
		c.failure(w, r, "message", sess, v, err)
		return
	}
	v.Data = heldPage{League: leagueID, Period: p, Current: p == cur, Held: list, CSRF: sess.CSRF}
	c.render(w, r, status, "held", sess, v)
}

// decide approves or rejects a held write: POST .../held/{id}/approve or
// /reject, with the period the page showed. The page answers with the
// list as it now is, saying what was done or why nothing was.
func (c *Console) decide(w http.ResponseWriter, r *http.Request, sess *session) {
	leagueID, period := r.PathValue("league"), r.PostFormValue("period")
	notice, err := c.decision(r, sess, leagueID, period)
	if err != nil {
		c.renderHeld(w, r, sess, period, c.cfg.Status(err), view{Error: "Nothing was changed: " + league.ErrorMessage(err)})
		return
	}
	c.renderHeld(w, r, sess, period, http.StatusOK, view{Notice: notice})
}

// decision carries out the decision and says what it did.
func (c *Console) decision(r *http.Request, sess *session, leagueID, period string) (string, error) {
	v := r.PathValue("id")
	id, err := strconv.ParseInt(v, 10, 64)
	if err != nil || id < 1 {
		return "", &league.Error{Code: league.Invalid, Field: "id", Message: strconv.Quote(excerpt.Of(v)) + " is not a held write's id (a whole number from 1)"}
	}
	if period == "" {
		// Ids count from 1 in each period: a decision must say which
		// period's write it means.
		return "", &league.Error{Code: league.Invalid, Field: "period", Message: "missing: the form names the period of the held write"}
	}
	e := c.cfg.Engine
	switch r.PathValue("decision") {
	case "approve":
		cur, err := e.Current(leagueID)
		if err != nil {
			return "", err
		}
		if period != cur.ID() {
			// Engine.Approve decides the current period's write id: the
			// page was of another period (rendered before a rollover).
			return "", league.Errorf(league.PeriodClosed, "period %s of league %q is not the current one: its held writes can only be rejected", excerpt.Of(period), leagueID)
		}
		res, err := e.Approve(r.Context(), leagueID, id)
		if err != nil {
			return "", err
		}
		c.cfg.Logger.Info("console: held write approved", "league", leagueID, "period", res.Period.ID(), "id", id, "score", res.Score, "key", sess.Key)
		return fmt.Sprintf("Held write %d approved: the player's score is now %s.", id, thousands(res.Score)), nil
	case "reject":
		h, err := e.Reject(r.Context(), leagueID, period, id)
		if err != nil {
			return "", err
		}
		c.cfg.Logger.Info("console: held write rejected", "league", leagueID, "period", h.Period.ID(), "id", id,
			"player", h.Player, "value", h.Value, "key", sess.Key)
		return fmt.Sprintf("Held write %d of player %s (%s) rejected: it will never count.", id, h.Player, thousands(h.Value)), nil
	default:
		return "", league.Errorf(league.NotFound, "no decision %q: approve or reject", excerpt.Of(r.PathValue("decision")))
	}
}
