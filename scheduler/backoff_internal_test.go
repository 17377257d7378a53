package scheduler

import (
	"errors"
	"testing"
	"time"

	"github.com/league-engine/league/league"
)

// TestBackoff: waits double from a second to a minute; a period not ended
// by Redis's clock is retried in half a second.
func TestBackoff(t *testing.T) {
	down := errors.New("down")
	var got []time.Duration
	for b, i := time.Duration(0), 0; i < 9; i++ {
		b = nextBackoff(b, down)
		got = append(got, b)
	}
	want := []time.Duration{1, 2, 4, 8, 16, 32, 60, 60, 60}
	for i := range want {
		if want[i] *= time.Second; got[i] != want[i] {
			t.Fatalf("backoffs %v, want %v", got, want)
		}
	}
	if b := nextBackoff(time.Minute, league.ErrNotEnded); b != 500*time.Millisecond {
		t.Errorf("not ended: %v, want 500ms", b)
	}
}

// TestRetryWaitCappedAtThePoll: a settlement's retries wait at most the
// poll, and at least a second.
func TestRetryWaitCappedAtThePoll(t *testing.T) {
	down := errors.New("down")
	for poll, want := range map[time.Duration][]time.Duration{
		15 * time.Second:       {1, 2, 4, 8, 15, 15},
		100 * time.Millisecond: {1, 1, 1},
		5 * time.Minute:        {1, 2, 4, 8, 16, 32, 60, 60},
	} {
		s := &Scheduler{poll: poll}
		b := time.Duration(0)
		for i, w := range want {
			if b = s.retryWait(b, down); b != w*time.Second {
				t.Fatalf("poll %v: wait %d is %v, want %v", poll, i, b, w*time.Second)
			}
		}
	}
}

// TestAttemptTimeoutKeepsItsDefault: a bound of 0 or less would fail every
// attempt at once; it keeps the default instead.
func TestAttemptTimeoutKeepsItsDefault(t *testing.T) {
	for _, d := range []time.Duration{0, -time.Second} {
		s := &Scheduler{attempt: attemptTimeout}
		WithAttemptTimeout(d)(s)
		if s.attempt != attemptTimeout {
			t.Errorf("WithAttemptTimeout(%v): %v, want the default %v", d, s.attempt, attemptTimeout)
		}
	}
}
