package leaderboard_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/leaderboard"
	"github.com/league-engine/league/league"
)

// TestRedisCluster: writes, pages, windows and members on Redis Cluster,
// several leaderboards over its slots (a leaderboard's keys share a hash
// tag, so each script runs on one node).
func TestRedisCluster(t *testing.T) {
	rdb := testsvc.Cluster(t, nil)
	ns := testsvc.Namespace(t)
	ctx := context.Background()
	var boards []*leaderboard.Leaderboard
	for i := range 6 {
		boards = append(boards, newLeaderboard(t, func(l *leaderboard.Leaderboard) {
			l.ID = fmt.Sprintf("lb%d", i)
			l.Windows = []leaderboard.Window{{N: 30, Unit: leaderboard.Day}, {N: 24, Unit: leaderboard.Hour}}
			l.Catalog = true
		}))
	}
	clock := testsvc.NewClock(start)
	e, err := leaderboard.Open(ctx, rdb, boards, leaderboard.WithNamespace(ns), leaderboard.WithClock(clock.Now))
	testsvc.Must(t, err, "Open")
	t.Cleanup(func() {
		rdb.ForEachMaster(context.Background(), func(ctx context.Context, m *redis.Client) error {
			return testsvc.DeleteNamespace(ctx, m, ns)
		})
	})
	for _, l := range boards {
		for i := range 20 {
			_, err := e.Write(ctx, l.ID, leaderboard.Write{Member: fmt.Sprintf("m%02d", i), Value: int64(i + 1), RequestID: fmt.Sprintf("r%d", i)})
			testsvc.Must(t, err, "write to %s", l.ID)
		}
		top, err := e.Top(ctx, l.ID, leaderboard.AllTime, "", 0, 3)
		testsvc.Must(t, err, "top of %s", l.ID)
		if got := entries(top.Entries); got != "1.m19=20 2.m18=19 3.m17=18 " || top.Size != 20 {
			t.Errorf("%s: %s (size %d)", l.ID, got, top.Size)
		}
		around, err := e.Around(ctx, l.ID, leaderboard.Day, "", "m00", 1)
		testsvc.Must(t, err, "around in %s", l.ID)
		if got := entries(around.Entries); got != "19.m01=2 20.m00=1 " {
			t.Errorf("%s around m00: %s", l.ID, got)
		}
		st, err := e.Member(ctx, l.ID, "m10")
		testsvc.Must(t, err, "member in %s", l.ID)
		if st[0].Rank != 10 || st[0].Gap != 1 {
			t.Errorf("%s: m10 %+v", l.ID, st[0])
		}
		// Rolling boards: written before any pre-fill (each write read its
		// 29 and 23 buckets), then filled, on the leaderboard's node.
		fills, err := e.PreFill(ctx, l.ID)
		testsvc.Must(t, err, "pre-fill %s", l.ID)
		if len(fills) != 4 || !fills[3].Filled {
			t.Errorf("%s: fills %+v", l.ID, fills)
		}
		// the catalog, and several members at once
		_, err = e.Import(ctx, l.ID, []leaderboard.CatalogEntry{{Member: "m19", Name: "Nineteen", InitialScore: 100}})
		testsvc.Must(t, err, "import into %s", l.ID)
		top, err = e.Top(ctx, l.ID, leaderboard.AllTime, "", 0, 1)
		testsvc.Must(t, err, "top of %s", l.ID)
		if top.Entries[0].Name != "Nineteen" || top.Entries[0].Score != 120 {
			t.Errorf("%s after the import: %+v", l.ID, top.Entries)
		}
		sts, errs, err := e.Members(ctx, l.ID, []string{"m01", "m02"}, []leaderboard.Kind{leaderboard.Day, "30d"})
		testsvc.Must(t, err, "members of %s", l.ID)
		if errs[0] != nil || sts[1][1].Score != 3 || sts[0][0].Rank != 19 {
			t.Errorf("%s members: %+v %v", l.ID, sts, errs)
		}
		for _, k := range []leaderboard.Kind{"30d", "24h"} {
			b, err := e.Top(ctx, l.ID, k, "", 0, 3)
			testsvc.Must(t, err, "top of %s %s", l.ID, k)
			if got := entries(b.Entries); got != "1.m19=20 2.m18=19 3.m17=18 " || b.Size != 20 || b.Incomplete {
				t.Errorf("%s %s: %s (size %d, incomplete %v)", l.ID, k, got, b.Size, b.Incomplete)
			}
		}
	}
	// one batch over every leaderboard, so over every node
	var many []leaderboard.BoardWrite
	for _, l := range boards {
		many = append(many, leaderboard.BoardWrite{Leaderboard: l.ID, Write: leaderboard.Write{Member: "zz", Value: 7}})
	}
	res, errs, err := e.WriteMany(ctx, many)
	testsvc.Must(t, err, "WriteMany")
	for i, err := range errs {
		testsvc.Must(t, err, "write %d of the batch", i)
		if res[i].Boards[0].Score != 7 {
			t.Errorf("write %d of the batch: %+v", i, res[i])
		}
	}
	// a sharded leaderboard: its shards' hash tags spread over the nodes,
	// and each read that ranks asks every one of them
	spread := newLeaderboard(t, func(l *leaderboard.Leaderboard) {
		l.ID, l.Shards, l.Participants = "spread", 6, []leaderboard.Kind{leaderboard.Day}
	})
	se, err := leaderboard.Open(ctx, rdb, []*leaderboard.Leaderboard{spread}, leaderboard.WithNamespace(ns), leaderboard.WithClock(clock.Now))
	testsvc.Must(t, err, "Open")
	for i := range 20 {
		_, err := se.Write(ctx, "spread", leaderboard.Write{Member: fmt.Sprintf("m%02d", i), Value: int64(i + 1), Actor: fmt.Sprint(i % 4)})
		testsvc.Must(t, err, "write to spread")
	}
	top, err := se.Top(ctx, "spread", leaderboard.AllTime, "", 0, 3)
	testsvc.Must(t, err, "top of spread")
	around, err := se.Around(ctx, "spread", leaderboard.Day, "", "m10", 2)
	testsvc.Must(t, err, "around in spread")
	if got, want := entries(top.Entries)+"| "+entries(around.Entries), "1.m19=20 2.m18=19 3.m17=18 | 8.m12=13 9.m11=12 10.m10=11 11.m09=10 12.m08=9 "; got != want ||
		around.Size != 20 || around.Participants != 4 {
		t.Errorf("spread: got %s (size %d, %d participants), want %s", got, around.Size, around.Participants, want)
	}
	sts, failed, err := se.Members(ctx, "spread", []string{"m10", "m19", "nobody"}, nil)
	testsvc.Must(t, errors.Join(append(failed, err)...), "members of spread")
	if st := sts[0][0]; st.Rank != 10 || st.Gap != 1 || sts[1][0].Rank != 1 || sts[1][0].Gap != -1 || sts[2][0].Rank != 0 {
		t.Errorf("spread members: %+v", sts)
	}
	// 64 racing writers against a limit of 5, on the cluster
	limited := newLeaderboard(t, func(l *leaderboard.Leaderboard) {
		l.ID = "capped"
		l.Limits = []leaderboard.Limit{{By: []leaderboard.Dimension{leaderboard.OfMember}, Per: leaderboard.PerDay, Max: 5}}
	})
	ce, err := leaderboard.Open(ctx, rdb, []*leaderboard.Leaderboard{limited}, leaderboard.WithNamespace(ns), leaderboard.WithClock(clock.Now))
	testsvc.Must(t, err, "Open")
	var accepted atomic.Int64
	var wg sync.WaitGroup
	for i := range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := ce.Write(ctx, "capped", leaderboard.Write{Member: "x", Value: 1, Actor: fmt.Sprint(i)}); err == nil {
				accepted.Add(1)
			} else if league.ErrorCode(err) != league.RateLimited {
				t.Errorf("write: %v", err)
			}
		}()
	}
	wg.Wait()
	if accepted.Load() != 5 {
		t.Errorf("64 racing writers against a limit of 5 on the cluster: %d accepted", accepted.Load())
	}
}
