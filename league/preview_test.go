package league_test

import (
	"errors"
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/league"
	"github.com/league-engine/league/tiers"
)

// TestPreviewIsTheSettlement: 47 players over bronze and silver (a first
// week settled spreads them). The current week's preview, read in pages of
// 7, decides what the same week's preview decides once it has ended; that
// one writes nothing to Redis, and settling the week then decides every row
// as it said. A settled week is no longer previewed.
func TestPreviewIsTheSettlement(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b testsvc.Backend) {
		previewIsTheSettlement(t, newFixture(t, b))
	})
}

// TestPreviewIsTheSettlementByCounts: the same with counts and minimums
// (the top 3, the bottom 2; 10%, at least 1 from 5 players), whose small
// boards (47 players in boards of 10) move fewer, and a jump (bronze's
// rank 1 rises to gold).
func TestPreviewIsTheSettlementByCounts(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b testsvc.Backend) {
		rows := previewIsTheSettlement(t, newFixture(t, b, func(l *league.League) {
			ld, err := tiers.NewLadder([]tiers.Tier{
				{ID: "bronze", Name: "Bronze", PromoteCount: 3, JumpTop: 1, JumpBy: 2, MinPromoteScore: 1, Rewards: l.Ladder.Tier(0).Rewards},
				{ID: "silver", Name: "Silver", PromoteCount: 2, DemoteCount: 8, Rewards: l.Ladder.Tier(1).Rewards},
				{ID: "gold", Name: "Gold", Demote: 1000, DemoteAtLeast: 1, AtLeastFrom: 5, Rewards: l.Ladder.Tier(2).Rewards},
			})
			testsvc.Must(t, err, "ladder")
			l.Ladder = ld
		}))
		jumps := 0
		for _, r := range rows {
			if r.From == "bronze" && r.To == "gold" {
				jumps++
			}
		}
		if jumps == 0 {
			t.Fatal("no bronze player jumped to gold")
		}
	})
}

// previewIsTheSettlement checks the second week's preview against its
// settlement and returns the preview's rows.
func previewIsTheSettlement(t *testing.T, f *fixture) []league.PreviewRow {
	{
		rng := rand.New(rand.NewSource(7))
		play := func() {
			for i := 0; i < 47; i++ {
				id := fmt.Sprintf("p%02d", i)
				f.join(id)
				f.score(id, rng.Int63n(40))
			}
		}
		week1 := f.period()
		play()
		f.clock.After(week1.End)
		f.settle(week1)
		week2 := f.period()
		play()

		live := previewAll(t, f, "", 7)
		if live.Final || live.Period != week2 {
			t.Fatalf("current preview: final %v, period %s; want not final, %s", live.Final, live.Period.ID(), week2.ID())
		}
		f.clock.After(week2.End)
		before := f.dump()
		final := previewAll(t, f, week2.ID(), 7)
		if after := f.dump(); !reflect.DeepEqual(before, after) {
			t.Fatal("previewing an ended period changed Redis")
		}
		if !final.Final {
			t.Fatal("the ended week's preview is not final")
		}
		if !reflect.DeepEqual(live.Rows, final.Rows) || !reflect.DeepEqual(live.Summary, final.Summary) {
			t.Fatal("the week's preview changed when it ended, with no write in between")
		}
		if final.Summary.Players != 47 || len(final.Summary.Moves) == 0 || final.Summary.Rewarded == 0 {
			t.Fatalf("summary %+v: want 47 players, some moves and some rewards", final.Summary)
		}
		checkSummary(t, f.league.Ladder, final.Summary, final.Rows)

		outcomes := f.settle(week2)
		if len(outcomes) != len(final.Rows) {
			t.Fatalf("settlement decided %d players, the preview %d", len(outcomes), len(final.Rows))
		}
		for i, o := range outcomes {
			r := final.Rows[i]
			want := league.PreviewRow{Board: r.Board, Rank: o.Rank, Player: o.Player, Score: o.Score,
				From: f.league.Ladder.Tier(o.TierBefore).ID, To: f.league.Ladder.Tier(o.TierAfter).ID, Move: r.Move, Rewards: o.Rewards}
			if !reflect.DeepEqual(r, want) {
				t.Errorf("row %d: preview %+v, settlement %+v", i, r, want)
			}
		}
		_, err := f.engine.Preview(f.ctx, "weekly", league.PreviewRequest{Period: week2.ID()})
		if league.ErrorCode(err) != league.Conflict {
			t.Fatalf("preview of a settled period: %v, want a conflict", err)
		}
		return final.Rows
	}
}

// previewAll reads every page of a preview, limit rows at a time, checking
// that each page holds the same summary and that only the last has no
// next; it returns the first page with every row.
func previewAll(t *testing.T, f *fixture, period string, limit int) league.Preview {
	t.Helper()
	var all league.Preview
	after := ""
	for page := 0; ; page++ {
		p, err := f.engine.Preview(f.ctx, "weekly", league.PreviewRequest{Period: period, After: after, Limit: limit})
		testsvc.Must(t, err, "Preview page %d", page)
		if page == 0 {
			all = p
			all.Rows = nil
		} else if !reflect.DeepEqual(p.Summary, all.Summary) {
			t.Fatalf("page %d has another summary: %+v, want %+v", page, p.Summary, all.Summary)
		}
		if len(p.Rows) > limit || p.Next != nil && len(p.Rows) != limit {
			t.Fatalf("page %d: %d rows, next %v; limit %d", page, len(p.Rows), p.Next, limit)
		}
		all.Rows = append(all.Rows, p.Rows...)
		if p.Next == nil {
			all.Next = nil
			if len(all.Rows) != all.Summary.Players {
				t.Fatalf("the pages hold %d rows, the summary %d players", len(all.Rows), all.Summary.Players)
			}
			return all
		}
		if last := p.Rows[len(p.Rows)-1]; p.Next.Board != last.Board || p.Next.Rank != last.Rank {
			t.Fatalf("page %d ends at %s:%d, its next is %s", page, last.Board, last.Rank, p.Next)
		}
		after = p.Next.String()
	}
}

// checkSummary adds the rows up and compares them with the summary.
func checkSummary(t *testing.T, ladder *tiers.Ladder, s league.PreviewSummary, rows []league.PreviewRow) {
	t.Helper()
	want := league.PreviewSummary{Players: len(rows), Tiers: make([]league.TierPreview, ladder.Len())}
	for i := range want.Tiers {
		want.Tiers[i].Tier = ladder.Tier(i).ID
	}
	moves := map[[2]string]int{}
	items := map[string]*league.ItemTotal{}
	for _, r := range rows {
		from, _ := ladder.Index(r.From)
		to, _ := ladder.Index(r.To)
		c := &want.Tiers[from]
		c.Players++
		want.Tiers[to].After++
		move := league.Stayed
		switch {
		case to > from:
			c.Promoted++
			move = league.Promoted
		case to < from:
			c.Demoted++
			move = league.Demoted
		default:
			c.Stayed++
		}
		if r.Move != move {
			t.Errorf("%s goes from %s to %s: move %q, want %q", r.Player, r.From, r.To, r.Move, move)
		}
		if from != to {
			moves[[2]string{r.From, r.To}]++
		}
		if r.Rewards != nil {
			c.Rewarded++
			want.Rewarded++
			for _, it := range r.Rewards {
				if items[it.ID] == nil {
					items[it.ID] = &league.ItemTotal{ID: it.ID}
				}
				items[it.ID].Qty += it.Qty
				items[it.ID].Players++
			}
		}
	}
	for i := 0; i < ladder.Len(); i++ {
		for j := 0; j < ladder.Len(); j++ {
			if n := moves[[2]string{ladder.Tier(i).ID, ladder.Tier(j).ID}]; n > 0 {
				want.Moves = append(want.Moves, league.TierMove{From: ladder.Tier(i).ID, To: ladder.Tier(j).ID, Players: n})
			}
		}
	}
	if it := items["gems"]; it != nil {
		want.Rewards = []league.ItemTotal{*it}
	}
	if !reflect.DeepEqual(s, want) {
		t.Fatalf("summary\n got %+v\nwant %+v (added up from the rows)", s, want)
	}
}

// TestPreviewRefusals: bad input is refused naming its field, periods that
// cannot be previewed say why, and none of it writes anything. The current
// period with nobody in it previews as empty.
func TestPreviewRefusals(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b testsvc.Backend) {
		f := newFixture(t, b)
		week := f.period()
		empty, err := f.engine.Preview(f.ctx, "weekly", league.PreviewRequest{Limit: 10})
		testsvc.Must(t, err, "Preview of an empty period")
		if empty.Summary.Players != 0 || len(empty.Rows) != 0 || empty.Next != nil || len(empty.Summary.Tiers) != 3 {
			t.Fatalf("empty period: %+v", empty)
		}
		f.join("alice")
		f.score("alice", 5)
		before := f.dump()
		next := league.Period{Start: week.End}.ID()
		lastWeek := league.Period{Start: week.Start.AddDate(0, 0, -7)}.ID()
		cases := []struct {
			name  string
			req   league.PreviewRequest
			code  league.Code
			field string
		}{
			{"negative limit", league.PreviewRequest{Limit: -1}, league.Invalid, "limit"},
			{"limit too big", league.PreviewRequest{Limit: league.MaxPreviewRows + 1}, league.Invalid, "limit"},
			{"after not a row", league.PreviewRequest{After: "bronze-1"}, league.Invalid, "after"},
			{"after rank 0", league.PreviewRequest{After: "bronze-1:0"}, league.Invalid, "after"},
			{"after rank padded", league.PreviewRequest{After: "bronze-1:07"}, league.Invalid, "after"},
			{"after bad board", league.PreviewRequest{After: "bronze-x:3"}, league.Invalid, "after"},
			{"after unknown tier", league.PreviewRequest{After: "platinum-1:3"}, league.Invalid, "after"},
			{"period malformed", league.PreviewRequest{Period: "next week"}, league.Invalid, "period"},
			{"period not started", league.PreviewRequest{Period: next}, league.Invalid, "period"},
			{"period not a boundary", league.PreviewRequest{Period: fmt.Sprint(week.Start.Add(time.Hour).Unix())}, league.NotFound, ""},
			{"ended, nobody joined", league.PreviewRequest{Period: lastWeek}, league.NotFound, ""},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				_, err := f.engine.Preview(f.ctx, "weekly", c.req)
				var e *league.Error
				if !errors.As(err, &e) || e.Code != c.code || e.Field != c.field {
					t.Fatalf("got %v, want a %s error on field %q", err, c.code, c.field)
				}
			})
		}
		if _, err := f.engine.Preview(f.ctx, "monthly", league.PreviewRequest{}); league.ErrorCode(err) != league.NotFound {
			t.Fatalf("unknown league: got %v, want not found", err)
		}
		if after := f.dump(); !reflect.DeepEqual(before, after) {
			t.Fatal("a refused preview changed Redis")
		}
		p, err := f.engine.Preview(f.ctx, "weekly", league.PreviewRequest{})
		testsvc.Must(t, err, "Preview, summary only")
		if p.Summary.Players != 1 || len(p.Rows) != 0 || p.Next != nil {
			t.Fatalf("limit 0: %d players, %d rows, next %v; want 1, none, nil", p.Summary.Players, len(p.Rows), p.Next)
		}
	})
}

// TestOverrideDecidesItsPeriod: a period with an override (bronze promotes
// only its top player) is decided under it, live and at settlement; the
// An override of a period long past is refused at Open.
func TestOverrideDecidesItsPeriod(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b testsvc.Backend) {
		week2 := monday.AddDate(0, 0, 7) // previewIsTheSettlement's second week
		f := newFixture(t, b, func(l *league.League) {
			ts := l.Ladder.Tiers()
			ts[0].Promote, ts[0].PromoteCount = 0, 1
			ld, err := tiers.NewLadder(ts)
			testsvc.Must(t, err, "ladder")
			l.Overrides = []league.Override{{Period: week2, Ladder: ld}}
		})
		rows := previewIsTheSettlement(t, f)
		up := map[string]int{} // bronze board -> players promoted
		for _, r := range rows {
			if r.From == "bronze" && r.To != "bronze" {
				up[r.Board.String()]++
			}
		}
		if len(up) == 0 {
			t.Fatal("nobody promoted from bronze in the overridden week")
		}
		for board, n := range up {
			if n != 1 {
				t.Fatalf("%s promoted %d in the overridden week, want 1", board, n)
			}
		}
		// Open a year on refuses the override, long past
		f.clock.Set(monday.AddDate(1, 0, 0))
		_, err := league.Open(f.ctx, f.rdb, []*league.League{f.league}, league.WithNamespace(f.ns), league.WithClock(f.clock.Now))
		if err == nil || !strings.Contains(err.Error(), "overrides[0].period: 20261123T000000Z has passed") {
			t.Fatalf("Open with an override long past: %v", err)
		}
	})
}
