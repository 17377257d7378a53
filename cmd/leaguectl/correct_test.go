package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/league-engine/league/config"
	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/league"
)

// TestCorrect: leaguectl correct zeroes the rank 1 of a settled period:
// the rank 2 takes the promotion and the reward; the same command again
// changes nothing; bad command lines are usage errors.
func TestCorrect(t *testing.T) {
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
      - {id: low, promote: 0.2, min_promote_score: 1, rewards: [{ranks: "1", items: {gems: 9}}]}
      - {id: high, demote: 0.2}
`, ns)
	path := filepath.Join(t.TempDir(), "config.yaml")
	testsvc.Must(t, os.WriteFile(path, []byte(yaml), 0o600), "write config")
	t.Setenv("REDIS_URL", testsvc.RedisURL())
	t.Setenv("DATABASE_URL", dsn)
	ctx := context.Background()
	cfg, err := config.Parse([]byte(yaml))
	testsvc.Must(t, err, "config")
	e, err := league.Open(ctx, rdb, cfg.Leagues, league.WithNamespace(ns))
	testsvc.Must(t, err, "Open")
	var period league.Period
	for {
		period, _ = e.Current("quick")
		if time.Until(period.End) > time.Second {
			break
		}
		time.Sleep(time.Until(period.End) + 50*time.Millisecond)
	}
	for i := range 5 {
		id := fmt.Sprint("p", i)
		_, err := e.Join(ctx, "quick", league.JoinRequest{Player: id, Name: id})
		testsvc.Must(t, err, "Join")
		_, err = e.Score(ctx, "quick", league.ScoreWrite{Player: id, Value: int64(10 - i)})
		testsvc.Must(t, err, "Score")
	}
	time.Sleep(time.Until(period.End) + 100*time.Millisecond)
	var out bytes.Buffer
	testsvc.Must(t, run(ctx, []string{"migrate"}, &out), "migrate")
	testsvc.Must(t, run(ctx, []string{"settle", "-config", path, "-league", "quick", "-period", period.ID()}, &out), "settle")

	args := []string{"correct", "-config", path, "-league", "quick", "-period", period.ID(), "-player", "p0", "-zero", "-reason", "bot"}
	for run_ := range 2 {
		out.Reset()
		testsvc.Must(t, run(ctx, args, &out), "correct")
		for _, want := range []string{"zero p0", "applied", "p0                   rank 1 -> 5, high -> low, reward revoked",
			"p1                   rank 2 -> 1, low -> high, reward granted"} {
			if !strings.Contains(out.String(), want) {
				t.Fatalf("run %d: output lacks %q:\n%s", run_, want, out.String())
			}
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"correct", "-league", "quick", "-period", period.ID(), "-player", "p0", "-reason", "x"}, "give -zero or -remove"},
		{[]string{"correct", "-league", "quick", "-period", period.ID(), "-player", "p0", "-zero", "-remove", "-reason", "x"}, "give -zero or -remove"},
		{[]string{"correct", "-league", "quick", "-period", period.ID(), "-player", "p0", "-zero"}, "-reason is required"},
		{[]string{"correct", "-league", "quick", "-player", "p0", "-zero", "-reason", "x"}, "-period and -player are required"},
		{[]string{"correct", "-league", "quick", "-period", "bad", "-player", "p0", "-zero", "-reason", "x"}, "correct: -period:"},
	} {
		var u usageError
		if err := run(ctx, c.args, &out); !errors.As(err, &u) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("leaguectl %q: %v, want a usage error saying %q", c.args, err, c.want)
		}
	}
	if err := run(ctx, []string{"correct", "-config", path, "-league", "quick", "-period", period.ID(), "-player", "nobody", "-zero", "-reason", "x"}, &out); league.ErrorCode(err) != league.NotFound {
		t.Errorf("correcting an unknown player: %v, want not found", err)
	}
}
