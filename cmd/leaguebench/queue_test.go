package main

import (
	"context"
	"testing"

	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/leaderboard"
)

// TestEnqueueOp: lbqueue's burst counts a write queued as accepted, with
// its value, and one past max_lag as refused, not as failed.
func TestEnqueueOp(t *testing.T) {
	ctx := context.Background()
	rdb, err := openRedis(ctx, testsvc.RedisURL(), 4)
	testsvc.Must(t, err, "redis")
	defer rdb.Close()
	ns := newNamespace()
	defer deleteNamespace(context.Background(), rdb, ns)
	l := &leaderboard.Leaderboard{ID: queueID, Kinds: []leaderboard.Kind{leaderboard.AllTime}, Queue: &leaderboard.QueuePolicy{MaxLag: 1}}
	testsvc.Must(t, l.Init(), "Init")
	e, err := leaderboard.Open(ctx, rdb, []*leaderboard.Leaderboard{l}, leaderboard.WithNamespace(ns))
	testsvc.Must(t, err, "Open")
	res := &queueResult{}
	enqueue := enqueueOp(e, res, func(*worker) leaderboard.Write { return leaderboard.Write{Member: "m1", Value: 7} })
	w := newWorker(1, 0)
	if n, err := enqueue(ctx, w); n != 1 || err != nil {
		t.Fatalf("first write: got %d, %v; want it queued", n, err)
	}
	if n, err := enqueue(ctx, w); n != 0 || err == nil {
		t.Fatalf("second write past max_lag 1: got %d, %v; want it refused", n, err)
	}
	if got := [4]int64{res.accepted.Load(), res.valuesIn.Load(), res.refused.Load(), res.failed.Load()}; got != [4]int64{1, 7, 1, 0} {
		t.Errorf("accepted, values, refused, failed: got %v, want [1 7 1 0]", got)
	}
}
