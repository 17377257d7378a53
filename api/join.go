package api

import (
	"net/http"
	"time"

	"github.com/league-engine/league/league"
	"github.com/league-engine/league/tiers"
)

// joinRequest is the body of POST /v1/leagues/{league}/join:
// {"player_id","name","avatar","cohort"}. Nil is a missing (or null) field.
type joinRequest struct {
	playerID, name, avatar, cohort *string
}

func (req *joinRequest) decode(d *decoder) error {
	return d.object("body", func(field []byte) error {
		switch string(field) {
		case "player_id":
			return d.string("player_id", &req.playerID)
		case "name":
			return d.string("name", &req.name)
		case "avatar":
			return d.string("avatar", &req.avatar)
		case "cohort":
			return d.string("cohort", &req.cohort)
		}
		return unknownField("", field)
	})
}

// placementBody is the reply of a join.
type placementBody struct {
	League    string `json:"league"`
	Period    string `json:"period"`
	PeriodEnd string `json:"period_end"`
	Tier      string `json:"tier"`
	Board     string `json:"board"`
	Slot      int    `json:"slot"`
	Rejoined  bool   `json:"rejoined"`
	// Upcoming: placed in the next period (the league's join_cutoff), which
	// starts at PeriodStart.
	Upcoming    bool         `json:"upcoming,omitempty"`
	PeriodStart string       `json:"period_start,omitempty"`
	Rewards     []rewardBody `json:"rewards"`
}

// rewardBody is a reward earned in a settled period: delivered by a join,
// or pending until the next one.
type rewardBody struct {
	Period string       `json:"period"` // the period it was earned in
	Tier   string       `json:"tier"`
	Rank   int          `json:"rank"`
	Items  []tiers.Item `json:"items"`
}

func (s *Server) join(r *http.Request, _ *Key) (reply, error) {
	leagueID := r.PathValue("league")
	var req joinRequest
	if err := decodeBody(r, false, req.decode); err != nil {
		return nil, err
	}
	player, err := required("player_id", req.playerID)
	if err != nil {
		return nil, err
	}
	name, err := required("name", req.name)
	if err != nil {
		return nil, err
	}
	p, err := s.engine.Join(r.Context(), leagueID, league.JoinRequest{
		Player: player, Name: name, Avatar: optionalString(req.avatar), Cohort: optionalString(req.cohort),
	})
	if err != nil {
		return nil, s.redisErr(err)
	}
	body := placementBody{
		League:    p.League,
		Period:    p.Period.ID(),
		PeriodEnd: rfc3339(p.Period.End),
		Tier:      p.Tier,
		Board:     p.Board.String(),
		Slot:      p.Slot,
		Rejoined:  p.Rejoined,
		Upcoming:  p.Upcoming,
		Rewards:   rewardBodies(p.Rewards),
	}
	if p.Upcoming {
		body.PeriodStart = rfc3339(p.Period.Start)
	}
	return marshal{body}, nil
}

// rewardBodies converts rewards; never nil, so the JSON is [] when none.
func rewardBodies(rs []league.Reward) []rewardBody {
	out := make([]rewardBody, len(rs))
	for i, r := range rs {
		out[i] = rewardBody{
			Period: league.Period{Start: r.Earned}.ID(),
			Tier:   r.Tier,
			Rank:   r.Rank,
			Items:  items(r.Items),
		}
	}
	return out
}

// items returns its argument, or an empty list for nil: "items" is always
// an array.
func items(it []tiers.Item) []tiers.Item {
	if it == nil {
		return []tiers.Item{}
	}
	return it
}

// rfc3339 formats t in UTC.
func rfc3339(t time.Time) string { return t.UTC().Format(time.RFC3339) }
