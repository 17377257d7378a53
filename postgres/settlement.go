package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/league-engine/league/league"
)

const settlementColumns = `league, period_start, period_end, status, started_at, finished_at, players, tiers, last_error,
	coalesce(rules, ''), coalesce(rules_fingerprint, '')`

// BeginSettlement records s in StatusStarted unless the period has a
// settlement already, and returns the recorded one either way.
func (s *Store) BeginSettlement(ctx context.Context, set league.Settlement) (league.Settlement, error) {
	switch {
	case set.League == "":
		return league.Settlement{}, invalid("league", "must not be empty")
	case set.Period.IsZero():
		return league.Settlement{}, invalid("period", "must not be zero")
	case !set.PeriodEnd.After(set.Period):
		return league.Settlement{}, invalid("period_end", "%s is not after the period's start %s", set.PeriodEnd, set.Period)
	}
	tiers := set.Tiers
	if tiers == nil {
		tiers = []league.TierCount{}
	}
	row := s.pool.QueryRow(ctx, `INSERT INTO settlements (league, period_start, period_end, status, started_at, players, tiers, last_error)
		VALUES ($1, $2, $3, 'started', coalesce($4, now()), $5, $6, $7)
		ON CONFLICT (league, period_start) DO NOTHING
		RETURNING `+settlementColumns,
		set.League, set.Period, set.PeriodEnd, nullTime(set.StartedAt), set.Players, tiers, set.LastError)
	got, err := scanSettlement(row)
	if errors.Is(err, pgx.ErrNoRows) {
		// Recorded before. A separate statement: under READ COMMITTED it sees
		// the row of a racing BeginSettlement that the INSERT waited for.
		return s.Settlement(ctx, set.League, set.Period)
	}
	return got, storeError("begin settlement", err)
}

// Settlement returns the recorded settlement of a period.
func (s *Store) Settlement(ctx context.Context, leagueID string, period time.Time) (league.Settlement, error) {
	row := s.pool.QueryRow(ctx, `SELECT `+settlementColumns+` FROM settlements
		WHERE league = $1 AND period_start = $2`, leagueID, period)
	got, err := scanSettlement(row)
	if errors.Is(err, pgx.ErrNoRows) {
		return league.Settlement{}, league.Errorf(league.NotFound, "league %q has no settlement of the period starting %s",
			leagueID, period.UTC().Format(time.RFC3339))
	}
	return got, storeError("settlement", err)
}

// Settlements returns a league's most recent settlements, newest first; all
// of them when limit is not positive.
func (s *Store) Settlements(ctx context.Context, leagueID string, limit int) ([]league.Settlement, error) {
	rows, _ := s.pool.Query(ctx, `SELECT `+settlementColumns+` FROM settlements
		WHERE league = $1 ORDER BY period_start DESC LIMIT $2`, leagueID, limitOrAll(limit))
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (league.Settlement, error) { return scanSettlement(r) })
	return out, storeError("settlements", err)
}

// Advance moves a settlement from one status to the next, recording the
// finish time with StatusDone.
func (s *Store) Advance(ctx context.Context, leagueID string, period time.Time, from, to league.SettlementStatus) error {
	if err := league.CheckStep(from, to); err != nil {
		return err
	}
	tag, err := s.pool.Exec(ctx, `UPDATE settlements
		SET status = $4, finished_at = CASE WHEN $4 = 'done' THEN now() END,
			last_error = CASE WHEN $4 = 'done' THEN '' ELSE last_error END
		WHERE league = $1 AND period_start = $2 AND status = $3`,
		leagueID, period, string(from), string(to))
	if err != nil {
		return storeError("advance settlement", err)
	}
	if tag.RowsAffected() == 1 {
		return nil
	}
	cur, err := s.Settlement(ctx, leagueID, period)
	if err != nil {
		return err
	}
	return league.StepConflict(leagueID, period, cur.Status, from)
}

// Fail records the last error of a settlement attempt.
func (s *Store) Fail(ctx context.Context, leagueID string, period time.Time, msg string) error {
	tag, err := s.pool.Exec(ctx, `UPDATE settlements SET last_error = $3
		WHERE league = $1 AND period_start = $2 AND status <> 'done'`,
		leagueID, period, msg)
	if err != nil {
		return storeError("fail settlement", err)
	}
	if tag.RowsAffected() == 0 {
		_, err := s.Settlement(ctx, leagueID, period) // NotFound, or done: nothing to record
		return err
	}
	return nil
}

func scanSettlement(row pgx.Row) (league.Settlement, error) {
	var (
		set              league.Settlement
		status           string
		start, end, strt time.Time
		finished         *time.Time
	)
	err := row.Scan(&set.League, &start, &end, &status, &strt, &finished, &set.Players, &set.Tiers, &set.LastError,
		&set.Rules, &set.RulesFP)
	if err != nil {
		return league.Settlement{}, err
	}
	set.Period, set.PeriodEnd, set.StartedAt, set.FinishedAt = start.UTC(), end.UTC(), strt.UTC(), utc(finished)
	set.Status = league.SettlementStatus(status)
	if len(set.Tiers) == 0 {
		set.Tiers = nil
	}
	return set, nil
}

// limitOrAll is the value of a LIMIT clause: NULL (no limit) for a limit
// that is not positive.
func limitOrAll(limit int) *int {
	if limit <= 0 {
		return nil
	}
	return &limit
}

// invalid is the error of bad input in one field.
func invalid(field, format string, args ...any) error {
	return &league.Error{Code: league.Invalid, Field: field, Message: fmt.Sprintf(format, args...)}
}
