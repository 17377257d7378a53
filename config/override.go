package config

import (
	"fmt"

	"github.com/league-engine/league/league"
	"github.com/league-engine/league/tiers"
)

// overrideFile decides one period under other moves (league.Override):
//
//	overrides:
//	  - period: 20261228T000000Z     # the period's id (its start)
//	    tiers:
//	      - {id: gold, promote_count: 3}
//
// Each tier listed has its moves (promote, demote, the counts, minimums,
// jumps and protect_promoted) replaced by those given, for that period; its name, rewards and
// minimum scores stay.
type overrideFile struct {
	Period string     `yaml:"period"`
	Tiers  []tierFile `yaml:"tiers"`
}

func (lf leagueFile) overrides(base *tiers.Ladder) ([]league.Override, error) {
	var out []league.Override
	for i, of := range lf.Overrides {
		at, err := league.ParsePeriodID(of.Period)
		if err != nil {
			return nil, fmt.Errorf("overrides[%d].period: %v", i, err)
		}
		if len(of.Tiers) == 0 {
			return nil, fmt.Errorf("overrides[%d].tiers: required (the tiers whose moves change)", i)
		}
		ts := base.Tiers()
		for j, tf := range of.Tiers {
			idx, ok := base.Index(tf.ID)
			if !ok {
				return nil, fmt.Errorf("overrides[%d].tiers[%d].id: %q is not one of the league's tiers", i, j, tf.ID)
			}
			if tf.Name != nil || len(tf.Rewards) > 0 || tf.MinPromoteScore != 0 || tf.MinRewardScore != 0 {
				return nil, fmt.Errorf("overrides[%d].tiers[%d] (%s): an override changes moves only (promote, demote, "+
					"their counts, minimums, jumps and protection), not names, rewards or minimum scores", i, j, tf.ID)
			}
			m, err := tf.build()
			if err != nil {
				return nil, fmt.Errorf("overrides[%d].tiers[%d] (%s).%w", i, j, tf.ID, err)
			}
			t := &ts[idx]
			t.Promote, t.Demote, t.PromoteCount, t.DemoteCount = m.Promote, m.Demote, m.PromoteCount, m.DemoteCount
			t.PromoteAtLeast, t.DemoteAtLeast, t.AtLeastFrom = m.PromoteAtLeast, m.DemoteAtLeast, m.AtLeastFrom
			t.JumpTop, t.JumpBy, t.ProtectPromoted = m.JumpTop, m.JumpBy, m.ProtectPromoted
		}
		ld, err := tiers.NewLadder(ts)
		if err != nil {
			return nil, fmt.Errorf("overrides[%d]: %w", i, err)
		}
		out = append(out, league.Override{Period: at, Ladder: ld})
	}
	return out, nil
}

// checkMoves refuses counts and minimums that no board of size players
// can hold; prefix names where the tiers are (an override's).
func checkMoves(prefix string, ts []tiers.Tier, size int) error {
	for i, b := range ts {
		if b.PromoteCount+b.DemoteCount > size {
			return fmt.Errorf("%stiers[%d] (%s).promote_count+demote_count: %d + %d is more than the board size %d: "+
				"they would overlap on every board", prefix, i, b.ID, b.PromoteCount, b.DemoteCount, size)
		}
		if n := max(b.PromoteAtLeast, b.DemoteAtLeast, b.AtLeastFrom); n > size {
			return fmt.Errorf("%stiers[%d] (%s): promote_at_least, demote_at_least and at_least_from (%d) must not pass the board size %d",
				prefix, i, b.ID, n, size)
		}
	}
	return nil
}
