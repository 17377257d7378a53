package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/league-engine/league/league"
)

// TestTrailCommand: leaguectl trail prints a settled period's trail and a
// player's, newest first, a page at a time, as text and as JSON.
func TestTrailCommand(t *testing.T) {
	// Boards of 5: p0..p4 and p5..p9 score 1..10, so p4 and p9 top them,
	// are promoted and earn 9 gems.
	path, period := settledQuick(t, t.TempDir(), "1", 10, func(i int) league.JoinRequest {
		id := fmt.Sprint("p", i)
		return league.JoinRequest{Player: id, Name: id}
	}, func(i int) int64 { return int64(1 + i) })
	ctx := context.Background()
	do := func(args ...string) string {
		t.Helper()
		var out bytes.Buffer
		if err := run(ctx, append([]string{"trail", "-config", path, "-league", "quick"}, args...), &out); err != nil {
			t.Fatalf("trail %v: %v\n%s", args, err, out.String())
		}
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
	got := do("-period", period.ID())
	wantOut(got, "league quick: 12 lines, newest first", "promoted low -> high: rank 1 of low-2, score 10",
		"granted 9 gems (rank 1 in low)", "stayed low -> low: rank 5 of low-1, score 1")
	if strings.Contains(got, "more:") {
		t.Fatalf("a page of 50 holds the period:\n%s", got)
	}
	wantOut(do("-player", "p9"), "2 lines", "reward", "settlement", "promoted low -> high")

	var kinds []string
	after := ""
	for pages := 0; pages < 20; pages++ {
		args := []string{"-period", period.ID(), "-limit", "5", "-o", "json"}
		if after != "" {
			args = append(args, "-after", after)
		}
		j := runJSON(t, append([]string{"trail", "-config", path, "-league", "quick"}, args...)...)
		for _, e := range j["entries"].([]any) {
			kinds = append(kinds, e.(map[string]any)["kind"].(string)+":"+e.(map[string]any)["player_id"].(string))
		}
		if after, _ = j["next_after"].(string); after == "" {
			break
		}
	}
	if len(kinds) != 12 || kinds[0] != "reward:p9" || kinds[11] != "settlement:p0" {
		t.Fatalf("the period 5 at a time: %v", kinds)
	}

	var out bytes.Buffer
	for _, args := range [][]string{
		{"trail", "-league", "quick"},
		{"trail", "-player", "p1"},
		{"trail", "-league", "quick", "-player", "p1", "-limit", "0"},
		{"trail", "-league", "quick", "-player", "p1", "-after", "x!"},
		{"trail", "-league", "quick", "-period", "monday"},
	} {
		var usage usageError
		if err := run(ctx, append(args, "-config", path), &out); !errors.As(err, &usage) {
			t.Errorf("%v: %v, want a usage error", args, err)
		}
	}
}
