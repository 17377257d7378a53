package postgres_test

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/leaderboard"
	"github.com/league-engine/league/league"
	"github.com/league-engine/league/migrations"
	"github.com/league-engine/league/postgres"
	"github.com/league-engine/league/storetest"
)

func TestStore(t *testing.T) {
	storetest.Run(t, func(t *testing.T) league.Store {
		s, _ := newStore(t)
		return s
	})
}

func TestArchive(t *testing.T) {
	storetest.RunArchive(t, func(t *testing.T) leaderboard.Archive {
		s, _ := newStore(t)
		return s
	})
}

func TestAudit(t *testing.T) {
	storetest.RunAudit(t, func(t *testing.T) league.AuditLog {
		s, _ := newStore(t)
		return s
	})
}

// newStore returns a Store on a migrated schema of the test's own, and the
// URL that opens more connections into that schema.
func newStore(t testing.TB) (*postgres.Store, string) {
	t.Helper()
	pool, url := testsvc.Postgres(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := migrations.Apply(ctx, pool); err != nil {
		t.Fatalf("migrations.Apply: %v", err)
	}
	return open(t, url), url
}

// open opens another Store on url, closed when the test ends (before the
// schema is dropped).
func open(t testing.TB, url string) *postgres.Store {
	t.Helper()
	s, err := postgres.Open(context.Background(), url)
	if err != nil {
		t.Fatalf("postgres.Open: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

func TestOpenUnreachable(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := postgres.Open(ctx, "postgres://127.0.0.1:1/test?sslmode=disable&connect_timeout=2")
	if got := league.ErrorCode(err); got != league.Unavailable {
		t.Fatalf("Open of a closed port: got %s (%v), want %s", got, err, league.Unavailable)
	}
	// A server that refuses the connection itself (FATAL: no such database,
	// no such role) is out of reach as well, not an internal error.
	u, err := url.Parse(testsvc.DatabaseURL())
	testsvc.Must(t, err, "parse DATABASE_URL")
	for what, refused := range map[string]func(*url.URL){
		"database": func(u *url.URL) { u.Path = "/league_no_such_database" },
		"role":     func(u *url.URL) { u.User = url.User("league_no_such_role") },
	} {
		v := *u
		refused(&v)
		_, err = postgres.Open(ctx, v.String())
		if got := league.ErrorCode(err); got != league.Unavailable {
			t.Errorf("Open with no such %s: got %s (%v), want %s", what, got, err, league.Unavailable)
		}
	}
	_, err = postgres.Open(ctx, "postgres://127.0.0.1:5432/test?sslmode=bogus")
	if got := league.ErrorCode(err); got != league.Invalid {
		t.Fatalf("Open of a bad connection string: got %s (%v), want %s", got, err, league.Invalid)
	}
	// Pool settings pgxpool takes and then gets wrong (a panic, a pool that
	// closes every connection after use) are refused, naming the setting.
	for query, want := range map[string]string{
		"pool_health_check_period=0s":       "pool_health_check_period=0s: must be positive",
		"pool_health_check_period=-1m":      "pool_health_check_period=-1m0s",
		"pool_max_conn_lifetime=0s":         "pool_max_conn_lifetime=0s",
		"pool_max_conn_idle_time=-1s":       "pool_max_conn_idle_time=-1s",
		"pool_min_conns=-1":                 "pool_min_conns=-1",
		"pool_max_conns=2&pool_min_conns=3": "pool_min_conns=3: must be from 0 to pool_max_conns (2)",
		"pool_min_idle_conns=-2":            "pool_min_idle_conns=-2",
	} {
		_, err := postgres.Open(ctx, "postgres://127.0.0.1:5432/test?sslmode=disable&"+query)
		if league.ErrorCode(err) != league.Invalid || !strings.Contains(err.Error(), want) {
			t.Errorf("Open with %s: %v, want invalid saying %q", query, err, want)
		}
	}
}

func TestContextDeadlineIsUnavailable(t *testing.T) {
	s, _ := newStore(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Nanosecond)
	defer cancel()
	<-ctx.Done()
	_, err := s.Settlements(ctx, "l", 1)
	if got := league.ErrorCode(err); got != league.Unavailable {
		t.Fatalf("Settlements past the deadline: got %s (%v), want %s", got, err, league.Unavailable)
	}
}

// TestUnmigratedSchemaSaysSo: a database leagued never migrated gets an
// error naming the fix, not a bare "relation does not exist".
func TestUnmigratedSchemaSaysSo(t *testing.T) {
	_, url := testsvc.Postgres(t)
	s := open(t, url)
	_, err := s.Settlements(context.Background(), "weekly", 1)
	if league.ErrorCode(err) != league.Unavailable || !strings.Contains(err.Error(), "run leaguectl migrate") {
		t.Fatalf("Settlements on an unmigrated schema: %v", err)
	}
}
