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

	"github.com/league-engine/league/config"
	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/league"
)

// TestPreview: leaguectl previews the current period of a league on the
// real Redis, in two pages, and refuses command lines it cannot read.
func TestPreview(t *testing.T) {
	ns := testsvc.Namespace(t)
	rdb := testsvc.Redis(t, ns)
	yaml := fmt.Sprintf(`
redis: {namespace: %s}
leagues:
  - id: yearly
    schedule: "0 0 1 1 *"
    board_size: 5
    tiers:
      - {id: low, promote: 0.2, min_promote_score: 1, rewards: [{ranks: "1", items: {gems: 9}}]}
      - {id: high, demote: 0.2}
`, ns)
	path := filepath.Join(t.TempDir(), "config.yaml")
	testsvc.Must(t, os.WriteFile(path, []byte(yaml), 0o600), "write config")
	t.Setenv("REDIS_URL", testsvc.RedisURL())
	ctx := context.Background()
	cfg, err := config.Parse([]byte(yaml))
	testsvc.Must(t, err, "config")
	e, err := league.Open(ctx, rdb, cfg.Leagues, league.WithNamespace(ns))
	testsvc.Must(t, err, "Open")
	for i := 0; i < 7; i++ {
		id := fmt.Sprint("p", i)
		_, err := e.Join(ctx, "yearly", league.JoinRequest{Player: id, Name: id})
		testsvc.Must(t, err, "Join")
		_, err = e.Score(ctx, "yearly", league.ScoreWrite{Player: id, Value: int64(i)})
		testsvc.Must(t, err, "Score")
	}

	var out bytes.Buffer
	testsvc.Must(t, run(ctx, []string{"preview", "-config", path, "-league", "yearly", "-limit", "3"}, &out), "preview")
	// Two boards of low: p4 tops the first (5 players, one promoted), p6
	// the second (2 players: 20% of 2 promotes nobody).
	for _, want := range []string{"current, decided as if it ended now", "7 players, 2 rewarded",
		"moves: low -> high 1", "rewards: gems 18 (2 players)", "low-1  1     p4      4      low   high  promoted  9 gems",
		"more: -after low-1:3"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("preview output lacks %q:\n%s", want, out.String())
		}
	}
	pj := runJSON(t, "preview", "-config", path, "-league", "yearly", "-limit", "3", "-o", "json")
	if pj["players"] != 7.0 || pj["next"] != "low-1:3" || len(pj["rows"].([]any)) != 3 || pj["final"] != false ||
		pj["rows"].([]any)[0].(map[string]any)["move"] != "promoted" {
		t.Errorf("preview -o json: %v", pj)
	}
	out.Reset()
	testsvc.Must(t, run(ctx, []string{"preview", "-config", path, "-league", "yearly", "-after", "low-1:3"}, &out), "preview -after")
	if !strings.Contains(out.String(), "low-2  1     p6") || strings.Contains(out.String(), "more:") || strings.Contains(out.String(), " p4 ") {
		t.Errorf("the second page:\n%s", out.String())
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"preview"}, "preview: -league is required"},
		{[]string{"preview", "-league", "yearly", "-limit", "-1"}, "preview: -limit -1 is outside 0..1000"},
		{[]string{"preview", "-league", "yearly", "-after", "low-1"}, "preview: -after:"},
		{[]string{"preview", "-league", "yearly", "-period", "bad"}, "preview: -period:"},
	} {
		var u usageError
		if err := run(ctx, c.args, &out); !errors.As(err, &u) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("leaguectl %q: %v, want a usage error saying %q", c.args, err, c.want)
		}
	}
	if err := run(ctx, []string{"preview", "-config", path, "-league", "yearly", "-period", "20000101T000000Z"}, &out); league.ErrorCode(err) != league.NotFound {
		t.Errorf("a period nobody joined: %v, want not found", err)
	}
}
