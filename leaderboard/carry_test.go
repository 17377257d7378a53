package leaderboard_test

import (
	"testing"
	"time"

	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/leaderboard"
)

// TestCarryOver: the next period's board opens with a share of each
// member's score, set by the writes of the period (no job at the
// boundary), rounded towards zero; checked against hand-computed tables.
func TestCarryOver(t *testing.T) {
	for _, b := range testsvc.Backends {
		t.Run(b.Name, func(t *testing.T) {
			for _, c := range []struct {
				name             string
				edit             func(*leaderboard.Leaderboard)
				writes           []write // in this week
				next             string  // next week's board as it opens
				nextWrites       []write
				nextBoard, after string // next week's board after its writes; the week after's as it opens
			}{
				{
					name:   "incr 10%",
					edit:   func(l *leaderboard.Leaderboard) {},
					writes: []write{{"alice", 15}, {"bob", 7}, {"alice", 6}, {"dave", 30}},
					// 10% of 21, 7 and 30: 2, 0 (bob carries nothing), 3
					next:       "1.dave=3 2.alice=2 ",
					nextWrites: []write{{"bob", 1}, {"carol", 2}, {"dave", 19}},
					// alice carries nothing further: she did not write
					nextBoard: "1.dave=22 2.carol=2 3.alice=2 4.bob=1 ",
					after:     "1.dave=2 ",
				},
				{
					name:       "decr 10%, towards zero",
					edit:       func(l *leaderboard.Leaderboard) { l.Operator = leaderboard.Decr },
					writes:     []write{{"alice", 15}, {"bob", 9}},
					next:       "1.alice=-1 ",
					nextWrites: []write{{"bob", 1}},
					nextBoard:  "1.bob=-1 2.alice=-1 ",
					after:      "",
				},
				{
					name:       "first_reached: a carried score ranks ahead of one reached after",
					edit:       func(l *leaderboard.Leaderboard) { l.TieBreak = leaderboard.FirstReached; l.MaxScore = 1000 },
					writes:     []write{{"alice", 25}},
					next:       "1.alice=2 ",
					nextWrites: []write{{"carol", 2}},
					nextBoard:  "1.alice=2 2.carol=2 ",
					after:      "",
				},
				{
					name: "set 100%: the latest score, and a lower one lowers it",
					edit: func(l *leaderboard.Leaderboard) {
						l.Operator = leaderboard.Set
						l.CarryOver = map[leaderboard.Kind]int{leaderboard.Week: 100}
					},
					writes:     []write{{"alice", 40}, {"bob", 10}, {"alice", 35}},
					next:       "1.alice=35 2.bob=10 ",
					nextWrites: []write{{"bob", 50}},
					nextBoard:  "1.bob=50 2.alice=35 ",
					after:      "1.bob=50 ",
				},
			} {
				t.Run(c.name, func(t *testing.T) {
					f := open(t, b, func(l *leaderboard.Leaderboard) {
						l.Kinds = []leaderboard.Kind{leaderboard.Week, leaderboard.AllTime}
						l.CarryOver = map[leaderboard.Kind]int{leaderboard.Week: 10}
						c.edit(l)
					})
					week := f.engine.Leaderboards()[0].Calendar.At(leaderboard.Week, start)
					next := week.End
					for _, w := range c.writes {
						f.write(w.member, w.value)
					}
					nextID := next.UTC().Format("20060102T150405Z")
					f.clock.Set(next.Add(-time.Second))
					if got := entries(f.top(leaderboard.Week, "")); got != entries(f.top(leaderboard.Week, week.ID())) {
						t.Fatalf("the current week moved: %s", got)
					}
					f.clock.Set(next.Add(time.Hour))
					if got := entries(f.top(leaderboard.Week, nextID)); got != c.next {
						t.Fatalf("next week opens with %q, want %q", got, c.next)
					}
					for _, w := range c.nextWrites {
						f.write(w.member, w.value)
					}
					if got := entries(f.top(leaderboard.Week, "")); got != c.nextBoard {
						t.Fatalf("next week after its writes: %q, want %q", got, c.nextBoard)
					}
					f.clock.Set(next.AddDate(0, 0, 7).Add(time.Hour))
					if got := entries(f.top(leaderboard.Week, "")); got != c.after {
						t.Fatalf("the week after opens with %q, want %q", got, c.after)
					}
				})
			}
		})
	}
}

type write struct {
	member string
	value  int64
}
