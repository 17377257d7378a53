package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/league-engine/league/league"
	"github.com/league-engine/league/tiers"
)

// A settled period read back for verifying it (league.Verify): its boards
// are its outcome rows, with the rewards recorded beside them. Only
// leaguectl settlement verify reads this way; nothing is written.

var _ league.Recorded = (*Store)(nil)

// EachRecordedBoard streams a settled period's boards through a cursor, in
// the ladder order the settlement recorded its tiers in, then board and
// rank, a board at a time, then reads the rewards of
// players with no outcome. One read-only transaction (repeatable read) holds
// both, so they agree with each other.
func (s *Store) EachRecordedBoard(ctx context.Context, leagueID string, period time.Time, fn func(league.RecordedBoard) error) ([]league.EarnedReward, error) {
	st, err := s.archivedSettlement(ctx, leagueID, period)
	if err != nil {
		return nil, err
	}
	var (
		stray []league.EarnedReward
		fnErr error
	)
	err = pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `DECLARE recorded NO SCROLL CURSOR FOR
			SELECT o.tier_before, coalesce(o.cohort, ''), o.board, o.rank, o.player, o.score, coalesce(o.zone, ''), o.tier_after, r.tier, r.rank, r.items
			FROM outcomes o LEFT JOIN rewards r ON r.league = o.league AND r.period_start = o.period_start AND r.player = o.player
			WHERE o.league = $1 AND o.period_start = $2
			ORDER BY `+archivedOrder+`, o.player`, leagueID, period, ladderOf(st))
		if err != nil {
			return err
		}
		var (
			b          league.RecordedBoard
			o          league.Outcome
			zone       string
			rewardTier *string
			rewardRank *int
			items      []tiers.Item
		)
		dest := []any{&o.TierBefore, &o.Cohort, &o.Board, &o.Rank, &o.Player, &o.Score, &zone, &o.TierAfter, &rewardTier, &rewardRank, &items}
		flush := func() error {
			if len(b.Outcomes) == 0 {
				return nil
			}
			fnErr = fn(b)
			b = league.RecordedBoard{}
			return fnErr
		}
		for {
			rows, _ := tx.Query(ctx, fmt.Sprintf(`FETCH %d FROM recorded`, archiveFetch))
			n := 0
			_, err := pgx.ForEachRow(rows, dest, func() error {
				n++
				if id := (league.BoardID{Tier: o.TierBefore, Cohort: o.Cohort, N: o.Board}); id != b.ID {
					if err := flush(); err != nil {
						return err
					}
					b.ID, b.Rewards = id, map[string]league.EarnedReward{}
				}
				o.Zone = zoneOf(zone)
				b.Outcomes = append(b.Outcomes, o)
				if rewardTier != nil {
					b.Rewards[o.Player] = league.EarnedReward{Player: o.Player, Tier: *rewardTier, Rank: deref(rewardRank), Items: items}
				}
				items = nil // a row without a reward leaves the last one's
				return nil
			})
			if err != nil {
				return err
			}
			if n < archiveFetch {
				break
			}
		}
		if err := flush(); err != nil {
			return err
		}
		rows, _ := tx.Query(ctx, `SELECT r.player, r.tier, r.rank, r.items FROM rewards r
			WHERE r.league = $1 AND r.period_start = $2 AND NOT EXISTS (SELECT FROM outcomes o
				WHERE o.league = r.league AND o.period_start = r.period_start AND o.player = r.player)
			ORDER BY r.player`, leagueID, period)
		stray, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (league.EarnedReward, error) {
			var r league.EarnedReward
			err := row.Scan(&r.Player, &r.Tier, &r.Rank, &r.Items)
			return r, err
		})
		return err
	})
	if fnErr != nil {
		return nil, fnErr
	}
	return stray, storeError("recorded boards", err)
}

func deref(n *int) int {
	if n == nil {
		return 0
	}
	return *n
}
