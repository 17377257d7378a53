package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/league"
	"github.com/league-engine/league/postgres"
)

// TestSettlementVerify settles a real period with leaguectl and verifies it
// from Postgres: as settled it passes; a tier_after changed, or a reward
// deleted, is printed row by row and fails the command; a config without
// the league verifies from the recorded rules alone; and what cannot be
// verified says why.
func TestSettlementVerify(t *testing.T) {
	dir := t.TempDir()
	path, period := settledQuick(t, dir, "1-2", 12, func(i int) league.JoinRequest {
		id := fmt.Sprint("p", i)
		return league.JoinRequest{Player: id, Name: id}
	}, func(i int) int64 { return int64(1 + i%7) })
	ctx, dsn := context.Background(), os.Getenv("DATABASE_URL")
	var out bytes.Buffer

	store, err := postgres.Open(ctx, dsn)
	testsvc.Must(t, err, "postgres.Open")
	defer store.Close()
	exec := func(sql string, args ...any) {
		t.Helper()
		_, err := store.Pool().Exec(ctx, sql, args...)
		testsvc.Must(t, err, "%s", sql)
	}
	verify := func(path string, args ...string) (string, error) {
		t.Helper()
		var out bytes.Buffer
		err := run(ctx, append([]string{"settlement", "verify", "-config", path}, args...), &out)
		return out.String(), err
	}
	this := []string{"-league", "quick", "-period", period.ID()}

	got, err := verify(path, this...)
	if err != nil || !strings.Contains(got, "checked 12 players on 3 boards: 12 outcomes and 6 rewards re-decided, and 2 tier counts") ||
		!strings.Contains(got, "laid on the configured tiers") || !strings.HasSuffix(got, "ok: the recorded outcomes and rewards are exactly what the rules give\n") {
		t.Fatalf("verify as settled: %v, printed:\n%s", err, got)
	}

	// A promoted player's recorded tier put back: that row, and a failure.
	var player string
	testsvc.Must(t, store.Pool().QueryRow(ctx, `SELECT player FROM outcomes WHERE league = 'quick' AND tier_after = 'high'
		ORDER BY board LIMIT 1`).Scan(&player), "a promoted player")
	exec(`UPDATE outcomes SET tier_after = 'low' WHERE league = 'quick' AND player = $1`, player)
	got, err = verify(path, this...)
	if !errors.Is(err, errDifferences) || !strings.Contains(got, "1 difference:\n") ||
		!regexpLine(got, `low-\d+ +1 +`+player+` +tier_after +low +high`) {
		t.Fatalf("verify after a tier_after changed: %v, printed:\n%s", err, got)
	}
	exec(`UPDATE outcomes SET tier_after = 'high' WHERE league = 'quick' AND player = $1`, player)

	// A reward deleted.
	var rewarded string
	var items string
	testsvc.Must(t, store.Pool().QueryRow(ctx, `DELETE FROM rewards WHERE league = 'quick' AND rank = 2
		AND player = (SELECT min(player) FROM rewards WHERE league = 'quick' AND rank = 2) RETURNING player, items::text`).Scan(&rewarded, &items), "delete a reward")
	got, err = verify(path, this...)
	if !errors.Is(err, errDifferences) || !strings.Contains(got, "1 difference:\n") ||
		!regexpLine(got, `low-\d+ +2 +`+rewarded+` +reward +none +\[\{"id":"gems","qty":9\}\]`) {
		t.Fatalf("verify after a reward deleted: %v, printed:\n%s", err, got)
	}
	exec(`INSERT INTO rewards (league, period_start, player, tier, rank, items) VALUES ('quick', $1, $2, 'low', 2, $3::jsonb)`,
		period.Start, rewarded, items)
	if got, err := verify(path, this...); err != nil {
		t.Fatalf("verify with the reward back: %v, printed:\n%s", err, got)
	}

	// The league gone from the config: verified from the recorded rules alone.
	other := filepath.Join(dir, "other.yaml")
	yaml, err := os.ReadFile(path)
	testsvc.Must(t, err, "read config")
	testsvc.Must(t, os.WriteFile(other, []byte(strings.Replace(string(yaml), "id: quick", "id: other", 1)), 0o600), "write config")
	if got, err := verify(other, this...); err != nil || !strings.Contains(got, "rebuilt from the recorded rules alone") {
		t.Fatalf("verify with the league gone from the config: %v, printed:\n%s", err, got)
	}

	never := league.Period{Start: period.Start.Add(-time.Hour)}.ID()
	for _, tc := range []struct {
		name  string
		edit  string // SQL run first
		args  []string
		says  string
		usage bool
	}{
		{"unknown league", "", []string{"-league", "nope", "-period", period.ID()}, `league "nope" is unknown`, false},
		{"never settled", "", []string{"-league", "quick", "-period", never}, "period " + never + " was never settled", false},
		{"no period", "", []string{"-league", "quick"}, "-period is required", true},
		{"bad period", "", []string{"-league", "quick", "-period", "last week"}, "-period", true},
		{"rules changed", `UPDATE settlements SET rules = replace(rules, '2000', '5000')`, this, "changed since settlement", false},
		{"settled before rules were recorded", `UPDATE settlements SET rules = NULL, rules_fingerprint = NULL`, this,
			"settled before the rules were recorded with settlements: cannot verify", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.edit != "" {
				exec(tc.edit)
			}
			got, err := verify(path, tc.args...)
			var usage usageError
			if err == nil || !strings.Contains(err.Error(), tc.says) || errors.As(err, &usage) != tc.usage || got != "" {
				t.Fatalf("got %v, want an error saying %q (usage error: %v); printed %q", err, tc.says, tc.usage, got)
			}
		})
	}
	if err := run(ctx, []string{"settlement", "check"}, &out); !errors.As(err, new(usageError)) {
		t.Errorf("settlement check: %v, want a usage error", err)
	}
}

// regexpLine reports whether a line of s matches the pattern whole.
func regexpLine(s, pattern string) bool {
	return regexp.MustCompile(`(?m)^` + pattern + ` *$`).MatchString(s)
}
