package main

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/redis/go-redis/v9"
)

// The harness floods whatever it is pointed at and deletes keys when done,
// so it only touches this machine unless told otherwise (-allow-remote).

// checkTargets refuses targets off loopback.
func checkTargets(o options) error {
	if o.allowRemote {
		return nil
	}
	ropt, err := redis.ParseURL(o.redisURL)
	if err != nil {
		return fmt.Errorf("REDIS_URL: %w", err)
	}
	if ropt.Network != "unix" {
		if err := loopback("REDIS_URL", ropt.Addr); err != nil {
			return err
		}
	}
	if o.clusterURL != "" {
		copt, err := redis.ParseClusterURL(o.clusterURL)
		if err != nil {
			return fmt.Errorf("REDIS_CLUSTER_URL: %w", err)
		}
		for _, addr := range copt.Addrs {
			if err := loopback("REDIS_CLUSTER_URL", addr); err != nil {
				return err
			}
		}
	}
	if o.databaseURL != "" {
		pcfg, err := pgx.ParseConfig(o.databaseURL)
		if err != nil {
			return fmt.Errorf("DATABASE_URL: %w", err)
		}
		hosts := []string{pcfg.Host}
		for _, fb := range pcfg.Fallbacks {
			hosts = append(hosts, fb.Host)
		}
		for _, h := range hosts {
			if !strings.HasPrefix(h, "/") { // a directory is a Unix socket
				if err := loopback("DATABASE_URL", net.JoinHostPort(h, "0")); err != nil {
					return err
				}
			}
		}
	}
	if o.httpURL != "" {
		u, err := url.Parse(o.httpURL)
		if err != nil || u.Host == "" {
			return fmt.Errorf("-http %q is not a URL like http://127.0.0.1:8080", o.httpURL)
		}
		if err := loopback("-http", net.JoinHostPort(u.Hostname(), "0")); err != nil {
			return err
		}
	}
	return nil
}

// loopback accepts localhost and loopback addresses.
func loopback(what, hostport string) error {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("%s: %s is not a loopback address; pass -allow-remote to load it anyway", what, host)
}

// checkRealRedis refuses servers that are not Redis (miniredis has no INFO
// server section and no OBJECT or MEMORY commands): their numbers mean
// nothing for production.
func checkRealRedis(ctx context.Context, rdb *redis.Client) (version string, err error) {
	info, err := rdb.Info(ctx, "server").Result()
	if err != nil {
		return "", fmt.Errorf("REDIS_URL: INFO server failed (%v); the harness needs a real Redis, not miniredis", err)
	}
	version = infoField(info, "redis_version")
	if version == "" {
		return "", fmt.Errorf("REDIS_URL: the server does not report redis_version; the harness needs a real Redis, not miniredis")
	}
	if mode := infoField(info, "redis_mode"); mode != "" && mode != "standalone" {
		return "", fmt.Errorf("REDIS_URL: redis_mode %s; the harness measures a standalone Redis", mode)
	}
	return version, nil
}

// infoField returns a field of an INFO reply, "" when absent.
func infoField(info, name string) string {
	for line := range strings.SplitSeq(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), name+":"); ok {
			return v
		}
	}
	return ""
}
