package api

import (
	"net/http"

	"github.com/league-engine/league/league"
	"github.com/league-engine/league/tiers"
)

// The audit trail, GET /v1/admin/leagues/{league}/trail?player=&period=:
// every tier move with its cause (settlement, decay, correction), every
// reward and claim, every admin action, of a player or of a period, newest
// first, a page at a time. Admin actions still waiting in Redis are
// recorded first; claims and decays reach the store within seconds of
// their join (the scheduler's recorder).

// trailBody is the reply.
type trailBody struct {
	League   string           `json:"league"`
	PlayerID *string          `json:"player_id"` // the query's; null for a period's
	Period   *string          `json:"period"`    // the query's; null for a player's
	Entries  []trailEntryBody `json:"entries"`
	Next     *string          `json:"next"` // after= of the next page; null on the last
}

// trailEntryBody is an entry: kind, at, period and player_id always, the
// rest as the kind has them.
type trailEntryBody struct {
	Kind          league.TrailKind         `json:"kind"`
	At            string                   `json:"at"`
	Period        string                   `json:"period,omitempty"` // "" for an admin action on a player not in a period
	PlayerID      string                   `json:"player_id"`
	TierBefore    string                   `json:"tier_before,omitempty"`
	TierAfter     string                   `json:"tier_after,omitempty"`
	Move          league.Move              `json:"move,omitempty"`
	Board         string                   `json:"board,omitempty"`
	Rank          int                      `json:"rank,omitempty"`
	Score         *int64                   `json:"score,omitempty"`
	Tier          string                   `json:"tier,omitempty"`
	Items         []tiers.Item             `json:"items,omitempty"`
	ClaimedPeriod string                   `json:"claimed_period,omitempty"`
	Absent        int                      `json:"absent,omitempty"`
	Correction    *trailCorrectionBody     `json:"correction,omitempty"`
	Change        *league.CorrectionChange `json:"change,omitempty"`
	Action        *actionBody              `json:"action,omitempty"`
}

// trailCorrectionBody is the correction of a correction entry.
type trailCorrectionBody struct {
	ID       int64                   `json:"id"`
	PlayerID string                  `json:"player_id"` // the player zeroed or removed
	Action   league.CorrectionAction `json:"action"`
	Reason   string                  `json:"reason"`
	Actor    string                  `json:"actor"`
	Status   league.CorrectionStatus `json:"status"`
}

// trailRoute serves GET .../trail.
func (s *Server) trailRoute(r *http.Request, _ *Key) (reply, error) {
	leagueID := r.PathValue("league")
	lg, err := s.engine.League(leagueID)
	if err != nil {
		return nil, s.redisErr(err)
	}
	q := league.TrailQuery{League: leagueID}
	out := trailBody{League: leagueID}
	if v, given := queryParam(r, "player"); given {
		if err := league.CheckPlayerID(v); err != nil {
			return nil, &league.Error{Code: league.Invalid, Field: "player", Message: league.ErrorMessage(err)}
		}
		q.Player, out.PlayerID = v, &v
	}
	if v, given := queryParam(r, "period"); given {
		p, err := s.engine.PeriodOf(leagueID, v)
		if err != nil {
			return nil, err
		}
		id := p.ID()
		q.Period, out.Period = p.Start, &id
	}
	if q.Limit, err = intParam(r, "limit", defaultAuditPage); err != nil {
		return nil, err
	}
	q.After, _ = queryParam(r, "after")
	// the store's own checks (player or period, limit, cursor), before
	// waiting actions are recorded
	if _, err := league.CheckTrailQuery(q); err != nil {
		return nil, err
	}
	trail, ok := s.audit.(league.TrailLog)
	if !ok {
		return nil, league.Errorf(league.Unavailable, "this server keeps no audit trail (its store is not an audit log)")
	}
	s.recordActions(r.Context(), leagueID)
	page, err := trail.Trail(r.Context(), q)
	if err != nil {
		return nil, s.postgresErr(err)
	}
	lg.NameMoves(page.Entries)
	out.Entries = make([]trailEntryBody, len(page.Entries))
	for i, e := range page.Entries {
		out.Entries[i] = newTrailEntryBody(e)
	}
	if page.Next != "" {
		out.Next = &page.Next
	}
	return marshal{out}, nil
}

func newTrailEntryBody(e league.TrailEntry) trailEntryBody {
	b := trailEntryBody{Kind: e.Kind, At: rfc3339Milli(e.At), Period: league.Period{Start: e.Period}.ID(), PlayerID: e.Player,
		TierBefore: e.TierBefore, TierAfter: e.TierAfter, Move: e.Move, Rank: e.Rank, Tier: e.Tier, Items: e.Items, Absent: e.Absent,
		Change: e.Change}
	switch e.Kind {
	case league.TrailSettlement:
		b.Board = e.BoardOf().String()
		score := e.Score
		b.Score = &score
	case league.TrailClaim:
		if !e.ClaimedIn.IsZero() {
			b.ClaimedPeriod = league.Period{Start: e.ClaimedIn}.ID()
		}
	case league.TrailAdmin:
		if e.Period.IsZero() {
			b.Period = ""
		}
		a := newActionBody(*e.Action)
		b.Action = &a
	}
	if c := e.Correction; c != nil {
		b.Correction = &trailCorrectionBody{ID: c.ID, PlayerID: c.Player, Action: c.Action, Reason: c.Reason, Actor: c.Actor, Status: c.Status}
	}
	return b
}
