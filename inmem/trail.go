package inmem

import (
	"context"
	"slices"

	"github.com/league-engine/league/league"
)

var _ league.TrailLog = (*Store)(nil)

// Trail implements league.TrailLog from what the store keeps: outcomes and
// their rewards, claims, decays and admin actions (this store keeps no
// corrections: they need Postgres).
func (s *Store) Trail(_ context.Context, q league.TrailQuery) (league.TrailPage, error) {
	after, err := league.CheckTrailQuery(q)
	if err != nil {
		return league.TrailPage{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []league.TrailEntry
	keep := func(e league.TrailEntry) {
		if (q.Player == "" || e.Player == q.Player) && (q.Period.IsZero() || e.Period.Equal(q.Period)) {
			out = append(out, e)
		}
	}
	for player, es := range s.outcomes[q.League] {
		for _, o := range es {
			st, ok := s.settlements[keyOf(q.League, o.Period)]
			if !ok {
				continue
			}
			e := league.TrailEntry{Kind: league.TrailSettlement, At: st.PeriodEnd, Period: o.Period, Player: player,
				TierBefore: o.TierBefore, TierAfter: o.TierAfter, Cohort: o.Cohort, Board: o.Board, Rank: o.Rank, Score: o.Score, Seq: o.Period.Unix()}
			keep(e)
			if o.rewarded {
				keep(league.TrailEntry{Kind: league.TrailReward, At: st.PeriodEnd, Period: o.Period, Player: player,
					Tier: o.TierBefore, Rank: o.Rank, Items: slices.Clone(o.Rewards), Seq: o.Period.Unix()})
			}
		}
	}
	for k, c := range s.claims {
		if k.league == q.League {
			keep(league.TrailEntry{Kind: league.TrailClaim, At: c.At, Period: c.Earned.UTC(), Player: c.Player,
				Tier: c.Tier, Rank: c.Rank, Items: slices.Clone(c.Items), ClaimedIn: c.Period.UTC(), Seq: c.Earned.Unix()})
		}
	}
	for k, d := range s.decays {
		if k.league == q.League {
			keep(league.TrailEntry{Kind: league.TrailDecay, At: d.At, Period: d.Period, Player: d.Player,
				TierBefore: d.From, TierAfter: d.To, Move: league.Demoted, Absent: d.Absent, Seq: d.Period.Unix()})
		}
	}
	for k, a := range s.actions {
		if k.league == q.League {
			ms, seq, _ := league.ParseActionID(a.ID)
			keep(league.TrailEntry{Kind: league.TrailAdmin, At: a.At, Period: a.Period, Player: a.Player, Action: &a,
				Seq: ms*1_000_000 + seq})
		}
	}
	return league.TrailPageOf(out, after, q.Limit), nil
}
