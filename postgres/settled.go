package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/league-engine/league/league"
	"github.com/league-engine/league/tiers"
)

// EachSettledPlayer streams every standing of a league with the player's last
// settled period and its unclaimed reward. The last period is found by
// walking the league's settlements newest first and probing the outcomes
// key of each (a player who played the latest period costs one probe; the
// planner may take the player's index of migration 0002 instead). Only
// that period's reward can be unclaimed: the join of that period delivered
// every earlier one.
//
// The planner's statistics are refreshed first: with stale ones (a store
// that has only ever been written by settlements since autovacuum last
// ran, or never) the plan it picked read every outcome per player, 40 times
// slower at 20,000 players. A restore is rare; ANALYZE samples and is quick.
func (s *Store) EachSettledPlayer(ctx context.Context, leagueID string, fn func(league.SettledPlayer) error) error {
	if _, err := s.pool.Exec(ctx, `ANALYZE settlements, standings, outcomes, rewards, reward_claims`); err != nil {
		return storeError("standings", err)
	}
	rows, _ := s.pool.Query(ctx, `SELECT s.player, s.tier, o.period_start, o.tier_before, o.board, r.tier, r.rank, r.items
		FROM standings s
		CROSS JOIN LATERAL (
			SELECT o.period_start, o.tier_before, o.board
			FROM settlements n
			JOIN outcomes o ON o.league = n.league AND o.period_start = n.period_start AND o.player = s.player
			WHERE n.league = s.league AND n.period_start >= s.first_period
			ORDER BY n.period_start DESC
			LIMIT 1) o
		LEFT JOIN rewards r ON r.league = s.league AND r.period_start = o.period_start AND r.player = s.player
			AND NOT EXISTS (SELECT 1 FROM reward_claims c
				WHERE c.league = s.league AND c.period_start = o.period_start AND c.player = s.player)
		WHERE s.league = $1`, leagueID)
	var (
		st         league.SettledPlayer
		last       time.Time
		rewardTier *string
		rank       *int
		items      []tiers.Item
		fnErr      error
	)
	_, err := pgx.ForEachRow(rows, []any{&st.Player, &st.Tier, &last, &st.LastTier, &st.LastBoard, &rewardTier, &rank, &items}, func() error {
		st.LastPeriod, st.Reward = last.UTC(), nil
		if rewardTier != nil {
			st.Reward = &league.Reward{Earned: st.LastPeriod, Tier: *rewardTier, Rank: *rank, Items: items}
		}
		fnErr = fn(st)
		return fnErr
	})
	if fnErr != nil {
		return fnErr
	}
	return storeError("standings", err)
}
