package scheduler_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/league-engine/league/inmem"
	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/league"
	"github.com/league-engine/league/scheduler"
)

// TestRedisCluster runs a season on Redis Cluster, and a restore after the
// cluster lost it: every script's keys share the league's hash slot, so the
// engine, settlement and Restore run unchanged.
func TestRedisCluster(t *testing.T) {
	url := os.Getenv("REDIS_CLUSTER_URL")
	if url == "" {
		t.Fatal("REDIS_CLUSTER_URL is not set: run `make test`, which starts a throwaway three-node cluster")
	}
	opt, err := redis.ParseClusterURL(url)
	testsvc.Must(t, err, "REDIS_CLUSTER_URL")
	rdb := redis.NewClusterClient(opt)
	defer rdb.Close()
	ctx := context.Background()
	ns := testsvc.Namespace(t)
	c := &testsvc.Clock{}
	c.Set(monday.Add(3600e9))
	sched, _ := league.ParseSchedule("0 0 * * MON")
	var leagues []*league.League
	for _, id := range []string{"north", "south", "east"} { // three leagues, likely three slots
		l := &league.League{ID: id, BoardSize: 10, Schedule: sched, Ladder: ladder(t)}
		testsvc.Must(t, l.Init(), "Init")
		leagues = append(leagues, l)
	}
	e, err := league.Open(ctx, rdb, leagues, league.WithNamespace(ns), league.WithClock(c.Now))
	testsvc.Must(t, err, "Open on the cluster")
	t.Cleanup(func() {
		rdb.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error {
			return testsvc.DeleteNamespace(ctx, m, ns)
		})
	})
	week, _ := e.Current("north")
	for _, l := range leagues {
		for i := 0; i < 30; i++ {
			id := fmt.Sprintf("p%02d", i)
			_, err := e.Join(ctx, l.ID, league.JoinRequest{Player: id, Name: id})
			testsvc.Must(t, err, "Join")
			_, err = e.Score(ctx, l.ID, league.ScoreWrite{Player: id, Value: int64(100 - i), RequestID: "r" + id})
			testsvc.Must(t, err, "Score")
		}
		_, errs, err := e.ScoreBatch(ctx, l.ID, []league.ScoreWrite{{Player: "p01", Value: 1}, {Player: "p02", Value: 1}})
		testsvc.Must(t, err, "ScoreBatch")
		testsvc.Must(t, errs[0], "batch write")
		b, err := e.Board(ctx, l.ID, league.Period{}, league.BoardID{Tier: "bronze", N: 1})
		testsvc.Must(t, err, "Board")
		if len(b.Entries) != 10 || b.Entries[0].Player != "p00" {
			t.Fatalf("%s board %+v", l.ID, b.Entries)
		}
	}
	c.After(week.End)
	store := inmem.New()
	s := scheduler.New(e, store)
	for _, l := range leagues {
		st, err := s.SettleNow(ctx, l.ID, week.Start)
		testsvc.Must(t, err, "SettleNow %s", l.ID)
		if st.Players != 30 || st.Tiers[0].Promoted != 6 {
			t.Fatalf("%s settlement %+v", l.ID, st)
		}
	}
	// The cluster loses every league; Restore rebuilds them, each on its slot.
	rdb.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error {
		return testsvc.DeleteNamespace(ctx, m, ns)
	})
	for _, l := range leagues {
		st, err := league.Restore(ctx, rdb, l, store, league.WithNamespace(ns))
		testsvc.Must(t, err, "Restore %s", l.ID)
		if st.Players != 30 || st.Rewards != 9 { // ranks 1-3 of three boards
			t.Fatalf("%s restore %+v", l.ID, st)
		}
	}
	e, err = league.Open(ctx, rdb, leagues, league.WithNamespace(ns), league.WithClock(c.Now))
	testsvc.Must(t, err, "Open after the restore")
	for _, l := range leagues {
		p, err := e.Join(ctx, l.ID, league.JoinRequest{Player: "p00", Name: "p00"})
		testsvc.Must(t, err, "Join after settlement")
		if p.Tier != "silver" || len(p.Rewards) != 1 {
			t.Fatalf("%s: p00 joined %+v", l.ID, p)
		}
	}
}
