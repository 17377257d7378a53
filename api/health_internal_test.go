package api

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/league-engine/league/league"
)

// TestWithinBoundsACallThatIgnoresItsContext: go-redis waits out its own
// read timeout whatever the context says; a probe waits readyTimeout at
// most, and reports the silence as Redis's failure (counted, unavailable).
func TestWithinBoundsACallThatIgnoresItsContext(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	start := time.Now()
	err := within(context.Background(), func(context.Context) error {
		<-release // deaf to the context, as a blocked read is
		return nil
	})
	if waited := time.Since(start); waited > 5*readyTimeout { // a bound, not a speed: without one it waits forever
		t.Errorf("waited %s for a call that does not answer, want about %s", waited, readyTimeout)
	}
	if league.ErrorCode(err) != league.Unavailable || !isDependencyFailure(err) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a call that does not answer: %v, want unavailable, counted as the dependency's failure", err)
	}
	if err := within(context.Background(), func(context.Context) error { return nil }); err != nil {
		t.Errorf("a call that answers: %v", err)
	}
}
