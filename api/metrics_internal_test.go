package api

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/league-engine/league/league"
)

// TestIsDependencyFailure: only failed calls to a dependency count against
// it; a process refusing what its config cannot serve (a rollout) does not
// set off Redis alerts.
func TestIsDependencyFailure(t *testing.T) {
	for _, c := range []struct {
		name string
		err  error
		want bool
	}{
		{"redis unreachable", &league.Error{Code: league.Unavailable, Message: "score: redis unavailable", Err: io.EOF}, true},
		{"internal", &league.Error{Code: league.Internal, Message: "close", Err: errors.New("bad reply")}, true},
		{"a plain error", errors.New("boom"), true},
		{"a tier this config lacks", league.Errorf(league.Unavailable, "player %q plays in tier %q, which this process's config does not have", "p", "copper"), false},
		{"bad input", league.Errorf(league.Invalid, "value: must be an integer"), false},
		{"the caller hung up", fmt.Errorf("score: %w", context.Canceled), false},
	} {
		if got := isDependencyFailure(c.err); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
