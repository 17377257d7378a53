package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/league"
)

// TestCorrect: leaguectl correct zeroes the rank 1 of a settled period:
// the rank 2 takes the promotion and the reward; the same command again
// changes nothing; bad command lines are usage errors.
func TestCorrect(t *testing.T) {
	path, period := settledQuick(t, t.TempDir(), "1", 5, func(i int) league.JoinRequest {
		id := fmt.Sprint("p", i)
		return league.JoinRequest{Player: id, Name: id}
	}, func(i int) int64 { return int64(10 - i) })
	ctx := context.Background()
	var out bytes.Buffer

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
