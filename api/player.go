package api

import (
	"context"
	"errors"
	"net/http"
	"strconv"

	"github.com/league-engine/league/league"
	"github.com/league-engine/league/tiers"
)

// standingBody is where a player stands in the current period. Board and
// zone are null while the player has not joined it; tier is then the one a
// join would place them in. A player an operator took off their board has
// their board, rank 0, zone null and the moderation.
type standingBody struct {
	League    string  `json:"league"`
	PlayerID  string  `json:"player_id"`
	Period    string  `json:"period"`
	PeriodEnd string  `json:"period_end"`
	Joined    bool    `json:"joined"`
	Tier      string  `json:"tier"`
	Board     *string `json:"board"`
	Rank      int     `json:"rank"`
	Score     int64   `json:"score"`
	BoardSize int     `json:"board_size"`
	Gap       int64   `json:"gap"`
	Zone      *string `json:"zone"`
	// MergedWith is present while the player's board is decided with
	// another (min_board_size): zone is that merged ranking's.
	MergedWith *string `json:"merged_with,omitempty"`
	// Protected: promotion protection keeps the player, ranked in the
	// demotion zone, in the tier (zone stay).
	Protected bool `json:"protected,omitempty"`
	// Moderation is present when an operator took the player off their
	// board (hidden, removed, banned): rank 0, zone null.
	Moderation league.BoardState `json:"moderation,omitempty"`
}

func newStandingBody(st league.Standing) standingBody {
	b := standingBody{
		League: st.League, PlayerID: st.Player, Period: st.Period.ID(), PeriodEnd: rfc3339(st.Period.End), Joined: st.Joined, Tier: st.Tier,
		Rank: st.Rank, Score: st.Score, BoardSize: st.BoardSize, Gap: st.Gap, Protected: st.Protected,
	}
	if st.Joined {
		board, zone := st.Board.String(), st.Zone.String()
		b.Board, b.Zone = &board, &zone
		if st.MergedWith != nil {
			m := st.MergedWith.String()
			b.MergedWith = &m
		}
	}
	if st.Moderation != "" {
		b.Zone, b.Moderation = nil, st.Moderation
	}
	return b
}

// playerBody is the reply of a player lookup: the live standing, the
// rewards waiting for the next join, and the settled history. History is
// null, and history_unavailable true, when the store could not be read.
type playerBody struct {
	standingBody
	PendingRewards     []rewardBody  `json:"pending_rewards"`
	History            []historyBody `json:"history"`
	HistoryUnavailable bool          `json:"history_unavailable,omitempty"`
}

// historyBody is one settled period of a player.
type historyBody struct {
	Period     string       `json:"period"`
	TierBefore string       `json:"tier_before"`
	TierAfter  string       `json:"tier_after"`
	Board      string       `json:"board"`
	Rank       int          `json:"rank"`
	Score      int64        `json:"score"`
	Rewards    []tiers.Item `json:"rewards"`
	ClaimedAt  *string      `json:"claimed_at"` // null while not delivered
}

func historyBodies(hs []league.HistoryEntry) []historyBody {
	out := make([]historyBody, len(hs))
	for i, h := range hs {
		out[i] = historyBody{
			Period:     league.Period{Start: h.Period}.ID(),
			TierBefore: h.TierBefore,
			TierAfter:  h.TierAfter,
			Board:      h.BoardOf().String(),
			Rank:       h.Rank,
			Score:      h.Score,
			Rewards:    items(h.Rewards),
		}
		if !h.ClaimedAt.IsZero() {
			at := rfc3339(h.ClaimedAt)
			out[i].ClaimedAt = &at
		}
	}
	return out
}

// profileResult is what the store said about a player.
type profileResult struct {
	profile league.Profile
	err     error
}

// player serves GET /v1/leagues/{league}/players/{player_id}. The live part
// comes from the engine, the history from the store, read concurrently. A
// store failure does not fail the lookup: the live engine keeps serving
// while Postgres is down, and the reply says the history is missing.
func (s *Server) player(r *http.Request, _ *Key) (reply, error) {
	ctx := r.Context()
	leagueID, player := r.PathValue("league"), r.PathValue("player_id")
	if _, err := s.engine.League(leagueID); err != nil {
		return nil, s.redisErr(err) // unknown, or lost by Redis
	}
	if err := league.CheckPlayerID(player); err != nil {
		return nil, err
	}
	stored := make(chan profileResult, 1)
	go func() {
		// A store that hangs gives up in time for the live part to be
		// answered within the request's deadline.
		ctx, cancel := context.WithTimeout(ctx, s.requestTimeout*4/5)
		defer cancel()
		p, err := s.store.Profile(ctx, leagueID, player, s.historyLimit)
		stored <- profileResult{p, err}
	}()

	st, err := s.engine.Standing(ctx, leagueID, player)
	unknownLive := errors.Is(err, league.ErrNotFound)
	if err != nil && !unknownLive {
		return nil, s.redisErr(err)
	}
	pending, err := s.engine.PendingRewards(ctx, leagueID, player)
	if err != nil {
		return nil, s.redisErr(err)
	}
	prof := <-stored

	// At the boundary, before settlement reaches the player's last period,
	// its reward is not pending yet, but the next join delivers it.
	body := playerBody{PendingRewards: rewardBodies(st.WithEarned(pending))}
	switch {
	case prof.err == nil:
		body.History = historyBodies(prof.profile.History)
	case errors.Is(prof.err, league.ErrNotFound):
		body.History = []historyBody{}
	default:
		s.postgresErr(prof.err)
		s.health.warn(s, "postgres", "player history unavailable; answering with the live standing only", prof.err)
		body.HistoryUnavailable = true
	}

	if unknownLive {
		// Redis has no record of the player. If the store has one (Redis
		// lost it), the player exists: answer with the store's tier. If the
		// store failed we cannot ask it, and the engine's answer stands:
		// it is the live league's own record.
		if prof.err != nil {
			return nil, league.Errorf(league.NotFound, "player %q has never joined league %q", player, leagueID)
		}
		cur, err := s.engine.Current(leagueID)
		if err != nil {
			return nil, err
		}
		st = league.Standing{League: leagueID, Player: player, Period: cur, Tier: prof.profile.Tier}
	}
	body.standingBody = newStandingBody(st)
	return marshal{body}, nil
}

// standingsRequest is the body of POST .../standings: {"player_ids":[...]}.
type standingsRequest struct {
	playerIDs *[]string
}

func (req *standingsRequest) decode(d *decoder) error {
	return d.object("body", func(field []byte) error {
		if string(field) != "player_ids" {
			return unknownField("", field)
		}
		if req.playerIDs != nil {
			return invalid("player_ids", "given twice")
		}
		ids := []string{}
		req.playerIDs = &ids
		return d.array("player_ids", func(i int) error {
			if i == league.MaxBatch {
				return invalid("player_ids", "more than %d players; ask for at most %d at once", league.MaxBatch, league.MaxBatch)
			}
			what := "player_ids[" + strconv.Itoa(i) + "]"
			var id *string
			if err := d.string(what, &id); err != nil {
				return err
			}
			if id == nil {
				return invalid(what, "expected a string, got null")
			}
			ids = append(ids, *id)
			return nil
		})
	})
}

// standingItem is an element of "standings" that failed.
type standingError struct {
	PlayerID string     `json:"player_id"`
	Error    *errorBody `json:"error"`
}

// standings serves POST /v1/leagues/{league}/standings: several players'
// standings in one Redis round trip, each failing on its own.
func (s *Server) standings(r *http.Request, _ *Key) (reply, error) {
	leagueID := r.PathValue("league")
	var req standingsRequest
	if err := decodeBody(r, false, req.decode); err != nil {
		return nil, err
	}
	if req.playerIDs == nil {
		return nil, invalid("player_ids", "required")
	}
	players := *req.playerIDs
	sts, errs, err := s.engine.Standings(r.Context(), leagueID, players)
	if err != nil {
		return nil, s.redisErr(err)
	}
	out := make([]any, len(players))
	for i, p := range players {
		if errs[i] != nil {
			s.redisErr(errs[i])
			if league.ErrorCode(errs[i]) == league.Internal {
				s.log.Error("api: standing", "league", leagueID, "player", p, "err", errs[i])
			}
			out[i] = standingError{PlayerID: p, Error: newErrorBody(errs[i])}
			continue
		}
		out[i] = newStandingBody(sts[i])
	}
	return marshal{struct {
		Standings []any `json:"standings"`
	}{out}}, nil
}
