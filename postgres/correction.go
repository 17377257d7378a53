package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/league-engine/league/events"
	"github.com/league-engine/league/league"
	"github.com/league-engine/league/tiers"
)

// Corrections after settlement (migration 0009, league/correct.go): a
// correction's changes to a settled period are written in one transaction
// with its row, whose key (league, period, player, action) makes it the
// only write of that correction: a retry or a second process finds the row
// and writes nothing.

var _ league.CorrectionStore = (*Store)(nil)

const correctionColumns = `id, league, period_start, player, action, reason, actor, status, changes, created_at, applied_at`

// WriteCorrection records c and the changes decide makes of the corrected
// player's board, unless c is recorded already (then it returns the
// recorded one, fresh false).
func (s *Store) WriteCorrection(ctx context.Context, c league.Correction,
	decide func(board []league.RecordedOutcome, others [][]league.RecordedOutcome) ([]league.CorrectionChange, error)) (league.Correction, bool, error) {
	switch {
	case c.League == "":
		return c, false, invalid("league", "must not be empty")
	case c.Period.IsZero():
		return c, false, invalid("period", "must not be zero")
	case c.Player == "":
		return c, false, invalid("player_id", "must not be empty")
	}
	var (
		got   league.Correction
		fresh bool
	)
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		// The league's write lock (lockForWrite's): a correction takes turns
		// with the league's settlements and other corrections, so the board
		// it reads is the board it changes, and a second run of it waits here
		// and then finds it recorded.
		_, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended(coalesce(current_schema(), '') || '/write/' || $1::text, 0))`,
			c.League)
		if err != nil {
			return err
		}
		got, err = scanCorrection(tx.QueryRow(ctx, `SELECT `+correctionColumns+` FROM corrections
			WHERE league = $1 AND period_start = $2 AND player = $3 AND action = $4`, c.League, c.Period, c.Player, string(c.Action)))
		if err == nil {
			return nil
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		board, others, err := correctedBoards(ctx, tx, c)
		if err != nil {
			return err
		}
		changes, err := decide(board, others)
		if err != nil {
			return err
		}
		got, err = writeCorrection(ctx, tx, c, changes)
		fresh = err == nil
		return err
	})
	if err != nil {
		return league.Correction{}, false, storeError("write correction", err)
	}
	return got, fresh, nil
}

// correctedBoards reads the board the corrected player played in the
// period, in rank order, with each player's reward and its claim; and the
// boards of its tier a merge may decide with it or without it
// (min_board_size): the last two boards with outcomes of its sequence (its
// tier's shared boards, or its cohort's) and, in a league with cohorts, of
// every other sequence (thin cohorts fall back to the shared boards:
// tiers/thin.go), itself left out.
func correctedBoards(ctx context.Context, tx pgx.Tx, c league.Correction) (board []league.RecordedOutcome, others [][]league.RecordedOutcome, err error) {
	var tier, cohort string
	var n int
	err = tx.QueryRow(ctx, `SELECT o.tier_before, coalesce(o.cohort, ''), o.board
		FROM outcomes o WHERE o.league = $1 AND o.period_start = $2 AND o.player = $3`,
		c.League, c.Period, c.Player).Scan(&tier, &cohort, &n)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil, league.Errorf(league.NotFound, "player %q has no outcome in league %q period %s (unknown, or not on its boards)",
			c.Player, c.League, periodID(c.Period))
	}
	if err != nil {
		return nil, nil, err
	}
	if board, err = recordedBoard(ctx, tx, c, tier, cohort, n); err != nil {
		return nil, nil, err
	}
	// The last board of each sequence of the tier: the tier's shared boards,
	// and each cohort's (none in a league without cohorts).
	rows, _ := tx.Query(ctx, `SELECT coalesce(cohort, ''), max(board) FROM outcomes
		WHERE league = $1 AND period_start = $2 AND tier_before = $3 GROUP BY 1`, c.League, c.Period, tier)
	lasts := map[string]int{}
	var seq string
	var last int
	if _, err := pgx.ForEachRow(rows, []any{&seq, &last}, func() error { lasts[seq] = last; return nil }); err != nil {
		return nil, nil, err
	}
	for seq, last := range lasts {
		for _, m := range []int{last - 1, last} {
			if m < 1 || seq == cohort && m == n {
				continue // the board itself
			}
			// Its own sequence's last two come too when it is not one of
			// them: they are that sequence's last decision, which a thin
			// cohort's board joins (the board itself is then decided alone).
			b, err := recordedBoard(ctx, tx, c, tier, seq, m)
			if err != nil {
				return nil, nil, err
			}
			if len(b) > 0 {
				others = append(others, b)
			}
		}
	}
	return board, others, nil
}

// recordedBoard reads board n of tier's boards of cohort (shared: "") in
// c's period, in rank order, with each player's reward and its claim.
func recordedBoard(ctx context.Context, tx pgx.Tx, c league.Correction, tier, cohort string, n int) ([]league.RecordedOutcome, error) {
	rows, _ := tx.Query(ctx, `SELECT o.player, o.tier_after, o.rank, o.score, coalesce(o.zone, ''), r.rank, r.items, c.player IS NOT NULL
		FROM outcomes o
		LEFT JOIN rewards r ON r.league = o.league AND r.period_start = o.period_start AND r.player = o.player
		LEFT JOIN reward_claims c ON c.league = o.league AND c.period_start = o.period_start AND c.player = o.player
		WHERE o.league = $1 AND o.period_start = $2 AND o.tier_before = $3 AND o.board = $4
			AND coalesce(o.cohort, '') = $5
		ORDER BY o.rank`, c.League, c.Period, tier, n, cohort)
	var (
		board      []league.RecordedOutcome
		o          league.RecordedOutcome
		zone       string
		rewardRank *int
		items      []tiers.Item
	)
	_, err := pgx.ForEachRow(rows, []any{&o.Player, &o.TierAfter, &o.Rank, &o.Score, &zone, &rewardRank, &items, &o.Claimed}, func() error {
		r := o
		r.TierBefore, r.Cohort, r.Board, r.Zone = tier, cohort, n, zoneOf(zone)
		if rewardRank != nil {
			r.Reward = &league.EarnedReward{Player: o.Player, Tier: tier, Rank: *rewardRank, Items: items}
		}
		r.Claimed = r.Claimed && r.Reward != nil
		board = append(board, r)
		items = nil
		return nil
	})
	return board, err
}

// writeCorrection writes c and its changes: the outcomes, the standings
// no later period set, rewards granted and revoked, the settlement's
// counts, then (last, under the outbox lock) a correction.applied event per
// change.
func writeCorrection(ctx context.Context, tx pgx.Tx, c league.Correction, changes []league.CorrectionChange) (league.Correction, error) {
	redis := false
	for i := range changes {
		ch := &changes[i]
		if err := writeChange(ctx, tx, c, ch); err != nil {
			return c, err
		}
		redis = redis || ch.Before.TierAfter != ch.After.TierAfter && !ch.Deferred || ch.Revoked || ch.Granted || ch.Reranked()
	}
	if err := recount(ctx, tx, c, changes); err != nil {
		return c, err
	}
	c.Status, c.Changes = league.CorrectionWritten, changes
	if !redis {
		c.Status = league.CorrectionApplied
	}
	if c.Changes == nil {
		c.Changes = []league.CorrectionChange{}
	}
	var applied *time.Time
	err := tx.QueryRow(ctx, `INSERT INTO corrections (league, period_start, player, action, reason, actor, status, changes, applied_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, CASE WHEN $7 = 'applied' THEN now() END)
		RETURNING id, created_at, applied_at`,
		c.League, c.Period, c.Player, string(c.Action), c.Reason, c.Actor, string(c.Status), c.Changes).Scan(&c.ID, &c.CreatedAt, &applied)
	if err != nil {
		return c, err
	}
	c.CreatedAt, c.AppliedAt = c.CreatedAt.UTC(), utc(applied)
	for _, ch := range changes {
		if !ch.Revoked {
			continue
		}
		_, err := tx.Exec(ctx, `INSERT INTO reward_revocations (correction, league, period_start, player, tier, rank, items, claimed)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, c.ID, c.League, c.Period, ch.Player, ch.Tier, ch.Before.Rank, ch.Before.Rewards, ch.Claimed)
		if err != nil {
			return c, err
		}
	}
	return c, correctionEvents(ctx, tx, c)
}

// writeChange writes one player's change: their outcome row (gone when
// removed: decided nowhere, as a player moderated during the period), their
// standing when their tier changed and no later period set it (Deferred
// otherwise: they play a later period already, and are not moved mid-way),
// and their reward.
func writeChange(ctx context.Context, tx pgx.Tx, c league.Correction, ch *league.CorrectionChange) error {
	var err error
	if ch.After.Rank == 0 {
		_, err = tx.Exec(ctx, `DELETE FROM outcomes WHERE league = $1 AND period_start = $2 AND player = $3`, c.League, c.Period, ch.Player)
	} else {
		_, err = tx.Exec(ctx, `UPDATE outcomes SET rank = $4, score = $5, zone = $6, tier_after = $7
			WHERE league = $1 AND period_start = $2 AND player = $3`,
			c.League, c.Period, ch.Player, ch.After.Rank, ch.After.Score, ch.After.Zone, ch.After.TierAfter)
	}
	if err != nil {
		return err
	}
	if ch.Before.TierAfter != ch.After.TierAfter {
		tag, err := tx.Exec(ctx, `UPDATE standings s SET tier = $4, tier_since = $3, updated_at = now()
			WHERE league = $1 AND player = $2 AND tier_since <= $3 AND NOT EXISTS (
				SELECT FROM outcomes o WHERE o.league = $1 AND o.player = $2 AND o.period_start > $3)`,
			c.League, ch.Player, c.Period, ch.After.TierAfter)
		if err != nil {
			return err
		}
		ch.Deferred = tag.RowsAffected() == 0
	}
	switch {
	case ch.Granted && ch.Revoked:
		_, err = tx.Exec(ctx, `UPDATE rewards SET rank = $4, items = $5 WHERE league = $1 AND period_start = $2 AND player = $3`,
			c.League, c.Period, ch.Player, ch.After.RewardRank(), ch.After.Rewards)
	case ch.Granted:
		_, err = tx.Exec(ctx, `INSERT INTO rewards (league, period_start, player, tier, rank, items) VALUES ($1, $2, $3, $4, $5, $6)`,
			c.League, c.Period, ch.Player, ch.Tier, ch.After.RewardRank(), ch.After.Rewards)
	case ch.Revoked && !ch.Claimed:
		// A reward delivered stays in rewards (the archive shows it claimed);
		// one not delivered is gone, and reward_revocations says why.
		_, err = tx.Exec(ctx, `DELETE FROM rewards WHERE league = $1 AND period_start = $2 AND player = $3`, c.League, c.Period, ch.Player)
	case ch.Reranked():
		// the same reward, earned at another rank (within its band)
		_, err = tx.Exec(ctx, `UPDATE rewards SET rank = $4 WHERE league = $1 AND period_start = $2 AND player = $3`,
			c.League, c.Period, ch.Player, ch.After.RewardRank())
	}
	return err
}

// recount moves the settlement's counts of the corrected tier by the
// changes: what Settlements and period.closed said becomes what the period
// decides now.
func recount(ctx context.Context, tx pgx.Tx, c league.Correction, changes []league.CorrectionChange) error {
	var counts []league.TierCount
	err := tx.QueryRow(ctx, `SELECT tiers FROM settlements WHERE league = $1 AND period_start = $2 FOR UPDATE`,
		c.League, c.Period).Scan(&counts)
	if err != nil {
		return err
	}
	for _, ch := range changes {
		for i := range counts {
			if counts[i].Tier != ch.Tier {
				continue
			}
			count(&counts[i], ch.Before, -1)
			if ch.After.Rank == 0 {
				counts[i].Moderated++
			} else {
				count(&counts[i], ch.After, 1)
			}
		}
	}
	_, err = tx.Exec(ctx, `UPDATE settlements SET tiers = $3 WHERE league = $1 AND period_start = $2`, c.League, c.Period, counts)
	return err
}

// count adds d (1 or -1) of an outcome to a tier's counts.
func count(tc *league.TierCount, s league.CorrectedSide, d int) {
	tc.Players += d
	switch s.Move {
	case league.Promoted:
		tc.Promoted += d
	case league.Demoted:
		tc.Demoted += d
	}
	if s.Rewards != nil {
		tc.Rewarded += d
	}
}

// correctionEvents writes a correction.applied event per change, under the
// outbox lock (events.go), the last step before the commit.
func correctionEvents(ctx context.Context, tx pgx.Tx, c league.Correction) error {
	if len(c.Changes) == 0 {
		return nil
	}
	players := make([]string, len(c.Changes))
	data := make([]string, len(c.Changes))
	for i, ch := range c.Changes {
		change, err := json.Marshal(ch)
		if err != nil {
			return err
		}
		js, err := json.Marshal(events.CorrectionData{Corrected: c.Player, Action: string(c.Action), Reason: c.Reason, Change: change})
		if err != nil {
			return err
		}
		players[i], data[i] = ch.Player, string(js)
	}
	if err := lockOutbox(ctx, tx); err != nil {
		return err
	}
	_, err := tx.Exec(ctx, `INSERT INTO events (type, league, period_start, player, data)
		SELECT $1, $2, $3, player, data
		FROM unnest($4::text[], $5::jsonb[]) WITH ORDINALITY AS c(player, data, n)
		ORDER BY n`, string(events.CorrectionApplied), c.League, c.Period, players, data)
	return err
}

// CorrectionApplied records that Redis carries a written correction, with
// its changes as Redis found them: rewards a join had delivered already are
// marked claimed among the revocations.
func (s *Store) CorrectionApplied(ctx context.Context, c league.Correction) error {
	var claimed []string
	for _, ch := range c.Changes {
		if ch.Revoked && ch.Claimed {
			claimed = append(claimed, ch.Player)
		}
	}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE corrections SET status = 'applied', applied_at = now(), changes = $2
			WHERE id = $1 AND status = 'written'`, c.ID, c.Changes)
		if err != nil || tag.RowsAffected() == 0 {
			return err // applied already: by another run
		}
		_, err = tx.Exec(ctx, `UPDATE reward_revocations SET claimed = true WHERE correction = $1 AND player = ANY($2) AND NOT claimed`,
			c.ID, claimed)
		return err
	})
	return storeError("record a correction applied", err)
}

// PendingCorrections returns the league's corrections still written,
// oldest first.
func (s *Store) PendingCorrections(ctx context.Context, leagueID string) ([]league.Correction, error) {
	rows, _ := s.pool.Query(ctx, `SELECT `+correctionColumns+` FROM corrections WHERE league = $1 AND status = 'written' ORDER BY id`,
		leagueID)
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (league.Correction, error) { return scanCorrection(r) })
	return out, storeError("pending corrections", err)
}

// Corrections returns a league's corrections of a period, oldest first.
func (s *Store) Corrections(ctx context.Context, leagueID string, period time.Time) ([]league.Correction, error) {
	rows, _ := s.pool.Query(ctx, `SELECT `+correctionColumns+` FROM corrections WHERE league = $1 AND period_start = $2 ORDER BY id`,
		leagueID, period)
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (league.Correction, error) { return scanCorrection(r) })
	return out, storeError("corrections", err)
}

func scanCorrection(row pgx.Row) (league.Correction, error) {
	var (
		c              league.Correction
		action, status string
		applied        *time.Time
	)
	err := row.Scan(&c.ID, &c.League, &c.Period, &c.Player, &action, &c.Reason, &c.Actor, &status, &c.Changes, &c.CreatedAt, &applied)
	if err != nil {
		return c, err
	}
	c.Action, c.Status = league.CorrectionAction(action), league.CorrectionStatus(status)
	c.Period, c.CreatedAt, c.AppliedAt = c.Period.UTC(), c.CreatedAt.UTC(), utc(applied)
	return c, nil
}
