package testsvc

import (
	"context"
	"net/url"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Postgres gives the test a schema of its own in the database at
// DatabaseURL, empty (callers apply migrations), and returns a pool whose
// connections use it together with the URL that opens more such connections:
// another pool stands for another process of the same deployment.
//
// When the test ends the pool is closed and the schema dropped with
// everything in it. Pools the test opens itself must be closed first: close
// them in a t.Cleanup registered after this call (cleanups run last first).
func Postgres(tb testing.TB) (pool *pgxpool.Pool, schemaURL string) {
	tb.Helper()
	schema := Namespace(tb)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	admin := postgresAdmin(tb, ctx)
	defer admin.Close(context.Background())
	if _, err := admin.Exec(ctx, `CREATE SCHEMA `+pgx.Identifier{schema}.Sanitize()); err != nil {
		tb.Fatalf("creating schema %s: %v", schema, err)
	}
	tb.Cleanup(func() { dropSchema(tb, schema) })

	schemaURL = withSearchPath(tb, schema)
	pool, err := pgxpool.New(ctx, schemaURL)
	if err != nil {
		tb.Fatalf("postgres pool: %v", err)
	}
	tb.Cleanup(pool.Close)
	return pool, schemaURL
}

// postgresAdmin connects to DatabaseURL itself, failing the test with the
// way to fix it when PostgreSQL is not there.
func postgresAdmin(tb testing.TB, ctx context.Context) *pgx.Conn {
	tb.Helper()
	conn, err := pgx.Connect(ctx, DatabaseURL())
	if err != nil {
		tb.Fatalf("PostgreSQL at %s is not reachable (%v): run `make test`, which starts a throwaway postgres, or set DATABASE_URL",
			DatabaseURL(), err)
	}
	return conn
}

// withSearchPath returns DatabaseURL with search_path set to schema: pgx
// sends parameters it does not know as run-time parameters of each session.
// DATABASE_URL may be a URL or a keyword=value string.
func withSearchPath(tb testing.TB, schema string) string {
	tb.Helper()
	dsn := DatabaseURL()
	if _, err := pgx.ParseConfig(dsn); err != nil {
		tb.Fatalf("DATABASE_URL %q: %v", dsn, err)
	}
	u, err := url.Parse(dsn)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return dsn + " search_path=" + schema
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// dropSchema removes a test's schema. A connection the test leaked inside a
// transaction would block the drop forever; lock_timeout turns that into a
// failure naming the schema.
func dropSchema(tb testing.TB, schema string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	admin := postgresAdmin(tb, ctx)
	defer admin.Close(context.Background())
	_, err := admin.Exec(ctx, `SET lock_timeout = '10s'; DROP SCHEMA `+pgx.Identifier{schema}.Sanitize()+` CASCADE`)
	if err != nil {
		tb.Errorf("dropping schema %s: %v (was a connection left open?)", schema, err)
	}
}
