// Package connect opens the services the binaries need from their URLs:
// Redis (a server, a cluster, or an in-process miniredis when no URL is
// given) and the settlement store (Postgres, migrated, or process memory).
package connect

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/league-engine/league/inmem"
	"github.com/league-engine/league/league"
	"github.com/league-engine/league/migrations"
	"github.com/league-engine/league/postgres"
)

// Redis opens the Redis of url: redis://, rediss://, or
// redis+cluster://host:port?addr=host2:port for Redis Cluster. An empty url
// starts an in-process miniredis (embedded mode: nothing survives a
// restart). close releases it.
func Redis(ctx context.Context, url string, log *slog.Logger) (rdb redis.UniversalClient, embedded bool, close func(), err error) {
	if url == "" {
		c, stop, err := startEmbedded()
		if err != nil {
			return nil, false, nil, err
		}
		log.Warn("REDIS_URL is not set: live boards are in an in-process Redis (miniredis); NOTHING SURVIVES A RESTART")
		return c, true, stop, nil
	}
	if err := checkDatabase(url); err != nil {
		return nil, false, nil, err
	}
	if rest, ok := strings.CutPrefix(url, "redis+cluster://"); ok {
		opt, err := redis.ParseClusterURL("redis://" + rest)
		if err != nil {
			return nil, false, nil, fmt.Errorf("REDIS_URL: %s", hidePassword(err.Error(), url))
		}
		if opt.MaxRetries == 0 {
			opt.MaxRetries = -1 // as below
		}
		opt.ContextTimeoutEnabled, opt.DialerRetries = true, 1 // as below
		if err := clusterSettings(opt).check(); err != nil {
			return nil, false, nil, err
		}
		c := redis.NewClusterClient(opt)
		return c, false, func() { c.Close() }, ping(ctx, c, "redis cluster")
	}
	opt, err := redis.ParseURL(url)
	if err != nil {
		return nil, false, nil, fmt.Errorf("REDIS_URL: %s", hidePassword(err.Error(), url))
	}
	if opt.PoolSize == 0 {
		opt.PoolSize = 64 // game servers come in bursts; 10 per CPU is too few on small boxes
	}
	// Each command is sent once unless REDIS_URL asks for retries
	// (max_retries of 1 or more; go-redis reads 0 as its default of 3).
	// The engine never lets the client send a write twice anyway
	// (league.Open); the rest is safe to repeat, but a retry only delays
	// the 503 of a Redis that stopped answering.
	if opt.MaxRetries == 0 {
		opt.MaxRetries = -1
	}
	// A request's deadline bounds its Redis calls: go-redis then sets each
	// socket deadline to the earlier of the context's and its own timeout,
	// and gives up waiting for a pooled connection when the context ends.
	// Without it a Redis that hangs holds a request for the read timeout,
	// and one that stops accepting for five dials of five seconds each.
	// One dial per call: a refused dial is answered (503) at once, and
	// the next call dials again.
	opt.ContextTimeoutEnabled, opt.DialerRetries = true, 1
	if err := singleSettings(opt).check(); err != nil {
		return nil, false, nil, err
	}
	c := redis.NewClient(opt)
	err = ping(ctx, c, "redis")
	if err != nil && strings.Contains(err.Error(), "DB index is out of range") {
		// Redis answered, refusing the SELECT of the connection's setup.
		err = fmt.Errorf("REDIS_URL: database %d does not exist on this server (its databases setting is lower)", opt.DB)
	}
	return c, false, func() { c.Close() }, err
}

// hidePassword replaces the password of url's user info in msg: a URL that
// fails to parse is quoted whole in the parser's error, and that error ends
// up in logs.
func hidePassword(msg, url string) string {
	_, rest, ok := strings.Cut(url, "://")
	if !ok {
		return msg
	}
	authority, _, _ := strings.Cut(rest, "/")
	at := strings.LastIndexByte(authority, '@')
	if at < 0 {
		return msg
	}
	userinfo := authority[:at]
	if _, password, ok := strings.Cut(userinfo, ":"); ok && password != "" {
		return strings.ReplaceAll(msg, password, "xxxxx")
	}
	return msg
}

func ping(ctx context.Context, c redis.UniversalClient, what string) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := c.Ping(ctx).Err(); err != nil {
		return fmt.Errorf("%s is not reachable: %w", what, err)
	}
	return nil
}

// Store opens the settlement store: Postgres at url, or process memory when
// url is empty. With migrate set, the schema is brought up to date first
// (leagued); without, a schema this binary has migrations for that it lacks
// is refused (leaguectl's commands: an operator's newer leaguectl must not
// migrate a database under running leagueds, whose restarts would then
// refuse a database newer than them).
func Store(ctx context.Context, url string, migrate bool, log *slog.Logger, opts ...postgres.Option) (league.Store, func(), error) {
	if url == "" {
		log.Warn("DATABASE_URL is not set: settlement results are kept in process memory; NOTHING SURVIVES A RESTART")
		return inmem.New(), func() {}, nil
	}
	s, err := postgres.Open(ctx, url, opts...)
	if err != nil {
		return nil, nil, err
	}
	if !migrate {
		if err := checkMigrated(ctx, s); err != nil {
			s.Close()
			return nil, nil, err
		}
		return s, s.Close, nil
	}
	applied, err := migrations.Apply(ctx, s.Pool())
	if err != nil {
		s.Close()
		return nil, nil, fmt.Errorf("migrate: %w", err)
	}
	for _, m := range applied {
		log.Info("migration applied", "migration", m)
	}
	return s, s.Close, nil
}

// checkMigrated refuses a database that lacks migrations this binary has,
// reading only (a read-only role may run leaguectl's read commands).
func checkMigrated(ctx context.Context, s *postgres.Store) error {
	pending, err := migrations.Pending(ctx, s.Pool())
	if err != nil {
		return fmt.Errorf("DATABASE_URL: %w", err)
	}
	if len(pending) > 0 {
		labels := make([]string, len(pending))
		for i, m := range pending {
			labels[i] = m.Label()
		}
		return fmt.Errorf("DATABASE_URL: the database lacks migrations this binary needs (%s): "+
			"run leaguectl migrate, or start leagued, which migrates", strings.Join(labels, ", "))
	}
	return nil
}
