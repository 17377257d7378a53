package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/league-engine/league/league"
	"github.com/league-engine/league/tiers"
)

// Profile returns a player's standing and their last limit periods (all when
// limit is not positive), newest first, with the rewards each earned and when
// a join delivered them. Both queries go in one round trip.
func (s *Store) Profile(ctx context.Context, leagueID, player string, limit int) (league.Profile, error) {
	p := league.Profile{League: leagueID, Player: player}
	var b pgx.Batch
	b.Queue(`SELECT tier FROM standings WHERE league = $1 AND player = $2`, leagueID, player).
		QueryRow(func(row pgx.Row) error { return row.Scan(&p.Tier) })
	// Newest first through the player's index (migration 0002): as many
	// rows as the limit, whatever the number of periods settled. A claim
	// counts once its reward is written: until then there is nothing
	// settled it could have delivered.
	b.Queue(`SELECT o.period_start, o.tier_before, o.tier_after, coalesce(o.cohort, ''), o.board, o.rank, o.score, r.items,
			CASE WHEN r.player IS NOT NULL THEN c.claimed_at END
		FROM outcomes o
		LEFT JOIN rewards r ON r.league = o.league AND r.period_start = o.period_start AND r.player = o.player
		LEFT JOIN reward_claims c ON c.league = o.league AND c.period_start = o.period_start AND c.player = o.player
		WHERE o.league = $1 AND o.player = $2
		ORDER BY o.period_start DESC
		LIMIT $3`, leagueID, player, limitOrAll(limit)).Query(func(rows pgx.Rows) error {
		var err error
		p.History, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (league.HistoryEntry, error) {
			var (
				h       league.HistoryEntry
				period  time.Time
				claimed *time.Time
				items   []tiers.Item
			)
			err := r.Scan(&period, &h.TierBefore, &h.TierAfter, &h.Cohort, &h.Board, &h.Rank, &h.Score, &items, &claimed)
			h.Period, h.Rewards, h.ClaimedAt = period.UTC(), items, utc(claimed)
			return h, err
		})
		return err
	})
	err := s.pool.SendBatch(ctx, &b).Close()
	if errors.Is(err, pgx.ErrNoRows) {
		return league.Profile{}, league.Errorf(league.NotFound, "no settlement of league %q has seen player %q", leagueID, player)
	}
	if err != nil {
		return league.Profile{}, storeError("profile", err)
	}
	// The standing keeps the period that set the tier; the last period
	// played is the newest outcome.
	if len(p.History) > 0 {
		p.LastPeriod = p.History[0].Period
	}
	return p, nil
}

// Populations returns how many players each tier holds by standing. It reads
// every standing of the league; see the migration for why no index helps.
func (s *Store) Populations(ctx context.Context, leagueID string) (map[string]int, error) {
	rows, _ := s.pool.Query(ctx, `SELECT tier, count(*) FROM standings WHERE league = $1 GROUP BY tier`, leagueID)
	out := map[string]int{}
	var (
		tier string
		n    int
	)
	_, err := pgx.ForEachRow(rows, []any{&tier, &n}, func() error {
		out[tier] = n
		return nil
	})
	if err != nil {
		return nil, storeError("populations", err)
	}
	return out, nil
}
