package api

import (
	"errors"
	"net/http"
	"time"

	"github.com/league-engine/league/league"
	"github.com/league-engine/league/tiers"
)

// Where a board reply comes from ("source"): Redis, for a period whose
// boards it keeps (the current one, and settled ones within the league's
// retention), or the archive in Postgres after that.
const (
	sourceLive    = "live"
	sourceArchive = "archive"
)

// archivedBoard answers a board read Redis could not (miss: its error) from
// the archive. Without an archive (a store that keeps none) the miss
// stands. A period never settled is a NotFound naming it.
func (s *Server) archivedBoard(r *http.Request, leagueID, pid string, id league.BoardID, miss error) (reply, error) {
	if s.archive == nil {
		return nil, miss
	}
	start, err := league.ParsePeriodID(pid)
	if err != nil {
		return nil, miss // PeriodOf said what is wrong with it
	}
	b, err := s.archive.ArchivedBoard(r.Context(), leagueID, start, id)
	if errors.Is(err, league.ErrNotArchived) && league.ErrorCode(miss) == league.NotFound {
		// Neither has it: say both, naming the period.
		msg := miss.Error()
		var le *league.Error
		if errors.As(miss, &le) {
			msg = le.Message
		}
		return nil, league.Errorf(league.NotFound, "%s, and period %s was never settled, so nothing is archived", msg, pid)
	}
	if err != nil {
		return nil, s.postgresErr(err)
	}
	out := archivedBoardBody{
		League: b.League, Period: b.Period.ID(), PeriodEnd: rfc3339(b.Period.End),
		Board: b.ID.String(), Tier: b.ID.Tier, Source: sourceArchive,
		Entries: make([]archivedEntryBody, len(b.Entries)),
	}
	for i, e := range b.Entries {
		out.Entries[i] = archivedEntryBody{
			Rank: e.Rank, Player: e.Player, Name: e.Name, Avatar: e.Avatar, Score: e.Score, Zone: e.Zone.String(),
			Outcome: outcomeOf(b.ID.Tier, e),
		}
	}
	return marshal{out}, nil
}

// archivedBoardBody is a board reply from the archive: the live reply's
// fields, and each entry's outcome.
type archivedBoardBody struct {
	League    string              `json:"league"`
	Period    string              `json:"period"`
	PeriodEnd string              `json:"period_end"`
	Board     string              `json:"board"`
	Tier      string              `json:"tier"`
	Source    string              `json:"source"`
	Entries   []archivedEntryBody `json:"entries"`
}

type archivedEntryBody struct {
	Rank    int         `json:"rank"`
	Player  string      `json:"player_id"`
	Name    string      `json:"name"`
	Avatar  string      `json:"avatar"`
	Score   int64       `json:"score"`
	Zone    string      `json:"zone"`
	Outcome outcomeBody `json:"outcome"`
}

// outcomeBody is what settlement decided for a player.
type outcomeBody struct {
	TierBefore string       `json:"tier_before"`
	TierAfter  string       `json:"tier_after"`
	Rewards    []tiers.Item `json:"rewards"`
	ClaimedAt  string       `json:"claimed_at,omitempty"` // when a join delivered the rewards
}

// maxArchivedRows bounds a page of GET .../outcomes, as a preview's.
const maxArchivedRows = league.MaxPreviewRows

// archivedOutcomes serves GET /v1/admin/leagues/{league}/outcomes?period=
// &limit=&after=: a settled period's audit from the archive, every player's
// board, rank, score, move and rewards with their claim, a page at a time
// (limit 1-1000, default 100; after: a page's next, "<board>:<rank>").
func (s *Server) archivedOutcomes(r *http.Request, _ *Key) (reply, error) {
	leagueID := r.PathValue("league")
	l, err := s.engine.League(leagueID)
	if err != nil {
		return nil, s.redisErr(err)
	}
	pid, given := queryParam(r, "period")
	if !given || pid == "" {
		return nil, invalid("period", "is required: the settled period to read, e.g. %s", league.Period{Start: time.Now()}.ID())
	}
	start, err := league.ParsePeriodID(pid)
	if err != nil {
		return nil, invalid("period", "%v", err)
	}
	limit, err := intParam(r, "limit", defaultPreviewRows)
	if err != nil {
		return nil, err
	}
	if limit < 1 || limit > maxArchivedRows {
		return nil, invalid("limit", "%d is outside 1..%d", limit, maxArchivedRows)
	}
	var after *league.PreviewCursor
	if v, given := queryParam(r, "after"); given {
		c, err := league.ParsePreviewCursor(v)
		if err != nil {
			return nil, err
		}
		after = &c
	}
	if s.archive == nil {
		return nil, league.Errorf(league.Unavailable, "this server's store keeps no archive (it needs Postgres: DATABASE_URL)")
	}
	p, rows, err := s.archive.ArchivedOutcomes(r.Context(), leagueID, start, after, limit)
	if err != nil {
		return nil, s.postgresErr(err)
	}
	out := archivedOutcomesBody{League: leagueID, Period: p.ID(), PeriodEnd: rfc3339(p.End), Rows: make([]archivedRowBody, len(rows))}
	for i, row := range rows {
		b := archivedRowBody{
			Board: row.Board.String(), Rank: row.Rank, Player: row.Player, Name: row.Name, Score: row.Score, Zone: row.Zone.String(),
			outcomeBody: outcomeOf(row.Board.Tier, row.ArchivedEntry),
			Move:        moveOf(l.Ladder, row.Board.Tier, row.TierAfter),
		}
		out.Rows[i] = b
	}
	if len(rows) == limit {
		last := rows[len(rows)-1]
		next := league.PreviewCursor{Board: last.Board, Rank: last.Rank}.String()
		out.Next = &next
	}
	return marshal{out}, nil
}

// outcomeOf is an archived entry's outcome as replies show it.
func outcomeOf(tierBefore string, e league.ArchivedEntry) outcomeBody {
	o := outcomeBody{TierBefore: tierBefore, TierAfter: e.TierAfter, Rewards: items(e.Rewards)}
	if !e.Claimed.IsZero() {
		o.ClaimedAt = rfc3339(e.Claimed)
	}
	return o
}

// moveOf names a move by the league's ladder; "" for a tier it no longer
// has.
func moveOf(ladder *tiers.Ladder, before, after string) string {
	b, okB := ladder.Index(before)
	a, okA := ladder.Index(after)
	switch {
	case !okB || !okA:
		return ""
	case a > b:
		return string(league.Promoted)
	case a < b:
		return string(league.Demoted)
	}
	return string(league.Stayed)
}

// archivedOutcomesBody is the reply of GET .../outcomes.
type archivedOutcomesBody struct {
	League    string            `json:"league"`
	Period    string            `json:"period"`
	PeriodEnd string            `json:"period_end"`
	Rows      []archivedRowBody `json:"rows"`
	Next      *string           `json:"next,omitempty"`
}

type archivedRowBody struct {
	Board  string `json:"board"`
	Rank   int    `json:"rank"`
	Player string `json:"player_id"`
	Name   string `json:"name"`
	Score  int64  `json:"score"`
	Zone   string `json:"zone"`
	outcomeBody
	Move string `json:"move,omitempty"`
}
