package api

import (
	"encoding/json"
	"net/http"

	"github.com/league-engine/league/league"
	"github.com/league-engine/league/tiers"
)

// leagueBody summarizes a league: its configuration, current period and how
// many players joined each tier of it.
type leagueBody struct {
	ID            string         `json:"id"`
	BoardSize     int            `json:"board_size"`
	Schedule      string         `json:"schedule"`
	TieBreak      string         `json:"tie_break"`
	ScoreOperator string         `json:"score_operator"`
	MaxScore      int64          `json:"max_score"`
	EntryTier     string         `json:"entry_tier"`
	Tiers         []tierBody     `json:"tiers"`
	CurrentPeriod periodBody     `json:"current_period"`
	Populations   map[string]int `json:"populations"`
	Cohorts       []string       `json:"cohorts,omitempty"`
	// CohortPopulations: tier -> cohort -> players, with cohorts only.
	CohortPopulations map[string]map[string]int `json:"cohort_populations,omitempty"`
}

// tierBody is a tier of the ladder, lowest first. Promote and demote are
// shares of a sub-board, as decimal numbers (0.2).
type tierBody struct {
	ID              string      `json:"id"`
	Name            string      `json:"name"`
	Promote         json.Number `json:"promote"`
	Demote          json.Number `json:"demote"`
	PromoteCount    int         `json:"promote_count,omitempty"`
	DemoteCount     int         `json:"demote_count,omitempty"`
	PromoteAtLeast  int         `json:"promote_at_least,omitempty"`
	DemoteAtLeast   int         `json:"demote_at_least,omitempty"`
	AtLeastFrom     int         `json:"at_least_from,omitempty"`
	JumpTop         int         `json:"jump_top,omitempty"`
	JumpTiers       int         `json:"jump_tiers,omitempty"`
	ProtectPromoted bool        `json:"protect_promoted,omitempty"`
	MinPromoteScore int64       `json:"min_promote_score"`
	MinRewardScore  int64       `json:"min_reward_score"`
	Rewards         []bandBody  `json:"rewards"`
}

// bandBody rewards the ranks from..to (inclusive) with items.
type bandBody struct {
	From  int          `json:"from"`
	To    int          `json:"to"`
	Items []tiers.Item `json:"items"`
}

type periodBody struct {
	ID    string `json:"id"`
	Start string `json:"start"`
	End   string `json:"end"`
}

// leagues lists the leagues the caller's key may call.
func (s *Server) leagues(r *http.Request, caller *Key) (reply, error) {
	out := []leagueBody{}
	for _, l := range s.engine.Leagues() {
		if !caller.mayCall(l.ID) {
			continue
		}
		b, err := s.summary(r, l)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return marshal{struct {
		Leagues []leagueBody `json:"leagues"`
	}{out}}, nil
}

func (s *Server) league(r *http.Request, _ *Key) (reply, error) {
	l, err := s.engine.League(r.PathValue("league"))
	if err != nil {
		return nil, s.redisErr(err) // unknown, or lost by Redis
	}
	b, err := s.summary(r, l)
	if err != nil {
		return nil, err
	}
	return marshal{b}, nil
}

func (s *Server) summary(r *http.Request, l *league.League) (leagueBody, error) {
	cur, err := s.engine.Current(l.ID)
	if err != nil {
		return leagueBody{}, s.redisErr(err)
	}
	seqs, err := s.engine.Sequences(r.Context(), l.ID, cur)
	if err != nil {
		return leagueBody{}, s.redisErr(err)
	}
	pop := map[string]int{}
	var byCohort map[string]map[string]int
	for _, q := range seqs {
		pop[q.Tier] += q.Players
		if q.Cohort != "" {
			if byCohort == nil {
				byCohort = map[string]map[string]int{}
			}
			if byCohort[q.Tier] == nil {
				byCohort[q.Tier] = map[string]int{}
			}
			byCohort[q.Tier][q.Cohort] = q.Players
		}
	}
	ts := l.Ladder.Tiers()
	b := leagueBody{
		ID:                l.ID,
		BoardSize:         l.BoardSize,
		Schedule:          l.Schedule.Spec,
		TieBreak:          string(l.TieBreak),
		ScoreOperator:     string(l.Operator),
		MaxScore:          l.MaxScore,
		EntryTier:         l.EntryTier,
		Tiers:             make([]tierBody, len(ts)),
		CurrentPeriod:     periodBody{ID: cur.ID(), Start: rfc3339(cur.Start), End: rfc3339(cur.End)},
		Populations:       pop,
		Cohorts:           l.Cohorts,
		CohortPopulations: byCohort,
	}
	for i, t := range ts {
		tb := tierBody{
			ID: t.ID, Name: t.Name,
			Promote: json.Number(t.Promote.String()), Demote: json.Number(t.Demote.String()),
			PromoteCount: t.PromoteCount, DemoteCount: t.DemoteCount,
			PromoteAtLeast: t.PromoteAtLeast, DemoteAtLeast: t.DemoteAtLeast, AtLeastFrom: t.AtLeastFrom,
			JumpTop: t.JumpTop, JumpTiers: t.JumpBy, ProtectPromoted: t.ProtectPromoted,
			MinPromoteScore: t.MinPromoteScore, MinRewardScore: t.MinRewardScore,
			Rewards: make([]bandBody, len(t.Rewards)),
		}
		for j, band := range t.Rewards {
			tb.Rewards[j] = bandBody{From: band.From, To: band.To, Items: items(band.Items)}
		}
		b.Tiers[i] = tb
	}
	return b, nil
}
