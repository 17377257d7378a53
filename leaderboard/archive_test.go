package leaderboard_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/league-engine/league/inmem"
	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/leaderboard"
	"github.com/league-engine/league/league"
	"github.com/league-engine/league/migrations"
	"github.com/league-engine/league/postgres"
)

// archives are the archives the tests run on: Postgres, and the in-memory
// one of the embedded default.
var archives = []struct {
	name string
	new  func(t *testing.T) leaderboard.Archive
}{
	{"postgres", func(t *testing.T) leaderboard.Archive {
		pool, url := testsvc.Postgres(t)
		_, err := migrations.Apply(context.Background(), pool)
		testsvc.Must(t, err, "migrate")
		s, err := postgres.Open(context.Background(), url)
		testsvc.Must(t, err, "postgres.Open")
		t.Cleanup(s.Close)
		return s
	}},
	{"inmem", func(*testing.T) leaderboard.Archive { return inmem.New() }},
}

// failing is an archive whose stores fail while fail is set: a process
// killed before its transaction committed.
type failing struct {
	leaderboard.Archive
	fail bool
}

func (f *failing) ArchivePeriod(ctx context.Context, id string, p leaderboard.Period, members int, participants int64, entries []leaderboard.Entry) (bool, error) {
	if f.fail {
		return false, errors.New("killed")
	}
	return f.Archive.ArchivePeriod(ctx, id, p, members, participants, entries)
}

// TestArchive: a closed day is archived once (its top 3 of 5), missed days
// are caught up while Redis keeps them and reported lost after, a failed
// run leaves nothing and the next stores each period once, and reads past
// retention come from the archive.
func TestArchive(t *testing.T) {
	for _, a := range archives {
		t.Run(a.name, func(t *testing.T) {
			store := &failing{Archive: a.new(t)}
			f := &fixture{tb: t, ctx: context.Background(), ns: testsvc.Namespace(t), clock: testsvc.NewClock(start)}
			f.rdb = testsvc.Redis(t, f.ns)
			l := newLeaderboard(t, func(l *leaderboard.Leaderboard) {
				l.Kinds = []leaderboard.Kind{leaderboard.Day, leaderboard.AllTime}
				l.Retention = map[leaderboard.Kind]time.Duration{leaderboard.Day: 36 * time.Hour}
				l.Archive = &leaderboard.ArchivePolicy{Top: 3}
			})
			e, err := leaderboard.Open(f.ctx, f.rdb, []*leaderboard.Leaderboard{l}, leaderboard.WithNamespace(f.ns),
				leaderboard.WithClock(f.clock.Now), leaderboard.WithArchive(store))
			testsvc.Must(t, err, "Open")
			f.engine = e
			day := l.Calendar.At(leaderboard.Day, start)
			for i, m := range []string{"ann", "ben", "cid", "dot", "eve"} {
				f.write(m, int64(10*(i+1)))
			}
			archive := func() []string {
				t.Helper()
				done, err := e.Archive(f.ctx, "kills")
				testsvc.Must(t, err, "Archive")
				var out []string
				for _, a := range done {
					out = append(out, fmt.Sprintf("%s %d/%d saved=%v lost=%v", a.Period.Start.Format("01-02"), a.Kept, a.Members, a.Saved, a.Lost))
				}
				return out
			}
			if got := archive(); len(got) != 1 || got[0] != "11-24 0/0 saved=true lost=false" {
				t.Fatalf("first run, on day 11-25: %v, want the day before alone", got)
			}
			f.clock.Set(day.End.Add(10 * time.Second)) // 11-26
			if got := fmt.Sprint(archive()); got != "[11-25 3/5 saved=true lost=false]" {
				t.Fatalf("after 11-25 closed: %v", got)
			}
			if got := archive(); len(got) != 0 {
				t.Fatalf("a second run: %v, want nothing to do", got)
			}
			// No run for three days; the run that fails stores nothing.
			f.clock.Set(day.End.AddDate(0, 0, 3).Add(10 * time.Second)) // 11-29
			store.fail = true
			if _, err := e.Archive(f.ctx, "kills"); err == nil {
				t.Fatal("a failing archive reported no error")
			}
			store.fail = false
			// 11-26 ended on 11-27, kept 36 h: gone on 11-28 12:00
			if got := fmt.Sprint(archive()); got != "[11-26 0/0 saved=false lost=true 11-27 0/0 saved=true lost=false 11-28 0/0 saved=true lost=false]" {
				t.Fatalf("catching up: %v", got)
			}
			if got := archive(); len(got) != 0 {
				t.Fatalf("after catching up: %v, want nothing to do", got)
			}
			// 11-25 is past its retention now: read from the archive.
			b, err := e.Top(f.ctx, "kills", leaderboard.Day, day.ID(), 0, 10)
			testsvc.Must(t, err, "Top")
			if got := entries(b.Entries); got != "1.eve=50 2.dot=40 3.cid=30 " || b.Size != 5 || !b.Archived {
				t.Fatalf("archived day: %s (size %d, archived %v)", got, b.Size, b.Archived)
			}
			b, err = e.Around(f.ctx, "kills", leaderboard.Day, day.ID(), "cid", 1)
			testsvc.Must(t, err, "Around")
			if got := entries(b.Entries); got != "2.dot=40 3.cid=30 " || !b.Archived {
				t.Fatalf("around cid on the archived day: %s", got)
			}
			if _, err := e.Around(f.ctx, "kills", leaderboard.Day, day.ID(), "ann", 1); league.ErrorCode(err) != league.NotFound {
				t.Fatalf("around a member past the kept top: %v, want not found", err)
			}
		})
	}
}

// TestArchiveParticipants: a closed period's participant count is archived
// with it, and read back past retention (a page and the window around a
// member); -1 where the leaderboard does not count them.
func TestArchiveParticipants(t *testing.T) {
	for _, a := range archives {
		for _, tc := range []struct {
			name    string
			counted []leaderboard.Kind
			want    int64
		}{
			{"counted", []leaderboard.Kind{leaderboard.Day}, 3},
			{"not counted", nil, -1},
		} {
			t.Run(a.name+"/"+tc.name, func(t *testing.T) {
				f := &fixture{tb: t, ctx: context.Background(), ns: testsvc.Namespace(t), clock: testsvc.NewClock(start)}
				f.rdb = testsvc.Redis(t, f.ns)
				l := newLeaderboard(t, func(l *leaderboard.Leaderboard) {
					l.Kinds = []leaderboard.Kind{leaderboard.Day, leaderboard.AllTime}
					l.Retention = map[leaderboard.Kind]time.Duration{leaderboard.Day: 36 * time.Hour}
					l.Archive = &leaderboard.ArchivePolicy{Top: 2}
					l.Participants = tc.counted
				})
				e, err := leaderboard.Open(f.ctx, f.rdb, []*leaderboard.Leaderboard{l}, leaderboard.WithNamespace(f.ns),
					leaderboard.WithClock(f.clock.Now), leaderboard.WithArchive(a.new(t)))
				testsvc.Must(t, err, "Open")
				day := l.Calendar.At(leaderboard.Day, start)
				// three actors, one of them twice; ann falls out of the kept top
				for _, w := range []struct{ member, actor string }{{"ann", "fan1"}, {"ben", "fan2"}, {"cid", "fan3"}, {"cid", "fan1"}} {
					_, err := e.Write(f.ctx, "kills", leaderboard.Write{Member: w.member, Value: 1, Actor: w.actor})
					testsvc.Must(t, err, "write")
				}
				f.clock.Set(day.End.Add(10 * time.Second))
				_, err = e.Archive(f.ctx, "kills")
				testsvc.Must(t, err, "Archive")
				f.clock.Set(day.End.Add(48 * time.Hour)) // past its retention: read from the archive
				b, err := e.Top(f.ctx, "kills", leaderboard.Day, day.ID(), 0, 10)
				testsvc.Must(t, err, "Top")
				if !b.Archived || b.Participants != tc.want {
					t.Fatalf("archived day: archived %v, %d participants; want true, %d", b.Archived, b.Participants, tc.want)
				}
				b, err = e.Around(f.ctx, "kills", leaderboard.Day, day.ID(), "ben", 1)
				testsvc.Must(t, err, "Around")
				if !b.Archived || b.Participants != tc.want {
					t.Fatalf("around ben on the archived day: archived %v, %d participants; want true, %d", b.Archived, b.Participants, tc.want)
				}
			})
		}
	}
}
