package leaderboard_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/leaderboard"
	"github.com/league-engine/league/league"
)

// TestShardedCounters: a sharded leaderboard keeps its limits counting by
// member in counters in the member's shard beside its boards, and the
// others in the shard of their values (reserve.go). Its writes are
// refused exactly when an unsharded twin's are, and Counters reads each
// counter from its shard: what the writes accepted, member by member and
// actor by actor.
func TestShardedCounters(t *testing.T) {
	for _, b := range testsvc.Backends {
		t.Run(b.Name, func(t *testing.T) {
			f := sideBySide(t, b, func(l *leaderboard.Leaderboard) {
				l.Kinds, l.Participants = []leaderboard.Kind{leaderboard.Day, leaderboard.AllTime}, nil
				l.Limits = []leaderboard.Limit{
					{By: []leaderboard.Dimension{leaderboard.OfMember}, Per: leaderboard.PerDay, Max: 4},
					{Name: "per-voter", By: []leaderboard.Dimension{leaderboard.OfActor, leaderboard.OfMember}, Per: leaderboard.PerHour, Max: 2},
					{By: []leaderboard.Dimension{leaderboard.OfActor}, Per: leaderboard.PerDay, Max: 45},
				}
			})
			r := rand.New(rand.NewPCG(3, 1))
			byMember, byVote, byActor := map[string]int64{}, map[[2]string]int64{}, map[string]int64{}
			for range 300 {
				w := leaderboard.Write{Member: fmt.Sprintf("m%02d", r.IntN(40)), Value: 1, Actor: fmt.Sprintf("a%d", r.IntN(3))}
				vote := [2]string{w.Actor, w.Member}
				accept := byMember[w.Member] < 4 && byVote[vote] < 2 && byActor[w.Actor] < 45
				for _, id := range []string{"one", "many"} {
					_, err := f.engine.Write(f.ctx, id, w)
					if (err == nil) != accept || (err != nil && league.ErrorCode(err) != league.RateLimited) {
						t.Fatalf("%s: write %+v: %v; want accepted %v (%d for the member, %d for the vote)", id, w, err, accept, byMember[w.Member], byVote[vote])
					}
				}
				if accept {
					byMember[w.Member]++
					byVote[vote]++
					byActor[w.Actor]++
				}
			}
			if byActor["a0"] != 45 {
				t.Fatalf("a0's writes accepted: %d; want the test to reach its limit of 45", byActor["a0"])
			}
			for m := range 40 {
				for a := range 3 {
					w := leaderboard.Write{Member: fmt.Sprintf("m%02d", m), Actor: fmt.Sprintf("a%d", a)}
					want := fmt.Sprintf("member-day %d/4, per-voter %d/2, actor-day %d/45", byMember[w.Member], byVote[[2]string{w.Actor, w.Member}], byActor[w.Actor])
					for _, id := range []string{"one", "many"} {
						cs, err := f.engine.Counters(f.ctx, id, w)
						testsvc.Must(t, err, "Counters of %s", id)
						got := ""
						for i, c := range cs {
							if i > 0 {
								got += ", "
							}
							got += fmt.Sprintf("%s %d/%d", c.Limit.Name, c.Used, c.Max)
						}
						if got != want {
							t.Fatalf("%s: counters of %+v: got %s, want %s", id, w, got, want)
						}
					}
				}
			}
			// without a member, only the limit by actor is named
			if cs, err := f.engine.Counters(f.ctx, "many", leaderboard.Write{Actor: "a0"}); err != nil || len(cs) != 1 || cs[0].Used != 45 {
				t.Fatalf("counters of an actor alone: %+v, %v; want actor-day's 45", cs, err)
			}
		})
	}
}
