package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/league-engine/league/config"
	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/league"
)

// TestModerationCommands: each action from the command line against the
// real Redis and Postgres, its effect on the board, and the audit.
func TestModerationCommands(t *testing.T) {
	ns := testsvc.Namespace(t)
	rdb := testsvc.Redis(t, ns)
	_, dsn := testsvc.Postgres(t)
	yaml := fmt.Sprintf(`
redis: {namespace: %s}
leagues:
  - id: weekly
    schedule: "0 0 * * MON"
    board_size: 10
    max_score: 1000
    tiers:
      - {id: low, promote: 0.2}
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
	for i, p := range []string{"alice", "bob", "carol"} {
		_, err := e.Join(ctx, "weekly", league.JoinRequest{Player: p, Name: p})
		testsvc.Must(t, err, "Join")
		_, err = e.Score(ctx, "weekly", league.ScoreWrite{Player: p, Value: int64(30 - 10*i)})
		testsvc.Must(t, err, "Score")
	}
	var out bytes.Buffer
	testsvc.Must(t, run(ctx, []string{"migrate"}, &out), "migrate")
	do := func(args ...string) string {
		t.Helper()
		out.Reset()
		testsvc.Must(t, run(ctx, append(append([]string{}, args...), "-config", path), &out), "%v", args)
		return out.String()
	}
	wantOut := func(got string, wants ...string) {
		t.Helper()
		for _, w := range wants {
			if !strings.Contains(got, w) {
				t.Fatalf("output lacks %q:\n%s", w, got)
			}
		}
	}

	wantOut(do("hide", "-league", "weekly", "-player", "bob", "-reason", "aimbot report", "-as", "ops-anna"),
		"player bob: ranked, score 20 -> hidden, score 20", "recorded in the audit as action ", "by ops-anna")
	if got := do("board", "-league", "weekly", "-board", "low-1"); strings.Contains(got, "bob") || !strings.Contains(got, "2 players") {
		t.Fatalf("board after hiding bob:\n%s", got)
	}
	wantOut(do("hide", "-league", "weekly", "-player", "bob", "-reason", "again"), "nothing changed")
	if hj := runJSON(t, "hide", "-config", path, "-league", "weekly", "-player", "bob", "-reason", "again", "-o", "json"); hj["changed"] != false ||
		hj["after"].(map[string]any)["board"] != "hidden" || hj["recorded"] != "" {
		t.Fatalf("hide -o json, hidden already: %v", hj)
	}
	wantOut(do("player", "-league", "weekly", "-player", "bob"), "hidden by an operator", "score 20 kept")
	wantOut(do("moderated", "-league", "weekly"), "1 player taken off", "bob     hidden  low-1  20")
	if mj := runJSON(t, "moderated", "-config", path, "-league", "weekly", "-o", "json"); len(mj["players"].([]any)) != 1 ||
		mj["players"].([]any)[0].(map[string]any)["state"] != "hidden" {
		t.Fatalf("moderated -o json: %v", mj)
	}
	wantOut(do("unhide", "-league", "weekly", "-player", "bob", "-reason", "false report"), "hidden, score 20 -> ranked, score 20")
	wantOut(do("set-score", "-league", "weekly", "-player", "alice", "-score", "0", "-reason", "zeroed"), "ranked, score 30 -> ranked, score 0")
	wantOut(do("ban", "-league", "weekly", "-player", "carol", "-for", "7d", "-reason", "chargeback"), "-> banned, score 10, banned until ")
	_, err = e.Join(ctx, "weekly", league.JoinRequest{Player: "carol", Name: "carol"})
	if league.ErrorCode(err) != league.Banned {
		t.Fatalf("carol's join while banned: %v", err)
	}
	wantOut(do("player", "-league", "weekly", "-player", "carol"), "banned until ")
	if uj := runJSON(t, "unban", "-config", path, "-league", "weekly", "-player", "carol", "-reason", "appeal", "-o", "json"); uj["changed"] != true ||
		uj["after"].(map[string]any)["board"] != "ranked" || uj["recorded"] != "audit" || uj["action_id"] == "" {
		t.Fatalf("unban -o json: %v", uj)
	}
	wantOut(do("remove", "-league", "weekly", "-player", "carol", "-reason", "multi-accounting"), "-> removed, score 10")

	got := do("audit", "-league", "weekly")
	wantOut(got, "league weekly: 6 actions, newest first", "remove", "multi-accounting", "ops-anna", "aimbot report", "leaguectl:")
	if strings.Index(got, "multi-accounting") > strings.Index(got, "aimbot report") {
		t.Fatalf("audit not newest first:\n%s", got)
	}
	wantOut(do("audit", "-league", "weekly", "-player", "bob"), "2 actions")
	wantOut(do("audit", "-league", "weekly", "-limit", "2"), "2 actions", "more: -before ")
	aj := runJSON(t, "audit", "-config", path, "-league", "weekly", "-limit", "2", "-o", "json")
	if as := aj["actions"].([]any); len(as) != 2 || aj["next_before"] == "" || as[0].(map[string]any)["reason"] != "multi-accounting" ||
		as[0].(map[string]any)["after"].(map[string]any)["board"] != "removed" {
		t.Fatalf("audit -o json: %v", aj)
	}

	// Refusals: a usage error (exit 2) for a command line that cannot be
	// read; the league's own errors otherwise; nothing written either way.
	before := snapshotNS(t, rdb, ns)
	for _, args := range [][]string{
		{"hide", "-league", "weekly", "-player", "bob"},
		{"hide", "-league", "weekly", "-player", "bob", "-reason", " "},
		{"hide", "-league", "weekly", "-reason", "x"},
		{"set-score", "-league", "weekly", "-player", "bob", "-reason", "x"},
		{"ban", "-league", "weekly", "-player", "bob", "-reason", "x"},
		{"ban", "-league", "weekly", "-player", "bob", "-reason", "x", "-for", "1h", "-until", "2030-01-01T00:00:00Z"},
		{"ban", "-league", "weekly", "-player", "bob", "-reason", "x", "-for", "forever"},
		{"ban", "-league", "weekly", "-player", "bob", "-reason", "x", "-until", "tomorrow"},
		{"hide", "-league", "weekly", "-player", "bob", "-reason", "x", "-score", "3"},
		{"hide", "-league", "weekly", "-player", "bob", "-reason", "x", "-period", "monday"},
		{"audit", "-league", "weekly", "-limit", "0"},
		{"audit", "-league", "weekly", "-before", "x"},
	} {
		var usage usageError
		if err := run(ctx, append(args, "-config", path), &out); !errors.As(err, &usage) {
			t.Errorf("%v: %v, want a usage error", args, err)
		}
	}
	for _, c := range []struct {
		args []string
		code league.Code
	}{
		{[]string{"hide", "-league", "weekly", "-player", "nobody", "-reason", "x"}, league.NotFound},
		{[]string{"hide", "-league", "nope", "-player", "bob", "-reason", "x"}, league.NotFound},
		{[]string{"unhide", "-league", "weekly", "-player", "carol", "-reason", "x"}, league.Conflict},
		{[]string{"set-score", "-league", "weekly", "-player", "bob", "-score", "1001", "-reason", "x"}, league.Invalid},
		{[]string{"hide", "-league", "weekly", "-player", "bob", "-reason", "x", "-period", "20200106T000000Z"}, league.PeriodClosed},
	} {
		if err := run(ctx, append(c.args, "-config", path), &out); league.ErrorCode(err) != c.code {
			t.Errorf("%v: %v, want %s", c.args, err, c.code)
		}
	}
	if after := snapshotNS(t, rdb, ns); after != before {
		t.Fatalf("refused commands changed Redis")
	}

	// Without DATABASE_URL the action waits in Redis for leagued.
	t.Setenv("DATABASE_URL", "")
	wantOut(do("hide", "-league", "weekly", "-player", "alice", "-reason", "x"), "waits in Redis for the audit")
	t.Setenv("DATABASE_URL", dsn)
	wantOut(do("audit", "-league", "weekly", "-player", "alice"), "2 actions")
}

// snapshotNS returns every key of namespace ns with its value.
func snapshotNS(t *testing.T, rdb *redis.Client, ns string) string {
	t.Helper()
	keys, err := rdb.Keys(context.Background(), ns+":*").Result()
	testsvc.Must(t, err, "KEYS")
	sort.Strings(keys)
	var sb strings.Builder
	for _, k := range keys {
		v, err := rdb.Dump(context.Background(), k).Result()
		testsvc.Must(t, err, "DUMP %s", k)
		fmt.Fprintf(&sb, "%s=%q\n", k, v)
	}
	return sb.String()
}
