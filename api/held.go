package api

import (
	"net/http"
	"strconv"

	"github.com/league-engine/league/internal/excerpt"
	"github.com/league-engine/league/league"
)

// Held writes (league.League.Hold): the operator's list, and the two
// decisions. Each decision is logged with the admin key that made it.

// heldBody is one held write.
type heldBody struct {
	ID     int64  `json:"id"`
	Player string `json:"player_id"`
	Value  int64  `json:"value"`
	Cap    string `json:"cap"`
	At     string `json:"at"`
}

func newHeldBody(h league.Held) heldBody {
	return heldBody{ID: h.ID, Player: h.Player, Value: h.Value, Cap: h.Cap, At: rfc3339(h.At)}
}

// held lists a period's held writes: GET .../held?period=.
func (s *Server) held(r *http.Request, _ *Key) (reply, error) {
	leagueID := r.PathValue("league")
	p, list, err := s.engine.HeldWrites(r.Context(), leagueID, r.URL.Query().Get("period"))
	if err != nil {
		return nil, s.redisErr(err)
	}
	out := struct {
		League string     `json:"league"`
		Period string     `json:"period"`
		Held   []heldBody `json:"held"`
	}{League: leagueID, Period: p.ID(), Held: make([]heldBody, 0, len(list))}
	for _, h := range list {
		out.Held = append(out.Held, newHeldBody(h))
	}
	return marshal{out}, nil
}

// heldID is the {id} of a held write's route.
func heldID(r *http.Request) (int64, error) {
	v := r.PathValue("id")
	id, err := strconv.ParseInt(v, 10, 64)
	if err != nil || id < 1 {
		return 0, &league.Error{Code: league.Invalid, Field: "id", Message: strconv.Quote(excerpt.Of(v)) + " is not a held write's id (a whole number from 1)"}
	}
	return id, nil
}

// approve applies a held write of the current period: the score reply.
func (s *Server) approve(r *http.Request, caller *Key) (reply, error) {
	leagueID := r.PathValue("league")
	id, err := heldID(r)
	if err != nil {
		return nil, err
	}
	if err := decodeBody(r, true, func(d *decoder) error {
		return d.object("body", func(name []byte) error { return unknownField("", name) })
	}); err != nil {
		return nil, err
	}
	res, err := s.engine.Approve(r.Context(), leagueID, id)
	if err != nil {
		return nil, s.redisErr(err)
	}
	s.log.Info("api: held write approved", "league", leagueID, "period", res.Period.ID(), "id", id,
		"score", res.Score, "key", caller.Name)
	return scoreReply{league: leagueID, res: res}, nil
}

// reject drops a held write; the body may name its period: {"period"}.
func (s *Server) reject(r *http.Request, caller *Key) (reply, error) {
	leagueID := r.PathValue("league")
	id, err := heldID(r)
	if err != nil {
		return nil, err
	}
	var req periodRequest
	if err := decodeBody(r, true, req.decode); err != nil {
		return nil, err
	}
	period := ""
	if req.period != nil {
		period = *req.period
	}
	h, err := s.engine.Reject(r.Context(), leagueID, period, id)
	if err != nil {
		return nil, s.redisErr(err)
	}
	s.log.Info("api: held write rejected", "league", leagueID, "period", h.Period.ID(), "id", id,
		"player", h.Player, "value", h.Value, "key", caller.Name)
	return marshal{struct {
		League   string   `json:"league"`
		Period   string   `json:"period"`
		Rejected heldBody `json:"rejected"`
	}{leagueID, h.Period.ID(), newHeldBody(h)}}, nil
}
