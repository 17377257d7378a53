package api

import (
	"net/http"

	"github.com/league-engine/league/league"
	"github.com/league-engine/league/tiers"
)

// Previewing a settlement: GET .../preview?period=&limit=&after=, what
// settling the period would decide (league.Engine.Preview), nothing
// written. Reading it needs Redis only.

// defaultPreviewRows is a page of rows when ?limit= is left out.
const defaultPreviewRows = 100

// previewBody is the reply.
type previewBody struct {
	League    string             `json:"league"`
	Period    string             `json:"period"`
	PeriodEnd string             `json:"period_end"`
	Final     bool               `json:"final"`
	Waiting   []string           `json:"waiting"`
	Summary   previewSummaryBody `json:"summary"`
	Rows      []previewRowBody   `json:"rows"`
	Next      *string            `json:"next"` // null: the last page
}

type previewSummaryBody struct {
	Players   int                `json:"players"`
	Moderated int                `json:"moderated"`
	Tiers     []previewTierBody  `json:"tiers"`
	Moves     []previewMoveBody  `json:"moves"`
	Rewarded  int                `json:"rewarded"`
	Rewards   []previewItemTotal `json:"rewards"`
}

type previewTierBody struct {
	league.TierCount
	Stayed int `json:"stayed"`
	After  int `json:"after"`
}

type previewMoveBody struct {
	From    string `json:"from"`
	To      string `json:"to"`
	Players int    `json:"players"`
}

type previewItemTotal struct {
	ID      string `json:"id"`
	Qty     int64  `json:"qty"`
	Players int    `json:"players"`
}

type previewRowBody struct {
	Board   string       `json:"board"`
	Rank    int          `json:"rank"`
	Player  string       `json:"player_id"`
	Score   int64        `json:"score"`
	From    string       `json:"from"`
	To      string       `json:"to"`
	Move    league.Move  `json:"move"`
	Rewards []tiers.Item `json:"rewards"`
}

func newPreviewBody(p league.Preview) previewBody {
	b := previewBody{
		League: p.League, Period: p.Period.ID(), PeriodEnd: rfc3339(p.Period.End), Final: p.Final,
		Waiting: make([]string, len(p.Waiting)),
		Summary: previewSummaryBody{
			Players: p.Summary.Players, Moderated: p.Summary.Moderated, Rewarded: p.Summary.Rewarded,
			Tiers:   make([]previewTierBody, len(p.Summary.Tiers)),
			Moves:   make([]previewMoveBody, len(p.Summary.Moves)),
			Rewards: make([]previewItemTotal, len(p.Summary.Rewards)),
		},
		Rows: make([]previewRowBody, len(p.Rows)),
	}
	for i, w := range p.Waiting {
		b.Waiting[i] = w.ID()
	}
	for i, t := range p.Summary.Tiers {
		b.Summary.Tiers[i] = previewTierBody{TierCount: t.TierCount, Stayed: t.Stayed, After: t.After}
	}
	for i, m := range p.Summary.Moves {
		b.Summary.Moves[i] = previewMoveBody(m)
	}
	for i, it := range p.Summary.Rewards {
		b.Summary.Rewards[i] = previewItemTotal(it)
	}
	for i, r := range p.Rows {
		b.Rows[i] = previewRowBody{Board: r.Board.String(), Rank: r.Rank, Player: r.Player, Score: r.Score,
			From: r.From, To: r.To, Move: r.Move, Rewards: items(r.Rewards)}
	}
	if p.Next != nil {
		next := p.Next.String()
		b.Next = &next
	}
	return b
}

// preview answers what settling a period would do: of ?period= (its id),
// else of the current one; a page of ?limit= rows (0 to 1000, default
// 100; 0: the summary only) after the row ?after= names (a page's next).
func (s *Server) preview(r *http.Request, _ *Key) (reply, error) {
	leagueID := r.PathValue("league")
	if _, err := s.engine.League(leagueID); err != nil {
		return nil, s.redisErr(err) // unknown, or lost by Redis
	}
	req := league.PreviewRequest{Limit: defaultPreviewRows}
	for _, q := range []struct {
		name, leftOut string
		to            *string
	}{
		{"period", "for the current period", &req.Period},
		{"after", "to start at the first row", &req.After},
	} {
		if v, given := queryParam(r, q.name); given {
			if v == "" {
				return nil, invalid(q.name, "is empty: leave it out %s", q.leftOut)
			}
			*q.to = v
		}
	}
	limit, err := intParam(r, "limit", defaultPreviewRows)
	if err != nil {
		return nil, err
	}
	req.Limit = limit
	p, err := s.engine.Preview(r.Context(), leagueID, req)
	if err != nil {
		return nil, s.redisErr(err)
	}
	return marshal{newPreviewBody(p)}, nil
}
