package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/league-engine/league/config"
	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/league"
)

// settledQuick plays and settles, with leaguectl settle, one period of
// league "quick" (a period every 2 s, boards of 5; tier low promotes 20%
// from a score of 1 and gives 9 gems to the ranks rewarded, high demotes
// 20%), in a fresh namespace of the test Redis and a fresh database, which
// REDIS_URL and DATABASE_URL then name: n players join as join(i) says and
// score score(i). It returns the config file (in dir) and the period.
func settledQuick(t *testing.T, dir, rewarded string, n int, join func(i int) league.JoinRequest,
	score func(i int) int64) (path string, period league.Period) {
	t.Helper()
	ns := testsvc.Namespace(t)
	rdb := testsvc.Redis(t, ns)
	_, dsn := testsvc.Postgres(t)
	yaml := fmt.Sprintf(`
redis: {namespace: %s}
leagues:
  - id: quick
    schedule: "*/2 * * * * *"
    board_size: 5
    tiers:
      - {id: low, promote: 0.2, min_promote_score: 1, rewards: [{ranks: %q, items: {gems: 9}}]}
      - {id: high, demote: 0.2}
`, ns, rewarded)
	path = filepath.Join(dir, "config.yaml")
	testsvc.Must(t, os.WriteFile(path, []byte(yaml), 0o600), "write config")
	t.Setenv("REDIS_URL", testsvc.RedisURL())
	t.Setenv("DATABASE_URL", dsn)
	ctx := context.Background()
	var out bytes.Buffer
	testsvc.Must(t, run(ctx, []string{"migrate"}, &out), "migrate")
	cfg, err := config.Parse([]byte(yaml))
	testsvc.Must(t, err, "config")
	e, err := league.Open(ctx, rdb, cfg.Leagues, league.WithNamespace(ns))
	testsvc.Must(t, err, "Open")
	for { // a period with a second left for the joins and writes
		if period, _ = e.Current("quick"); time.Until(period.End) > time.Second {
			break
		}
		time.Sleep(time.Until(period.End) + 50*time.Millisecond)
	}
	for i := range n {
		req := join(i)
		_, err := e.Join(ctx, "quick", req)
		testsvc.Must(t, err, "Join")
		_, err = e.Score(ctx, "quick", league.ScoreWrite{Player: req.Player, Value: score(i)})
		testsvc.Must(t, err, "Score")
	}
	time.Sleep(time.Until(period.End) + 100*time.Millisecond)
	testsvc.Must(t, run(ctx, []string{"settle", "-config", path, "-league", "quick", "-period", period.ID()}, &out), "settle")
	return path, period
}
