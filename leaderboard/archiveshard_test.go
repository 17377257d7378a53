package leaderboard_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/leaderboard"
)

// TestShardedArchive: a closed day of a leaderboard over 7 shards is
// archived as its unsharded twin's: the same entries, merged over the
// shards (its top 50; or every member, more than max_page_depth, each
// shard read 7 entries at a time), the same size and participants; and
// read back past retention, the same pages.
func TestShardedArchive(t *testing.T) {
	for _, a := range archives {
		for _, b := range testsvc.Backends {
			if a.name == "postgres" && b.Name == "miniredis" {
				continue // what sharding changes is the read of Redis; miniredis goes with the in-memory archive, as embedded
			}
			for _, tc := range []struct {
				name       string
				top, chunk int
			}{
				{"top 50", 50, 0},
				{"every member, in chunks of 7", 0, 7},
			} {
				if tc.chunk > 0 && b.Name == "miniredis" {
					continue // the merge in chunks is the engine's, the same on both: Redis runs it (1,150 members on miniredis under -race take a minute)
				}
				t.Run(a.name+"/"+b.Name+"/"+tc.name, func(t *testing.T) {
					if tc.chunk > 0 {
						t.Cleanup(leaderboard.SetArchiveChunk(tc.chunk))
					}
					f := sideBySide(t, b, func(l *leaderboard.Leaderboard) {
						l.Kinds = []leaderboard.Kind{leaderboard.Day, leaderboard.AllTime}
						l.Retention = map[leaderboard.Kind]time.Duration{leaderboard.Day: 36 * time.Hour}
						l.Archive = &leaderboard.ArchivePolicy{Top: tc.top}
						l.MaxDepth = leaderboard.MaxPage
					}, leaderboard.WithArchive(a.new(t)))
					const members = leaderboard.MaxPage + 150 // deeper than max_page_depth
					writeMembers(t, f, members)
					l, err := f.engine.Leaderboard("one")
					testsvc.Must(t, err, "Leaderboard")
					day := l.Calendar.At(leaderboard.Day, start)
					f.clock.Set(day.End.Add(10 * time.Second))
					var done [2]string
					for i, id := range []string{"one", "many"} {
						got, err := f.engine.Archive(f.ctx, id)
						testsvc.Must(t, err, "Archive %s", id)
						done[i] = fmt.Sprintf("%+v", got)
					}
					kept := members
					if tc.top > 0 {
						kept = tc.top
					}
					want := fmt.Sprintf("[{Period:day %s Members:%d Kept:%d Saved:true Lost:false}]", day.ID(), members, kept)
					if done[0] != want || done[1] != want {
						t.Fatalf("archived: unsharded %s, sharded %s; want %s", done[0], done[1], want)
					}
					f.clock.Set(day.End.Add(48 * time.Hour)) // past retention: read from the archive
					for _, page := range [][2]int{{0, leaderboard.MaxPage}, {leaderboard.MaxPage, leaderboard.MaxPage}, {37, 50}} {
						one, err := f.engine.Top(f.ctx, "one", leaderboard.Day, day.ID(), page[0], page[1])
						testsvc.Must(t, err, "Top one")
						many, err := f.engine.Top(f.ctx, "many", leaderboard.Day, day.ID(), page[0], page[1])
						testsvc.Must(t, err, "Top many")
						if got, want := entries(many.Entries), entries(one.Entries); got != want || many.Size != one.Size ||
							many.Participants != one.Participants || !many.Archived || many.Participants < 1 {
							t.Fatalf("page %v: sharded %d members, %d participants (archived %v), unsharded %d, %d; entries differ at %q",
								page, many.Size, many.Participants, many.Archived, one.Size, one.Participants, firstDifference(got, want))
						}
					}
				})
			}
		}
	}
}

// writeMembers writes n members to both of sideBySide's leaderboards, each
// once with a small value (so that many tie), and as many writes again to
// random ones, from 50 actors.
func writeMembers(t *testing.T, f *fixture, n int) {
	t.Helper()
	r := rand.New(rand.NewPCG(uint64(n), 9))
	var ws []leaderboard.Write
	for i := range 2 * n {
		m := i
		if i >= n {
			m = r.IntN(n)
		}
		ws = append(ws, leaderboard.Write{Member: fmt.Sprintf("m%04d", m), Value: int64(1 + r.IntN(5)), Actor: fmt.Sprintf("a%d", r.IntN(50))})
	}
	writeTwins(t, f, ws)
}
