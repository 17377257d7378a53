package league_test

import (
	"cmp"
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
		l.Ladder, l.EntryTier, l.Cohorts = withMinBoardSize(t, l, 5), "silver", []string{"casual", "core"}
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

// TestThinCohortsFallBack: with min_board_size 5 on boards of 10, random
// fields of shared boards and cohorts a, b and c, some too thin to fill
// one board of 5 (they fall back to the shared boards: tiers/thin.go), and
// scores from 0 to 5 (ties across boards and cohorts). Just before the
// close, every reader (standings, score replies, board reads, the preview)
// shows the zones settlement then decides, each thin cohort's board says
// it is merged, and the fallback group moves 20% of all its players.
func TestThinCohortsFallBack(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b testsvc.Backend) {
		for seed := int64(1); seed <= 8; seed++ {
			thinCohortsFallBack(t, b, seed)
		}
	})
}

func thinCohortsFallBack(t *testing.T, b testsvc.Backend, seed int64) {
	f := newFixture(t, b, func(l *league.League) {
		cohortLeague(t)(l)
		l.Cohorts = []string{"c", "a", "b"} // tie order is by name: a, b, c
	})
	rng := rand.New(rand.NewSource(seed))
	sizes := map[string]int{"": rng.Intn(26), "a": 1 + rng.Intn(4), "b": 1 + rng.Intn(14), "c": rng.Intn(5)}
	if seed == 8 {
		sizes[""] = 0 // no shared players: the thin cohorts are decided together
	}
	week := f.period()
	var ids []string
	for _, c := range []string{"", "a", "b", "c"} {
		for i := range sizes[c] {
			id := fmt.Sprintf("%s_%02d", cmp.Or(c, "s"), i)
			_, err := f.engine.Join(f.ctx, "weekly", league.JoinRequest{Player: id, Name: id, Cohort: c})
			testsvc.Must(t, err, "Join")
			ids = append(ids, id)
		}
	}
	for _, id := range ids {
		f.score(id, rng.Int63n(6))
	}
	thin := func(c string) bool { return c != "" && sizes[c] > 0 && sizes[c] < 5 }
	shared := sizes[""]
	lastShared := (shared + 9) / 10
	// the boards of the fallback group: the shared boards' last decision
	// and every thin cohort's board
	inGroup := func(bd league.BoardID) bool {
		if bd.Cohort != "" {
			return thin(bd.Cohort)
		}
		if bd.N == lastShared {
			return true
		}
		return bd.N == lastShared-1 && shared%10 > 0 && shared%10 < 5
	}
	group := 0
	for _, c := range []string{"a", "b", "c"} {
		if thin(c) {
			group += sizes[c]
		}
	}
	if group > 0 && shared > 0 {
		group += shared - (lastShared-1)*10
		if lastShared > 1 && shared%10 > 0 && shared%10 < 5 {
			group += 10
		}
	}
	multi := group > 0 && (shared > 0 || thin("a") && (thin("b") || thin("c")) || thin("b") && thin("c"))
	t.Logf("seed %d sizes %v group %d multi %v", seed, sizes, group, multi)

	f.clock.Set(week.End.Add(-2 * time.Millisecond))
	shown := map[string]tiers.Zone{}
	boardOf := map[string]league.BoardID{}
	for _, id := range ids {
		st, err := f.engine.Standing(f.ctx, "weekly", id)
		testsvc.Must(t, err, "Standing")
		shown[id], boardOf[id] = st.Zone, st.Board
		if multi && inGroup(st.Board) && st.MergedWith == nil {
			t.Fatalf("seed %d %v: %s on %s is in the fallback group but shown decided alone", seed, sizes, id, st.Board)
		}
		if r := f.score(id, 0); r.Zone != st.Zone || fmt.Sprint(r.MergedWith) != fmt.Sprint(st.MergedWith) {
			t.Fatalf("seed %d %v: %s: a write's reply shows %s merged with %v, the standing %s merged with %v",
				seed, sizes, id, r.Zone, r.MergedWith, st.Zone, st.MergedWith)
		}
	}
	boards := map[league.BoardID]bool{}
	for _, bd := range boardOf {
		boards[bd] = true
	}
	for id := range boards {
		bd, err := f.engine.Board(f.ctx, "weekly", week, id)
		testsvc.Must(t, err, "Board %s", id)
		for _, e := range bd.Entries {
			if e.Zone != shown[e.Player] {
				t.Fatalf("seed %d %v: board %s shows %s in %s, their standing %s", seed, sizes, id, e.Player, e.Zone, shown[e.Player])
			}
		}
	}
	preview, err := f.engine.Preview(f.ctx, "weekly", league.PreviewRequest{Limit: 1000})
	testsvc.Must(t, err, "Preview")

	f.clock.After(week.End)
	decided := map[string]tiers.Outcome{}
	for _, o := range f.settle(week) {
		decided[o.Player] = o
	}
	up := 0
	for _, id := range ids {
		if decided[id].Zone != shown[id] {
			t.Errorf("seed %d %v: %s on %s was shown %s, settled %s", seed, sizes, id, boardOf[id], shown[id], decided[id].Zone)
		}
		if multi && inGroup(boardOf[id]) && decided[id].Zone == tiers.Promote {
			up++
		}
	}
	for _, r := range preview.Rows {
		if want := f.league.Ladder.Tier(decided[r.Player].TierAfter).ID; r.To != want {
			t.Errorf("seed %d %v: the preview moves %s to %s, settlement to %s", seed, sizes, r.Player, r.To, want)
		}
	}
	if len(preview.Rows) != len(ids) {
		t.Errorf("seed %d: the preview holds %d rows, want %d", seed, len(preview.Rows), len(ids))
	}
	if p, _ := f.league.Ladder.Counts(1, group); multi && up != p {
		t.Errorf("seed %d %v: the fallback group of %d promoted %d, want %d", seed, sizes, group, up, p)
	}
}
