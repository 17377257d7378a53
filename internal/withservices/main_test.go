//go:build unix

package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/league-engine/league/internal/testsvc"
)

// TestThrowaway starts both throwaway servers whatever the environment says,
// uses them, and checks the cleanup stops them and removes their dir.
func TestThrowaway(t *testing.T) {
	none := func(string) string { return "" }
	if _, err := findRedis(); err != nil {
		skipUnlessCI(t, err)
	}
	if _, err := findPostgres(os.Getenv); err != nil {
		skipUnlessCI(t, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	s, env, err := setup(ctx, none, io.Discard)
	if err != nil {
		s.cleanup(io.Discard)
		t.Fatalf("setup: %v", err)
	}
	urls := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		urls[k] = v
	}
	if err := pingRedis(ctx, urls["REDIS_URL"]); err != nil {
		t.Errorf("redis at %q: %v", urls["REDIS_URL"], err)
	}
	if err := pingRedisCluster(ctx, urls["REDIS_CLUSTER_URL"]); err != nil {
		t.Errorf("redis cluster at %q: %v", urls["REDIS_CLUSTER_URL"], err)
	}
	if err := useDatabase(ctx, urls["DATABASE_URL"]); err != nil {
		t.Errorf("postgres at %q: %v", urls["DATABASE_URL"], err)
	}

	s.cleanup(io.Discard)
	for _, srv := range s.servers {
		select {
		case <-srv.done:
		default:
			t.Errorf("%s (pid %d) still runs after cleanup", srv.name, srv.cmd.Process.Pid)
		}
	}
	if _, err := os.Stat(s.dir); !os.IsNotExist(err) {
		t.Errorf("temp dir %s after cleanup: got stat error %v, want not exist", s.dir, err)
	}
}

// useDatabase creates, fills and reads a table in the database at url.
func useDatabase(ctx context.Context, url string) error {
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, "CREATE TABLE t AS SELECT 42 AS n"); err != nil {
		return err
	}
	var n int
	if err := c.QueryRow(ctx, "SELECT n FROM t").Scan(&n); err != nil {
		return err
	}
	if n != 42 {
		return fmt.Errorf("got n = %d, want 42", n)
	}
	return nil
}

// TestMissingBinaries checks the error names the packages to install.
func TestMissingBinaries(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	getenv := func(k string) string {
		if k == "WITHSERVICES_PG_BINDIR" {
			return "/nonexistent"
		}
		return ""
	}
	s, _, err := setup(context.Background(), getenv, io.Discard)
	s.cleanup(io.Discard)
	if err == nil {
		t.Fatal("setup without binaries: got no error")
	}
	for _, want := range []string{
		"apt-get install redis-server postgresql",
		"brew install redis postgresql@15",
		"REDIS_CLUSTER_URL and REDIS_URL are not set",
		"DATABASE_URL is not set",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("got error %q, want it to contain %q", err, want)
		}
	}
}

// TestMissingClusterNamed: with REDIS_URL and DATABASE_URL given, a missing
// redis-server is missing for the cluster, and the error says so rather than
// advising to set the two variables already set.
func TestMissingClusterNamed(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	redisURL, dbURL := testsvc.RedisURL(), testsvc.DatabaseURL()
	getenv := func(k string) string {
		return map[string]string{"REDIS_URL": redisURL, "DATABASE_URL": dbURL}[k]
	}
	s, _, err := setup(context.Background(), getenv, io.Discard)
	s.cleanup(io.Discard)
	if err == nil || !strings.Contains(err.Error(), "REDIS_CLUSTER_URL is not set") || strings.Contains(err.Error(), "postgres:") {
		t.Fatalf("setup without redis-server, REDIS_CLUSTER_URL unset: %v; want it to name REDIS_CLUSTER_URL only", err)
	}
}

// skipUnlessCI skips a test that needs a binary this machine lacks, except in
// CI, where nothing is skipped.
func skipUnlessCI(t *testing.T, err error) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("%v (CI=true: not skipping)", err)
	}
	t.Skipf("%v: install it, or this test cannot run", err)
}
