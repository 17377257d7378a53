package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/redis/go-redis/v9"
)

// openRedis opens the one client every part of a run shares: the engine,
// the in-process server and the baselines, so all of them get the same
// client settings. The pool has room for every request in flight (leagued
// itself sizes it at 64; see internal/connect).
func openRedis(ctx context.Context, url string, inFlight int) (*redis.Client, error) {
	opt, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("REDIS_URL: %w", err)
	}
	if opt.PoolSize == 0 {
		opt.PoolSize = max(64, inFlight+16)
	}
	if opt.MaxRetries == 0 {
		opt.MaxRetries = -1 // as leagued's: each command sent once
	}
	c := redis.NewClient(opt)
	if err := c.Ping(ctx).Err(); err != nil {
		c.Close()
		return nil, fmt.Errorf("redis at %s is not reachable: %w", opt.Addr, err)
	}
	return c, nil
}

// newNamespace is a key namespace (and schema suffix) unique to this run:
// "bench-<8 hex>".
func newNamespace() string {
	b := make([]byte, 4)
	rand.Read(b)
	return "bench-" + hex.EncodeToString(b)
}

// deleteNamespace unlinks every key under ns (SCAN, then UNLINK so Redis
// frees the memory off its main thread) and returns how many it removed.
func deleteNamespace(ctx context.Context, rdb *redis.Client, ns string) (int, error) {
	n := 0
	err := scanNamespace(ctx, rdb, ns, func(keys []string) error {
		n += len(keys)
		return rdb.Unlink(ctx, keys...).Err()
	})
	return n, err
}

// deleteClusterNamespace is deleteNamespace on every master of a cluster,
// a key per UNLINK (a node refuses one of keys in several slots).
func deleteClusterNamespace(ctx context.Context, c *redis.ClusterClient, ns string) (int, error) {
	var n atomic.Int64
	err := c.ForEachMaster(ctx, func(ctx context.Context, node *redis.Client) error {
		return scanNamespace(ctx, node, ns, func(keys []string) error {
			n.Add(int64(len(keys)))
			pipe := node.Pipeline()
			for _, k := range keys {
				pipe.Unlink(ctx, k)
			}
			_, err := pipe.Exec(ctx)
			return err
		})
	})
	return int(n.Load()), err
}

// openCluster opens a client of the Redis Cluster url names (go-redis's
// cluster URL), with room for every request in flight as openRedis.
func openCluster(ctx context.Context, url string, inFlight int) (*redis.ClusterClient, error) {
	opt, err := redis.ParseClusterURL(url)
	if err != nil {
		return nil, fmt.Errorf("REDIS_CLUSTER_URL: %w", err)
	}
	if opt.PoolSize == 0 {
		opt.PoolSize = max(64, inFlight+16)
	}
	if opt.MaxRetries == 0 {
		opt.MaxRetries = -1
	}
	c := redis.NewClusterClient(opt)
	if err := c.ForEachShard(ctx, func(ctx context.Context, n *redis.Client) error { return n.Ping(ctx).Err() }); err != nil {
		c.Close()
		return nil, fmt.Errorf("redis cluster at %v is not reachable: %w", opt.Addrs, err)
	}
	return c, nil
}

// scanNamespace hands fn the keys under ns, up to 1000 at a time.
func scanNamespace(ctx context.Context, rdb *redis.Client, ns string, fn func([]string) error) error {
	iter := rdb.Scan(ctx, 0, ns+":*", 1000).Iterator()
	batch := make([]string, 0, 1000)
	for iter.Next(ctx) {
		batch = append(batch, iter.Val())
		if len(batch) == cap(batch) {
			if err := fn(batch); err != nil {
				return err
			}
			batch = batch[:0]
		}
	}
	if err := iter.Err(); err != nil {
		return err
	}
	if len(batch) > 0 {
		return fn(batch)
	}
	return nil
}

// redisCPU returns the CPU seconds Redis has used (user + system, all its
// threads), from INFO cpu: of every master of a cluster, summed.
func redisCPU(ctx context.Context, rdb redis.UniversalClient) (float64, error) {
	if c, ok := rdb.(*redis.ClusterClient); ok {
		var mu sync.Mutex
		var sum float64
		err := c.ForEachMaster(ctx, func(ctx context.Context, n *redis.Client) error {
			s, err := redisCPU(ctx, n)
			mu.Lock()
			sum += s
			mu.Unlock()
			return err
		})
		return sum, err
	}
	info, err := rdb.Info(ctx, "cpu").Result()
	if err != nil {
		return 0, err
	}
	user, err1 := strconv.ParseFloat(infoField(info, "used_cpu_user"), 64)
	sys, err2 := strconv.ParseFloat(infoField(info, "used_cpu_sys"), 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("INFO cpu: no used_cpu_user/used_cpu_sys")
	}
	return user + sys, nil
}

// usedMemory returns INFO memory's used_memory, in bytes.
func usedMemory(ctx context.Context, rdb *redis.Client) (int64, error) {
	info, err := rdb.Info(ctx, "memory").Result()
	if err != nil {
		return 0, err
	}
	return strconv.ParseInt(infoField(info, "used_memory"), 10, 64)
}
