package api

import (
	"net/http"
	"strconv"
	"time"

	"github.com/league-engine/league/internal/excerpt"
	"github.com/league-engine/league/league"
)

// periodRequest is the optional body of the admin routes that act on a
// period, the current or last one when left out: {"period"}.
type periodRequest struct {
	period *string
}

func (req *periodRequest) decode(d *decoder) error {
	return d.object("body", func(field []byte) error {
		if string(field) != "period" {
			return unknownField("", field)
		}
		return d.string("period", &req.period)
	})
}

// settlementBody is the record of one period's settlement.
type settlementBody struct {
	League     string             `json:"league"`
	Period     string             `json:"period"`
	PeriodEnd  string             `json:"period_end"`
	Status     string             `json:"status"`
	StartedAt  string             `json:"started_at"`
	FinishedAt *string            `json:"finished_at"` // null until done
	Players    int                `json:"players"`
	Tiers      []league.TierCount `json:"tiers"`
	LastError  string             `json:"last_error"`
}

func newSettlementBody(st league.Settlement) settlementBody {
	b := settlementBody{
		League:    st.League,
		Period:    league.Period{Start: st.Period}.ID(),
		PeriodEnd: rfc3339(st.PeriodEnd),
		Status:    string(st.Status),
		StartedAt: rfc3339(st.StartedAt),
		Players:   st.Players,
		Tiers:     st.Tiers,
		LastError: st.LastError,
	}
	if b.Tiers == nil {
		b.Tiers = []league.TierCount{}
	}
	if !st.FinishedAt.IsZero() {
		at := rfc3339(st.FinishedAt)
		b.FinishedAt = &at
	}
	return b
}

// settle runs a settlement now: of the named period, else of the last one
// that ended.
func (s *Server) settle(r *http.Request, _ *Key) (reply, error) {
	leagueID := r.PathValue("league")
	if _, err := s.engine.League(leagueID); err != nil {
		return nil, s.redisErr(err) // unknown, or lost by Redis
	}
	var req periodRequest
	if err := decodeBody(r, true, req.decode); err != nil {
		return nil, err
	}
	var start time.Time
	if req.period != nil {
		p, err := s.engine.PeriodOf(leagueID, *req.period)
		if err != nil {
			return nil, err
		}
		start = p.Start
	}
	if s.settler == nil {
		return nil, league.Errorf(league.Unavailable, "this server runs no settler")
	}
	st, err := s.settler.SettleNow(r.Context(), leagueID, start)
	if err != nil {
		if isDependencyFailure(err) {
			// A settlement talks to Redis and the store, and its error does
			// not say which failed: the one that does not answer now counts.
			s.countFailing(r.Context())
		}
		return nil, err
	}
	return marshal{newSettlementBody(st)}, nil
}

// Settlement list limits of GET .../settlements?limit=.
const (
	defaultSettlements = 20
	maxSettlements     = 1000
)

func (s *Server) settlements(r *http.Request, _ *Key) (reply, error) {
	leagueID := r.PathValue("league")
	if _, err := s.engine.League(leagueID); err != nil {
		return nil, s.redisErr(err) // unknown, or lost by Redis
	}
	limit := defaultSettlements
	if v, given := queryParam(r, "limit"); given {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxSettlements {
			return nil, invalid("limit", "%q is not a number from 1 to %d", excerpt.Of(v), maxSettlements)
		}
		limit = n
	}
	sts, err := s.store.Settlements(r.Context(), leagueID, limit)
	if err != nil {
		return nil, s.postgresErr(err)
	}
	out := make([]settlementBody, len(sts))
	for i, st := range sts {
		out[i] = newSettlementBody(st)
	}
	return marshal{struct {
		Settlements []settlementBody `json:"settlements"`
	}{out}}, nil
}
