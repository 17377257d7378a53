// Package postgres is the league.Store on PostgreSQL (pgx): settlement
// results, rewards, claims and the standings that are the source of truth
// for each player's tier. The schema is in package migrations; Open does not
// migrate, the caller runs migrations.Apply first.
package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/league-engine/league/league"
)

// Store is a league.Store on a pgx connection pool.
type Store struct {
	pool *pgxpool.Pool
	// writers holds a slot per settlement write under way with a side
	// transaction (beside.go): at most half the pool's connections, so
	// that writers holding one connection while they wait for a second
	// can never take every connection between them. nil on a pool of one:
	// writes then run in one transaction.
	writers chan struct{}
}

var _ league.Store = (*Store)(nil)

// DefaultConnectTimeout bounds connecting (dial, TLS and startup) when the
// URL sets no connect_timeout.
const DefaultConnectTimeout = 10 * time.Second

// DefaultPingTimeout bounds the ping pgxpool sends on a connection idle for
// a second before handing it out, when the URL sets no pool_ping_timeout
// (pgxpool's own default waits for ever: a Postgres that hangs rather than
// refuses would hold every call that needs a connection).
const DefaultPingTimeout = 5 * time.Second

// Option configures the pool Open makes.
type Option func(*pgxpool.Config)

// WithTracer traces every query, batch and COPY of the pool's connections
// (internal/tracing); nil: none.
func WithTracer(t pgx.QueryTracer) Option {
	return func(c *pgxpool.Config) {
		if t != nil {
			c.ConnConfig.Tracer = t
		}
	}
}

// Open connects to the database at dsn (a postgres:// URL or keyword=value
// string; search_path in it picks the schema, pool_max_conns sizes the pool)
// and checks that it answers.
func Open(ctx context.Context, dsn string, opts ...Option) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, league.Errorf(league.Invalid, "postgres: bad connection string: %v", err)
	}
	for _, o := range opts {
		o(cfg)
	}
	if err := checkPool(cfg); err != nil {
		return nil, err
	}
	if cfg.PingTimeout == 0 {
		cfg.PingTimeout = DefaultPingTimeout
	}
	if cfg.ConnConfig.ConnectTimeout == 0 {
		// A server that accepts the connection but never answers would
		// otherwise hold a start (or a settlement's lock) for minutes.
		// connect_timeout in the URL overrides it.
		cfg.ConnConfig.ConnectTimeout = DefaultConnectTimeout
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, storeError("open", err)
	}
	s := &Store{pool: pool}
	if n := cfg.MaxConns / 2; n > 0 {
		s.writers = make(chan struct{}, n)
	}
	if err := s.Ping(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	return s, nil
}

// writeConns takes a writer slot and the connections of a write with a
// side transaction (beside.go): main for the write's own transaction, side
// for the side's, nil on a pool of one. Both are taken before either
// transaction begins, so no writer waits for a connection while it holds
// a lock; and the slots keep writers to half the pool, so writers holding
// their first connection cannot take every one while they wait for their
// second. release gives all of it back.
func (s *Store) writeConns(ctx context.Context) (main, side *pgxpool.Conn, release func(), err error) {
	if s.writers != nil {
		select {
		case s.writers <- struct{}{}:
		case <-ctx.Done():
			return nil, nil, nil, ctx.Err()
		}
		if side, err = s.pool.Acquire(ctx); err != nil {
			<-s.writers
			return nil, nil, nil, err
		}
	}
	if main, err = s.pool.Acquire(ctx); err != nil {
		if side != nil {
			side.Release()
			<-s.writers
		}
		return nil, nil, nil, err
	}
	return main, side, func() {
		main.Release()
		if side != nil {
			side.Release()
			<-s.writers
		}
	}, nil
}

// checkPool refuses pool settings pgxpool takes and then gets wrong: a
// health check period of 0 or less panics, a connection lifetime of 0 or
// less closes every connection after each use, negative minimums and
// durations mean nothing.
func checkPool(cfg *pgxpool.Config) error {
	bad := func(param string, v any, why string) error {
		return league.Errorf(league.Invalid, "postgres: bad connection string: %s=%v: %s", param, v, why)
	}
	switch {
	case cfg.HealthCheckPeriod <= 0:
		return bad("pool_health_check_period", cfg.HealthCheckPeriod, "must be positive (how often idle connections are checked)")
	case cfg.MaxConnLifetime <= 0:
		return bad("pool_max_conn_lifetime", cfg.MaxConnLifetime, "must be positive")
	case cfg.MaxConnIdleTime < 0:
		return bad("pool_max_conn_idle_time", cfg.MaxConnIdleTime, "must not be negative")
	case cfg.MaxConnLifetimeJitter < 0:
		return bad("pool_max_conn_lifetime_jitter", cfg.MaxConnLifetimeJitter, "must not be negative")
	case cfg.PingTimeout < 0:
		return bad("pool_ping_timeout", cfg.PingTimeout, "must not be negative")
	case cfg.MinConns < 0 || cfg.MinConns > cfg.MaxConns:
		return bad("pool_min_conns", cfg.MinConns, fmt.Sprintf("must be from 0 to pool_max_conns (%d)", cfg.MaxConns))
	case cfg.MinIdleConns < 0 || cfg.MinIdleConns > cfg.MaxConns:
		return bad("pool_min_idle_conns", cfg.MinIdleConns, fmt.Sprintf("must be from 0 to pool_max_conns (%d)", cfg.MaxConns))
	}
	return nil
}

// Close closes the pool. A Lock has a connection of its own, which its
// release (or the end of the process) closes.
func (s *Store) Close() { s.pool.Close() }

// Pool is the connection pool, for migrations.Apply.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// Ping checks that the database answers.
func (s *Store) Ping(ctx context.Context) error {
	return storeError("ping", s.pool.Ping(ctx))
}

// utc returns t in UTC, and the zero time for NULL.
func utc(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return t.UTC()
}

// nullTime is t, or NULL for the zero time.
func nullTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}
