package league_test

import (
	"fmt"
	"math/rand"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/league"
	"github.com/league-engine/league/tiers"
)

// cohortLeague is the test league with cohorts casual and core, entry in
// silver (promotes and demotes 20%), and min_board_size 5 on every tier.
func cohortLeague(t *testing.T) func(*league.League) {
	return func(l *league.League) {
		ts := l.Ladder.Tiers()
		for i := range ts {
			ts[i].MinBoardSize = 5
		}
		ld, err := tiers.NewLadder(ts)
		testsvc.Must(t, err, "ladder")
		l.Ladder, l.EntryTier, l.Cohorts = ld, "silver", []string{"casual", "core"}
	}
}

// TestCohortsPlaceAndSettleApart: joins naming a cohort fill their tier's
// boards of that cohort one after another, counted by one counter per
// (tier, cohort); joins naming none fill the shared boards. Every reader
// names the board with its cohort, merges a cohort's short last board with
// the cohort's board before it (never with another cohort's), and shows
// the zones settlement then decides. Next week a player's tier is
// settlement's, and their cohort is what that join names.
func TestCohortsPlaceAndSettleApart(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b testsvc.Backend) {
		f := newFixture(t, b, cohortLeague(t))
		week := f.period()
		rng := rand.New(rand.NewSource(7))
		sizes := map[string]int{"core": 23, "casual": 12, "": 7} // boards of 10: core 10+10+3, casual 10+2, shared 7
		cohortOf := map[string]string{}
		var ids []string
		for _, c := range []string{"core", "casual", ""} {
			for i := range sizes[c] {
				id := fmt.Sprintf("%s%02d", c, i)
				if c == "" {
					id = fmt.Sprintf("shared%02d", i)
				}
				pl, err := f.engine.Join(f.ctx, "weekly", league.JoinRequest{Player: id, Name: id, Cohort: c})
				testsvc.Must(t, err, "Join")
				want := league.BoardID{Tier: "silver", Cohort: c, N: i/10 + 1}
				if pl.Board != want || pl.Slot != i%10+1 || pl.Tier != "silver" {
					t.Fatalf("%s joined %s slot %d in %s, want %s slot %d", id, pl.Board, pl.Slot, pl.Tier, want, i%10+1)
				}
				ids, cohortOf[id] = append(ids, id), c
			}
		}
		// A retry naming another cohort keeps the first placement.
		pl, err := f.engine.Join(f.ctx, "weekly", league.JoinRequest{Player: "core00", Name: "core00", Cohort: "casual"})
		testsvc.Must(t, err, "Join again")
		if !pl.Rejoined || pl.Board != (league.BoardID{Tier: "silver", Cohort: "core", N: 1}) {
			t.Fatalf("a retry in another cohort: %+v", pl)
		}
		// One counter per (tier, cohort): the period's counters hold 23, 12 and 7.
		counters, err := f.rdb.HGetAll(f.ctx, f.ns+":{weekly}:c:"+strconv.FormatInt(week.Start.Unix(), 10)).Result()
		testsvc.Must(t, err, "counters")
		var counts []int
		for _, v := range counters {
			n, _ := strconv.Atoi(v)
			counts = append(counts, n)
		}
		sort.Ints(counts)
		if fmt.Sprint(counts) != "[7 12 23]" {
			t.Fatalf("counters %v, want one per cohort of silver holding 7, 12 and 23", counters)
		}
		pop, err := f.engine.Populations(f.ctx, "weekly", league.Period{})
		testsvc.Must(t, err, "Populations")
		if pop["silver"] != 42 {
			t.Fatalf("populations %v, want silver 42", pop)
		}
		for _, id := range ids {
			f.score(id, rng.Int63n(6))
		}

		// What the readers show just before the close.
		f.clock.Set(week.End.Add(-2 * time.Millisecond))
		shown := map[string]tiers.Zone{}
		boardOf := map[string]league.BoardID{}
		for _, id := range ids {
			st, err := f.engine.Standing(f.ctx, "weekly", id)
			testsvc.Must(t, err, "Standing")
			shown[id], boardOf[id] = st.Zone, st.Board
			c := cohortOf[id]
			if st.Board.Cohort != c {
				t.Fatalf("%s: standing on %s, want a board of cohort %q", id, st.Board, c)
			}
			var want *league.BoardID
			switch {
			case c == "core" && st.Board.N >= 2:
				want = &league.BoardID{Tier: "silver", Cohort: "core", N: 5 - st.Board.N}
			case c == "casual":
				want = &league.BoardID{Tier: "silver", Cohort: "casual", N: 3 - st.Board.N}
			}
			if fmt.Sprint(st.MergedWith) != fmt.Sprint(want) {
				t.Fatalf("%s on %s: merged with %v, want %v", id, st.Board, st.MergedWith, want)
			}
			if r := f.score(id, 0); r.Zone != st.Zone || r.Board != st.Board || fmt.Sprint(r.MergedWith) != fmt.Sprint(want) {
				t.Fatalf("%s: a write's reply shows %s on %s merged with %v; the standing %s on %s", id, r.Zone, r.Board, r.MergedWith, st.Zone, st.Board)
			}
		}
		for _, id := range []string{"silver.core-3", "silver.casual-1", "silver-1"} {
			bid, err := league.ParseBoardID(id)
			testsvc.Must(t, err, "ParseBoardID")
			bd, err := f.engine.Board(f.ctx, "weekly", week, bid)
			testsvc.Must(t, err, "Board %s", id)
			for _, e := range bd.Entries {
				if boardOf[e.Player] != bid || e.Zone != shown[e.Player] {
					t.Fatalf("board %s shows %s in %s; their standing is on %s in %s", id, e.Player, e.Zone, boardOf[e.Player], shown[e.Player])
				}
			}
			if want := map[string]int{"silver.core-3": 3, "silver.casual-1": 10, "silver-1": 7}[id]; len(bd.Entries) != want {
				t.Fatalf("board %s holds %d, want %d", id, len(bd.Entries), want)
			}
		}
		if _, err := f.engine.Board(f.ctx, "weekly", week, league.BoardID{Tier: "silver", Cohort: "pro", N: 1}); league.ErrorCode(err) != league.NotFound {
			t.Fatalf("a board of an unknown cohort: %v, want not found", err)
		}
		live, err := f.engine.Preview(f.ctx, "weekly", league.PreviewRequest{Limit: 5})
		testsvc.Must(t, err, "Preview")
		// The preview's pages, cohort after cohort, hold every player once.
		seen := map[string]bool{}
		for page := live; ; {
			for _, r := range page.Rows {
				if seen[r.Player] || r.Board != boardOf[r.Player] {
					t.Fatalf("preview row %+v: seen %v, standing on %s", r, seen[r.Player], boardOf[r.Player])
				}
				seen[r.Player] = true
			}
			if page.Next == nil {
				break
			}
			page, err = f.engine.Preview(f.ctx, "weekly", league.PreviewRequest{Limit: 5, After: page.Next.String()})
			testsvc.Must(t, err, "Preview page")
		}
		if len(seen) != len(ids) {
			t.Fatalf("the preview's pages hold %d players, want %d", len(seen), len(ids))
		}

		f.clock.After(week.End)
		pop2, err := f.engine.Close(f.ctx, "weekly", week)
		testsvc.Must(t, err, "Close")
		decided := map[string]tiers.Outcome{}
		byBoard := map[league.BoardID]int{}
		_, err = f.engine.Decide(f.ctx, "weekly", week, pop2, func(d league.DecidedBoard) error {
			for k, o := range d.Outcomes {
				decided[o.Player] = o
				if row := d.Row(k); row.Cohort != d.ID.Cohort || row.Board != d.ID.N {
					t.Errorf("row %+v of board %s", row, d.ID)
				}
			}
			byBoard[d.ID] = len(d.Outcomes)
			return nil
		})
		testsvc.Must(t, err, "Decide")
		if len(byBoard) != 6 {
			t.Fatalf("decided boards %v, want core 1-3, casual 1-2 and shared 1", byBoard)
		}
		for _, id := range ids {
			if decided[id].Zone != shown[id] {
				t.Errorf("%s on %s was shown %s, settled %s", id, boardOf[id], shown[id], decided[id].Zone)
			}
		}
		// core's boards 2 and 3 are decided as one board of 13: 20% of 13
		// promoted, not 20% of each.
		up := 0
		for _, id := range ids {
			if b := boardOf[id]; b.Cohort == "core" && b.N >= 2 && decided[id].Zone == tiers.Promote {
				up++
			}
		}
		if p, _ := f.league.Ladder.Counts(1, 13); up != p {
			t.Errorf("core's merged boards promoted %d, want %d", up, p)
		}
		var all []tiers.Outcome
		for _, o := range decided {
			all = append(all, o)
		}
		testsvc.Must(t, f.engine.Apply(f.ctx, "weekly", week, all), "Apply")
		testsvc.Must(t, f.engine.MarkSettled(f.ctx, "weekly", week), "MarkSettled")

		// Next week: the tier settlement gave, on the boards of the cohort
		// the join names now.
		for _, id := range []string{"core00", "casual00", "shared00"} {
			pl, err := f.engine.Join(f.ctx, "weekly", league.JoinRequest{Player: id, Name: id, Cohort: "casual"})
			testsvc.Must(t, err, "Join next week")
			want := f.league.Ladder.Tier(decided[id].TierAfter).ID
			if pl.Tier != want || pl.Board.Tier != want || pl.Board.Cohort != "casual" {
				t.Errorf("%s joined next week on %s in %s, want tier %s's casual boards", id, pl.Board, pl.Tier, want)
			}
		}
	})
}

// TestCohortRefused: a join naming a cohort the league does not have, or
// any cohort in a league without cohorts, is refused naming the field, and
// writes nothing.
func TestCohortRefused(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b testsvc.Backend) {
		for _, withCohorts := range []bool{true, false} {
			var edit []func(*league.League)
			if withCohorts {
				edit = append(edit, cohortLeague(t))
			}
			f := newFixture(t, b, edit...)
			f.join("p1")
			before := f.dump()
			_, err := f.engine.Join(f.ctx, "weekly", league.JoinRequest{Player: "p2", Name: "p2", Cohort: "pro"})
			checkErr(t, "unknown cohort", err, league.ErrInvalid, "cohort")
			if after := f.dump(); mapString(after) != mapString(before) {
				t.Fatalf("a refused join wrote: %s", mapString(after))
			}
		}
	})
}

// TestCohortCodesBounded: tiers × (cohorts + 1) board codes must fit the
// byte a record stores, with room for renames: more than 200 is refused.
func TestCohortCodesBounded(t *testing.T) {
	var ts []tiers.Tier
	for i := range 7 {
		ts = append(ts, tiers.Tier{ID: fmt.Sprintf("t%d", i)})
	}
	ld, err := tiers.NewLadder(ts)
	testsvc.Must(t, err, "ladder")
	s, err := league.ParseSchedule("0 0 * * MON")
	testsvc.Must(t, err, "schedule")
	for cohorts, ok := range map[int]bool{26: true, 27: true, 28: false} { // codes 7×27 = 189, 7×28 = 196, 7×29 = 203
		l := &league.League{ID: "l", Schedule: s, Ladder: ld}
		for c := range cohorts {
			l.Cohorts = append(l.Cohorts, fmt.Sprintf("c%d", c))
		}
		err := l.Init()
		if (err == nil) != ok || err != nil && !strings.Contains(err.Error(), "cohorts: 7 tiers with 28 cohorts need 203 board codes, at most 200") {
			t.Errorf("%d cohorts: %v", cohorts, err)
		}
	}
}
