package console

import (
	"context"
	"net/http"
	"time"

	"github.com/league-engine/league/league"
)

// A league's page: its current period, the players and boards of each
// tier, the periods waiting for settlement and the last settlements, with
// the tier populations they recorded over past periods. Redis (the engine)
// gives the live part, the store the settlements; a store that fails or
// hangs leaves its sections saying so, and the live part still shows, as
// the API's player route does.

// recentSettlements is how many settlements the page lists and charts.
const recentSettlements = 12

// boardLinks is how many boards of a tier the page links to; past that, a
// form opens any board by its number.
const boardLinks = 12

// storeTimeout bounds the store's read: a Postgres that hangs must leave
// the request's deadline (5 s) time to answer with the live part.
const storeTimeout = 3 * time.Second

type leagueView struct {
	leagueRow
	Schedule  string
	BoardSize int
	TierChart barChart
	Boards    []tierBoards
	Unsettled []league.Period
	// UnsettledError is why the periods waiting could not be read.
	UnsettledError string
	Settlements    []settlementRow // newest first
	// SettlementsError is why the settlements could not be read.
	SettlementsError string
	Trend            columnChart
	TrendTiers       []string   // the trend table's columns
	TrendRows        []trendRow // oldest first, as the chart
}

// tierBoards are a tier's boards this period: its shared boards, then
// each cohort's.
type tierBoards struct {
	Tier, Name string
	Count      int // boards in all
	Runs       []boardRun
}

// boardRun is a tier's shared boards or its boards of one cohort.
type boardRun struct {
	Cohort string // "" for the shared boards
	Count  int
	Boards []string // the first boardLinks
	Last   string   // the last board's id
}

// settlementRow is a settlement as the page lists it: the counts summed
// over tiers.
type settlementRow struct {
	Period                      league.Period
	Status                      league.SettlementStatus
	Players                     int
	Promoted, Demoted, Rewarded int
	Took                        time.Duration // 0 until done
	Done                        bool
	StartedAt                   time.Time
	LastError                   string
}

// trendRow is a settled period's players per tier, in TrendTiers' order.
type trendRow struct {
	Period league.Period
	Counts []int64
	Total  int64
}

func (c *Console) leaguePage(w http.ResponseWriter, r *http.Request, sess *session) {
	id := r.PathValue("league")
	l, err := c.cfg.Engine.League(id)
	if err != nil {
		c.failure(w, r, "message", sess, view{Title: "League " + id}, err)
		return
	}
	row, err := c.leagueRow(r, l)
	if err != nil {
		c.failure(w, r, "message", sess, view{Title: "League " + id}, err)
		return
	}
	v := leagueView{leagueRow: row, Schedule: l.Schedule.Spec, BoardSize: l.BoardSize}
	var labels []string
	var counts []int64
	seqs, err := c.cfg.Engine.Sequences(r.Context(), id, row.Period)
	if err != nil {
		c.failure(w, r, "message", sess, view{Title: "League " + id}, err)
		return
	}
	for _, t := range row.Tiers {
		labels = append(labels, t.Name)
		counts = append(counts, t.Players)
		tb := tierBoards{Tier: t.ID, Name: t.Name}
		for _, q := range seqs {
			if q.Tier != t.ID || q.Boards == 0 {
				continue
			}
			run := boardRun{Cohort: q.Cohort, Count: q.Boards, Last: league.BoardID{Tier: t.ID, Cohort: q.Cohort, N: q.Boards}.String()}
			for n := 1; n <= min(q.Boards, boardLinks); n++ {
				run.Boards = append(run.Boards, league.BoardID{Tier: t.ID, Cohort: q.Cohort, N: n}.String())
			}
			tb.Count += q.Boards
			tb.Runs = append(tb.Runs, run)
		}
		v.Boards = append(v.Boards, tb)
	}
	v.TierChart = newBarChart("tiers-chart", "Players per tier, period "+row.Period.ID(), "players", labels, counts)

	if v.Unsettled, err = c.cfg.Engine.Unsettled(r.Context(), id); err != nil {
		v.UnsettledError = c.logged(r, err)
	}
	c.settlements(r.Context(), r, l, &v)
	c.render(w, r, http.StatusOK, "league", sess, view{Title: "League " + id, Data: v})
}

// settlements fills the settlements and the trend from the store.
func (c *Console) settlements(ctx context.Context, r *http.Request, l *league.League, v *leagueView) {
	if c.cfg.Store == nil {
		v.SettlementsError = "this console has no store to read settlements from"
		return
	}
	ctx, cancel := context.WithTimeout(ctx, storeTimeout)
	defer cancel()
	list, err := c.cfg.Store.Settlements(ctx, l.ID, recentSettlements)
	if err != nil {
		v.SettlementsError = c.logged(r, err)
		return
	}
	for _, s := range list {
		p := league.Period{Start: s.Period.UTC(), End: s.PeriodEnd.UTC()}
		row := settlementRow{Period: p, Status: s.Status, Players: s.Players, Done: s.Status == league.StatusDone,
			StartedAt: s.StartedAt, LastError: s.LastError}
		for _, t := range s.Tiers {
			row.Promoted += t.Promoted
			row.Demoted += t.Demoted
			row.Rewarded += t.Rewarded
		}
		if row.Done && !s.FinishedAt.IsZero() {
			row.Took = s.FinishedAt.Sub(s.StartedAt)
		}
		v.Settlements = append(v.Settlements, row)
	}
	v.trend(l, list)
}

// trend charts the players of each tier per settled period, oldest first:
// what settlement counted (TierCount), tiers in the ladder's order, and a
// tier no longer in the config after them.
func (v *leagueView) trend(l *league.League, list []league.Settlement) {
	col := map[string]int{}
	var names []string
	for _, t := range l.Ladder.Tiers() {
		col[t.ID] = len(names)
		names = append(names, t.Name)
	}
	for _, s := range list {
		for _, t := range s.Tiers {
			if _, ok := col[t.Tier]; !ok {
				col[t.Tier] = len(names)
				names = append(names, t.Tier)
			}
		}
	}
	var labels []string
	var values [][]int64
	for i := len(list) - 1; i >= 0; i-- {
		s := list[i]
		if len(s.Tiers) == 0 {
			continue // begun, outcomes not written: nothing counted yet
		}
		row := trendRow{Period: league.Period{Start: s.Period.UTC(), End: s.PeriodEnd.UTC()}, Counts: make([]int64, len(names))}
		for _, t := range s.Tiers {
			row.Counts[col[t.Tier]] = int64(t.Players)
			row.Total += int64(t.Players)
		}
		v.TrendRows = append(v.TrendRows, row)
		labels = append(labels, shortPeriod(row.Period))
		values = append(values, row.Counts)
	}
	v.TrendTiers = names
	v.Trend = newColumnChart("trend-chart", "Players per tier in the last settled periods", labels, names, values)
}

// shortPeriod labels a period under a chart's column: its start's day, or
// its time of day for periods shorter than a day (in UTC, as the table).
func shortPeriod(p league.Period) string {
	if p.End.Sub(p.Start) < 24*time.Hour {
		return p.Start.UTC().Format("15:04")
	}
	return p.Start.UTC().Format("Jan 2")
}

// logged is err's message for a page's section, logged in full when it
// is an internal error.
func (c *Console) logged(r *http.Request, err error) string {
	if league.ErrorCode(err) == league.Internal {
		c.cfg.Logger.Error("console: internal error", "path", r.URL.Path, "err", err)
	}
	return league.ErrorMessage(err)
}
