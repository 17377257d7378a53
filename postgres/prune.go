package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/league-engine/league/league"
)

// Pruning settled history. What goes, period by period, oldest first, for
// periods settled to the end (status done) that ended before q.Before:
//
//   - rewards already claimed, and their claim records;
//   - outcomes, but for two kinds kept: the outcome of a reward not yet
//     claimed (the reward is kept, the player may still come back for it),
//     and each player's latest outcome, which Restore reads to give a
//     player back their last board and tier (EachSettledPlayer);
//   - the settlement row, once none of its period's rows are left (Restore
//     finds a player's latest outcome through it).
//
// Standings (each player's tier), the admin audit, decays, corrections and
// periods not settled to the end are never touched. Each statement deletes at most q.Batch rows
// and commits on its own: a prune holds no lock for long, settlements go
// on beside it, and one stopped halfway leaves nothing half done that the
// next run does not finish.

// DefaultPruneBatch is the rows one statement of Prune deletes.
const DefaultPruneBatch = 10_000

// The rows of one period, by what pruning does with them. $1 league, $2
// period start.
const (
	// claimedRewards are rewards with a claim: delivered, so history.
	claimedRewards = `FROM rewards r WHERE r.league = $1 AND r.period_start = $2
		AND EXISTS (SELECT FROM reward_claims c WHERE c.league = r.league AND c.period_start = r.period_start AND c.player = r.player)`
	// unclaimedRewards are kept.
	unclaimedRewards = `FROM rewards r WHERE r.league = $1 AND r.period_start = $2
		AND NOT EXISTS (SELECT FROM reward_claims c WHERE c.league = r.league AND c.period_start = r.period_start AND c.player = r.player)`
	// periodClaims are every claim of the period: each one's reward is
	// claimed, so goes (or was never written: a join delivered it first).
	periodClaims = `FROM reward_claims c WHERE c.league = $1 AND c.period_start = $2`
	// orphanClaims are the claims deleted, once their rewards are: only
	// those whose reward is gone, so that a claim recorded while the prune
	// ran keeps its reward claimed rather than leave it looking unclaimed.
	orphanClaims = periodClaims + `
		AND NOT EXISTS (SELECT FROM rewards r WHERE r.league = c.league AND r.period_start = c.period_start AND r.player = c.player)`
	// prunableOutcomes are outcomes without an unclaimed reward whose
	// player played a later period (found by outcomes_by_player).
	prunableOutcomes = `FROM outcomes o WHERE o.league = $1 AND o.period_start = $2
		AND NOT EXISTS (SELECT FROM rewards r WHERE r.league = o.league AND r.period_start = o.period_start AND r.player = o.player
			AND NOT EXISTS (SELECT FROM reward_claims c WHERE c.league = r.league AND c.period_start = r.period_start AND c.player = r.player))
		AND EXISTS (SELECT FROM outcomes n WHERE n.league = o.league AND n.player = o.player AND n.period_start > o.period_start)`
)

// Prune deletes (or with q.DryRun counts) the settled history of periods
// that ended before q.Before, calling report for each period with rows to
// delete.
func (s *Store) Prune(ctx context.Context, q league.PruneQuery, report func(league.PruneCount) error) error {
	if q.Before.IsZero() {
		return invalid("before", "must not be zero")
	}
	if q.Batch <= 0 {
		q.Batch = DefaultPruneBatch
	}
	rows, _ := s.pool.Query(ctx, `SELECT league, period_start FROM settlements
		WHERE ($1 = '' OR league = $1) AND status = 'done' AND period_end < $2
		ORDER BY period_start, league`, q.League, q.Before)
	type period struct {
		League string
		Start  time.Time
	}
	periods, err := pgx.CollectRows(rows, pgx.RowToStructByPos[period])
	if err != nil {
		return storeError("prune", err)
	}
	for _, p := range periods {
		c, err := s.prunePeriod(ctx, p.League, p.Start, q)
		if err != nil {
			return err
		}
		if c.Outcomes+c.Rewards+c.Claims == 0 && !c.Settled {
			continue // pruned before: only kept rows left
		}
		if err := report(c); err != nil {
			return err
		}
	}
	return nil
}

// prunePeriod prunes (or counts) one period.
func (s *Store) prunePeriod(ctx context.Context, leagueID string, start time.Time, q league.PruneQuery) (league.PruneCount, error) {
	c := league.PruneCount{League: leagueID, Period: start.UTC()}
	count := func(from string) (n int, err error) {
		err = s.pool.QueryRow(ctx, `SELECT count(*) `+from, leagueID, start).Scan(&n)
		return n, err
	}
	var err error
	if c.Kept, err = count(unclaimedRewards); err != nil {
		return c, storeError("prune", err)
	}
	if q.DryRun {
		var left int
		for _, x := range []struct {
			n    *int
			from string
		}{{&c.Rewards, claimedRewards}, {&c.Claims, periodClaims}, {&c.Outcomes, prunableOutcomes}, {&left, `FROM outcomes WHERE league = $1 AND period_start = $2`}} {
			if *x.n, err = count(x.from); err != nil {
				return c, storeError("prune", err)
			}
		}
		c.Settled = c.Kept == 0 && left == c.Outcomes
		return c, nil
	}
	// Rewards first: an outcome is prunable once its reward is claimed and
	// gone, and claims last of the two, as they tell claimed from not.
	for _, x := range []struct {
		n                  *int
		table, alias, from string
	}{{&c.Rewards, "rewards", "r", claimedRewards}, {&c.Claims, "reward_claims", "c", orphanClaims}, {&c.Outcomes, "outcomes", "o", prunableOutcomes}} {
		for {
			// A batch by row address: the rows are found by the key's
			// prefix, and deleted without a second lookup.
			tag, err := s.pool.Exec(ctx, `DELETE FROM `+x.table+` WHERE ctid = ANY (ARRAY(SELECT `+x.alias+`.ctid `+x.from+` LIMIT $3))`,
				leagueID, start, q.Batch)
			if err != nil {
				return c, storeError("prune", err)
			}
			*x.n += int(tag.RowsAffected())
			if tag.RowsAffected() < int64(q.Batch) {
				break
			}
		}
	}
	tag, err := s.pool.Exec(ctx, `DELETE FROM settlements s WHERE league = $1 AND period_start = $2 AND status = 'done'
		AND NOT EXISTS (SELECT FROM outcomes o WHERE o.league = s.league AND o.period_start = s.period_start)
		AND NOT EXISTS (SELECT FROM rewards r WHERE r.league = s.league AND r.period_start = s.period_start)`, leagueID, start)
	if err != nil {
		return c, storeError("prune", err)
	}
	c.Settled = tag.RowsAffected() == 1
	return c, nil
}
