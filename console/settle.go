package console

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/league-engine/league/internal/excerpt"
	"github.com/league-engine/league/league"
)

// Settle now: a league's settlement preview (league.Engine.Preview: decided
// by the settlement's own code, nothing written) and a form that settles
// the periods waiting for it. A period is never settled before its end
// (joins and writes decide their period by the clock), so "now" means the
// ended periods the scheduler has not settled yet: none, normally, and the
// page then previews the current period as a forecast, with no form.

// Settler runs a settlement now; the scheduler implements it (api.Settler).
type Settler interface {
	// SettleNow settles the period starting at period, after every older
	// one waiting: all of them, oldest first.
	SettleNow(ctx context.Context, league string, period time.Time) (league.Settlement, error)
}

// settleRows is how many rows of the preview the page shows; leaguectl
// preview and the admin API page through the rest.
const settleRows = 50

// afterSettling bounds the page rendered after a settlement: the request's
// own deadline may have passed while it settled.
const afterSettling = 5 * time.Second

// settlePage is the Settle now page's data. Counts are int64 for the
// templates' thousands.
type settlePage struct {
	League   string
	Period   league.Period
	Final    bool
	Waiting  []league.Period
	Players  int64
	Rewarded int64
	Tiers    []settleTier
	Moves    []settleMove
	Rewards  []settleItem
	Rows     []league.PreviewRow
	More     bool // rows past those shown
	// CanSettle: this period waits and a settler runs here, so the form
	// is shown; NoSettler says why it is not when periods wait.
	CanSettle, NoSettler bool
	CSRF                 string
	Result               *settleResult // what the form just did
}

type settleTier struct {
	ID, Name                                            string
	Players, Promoted, Demoted, Stayed, Rewarded, After int64
}

type settleMove struct {
	From, To string
	Players  int64
}

type settleItem struct {
	ID           string
	Qty, Players int64
}

// settleResult is a settlement the form ran.
type settleResult struct {
	Period   league.Period
	Status   string
	Players  int64
	Tiers    []settleTier
	Finished time.Time
	Already  bool // settled before the click: nothing was done
}

// settle shows the preview of ?period=, else of the oldest period waiting,
// else of the current one.
func (c *Console) settle(w http.ResponseWriter, r *http.Request, sess *session) {
	c.renderSettle(w, r, sess, r.URL.Query().Get("period"), http.StatusOK, view{}, nil)
}

// renderSettle renders the page of period (its id; "": the oldest waiting,
// else the current one) with status, v's notice or error and what the
// form did.
func (c *Console) renderSettle(w http.ResponseWriter, r *http.Request, sess *session, period string, status int, v view, res *settleResult) {
	leagueID := r.PathValue("league")
	v.Title = "Settle " + leagueID
	e := c.cfg.Engine
	waiting, err := e.Unsettled(r.Context(), leagueID)
	if err == nil && period == "" && len(waiting) > 0 {
		period = waiting[0].ID()
	}
	var p league.Preview
	if err == nil {
		p, err = e.Preview(r.Context(), leagueID, league.PreviewRequest{Period: period, Limit: settleRows})
	}
	if err != nil {
		if v.Error != "" { // a settlement's failure says more than this page's
			c.render(w, r, status, "message", sess, v)
			return
		}
		c.failure(w, r, "message", sess, v, err)
		return
	}
	d := newSettlePage(p, c.cfg.Engine, sess.CSRF)
	waits := slices.ContainsFunc(p.Waiting, func(w league.Period) bool { return w.ID() == p.Period.ID() })
	d.CanSettle, d.NoSettler = waits && c.cfg.Settler != nil, len(p.Waiting) > 0 && c.cfg.Settler == nil
	d.Result = res
	v.Data = d
	c.render(w, r, status, "settle", sess, v)
}

func newSettlePage(p league.Preview, e *league.Engine, csrf string) settlePage {
	d := settlePage{League: p.League, Period: p.Period, Final: p.Final, Waiting: p.Waiting, CSRF: csrf,
		Players: int64(p.Summary.Players), Rewarded: int64(p.Summary.Rewarded), Rows: p.Rows, More: p.Next != nil}
	names := tierNames(e, p.League)
	for _, t := range p.Summary.Tiers {
		st := tierRowOf(t.TierCount, names)
		st.Stayed, st.After = int64(t.Stayed), int64(t.After)
		d.Tiers = append(d.Tiers, st)
	}
	for _, m := range p.Summary.Moves {
		d.Moves = append(d.Moves, settleMove{From: m.From, To: m.To, Players: int64(m.Players)})
	}
	for _, it := range p.Summary.Rewards {
		d.Rewards = append(d.Rewards, settleItem{ID: it.ID, Qty: it.Qty, Players: int64(it.Players)})
	}
	return d
}

// tierNames maps a league's tier ids to their display names.
func tierNames(e *league.Engine, leagueID string) map[string]string {
	names := map[string]string{}
	if l, err := e.League(leagueID); err == nil {
		for _, t := range l.Ladder.Tiers() {
			names[t.ID] = t.Name
		}
	}
	return names
}

func tierRowOf(t league.TierCount, names map[string]string) settleTier {
	return settleTier{ID: t.Tier, Name: names[t.Tier], Players: int64(t.Players), Promoted: int64(t.Promoted),
		Demoted: int64(t.Demoted), Stayed: int64(t.Players - t.Promoted - t.Demoted), Rewarded: int64(t.Rewarded)}
}

// settleNow settles the period the form names, and every older one
// waiting: POST .../settle with the period the page previewed and the
// confirmation box ticked. The page answers with the settlement and what
// is left to settle.
func (c *Console) settleNow(w http.ResponseWriter, r *http.Request, sess *session) {
	leagueID := r.PathValue("league")
	p, err := c.confirmed(r, leagueID)
	if err != nil {
		c.renderSettle(w, r, sess, r.PostFormValue("period"), c.cfg.Status(err), view{Error: "Nothing was settled: " + league.ErrorMessage(err)}, nil)
		return
	}
	// The store stamps a settlement's end by the wall clock, not the
	// league's (Config.Now): a settlement finished before this one began
	// was there already.
	clicked := time.Now()
	// A settlement may read a million players: it runs under the settler's
	// own bound (as the admin API's does), not the page's deadline, and is
	// not cut short by a browser that stops waiting for the page.
	st, err := c.cfg.Settler.SettleNow(context.WithoutCancel(r.Context()), leagueID, p.Start)
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), afterSettling)
	defer cancel()
	r = r.WithContext(ctx)
	if err != nil {
		if league.ErrorCode(err) == league.Internal {
			c.cfg.Logger.Error("console: settling", "league", leagueID, "period", p.ID(), "key", sess.Key, "err", err)
		}
		c.renderSettle(w, r, sess, "", c.cfg.Status(err), view{Error: "Settling did not complete: " + league.ErrorMessage(err) +
			" Periods it settled before stay settled; the scheduler retries the rest at its next poll."}, nil)
		return
	}
	res := &settleResult{Period: league.Period{Start: st.Period, End: st.PeriodEnd}, Status: string(st.Status),
		Players: int64(st.Players), Finished: st.FinishedAt, Already: st.FinishedAt.Before(clicked)}
	names := tierNames(c.cfg.Engine, leagueID)
	for _, t := range st.Tiers {
		res.Tiers = append(res.Tiers, tierRowOf(t, names))
	}
	c.cfg.Logger.Info("console: settled", "league", leagueID, "period", res.Period.ID(), "status", st.Status,
		"players", st.Players, "already", res.Already, "key", sess.Key)
	notice := fmt.Sprintf("Period %s is settled: %s players.", res.Period.ID(), thousands(res.Players))
	if res.Already {
		notice = fmt.Sprintf("Period %s was settled already, at %s: nothing was done.", res.Period.ID(), res.Finished.UTC().Format(time.RFC3339))
	}
	c.renderSettle(w, r, sess, "", http.StatusOK, view{Notice: notice}, res)
}

// confirmed checks the form: a settler runs here, the box is ticked and
// the period is one of the league's.
func (c *Console) confirmed(r *http.Request, leagueID string) (league.Period, error) {
	if c.cfg.Settler == nil {
		return league.Period{}, league.Errorf(league.Unavailable, "this server runs no settler")
	}
	if r.PostFormValue("confirm") != "yes" {
		return league.Period{}, &league.Error{Code: league.Invalid, Field: "confirm",
			Message: "tick the box to confirm you checked the preview"}
	}
	period := r.PostFormValue("period")
	if period == "" {
		return league.Period{}, &league.Error{Code: league.Invalid, Field: "period", Message: "missing: the form names the period it previewed"}
	}
	p, err := c.cfg.Engine.PeriodOf(leagueID, period)
	if err != nil {
		return league.Period{}, err
	}
	cur, err := c.cfg.Engine.Current(leagueID)
	if err != nil {
		return league.Period{}, err
	}
	if p.End.After(cur.Start) {
		// SettleNow refuses it too, but after this the page would say the
		// settlement did not complete, as if it had begun.
		return league.Period{}, league.Errorf(league.Conflict, "period %s of league %q has not ended: it settles at its end", excerpt.Of(period), leagueID)
	}
	return p, nil
}
