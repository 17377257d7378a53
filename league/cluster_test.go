package league_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/league"
)

// TestClusterGuards: on Redis Cluster, in leagues over several slots, 64
// racing writers against a limit of 5 make exactly 5 writes, a player's
// gain cap holds the write past it, and approving it applies it once: the
// counters and the held list share the league's hash tag.
func TestClusterGuards(t *testing.T) {
	rdb := testsvc.Cluster(t, nil)
	ctx := context.Background()
	ns := testsvc.Namespace(t)
	clock := testsvc.NewClock(monday.Add(3600e9))
	var leagues []*league.League
	for _, id := range []string{"north", "south", "east"} {
		leagues = append(leagues, testLeague(t, func(l *league.League) {
			l.ID, l.MaxScore, l.Hold = id, 1000, true
			l.Limits = []league.Limit{{By: []league.LimitBy{league.ByPlayer}, Per: league.PerPeriod, Max: 5}}
			l.MaxGainPer = map[league.Per]int64{league.PerDay: 3}
		}))
	}
	e, err := league.Open(ctx, rdb, leagues, league.WithNamespace(ns), league.WithClock(clock.Now))
	testsvc.Must(t, err, "Open on the cluster")
	t.Cleanup(func() {
		rdb.ForEachMaster(context.Background(), func(ctx context.Context, m *redis.Client) error {
			return testsvc.DeleteNamespace(ctx, m, ns)
		})
	})
	for _, l := range leagues {
		_, err := e.Join(ctx, l.ID, league.JoinRequest{Player: "a", Name: "a"})
		testsvc.Must(t, err, "Join")
		var written, held, refused atomic.Int64
		var wg sync.WaitGroup
		for i := 0; i < 64; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r, err := e.Score(ctx, l.ID, league.ScoreWrite{Player: "a", Value: 1, RequestID: fmt.Sprintf("r%d", i)})
				switch {
				case err == nil && r.Held != nil:
					held.Add(1)
				case err == nil:
					written.Add(1)
				case league.ErrorCode(err) == league.RateLimited:
					refused.Add(1)
				default:
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		// 5 writes pass the limit: 3 gain a point each, 2 are held
		if written.Load() != 3 || held.Load() != 2 || refused.Load() != 59 {
			t.Fatalf("%s: %d written, %d held, %d refused; want 3, 2, 59", l.ID, written.Load(), held.Load(), refused.Load())
		}
		_, list, err := e.HeldWrites(ctx, l.ID, "")
		testsvc.Must(t, err, "HeldWrites")
		if len(list) != 2 {
			t.Fatalf("%s: held %+v", l.ID, list)
		}
		r, err := e.Approve(ctx, l.ID, list[0].ID)
		testsvc.Must(t, err, "Approve")
		if _, err := e.Approve(ctx, l.ID, list[0].ID); league.ErrorCode(err) != league.NotFound || r.Score != 4 {
			t.Fatalf("%s: approved to %d, then %v; want 4 and NotFound", l.ID, r.Score, err)
		}
	}
}
