package main

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/league-engine/league/leaderboard"
)

// clusterShare is how one leaderboard of lbshardwrite spreads over the
// masters of a Redis Cluster: per node, its shards (by the slot of each
// shard's hash tag), its keys (SCAN), the members of its all-time boards
// (ZCARD) and the writes of a pass of writes to it alone (EVALSHA calls,
// INFO commandstats). The busiest node bounds what the cluster takes:
// with every node a core of its own, writes/s ≈ one node's rate × nodes ×
// mean/max.
type clusterShare struct {
	shards int
	conc   int
	pass   time.Duration
	nodes  []string // master addresses, sorted
	// counts by what is counted, in the order of nodes
	counts map[string][]int64
}

// shareCounts are what clusterShare counts, in table order.
var shareCounts = []string{"shards", "keys", "all-time members", "writes"}

// predicted is how many times one node's write rate the cluster takes
// when its busiest node is the limit: writes over the busiest node's.
func (s clusterShare) predicted() float64 {
	w := s.counts["writes"]
	return float64(sum(w)) / float64(slices.Max(w))
}

func sum(xs []int64) int64 {
	var n int64
	for _, x := range xs {
		n += x
	}
	return n
}

// clusterShare counts l's share of each master of c, writing to it alone
// for a turn (-duration / -rounds) at the highest -concurrency.
func (b *bench) clusterShare(ctx context.Context, c *redis.ClusterClient, ns string, l *leaderboard.Leaderboard, write op) error {
	var mu sync.Mutex
	var nodes []*redis.Client
	if err := c.ForEachMaster(ctx, func(_ context.Context, n *redis.Client) error {
		mu.Lock()
		defer mu.Unlock()
		nodes = append(nodes, n)
		return nil
	}); err != nil {
		return err
	}
	slices.SortFunc(nodes, func(a, b *redis.Client) int { return strings.Compare(a.Options().Addr, b.Options().Addr) })
	sh := clusterShare{shards: l.Shards, conc: slices.Max(b.o.concurrency), counts: map[string][]int64{}}
	at := map[string]int{}
	for i, n := range nodes {
		sh.nodes = append(sh.nodes, n.Options().Addr)
		at[n.Options().Addr] = i
	}
	for _, what := range shareCounts {
		sh.counts[what] = make([]int64, len(nodes))
	}
	for s := range l.Shards {
		key := leaderboard.ShardBoardKey(ns, l.ID, s, allTime)
		node, err := c.MasterForKey(ctx, key)
		if err != nil {
			return err
		}
		i := at[node.Options().Addr]
		size, err := node.ZCard(ctx, key).Result()
		if err != nil {
			return err
		}
		sh.counts["shards"][i]++
		sh.counts["all-time members"][i] += size
	}
	before, err := evalshaCalls(ctx, nodes)
	if err != nil {
		return err
	}
	s := b.spec(fmt.Sprintf("lbshardwrite %s alone", shardsName(l.Shards)), "ops", pace{conc: sh.conc})
	sh.pass = drive(ctx, s, s.duration, write, newMeasurement(s))
	after, err := evalshaCalls(ctx, nodes)
	if err != nil {
		return err
	}
	tags := []string{"{" + l.ID + "}", "{" + l.ID + ":"}
	for i, n := range nodes {
		sh.counts["writes"][i] = after[i] - before[i]
		err := scanNamespace(ctx, n, ns, func(keys []string) error {
			for _, k := range keys {
				if strings.Contains(k, tags[0]) || strings.Contains(k, tags[1]) {
					sh.counts["keys"][i]++
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	b.rep.shares = append(b.rep.shares, sh)
	fmt.Fprintf(b.out, "lbshardwrite on the cluster, %s: writes by node %v (max/mean %.2f); the cluster would take %.2f× one node's rate\n",
		shardsName(l.Shards), sh.counts["writes"], maxOverMean(sh.counts["writes"]), sh.predicted())
	return nil
}

// evalshaCalls are the EVALSHA calls each node has served (INFO
// commandstats).
func evalshaCalls(ctx context.Context, nodes []*redis.Client) ([]int64, error) {
	out := make([]int64, len(nodes))
	for i, n := range nodes {
		info, err := n.Info(ctx, "commandstats").Result()
		if err != nil {
			return nil, err
		}
		stat := infoField(info, "cmdstat_evalsha")
		calls, _, _ := strings.Cut(strings.TrimPrefix(stat, "calls="), ",")
		if stat != "" {
			if out[i], err = strconv.ParseInt(calls, 10, 64); err != nil {
				return nil, fmt.Errorf("INFO commandstats: cmdstat_evalsha %q", stat)
			}
		}
	}
	return out, nil
}

func maxOverMean(xs []int64) float64 {
	if sum(xs) == 0 {
		return 0
	}
	return float64(slices.Max(xs)) * float64(len(xs)) / float64(sum(xs))
}

// shareColumns make a clusterShare's table: a row per count, a column per
// node, then the busiest node over the mean.
func shareColumns(s clusterShare) []column[string] {
	cols := []column[string]{{"per node", false, func(what string) string { return what }}}
	for i, addr := range s.nodes {
		cols = append(cols, column[string]{addr, true, func(what string) string { return thousands(float64(s.counts[what][i])) }})
	}
	return append(cols, column[string]{"max/mean", true, func(what string) string { return fmt.Sprintf("%.2f", maxOverMean(s.counts[what])) }})
}
