package postgres

import (
	"context"
	"strconv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// lockKey is the advisory lock of settling one period of a league, a bigint
// hashed from the schema, league and period in SQL. The schema is part of it
// because advisory locks are per database: two deployments (or two tests)
// in their own schemas must not block each other.
const lockKey = `hashtextextended(coalesce(current_schema(), '') || '/settle/' || $1::text || '/' || $2::text, 0)`

// Lock takes the lease on settling one period of a league: a session-level
// advisory lock, held by a connection of its own until release closes it.
// If the process dies, Postgres ends its session and the lock with it, so
// another process can take over; no lease expires under a slow settlement.
//
// The connection is not the pool's: a settlement holding a pooled
// connection for minutes would starve the pool, and several settling at
// once could leave none for their own writes. Ending the session is also
// the surest unlock there is.
//
// The holder is not told if its connection drops while it holds the lock;
// WriteOutcomes' status check is what keeps a second settler from writing a
// period twice.
func (s *Store) Lock(ctx context.Context, leagueID string, period time.Time) (release func(), ok bool, err error) {
	if leagueID == "" {
		return nil, false, invalid("league", "must not be empty")
	}
	conn, err := pgx.ConnectConfig(ctx, s.pool.Config().ConnConfig)
	if err != nil {
		return nil, false, storeError("lock", err)
	}
	start := strconv.FormatInt(period.Unix(), 10)
	err = conn.QueryRow(ctx, `SELECT pg_try_advisory_lock(`+lockKey+`)`, leagueID, start).Scan(&ok)
	if err != nil || !ok {
		conn.Close(context.WithoutCancel(ctx))
		return nil, false, storeError("lock", err)
	}
	var once sync.Once
	release = func() {
		once.Do(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			// Unlocked first: a closed session's locks go only once its
			// backend has exited, a moment after the close, and a Lock in
			// that moment (the next replica's, or this process's own retry)
			// would find the period still held. If the unlock fails, the
			// close still ends the session, and the lock with it.
			conn.Exec(ctx, `SELECT pg_advisory_unlock(`+lockKey+`)`, leagueID, start)
			conn.Close(ctx)
		})
	}
	return release, true, nil
}
