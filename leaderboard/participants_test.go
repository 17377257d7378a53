package leaderboard_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/leaderboard"
	"github.com/league-engine/league/league"
)

// TestParticipants: distinct actors counted per period on the leaderboard
// (a page and the window around a member) and per member; 100,000 voters
// counted within 2% on Redis.
func TestParticipants(t *testing.T) {
	for _, b := range testsvc.Backends {
		t.Run(b.Name, func(t *testing.T) {
			f := open(t, b, func(l *leaderboard.Leaderboard) {
				l.Kinds = []leaderboard.Kind{leaderboard.Day, leaderboard.AllTime}
				l.Participants = []leaderboard.Kind{leaderboard.Day}
			})
			voters := 100000
			if b.Name != "redis" {
				voters = 2000 // the count's accuracy is Redis's; miniredis checks the wiring
			}
			for from := 0; from < voters; from += 500 {
				var ws []leaderboard.Write
				for i := from; i < min(from+500, voters); i++ {
					ws = append(ws, leaderboard.Write{Member: "x", Value: 1, Actor: fmt.Sprintf("voter-%06d", i)})
					if i%1000 == 0 { // a few vote twice, for y too
						ws = append(ws[:len(ws)-1], leaderboard.Write{Member: "y", Value: 1, Actor: fmt.Sprintf("voter-%06d", i)})
						ws = append(ws, leaderboard.Write{Member: "x", Value: 1, Actor: fmt.Sprintf("voter-%06d", i)})
					}
				}
				_, errs, err := f.engine.WriteBatch(f.ctx, "kills", ws)
				testsvc.Must(t, err, "batch")
				for _, err := range errs {
					testsvc.Must(t, err, "write")
				}
			}
			within := func(what string, got int64, want int) {
				t.Helper()
				if math.Abs(float64(got)-float64(want)) > 0.02*float64(want) {
					t.Errorf("%s: %d participants, want %d within 2%%", what, got, want)
				}
			}
			board, err := f.engine.Top(f.ctx, "kills", leaderboard.Day, "", 0, 1)
			testsvc.Must(t, err, "top")
			within("the day", board.Participants, voters)
			around, err := f.engine.Around(f.ctx, "kills", leaderboard.Day, "", "y", 1)
			testsvc.Must(t, err, "around")
			within("the day around y", around.Participants, voters)
			if len(around.Entries) != 2 {
				t.Errorf("around y: %v, want x and y", around.Entries)
			}
			st, err := f.engine.Member(f.ctx, "kills", "x")
			testsvc.Must(t, err, "member")
			within("x's day", st[0].Participants, voters)
			if st[1].Participants != -1 {
				t.Errorf("all time counts no participants: %d", st[1].Participants)
			}
			st, err = f.engine.Member(f.ctx, "kills", "y")
			testsvc.Must(t, err, "member")
			within("y's day", st[0].Participants, voters/1000)
			all, err := f.engine.Top(f.ctx, "kills", leaderboard.AllTime, "", 0, 1)
			testsvc.Must(t, err, "top")
			if all.Participants != -1 {
				t.Errorf("all time counts no participants: %d", all.Participants)
			}
			all, err = f.engine.Around(f.ctx, "kills", leaderboard.AllTime, "", "x", 1)
			testsvc.Must(t, err, "around")
			if all.Participants != -1 {
				t.Errorf("all time counts no participants, around x: %d", all.Participants)
			}
			if _, err := f.engine.Write(f.ctx, "kills", leaderboard.Write{Member: "x", Value: 1}); league.ErrorCode(err) != league.Invalid {
				t.Errorf("a write without its actor: %v", err)
			}
		})
	}
}

// TestShardedParticipants: a voter writing for members on every shard of
// a sharded leaderboard counts once on the leaderboard (the union of the
// shards' HyperLogLogs) and once for each member voted for, exactly at
// these sizes, in a page, a window and a member's standings; and a limit
// by voter across the shards holds at the same time.
func TestShardedParticipants(t *testing.T) {
	for _, b := range testsvc.Backends {
		t.Run(b.Name, func(t *testing.T) {
			f := open(t, b, func(l *leaderboard.Leaderboard) {
				l.Kinds, l.Shards = []leaderboard.Kind{leaderboard.Day, leaderboard.AllTime}, 7
				l.Participants = []leaderboard.Kind{leaderboard.Day}
				l.Limits = []leaderboard.Limit{{By: []leaderboard.Dimension{leaderboard.OfActor}, Per: leaderboard.PerDay, Max: 12}}
			})
			voters := map[string]map[string]bool{} // member -> its voters
			shards := map[int]bool{}
			for a := range 9 {
				for m := range 14 { // 14 tries, 12 allowed: m00..m11 (or fewer) for each voter
					member := fmt.Sprintf("m%02d", (a*5+m)%20)
					_, err := f.engine.Write(f.ctx, "kills", leaderboard.Write{Member: member, Value: 1, Actor: fmt.Sprintf("v%d", a)})
					if m >= 12 {
						if league.ErrorCode(err) != league.RateLimited {
							t.Fatalf("voter %d's vote %d: %v; want refused past 12", a, m+1, err)
						}
						continue
					}
					testsvc.Must(t, err, "vote")
					if voters[member] == nil {
						voters[member] = map[string]bool{}
					}
					voters[member][fmt.Sprint(a)] = true
					shards[leaderboard.ShardOf(member, 7)] = true
				}
			}
			if len(shards) != 7 {
				t.Fatalf("the members voted for are on %d shards; want every one of 7", len(shards))
			}
			top, err := f.engine.Top(f.ctx, "kills", leaderboard.Day, "", 0, 1)
			testsvc.Must(t, err, "Top")
			around, err := f.engine.Around(f.ctx, "kills", leaderboard.Day, "", "m07", 2)
			testsvc.Must(t, err, "Around")
			if top.Participants != 9 || around.Participants != 9 {
				t.Errorf("the day's participants: %d in a page, %d around m07; want the 9 voters", top.Participants, around.Participants)
			}
			for m := range 20 {
				member := fmt.Sprintf("m%02d", m)
				st, err := f.engine.Member(f.ctx, "kills", member)
				testsvc.Must(t, err, "Member")
				if got, want := st[0].Participants, int64(len(voters[member])); got != want || st[0].Score != want {
					t.Errorf("%s: %d participants, score %d; want %d of each", member, got, st[0].Score, want)
				}
			}
		})
	}
}
