package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/league-engine/league/leaderboard"
)

var _ leaderboard.Archive = (*Store)(nil)

// LastArchived implements leaderboard.Archive.
func (s *Store) LastArchived(ctx context.Context, id string, k leaderboard.Kind) (time.Time, error) {
	var last *time.Time
	err := s.pool.QueryRow(ctx, `SELECT max(period_start) FROM leaderboard_periods WHERE leaderboard = $1 AND kind = $2`,
		id, string(k)).Scan(&last)
	if err != nil || last == nil {
		return time.Time{}, storeError("last archived period", err)
	}
	return last.UTC(), nil
}

// ArchivePeriod implements leaderboard.Archive: the period's row first,
// then its standings by binary COPY, in one transaction. A second archiver
// of the same period waits on the row's key until the first commits, then
// inserts nothing and stores nothing; one killed half way leaves nothing.
// A participant count of -1 (not counted) is stored as NULL.
func (s *Store) ArchivePeriod(ctx context.Context, id string, p leaderboard.Period, members int, participants int64, entries []leaderboard.Entry) (bool, error) {
	var counted *int64
	if participants >= 0 {
		counted = &participants
	}
	saved := false
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `INSERT INTO leaderboard_periods (leaderboard, kind, period_start, period_end, members, participants, kept, archived_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, now()) ON CONFLICT DO NOTHING`, id, string(p.Kind), p.Start, p.End, members, counted, len(entries))
		if err != nil || tag.RowsAffected() == 0 {
			return err
		}
		idField, kindField, startField := encodeText(id), encodeText(string(p.Kind)), encodeTimestamptz(p.Start)
		err = copyIn(ctx, tx, "leaderboard_standings", []string{"leaderboard", "kind", "period_start", "rank", "member", "score"},
			len(entries), func(b []byte, i int) []byte {
				e := &entries[i]
				b = appendFields(b, 6)
				b = append(append(append(b, idField...), kindField...), startField...)
				return appendInt8(appendText(appendInt4(b, e.Rank), e.Member), e.Score)
			})
		saved = err == nil
		return err
	})
	if err != nil {
		return false, storeError("archive period", err)
	}
	return saved, nil
}

// ArchivedPage implements leaderboard.Archive.
func (s *Store) ArchivedPage(ctx context.Context, id string, p leaderboard.Period, offset, limit int) ([]leaderboard.Entry, int, int64, bool, error) {
	var members int
	var participants int64
	err := s.pool.QueryRow(ctx, `SELECT members, coalesce(participants, -1) FROM leaderboard_periods
		WHERE leaderboard = $1 AND kind = $2 AND period_start = $3`,
		id, string(p.Kind), p.Start).Scan(&members, &participants)
	if err == pgx.ErrNoRows {
		return []leaderboard.Entry{}, 0, -1, false, nil
	}
	if err != nil {
		return nil, 0, -1, false, storeError("archived page", err)
	}
	rows, _ := s.pool.Query(ctx, `SELECT rank, member, score FROM leaderboard_standings
		WHERE leaderboard = $1 AND kind = $2 AND period_start = $3 AND rank > $4 ORDER BY rank LIMIT $5`,
		id, string(p.Kind), p.Start, offset, limit)
	entries, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (leaderboard.Entry, error) {
		var e leaderboard.Entry
		return e, r.Scan(&e.Rank, &e.Member, &e.Score)
	})
	if err != nil {
		return nil, 0, -1, false, storeError("archived page", err)
	}
	if entries == nil {
		entries = []leaderboard.Entry{}
	}
	return entries, members, participants, true, nil
}

// ArchivedRank implements leaderboard.Archive.
func (s *Store) ArchivedRank(ctx context.Context, id string, p leaderboard.Period, member string) (int, error) {
	var rank int
	err := s.pool.QueryRow(ctx, `SELECT rank FROM leaderboard_standings WHERE leaderboard = $1 AND kind = $2 AND period_start = $3 AND member = $4`,
		id, string(p.Kind), p.Start, member).Scan(&rank)
	if err == pgx.ErrNoRows {
		return 0, nil
	}
	return rank, storeError("archived rank", err)
}
