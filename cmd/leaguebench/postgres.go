package main

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/league-engine/league/migrations"
	"github.com/league-engine/league/postgres"
)

// scratchStore is a Postgres store in a schema of its own, migrated from
// scratch, so a run never touches the database's real tables; drop removes
// the schema with everything in it.
type scratchStore struct {
	*postgres.Store
	schema string
	admin  string // DATABASE_URL, for the drop
}

func openScratchStore(ctx context.Context, databaseURL, ns string) (*scratchStore, error) {
	schema := strings.ReplaceAll(ns, "-", "_")
	conn, err := pgx.Connect(ctx, databaseURL)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	_, err = conn.Exec(ctx, "CREATE SCHEMA "+pgx.Identifier{schema}.Sanitize())
	conn.Close(ctx)
	if err != nil {
		return nil, fmt.Errorf("postgres: create schema %s: %w", schema, err)
	}
	s := &scratchStore{schema: schema, admin: databaseURL}
	s.Store, err = postgres.Open(ctx, withSearchPath(databaseURL, schema))
	if err == nil {
		_, err = migrations.Apply(ctx, s.Pool())
	}
	if err != nil {
		s.drop()
		return nil, fmt.Errorf("postgres: %w", err)
	}
	return s, nil
}

// withSearchPath points every session of dsn at schema: pgx sends unknown
// URL parameters as run-time parameters (as internal/testsvc does).
func withSearchPath(dsn, schema string) string {
	u, err := url.Parse(dsn)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return dsn + " search_path=" + schema // keyword=value form
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// drop closes the store and drops its schema. It uses its own context: it
// runs after a cancelled run too.
func (s *scratchStore) drop() error {
	if s.Store != nil {
		s.Store.Close()
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, s.admin)
	if err != nil {
		return fmt.Errorf("postgres: dropping schema %s: %w", s.schema, err)
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, "DROP SCHEMA "+pgx.Identifier{s.schema}.Sanitize()+" CASCADE")
	if err != nil {
		return fmt.Errorf("postgres: dropping schema %s: %w", s.schema, err)
	}
	return nil
}
