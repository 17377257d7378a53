//go:build unix

package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"
)

// clusterNodes is the size of the throwaway Redis Cluster: three masters,
// the smallest cluster Redis accepts, no replicas.
const clusterNodes = 3

// startRedisCluster starts a three-master Redis Cluster on free ports, its
// files under dir, and returns its servers and a redis:// URL naming every
// node (go-redis's cluster URL form). The slots are assigned and the nodes
// introduced with CLUSTER ADDSLOTSRANGE and CLUSTER MEET, so redis-cli is not
// needed.
func startRedisCluster(ctx context.Context, bin, dir string) ([]*server, string, error) {
	var servers []*server
	var addrs []string
	for i := 0; i < clusterNodes; i++ {
		d := filepath.Join(dir, strconv.Itoa(i))
		if err := os.MkdirAll(d, 0o755); err != nil {
			return servers, "", err
		}
		port, err := freePort()
		if err != nil {
			return servers, "", err
		}
		cmd := exec.Command(bin,
			"--bind", "127.0.0.1", "--port", strconv.Itoa(port), "--dir", d,
			"--cluster-enabled", "yes", "--cluster-config-file", filepath.Join(d, "nodes.conf"),
			"--save", "", "--appendonly", "no", "--daemonize", "no",
		)
		s, err := startServer("redis-server (cluster)", filepath.Join(d, "redis.log"), syscall.SIGTERM, cmd)
		if err != nil {
			return servers, "", err
		}
		servers = append(servers, s)
		addr := fmt.Sprintf("127.0.0.1:%d", port)
		if err := s.waitReady(ctx, 20*time.Second, func(ctx context.Context) error {
			return pingRedis(ctx, "redis://"+addr)
		}); err != nil {
			return servers, "", err
		}
		addrs = append(addrs, addr)
	}
	if err := formCluster(ctx, addrs); err != nil {
		return servers, "", err
	}
	url := "redis://" + addrs[0] + "?addr=" + strings.Join(addrs[1:], "&addr=")
	return servers, url, nil
}

// formCluster splits the 16384 slots between the nodes, introduces them to
// each other and waits until every node reports the cluster ok.
func formCluster(ctx context.Context, addrs []string) error {
	clients := make([]*redis.Client, len(addrs))
	for i, a := range addrs {
		clients[i] = redis.NewClient(&redis.Options{Addr: a})
		defer clients[i].Close()
	}
	per := 16384 / len(addrs)
	for i, c := range clients {
		lo, hi := i*per, (i+1)*per-1
		if i == len(clients)-1 {
			hi = 16383
		}
		if err := c.ClusterAddSlotsRange(ctx, lo, hi).Err(); err != nil {
			return fmt.Errorf("redis cluster: assigning slots %d-%d: %w", lo, hi, err)
		}
	}
	for _, a := range addrs[1:] {
		host, port, _ := strings.Cut(a, ":")
		if err := clients[0].ClusterMeet(ctx, host, port).Err(); err != nil {
			return fmt.Errorf("redis cluster: meet %s: %w", a, err)
		}
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		ok := 0
		for _, c := range clients {
			info, err := c.ClusterInfo(ctx).Result()
			if err == nil && strings.Contains(info, "cluster_state:ok") {
				ok++
			}
		}
		if ok == len(clients) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("redis cluster: not ok after 20s")
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// pingRedisCluster checks that every node of a cluster URL answers.
func pingRedisCluster(ctx context.Context, url string) error {
	opt, err := redis.ParseClusterURL(url)
	if err != nil {
		return err
	}
	c := redis.NewClusterClient(opt)
	defer c.Close()
	return c.ForEachShard(ctx, func(ctx context.Context, n *redis.Client) error { return n.Ping(ctx).Err() })
}
