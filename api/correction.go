package api

import (
	"net/http"

	"github.com/league-engine/league/league"
)

// Corrections after settlement (league.Engine.Correct): POST
// /v1/admin/leagues/{league}/corrections zeroes or removes a player of a
// settled period and re-decides their board, once: the same correction
// again answers what the first did and changes nothing. GET lists a
// period's corrections, with what Redis found since the commit (deferred,
// claimed).

// correctionRequest is the body: {"period", "player_id", "action", "reason"}.
type correctionRequest struct {
	period, player, action, reason *string
}

func (req *correctionRequest) decode(d *decoder) error {
	return d.object("body", func(field []byte) error {
		switch string(field) {
		case "period":
			return d.string("period", &req.period)
		case "player_id":
			return d.string("player_id", &req.player)
		case "action":
			return d.string("action", &req.action)
		case "reason":
			return d.string("reason", &req.reason)
		}
		return unknownField("", field)
	})
}

// correction serves POST .../corrections.
func (s *Server) correction(r *http.Request, caller *Key) (reply, error) {
	leagueID := r.PathValue("league")
	if _, err := s.engine.League(leagueID); err != nil {
		return nil, s.redisErr(err)
	}
	var req correctionRequest
	if err := decodeBody(r, false, req.decode); err != nil {
		return nil, err
	}
	switch {
	case req.period == nil:
		return nil, invalid("period", "required: the settled period to correct, e.g. 20261116T000000Z")
	case req.player == nil:
		return nil, invalid("player_id", "required: the player to zero or remove")
	case req.action == nil:
		return nil, invalid("action", "required: zero or remove")
	case req.reason == nil:
		return nil, invalid("reason", "required: why, as the correction records it")
	}
	if err := league.CheckPlayerID(*req.player); err != nil {
		return nil, err
	}
	start, err := league.ParsePeriodID(*req.period)
	if err != nil {
		return nil, invalid("period", "%v", err)
	}
	if s.corrections == nil {
		return nil, league.Errorf(league.Unavailable, "this server's store keeps no corrections (it needs Postgres: DATABASE_URL)")
	}
	c, err := s.engine.Correct(r.Context(), s.corrections, league.CorrectionRequest{League: leagueID, Period: start,
		Player: *req.player, Action: league.CorrectionAction(*req.action), Reason: *req.reason, Actor: actorOf(caller)})
	if err != nil {
		return nil, s.postgresErr(err)
	}
	s.log.Info("api: settled period corrected", "league", leagueID, "period", league.Period{Start: c.Period}.ID(),
		"player", c.Player, "action", c.Action, "changes", len(c.Changes), "key", caller.Name)
	return marshal{newCorrectionBody(c)}, nil
}

// corrections serves GET .../corrections?period=.
func (s *Server) correctionsRoute(r *http.Request, _ *Key) (reply, error) {
	leagueID := r.PathValue("league")
	if _, err := s.engine.League(leagueID); err != nil {
		return nil, s.redisErr(err)
	}
	pid, given := queryParam(r, "period")
	if !given || pid == "" {
		return nil, invalid("period", "is required: the settled period whose corrections to list, e.g. 20261116T000000Z")
	}
	start, err := league.ParsePeriodID(pid)
	if err != nil {
		return nil, invalid("period", "%v", err)
	}
	if s.corrections == nil {
		return nil, league.Errorf(league.Unavailable, "this server's store keeps no corrections (it needs Postgres: DATABASE_URL)")
	}
	cs, err := s.corrections.Corrections(r.Context(), leagueID, start)
	if err != nil {
		return nil, s.postgresErr(err)
	}
	out := correctionsBody{League: leagueID, Period: league.Period{Start: start}.ID(), Corrections: make([]correctionBody, len(cs))}
	for i, c := range cs {
		out.Corrections[i] = newCorrectionBody(c)
	}
	return marshal{out}, nil
}

// correctionsBody is the reply of GET .../corrections.
type correctionsBody struct {
	League      string           `json:"league"`
	Period      string           `json:"period"`
	Corrections []correctionBody `json:"corrections"`
}

// correctionBody is the reply of a correction.
type correctionBody struct {
	ID        int64                     `json:"id"`
	League    string                    `json:"league"`
	Period    string                    `json:"period"`
	PlayerID  string                    `json:"player_id"`
	Action    league.CorrectionAction   `json:"action"`
	Reason    string                    `json:"reason"`
	Actor     string                    `json:"actor"`
	Status    league.CorrectionStatus   `json:"status"`
	CreatedAt string                    `json:"created_at"`
	Changes   []league.CorrectionChange `json:"changes"`
}

func newCorrectionBody(c league.Correction) correctionBody {
	b := correctionBody{ID: c.ID, League: c.League, Period: league.Period{Start: c.Period}.ID(), PlayerID: c.Player,
		Action: c.Action, Reason: c.Reason, Actor: c.Actor, Status: c.Status, CreatedAt: rfc3339(c.CreatedAt), Changes: c.Changes}
	if b.Changes == nil {
		b.Changes = []league.CorrectionChange{}
	}
	return b
}
