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

// TestHeldAndLeagueLimits: leaguectl lists a league's held writes,
// approves and rejects them, and shows a player's and a key's counters.
func TestHeldAndLeagueLimits(t *testing.T) {
	ns := testsvc.Namespace(t)
	rdb := testsvc.Redis(t, ns)
	yaml := fmt.Sprintf(`
redis: {namespace: %s}
leagues:
  - id: weekly
    schedule: "0 0 * * MON"
    max_gain: 50
    max_gain_per: {day: 500}
    hold: true
    limits:
      - {by: [player], per: hour, max: 10}
      - {name: servers, by: [key], per: minute, max: 100}
    tiers:
      - {id: low, promote: 0.2}
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
	_, err = e.Join(ctx, "weekly", league.JoinRequest{Player: "ann", Name: "Ann"})
	testsvc.Must(t, err, "Join")
	for _, v := range []int64{30, 70, 90} { // 70 and 90 are held
		_, err := e.Score(ctx, "weekly", league.ScoreWrite{Player: "ann", Value: v, Scope: "eu"})
		testsvc.Must(t, err, "Score")
	}
	var out bytes.Buffer
	testsvc.Must(t, run(ctx, []string{"held", "-config", path, "-league", "weekly"}, &out), "held")
	if s := out.String(); !strings.Contains(s, "2 writes held") || !strings.Contains(s, "1   ann     70     max_gain") {
		t.Fatalf("held:\n%s", s)
	}
	hj := runJSON(t, "held", "-config", path, "-league", "weekly", "-o", "json")
	if hs := hj["held"].([]any); len(hs) != 2 || hs[0].(map[string]any)["player_id"] != "ann" || hs[0].(map[string]any)["cap"] != "max_gain" {
		t.Fatalf("held -o json: %v", hj)
	}
	out.Reset()
	testsvc.Must(t, run(ctx, []string{"held", "-config", path, "-league", "weekly", "-approve", "1"}, &out), "approve")
	if s := out.String(); !strings.Contains(s, "held write 1 approved: score 100") {
		t.Fatalf("approve:\n%s", s)
	}
	out.Reset()
	testsvc.Must(t, run(ctx, []string{"held", "-config", path, "-league", "weekly", "-reject", "2"}, &out), "reject")
	if s := out.String(); !strings.Contains(s, "held write 2 rejected: ann's 90 (past max_gain)") {
		t.Fatalf("reject:\n%s", s)
	}
	if err := run(ctx, []string{"held", "-config", path, "-league", "weekly", "-reject", "2"}, &out); league.ErrorCode(err) != league.NotFound {
		t.Fatalf("rejected twice: %v", err)
	}
	out.Reset()
	testsvc.Must(t, run(ctx, []string{"limits", "-config", path, "-league", "weekly", "-player", "ann"}, &out), "limits")
	// three writes this hour (held ones too); 30 points gained today (an approval is the operator's, not counted)
	if s := out.String(); !strings.Contains(s, "player-hour  player  3          10") || !strings.Contains(s, "gain-day     player  30 points  500") ||
		strings.Contains(s, "servers") {
		t.Fatalf("ann's counters:\n%s", s)
	}
	lj := runJSON(t, "limits", "-config", path, "-league", "weekly", "-player", "ann", "-o", "json")
	if cs := lj["counters"].([]any); lj["league"] != "weekly" || len(cs) != 2 {
		t.Fatalf("limits -league -o json: %v", lj)
	}
	out.Reset()
	testsvc.Must(t, run(ctx, []string{"limits", "-config", path, "-league", "weekly", "-key", "eu"}, &out), "limits")
	if s := out.String(); !strings.Contains(s, "servers  key  3     100") {
		t.Fatalf("the key's counters:\n%s", s)
	}
	var u usageError
	for _, args := range [][]string{
		{"held", "-config", path},
		{"held", "-config", path, "-league", "weekly", "-approve", "1", "-reject", "2"},
		{"limits", "-config", path, "-league", "weekly"},
	} {
		if err := run(ctx, args, &out); !errors.As(err, &u) {
			t.Errorf("%v: %v, want a usage error", args, err)
		}
	}
}
