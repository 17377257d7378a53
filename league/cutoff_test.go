package league_test

import (
	"strings"
	"testing"
	"time"

	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/league"
)

// TestJoinCutoff: in the last hour of a week, a new player's join places
// them in the next week (upcoming, with its start), where their writes
// count once it starts; a player already in the running week stays in it
// (a join answers that placement); the running week settles without the
// early joiner, and the next week's board holds them first.
func TestJoinCutoff(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b testsvc.Backend) {
		f := newFixture(t, b, func(l *league.League) { l.JoinCutoff = time.Hour })
		week1 := f.period()
		if p := f.join("early"); p.Upcoming || p.Period != week1 {
			t.Fatalf("a join before the cutoff: %+v", p)
		}
		f.score("early", 10)

		f.clock.Set(week1.End.Add(-30 * time.Minute))
		late := f.join("late")
		if !late.Upcoming || late.Period.Start != week1.End || late.Rejoined || late.Slot != 1 {
			t.Fatalf("a join in the cutoff: %+v; want the next week, upcoming, slot 1", late)
		}
		if again := f.join("late"); !again.Rejoined || again.Period != late.Period {
			t.Fatalf("the same join again: %+v", again)
		}
		if p := f.join("early"); !p.Rejoined || p.Upcoming || p.Period != week1 {
			t.Fatalf("a player of the running week joining in the cutoff: %+v; want their placement in it", p)
		}
		_, err := f.engine.Score(f.ctx, "weekly", league.ScoreWrite{Player: "late", Value: 5})
		if league.ErrorCode(err) != league.NotJoined {
			t.Fatalf("a write of the early joiner before their week starts: %v, want not_joined", err)
		}

		f.clock.After(week1.End)
		outcomes := f.settle(week1)
		if len(outcomes) != 1 || outcomes[0].Player != "early" {
			t.Fatalf("the running week settled %+v; want the early player only", outcomes)
		}
		if r := f.score("late", 5); r.Rank != 1 || r.Period.Start != week1.End {
			t.Fatalf("the early joiner's first write in their week: %+v", r)
		}
		if p := f.join("next"); p.Upcoming || p.Slot != 2 || p.Period.Start != week1.End {
			t.Fatalf("a join in the new week: %+v; want slot 2 after the early joiner", p)
		}
	})
}

func TestJoinCutoffRefused(t *testing.T) {
	for _, tt := range []struct {
		cutoff time.Duration
		want   string
	}{
		{4 * 24 * time.Hour, "join_cutoff: 96h0m0s is more than half of the period"},
		{time.Millisecond, "join_cutoff: 1ms is shorter than 1s"},
	} {
		l := testLeague(t)
		l.JoinCutoff = tt.cutoff
		l.EntryTier = ""
		if err := l.Init(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("cutoff %v: %v, want %q", tt.cutoff, err, tt.want)
		}
	}
}
