package leaderboard_test

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/leaderboard"
	"github.com/league-engine/league/league"
)

// votes is a vote leaderboard's limits: 3 votes a minute for an actor, 2 a
// day for the same candidate (partner traffic 1 more), one "bonus" ever.
func votes(l *leaderboard.Leaderboard) {
	l.Kinds = []leaderboard.Kind{leaderboard.Day, leaderboard.AllTime}
	l.Channels = []string{"web", "partner"}
	l.Limits = []leaderboard.Limit{
		{By: []leaderboard.Dimension{leaderboard.OfActor}, Per: leaderboard.PerMinute, Max: 3},
		{Name: "per-candidate", By: []leaderboard.Dimension{leaderboard.OfActor, leaderboard.OfMember}, Per: leaderboard.PerDay, Max: 2,
			Extra: map[leaderboard.Dimension]map[string]int64{leaderboard.OfChannel: {"partner": 1}}},
	}
}

func vote(f *fixture, actor, member, channel, rid string) (leaderboard.WriteResult, error) {
	return f.engine.Write(f.ctx, "kills", leaderboard.Write{Member: member, Value: 1, Actor: actor, Channel: channel, RequestID: rid})
}

func refusal(err error) *leaderboard.Refusal {
	var r *leaderboard.Refusal
	if errors.As(err, &r) {
		return r
	}
	return nil
}

// shardings runs a test of limits on one shard and on 5, where limits not
// counting by member are taken across shards before the write
// (reserve.go): each must behave as on one.
func shardings(t *testing.T, test func(t *testing.T, b testsvc.Backend, shards int)) {
	for _, b := range testsvc.Backends {
		for _, shards := range []int{1, 5} {
			t.Run(fmt.Sprintf("%s/shards=%d", b.Name, shards), func(t *testing.T) { test(t, b, shards) })
		}
	}
}

// TestRateLimits: each limit refuses past its maximum and says which and
// when it frees; a refused write writes and consumes nothing; a retried
// one consumes nothing more; windows free by the calendar; extras count.
func TestRateLimits(t *testing.T) {
	shardings(t, func(t *testing.T, b testsvc.Backend, shards int) {
		f := open(t, b, func(l *leaderboard.Leaderboard) { votes(l); l.Shards = shards })
		f.clock.Set(time.Date(2026, 11, 25, 10, 30, 0, 0, time.UTC))
		mustVote := func(actor, member, channel, rid string) {
			t.Helper()
			_, err := vote(f, actor, member, channel, rid)
			testsvc.Must(t, err, "vote of %s for %s", actor, member)
		}
		mustVote("ann", "x", "web", "r1")
		mustVote("ann", "x", "web", "r2")
		mustVote("ann", "x", "web", "r2") // a retry: consumes nothing
		_, err := vote(f, "ann", "x", "web", "r3")
		r := refusal(err)
		if league.ErrorCode(err) != league.RateLimited || r == nil || r.Limit != "per-candidate" || r.Max != 2 ||
			!r.Frees.Equal(time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)) || !strings.Contains(err.Error(), "nothing was written") {
			t.Fatalf("a third vote for x: %v (%+v)", err, r)
		}
		if got := entries(f.top(leaderboard.Day, "")); got != "1.x=2 " {
			t.Fatalf("after the refusal: %s", got)
		}
		// the refused vote consumed nothing of the minute's limit: one more fits
		mustVote("ann", "y", "web", "r4")
		_, err = vote(f, "ann", "z", "web", "r5")
		if r := refusal(err); r == nil || r.Limit != "actor-minute" || r.Max != 3 || r.RetryAfter() != time.Minute {
			t.Fatalf("a fourth vote in the minute: %v", err)
		}
		// the next minute frees the minute's limit, not the day's
		f.clock.Add(time.Minute)
		mustVote("ann", "z", "web", "r6")
		if _, err := vote(f, "ann", "x", "web", "r7"); refusal(err) == nil || refusal(err).Limit != "per-candidate" {
			t.Fatalf("x again the same day: %v", err)
		}
		// partner traffic gets one more for the candidate
		mustVote("ann", "x", "partner", "r8")
		// another actor counts apart; the next day frees the day
		mustVote("bob", "x", "web", "r9")
		f.clock.Set(time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC))
		mustVote("ann", "x", "web", "r10")
		if got := entries(f.top(leaderboard.AllTime, "")); got != "1.x=5 2.z=1 3.y=1 " {
			t.Fatalf("all time: %s", got)
		}
		for _, w := range []leaderboard.Write{
			{Member: "x", Value: 1},                                  // no actor
			{Member: "x", Value: 1, Actor: "a b"},                    // bad actor
			{Member: "x", Value: 1, Actor: "cid", Channel: "tv"},     // not an allowed channel
			{Member: "x", Value: 1, Actor: "cid", Terminal: "a\x01"}, // bad terminal
		} {
			if _, err := f.engine.Write(f.ctx, "kills", w); league.ErrorCode(err) != league.Invalid {
				t.Errorf("%+v: %v, want invalid", w, err)
			}
		}
	})
}

// TestRateLimitRace: 64 writers racing a limit of 5 get exactly 5
// acceptances; a limit of one ever stays one.
func TestRateLimitRace(t *testing.T) {
	shardings(t, func(t *testing.T, b testsvc.Backend, shards int) {
		f := open(t, b, func(l *leaderboard.Leaderboard) {
			l.Shards = shards
			l.Limits = []leaderboard.Limit{
				{By: []leaderboard.Dimension{leaderboard.OfMember}, Per: leaderboard.PerDay, Max: 5},
				{By: []leaderboard.Dimension{leaderboard.OfActor}, Per: leaderboard.PerEver, Max: 1},
			}
		})
		var accepted, limited atomic.Int64
		var wg sync.WaitGroup
		for i := range 64 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := f.engine.Write(f.ctx, "kills", leaderboard.Write{Member: "x", Value: 1, Actor: fmt.Sprintf("a%d", i%40)})
				switch {
				case err == nil:
					accepted.Add(1)
				case league.ErrorCode(err) == league.RateLimited:
					limited.Add(1)
				default:
					t.Errorf("write: %v", err)
				}
			}()
		}
		wg.Wait()
		if accepted.Load() != 5 || limited.Load() != 59 {
			t.Fatalf("accepted %d, limited %d; want 5 and 59", accepted.Load(), limited.Load())
		}
		if got := entries(f.top(leaderboard.AllTime, "")); got != "1.x=5 " {
			t.Fatalf("board: %s", got)
		}
		// one write ever for an actor
		if _, err := f.engine.Write(f.ctx, "kills", leaderboard.Write{Member: "y", Value: 1, Actor: "solo"}); err != nil {
			t.Fatal(err)
		}
		_, err := f.engine.Write(f.ctx, "kills", leaderboard.Write{Member: "z", Value: 1, Actor: "solo"})
		if r := refusal(err); r == nil || r.Limit != "actor-ever" || r.RetryAfter() != 0 || !r.Frees.IsZero() {
			t.Fatalf("a second write ever: %v", err)
		}
	})
}

// TestRateLimitChange: a new maximum applies to the counters running.
func TestRateLimitChange(t *testing.T) {
	f := open(t, testsvc.Backends[0], votes)
	for i := range 2 {
		_, err := vote(f, "ann", "x", "web", "")
		testsvc.Must(t, err, "vote %d", i)
	}
	l := newLeaderboard(t, func(l *leaderboard.Leaderboard) {
		votes(l)
		l.Limits[1].Max = 3
	})
	e, err := leaderboard.Open(f.ctx, f.rdb, []*leaderboard.Leaderboard{l}, leaderboard.WithNamespace(f.ns), leaderboard.WithClock(f.clock.Now))
	testsvc.Must(t, err, "Open")
	f.engine = e
	if _, err := vote(f, "ann", "x", "web", ""); err != nil {
		t.Fatalf("the third vote under a maximum of 3: %v", err)
	}
	if _, err := vote(f, "ann", "x", "web", ""); refusal(err) == nil {
		t.Fatalf("the fourth: %v", err)
	}
}
