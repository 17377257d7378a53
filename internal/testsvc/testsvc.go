// Package testsvc gives tests the real services: Redis from REDIS_URL and
// PostgreSQL from DATABASE_URL (defaults: the local servers), each test
// isolated in its own key namespace or schema and cleaned up after; a Redis
// Cluster from REDIS_CLUSTER_URL (no default). `make test` starts throwaway
// servers and sets all three. A test that cannot
// reach a service fails, saying how to fix it: it never skips.
package testsvc

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"
)

const (
	defaultRedis    = "redis://127.0.0.1:6379/0"
	defaultDatabase = "postgres://127.0.0.1:5432/test?sslmode=disable"
)

// RedisURL is REDIS_URL or the local default.
func RedisURL() string {
	if u := os.Getenv("REDIS_URL"); u != "" {
		return u
	}
	return defaultRedis
}

// DatabaseURL is DATABASE_URL or the local default.
func DatabaseURL() string {
	if u := os.Getenv("DATABASE_URL"); u != "" {
		return u
	}
	return defaultDatabase
}

// Namespace returns a key namespace (or schema name) unique to this test run.
func Namespace(tb testing.TB) string {
	tb.Helper()
	b := make([]byte, 4)
	rand.Read(b)
	name := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			return r
		}
		if r >= 'A' && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return '_'
	}, tb.Name())
	if len(name) > 40 {
		name = name[len(name)-40:]
	}
	return "t_" + name + "_" + hex.EncodeToString(b)
}

// Redis returns a client of the real Redis. Keys under ns (and ns:*) are
// removed when the test ends.
func Redis(tb testing.TB, ns string) *redis.Client {
	tb.Helper()
	opt, err := redis.ParseURL(RedisURL())
	if err != nil {
		tb.Fatalf("REDIS_URL %q: %v", RedisURL(), err)
	}
	opt.PoolSize, opt.MaxRetries = 64, -1 // as leagued's: each command sent once
	c := redis.NewClient(opt)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := c.Ping(ctx).Err(); err != nil {
		tb.Fatalf("Redis at %s is not reachable (%v): run `make test`, which starts a throwaway redis-server, or set REDIS_URL", RedisURL(), err)
	}
	tb.Cleanup(func() {
		DeleteNamespace(context.Background(), c, ns)
		c.Close()
	})
	return c
}

// DeleteNamespace unlinks every key under ns.
func DeleteNamespace(ctx context.Context, c *redis.Client, ns string) error {
	iter := c.Scan(ctx, 0, ns+":*", 1000).Iterator()
	var batch []string
	for iter.Next(ctx) {
		batch = append(batch, iter.Val())
		if len(batch) == 1000 {
			c.Unlink(ctx, batch...)
			batch = batch[:0]
		}
	}
	if len(batch) > 0 {
		c.Unlink(ctx, batch...)
	}
	return iter.Err()
}

// Mini returns a client of a fresh miniredis, closed when the test ends.
func Mini(tb testing.TB) (*redis.Client, *miniredis.Miniredis) {
	tb.Helper()
	m := miniredis.RunT(tb)
	// miniredis runs scripts in Go's Lua, which under -race on a busy
	// machine can take longer than go-redis's 3 s read timeout for a large
	// pipeline: what a test checks on miniredis is the contract, not its
	// speed, and tests of time-outs make clients of their own.
	c := redis.NewClient(&redis.Options{Addr: m.Addr(), MaxRetries: -1, ReadTimeout: 30 * time.Second, WriteTimeout: 30 * time.Second})
	tb.Cleanup(func() { c.Close() })
	return c, m
}

// Backend is a Redis a test runs against.
type Backend struct {
	Name string
	New  func(tb testing.TB, ns string) *redis.Client
}

// Backends are the real Redis and miniredis: engine tests run on both, so the
// embedded default is held to the same contract as production.
var Backends = []Backend{
	{"redis", Redis},
	{"miniredis", func(tb testing.TB, _ string) *redis.Client { c, _ := Mini(tb); return c }},
}

// Must fails the test on err.
func Must(tb testing.TB, err error, what string, args ...any) {
	tb.Helper()
	if err != nil {
		tb.Fatalf("%s: %v", fmt.Sprintf(what, args...), err)
	}
}

// Cluster is a client of the Redis Cluster at REDIS_CLUSTER_URL, edited by
// edit (nil: as parsed); the test fails when none is set.
func Cluster(tb testing.TB, edit func(*redis.ClusterOptions)) *redis.ClusterClient {
	tb.Helper()
	url := os.Getenv("REDIS_CLUSTER_URL")
	if url == "" {
		tb.Fatal("REDIS_CLUSTER_URL is not set: run `make test`, which starts a throwaway three-node cluster")
	}
	opt, err := redis.ParseClusterURL(url)
	Must(tb, err, "REDIS_CLUSTER_URL")
	if edit != nil {
		edit(opt)
	}
	rdb := redis.NewClusterClient(opt)
	tb.Cleanup(func() { rdb.Close() })
	return rdb
}
