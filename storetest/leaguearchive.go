package storetest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/league-engine/league/league"
	"github.com/league-engine/league/tiers"
)

// archiveStore is a store that keeps an archive: postgres.Store and
// inmem.Store.
type archiveStore interface {
	league.Store
	league.Archive
}

// archiveWeek0 starts the archive's test weeks.
var archiveWeek0 = time.Date(2026, 11, 16, 0, 0, 0, 0, time.UTC)

// RunLeagueArchive runs the contract of league.Archive: settled boards read
// back as written, a period streamed whole and paged, and pruning that
// keeps unclaimed rewards, each player's latest outcome and standings.
func RunLeagueArchive(t *testing.T, newStore func(t *testing.T) interface {
	league.Store
	league.Archive
}) {
	for _, tc := range []struct {
		name string
		fn   func(*testing.T, archiveStore)
	}{
		{"ArchivedBoard", testArchivedBoard},
		{"EachArchived", testEachArchived},
		{"ArchivedOutcomes", testArchivedOutcomes},
		{"ArchivedCohorts", testArchivedCohorts},
		{"Prune", testPrune},
		{"PruneDeletesEmptySettlements", testPruneDeletesEmptySettlements},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, newStore(t)) })
	}
}

// testArchivedOutcomes: pages of a period in the archive's order, each
// starting after the last row of the one before, claims shown.
func testArchivedOutcomes(t *testing.T, s archiveStore) {
	ctx := context.Background()
	st := settleArchiveWeek(t, s, 0, []string{"a", "b", "c", "d", "e"})
	mustOK(t, s.RecordClaims(ctx, []league.Claim{{League: "l", Player: "a", Earned: st.Period, At: st.PeriodEnd}}))
	var got []string
	var after *league.PreviewCursor
	for {
		p, rows, err := s.ArchivedOutcomes(ctx, "l", st.Period, after, 2)
		mustOK(t, err)
		if !p.End.Equal(st.PeriodEnd) {
			t.Fatalf("period %+v", p)
		}
		for _, r := range rows {
			got = append(got, fmt.Sprintf("%s:%d %s claimed=%v", r.Board, r.Rank, r.Player, !r.Claimed.IsZero()))
		}
		if len(rows) < 2 {
			break
		}
		last := rows[len(rows)-1]
		after = &league.PreviewCursor{Board: last.Board, Rank: last.Rank}
	}
	want := []string{"gold-1:1 a claimed=true", "gold-1:2 c claimed=false", "gold-1:3 e claimed=false",
		"gold-2:1 b claimed=false", "gold-2:2 d claimed=false"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("pages:\n got %v\nwant %v", got, want)
	}
	if _, _, err := s.ArchivedOutcomes(ctx, "l", archiveWeek0.AddDate(1, 0, 0), nil, 10); !errors.Is(err, league.ErrNotArchived) {
		t.Fatalf("a period never settled: %v", err)
	}
}

// testArchivedCohorts: a cohort's board 1 (league/cohort.go) is another
// board than the tier's shared board 1; the archive reads each apart, pages
// the shared boards first, then each cohort's, and a player's history keeps
// their cohort.
func testArchivedCohorts(t *testing.T, s archiveStore) {
	ctx := context.Background()
	start := archiveWeek0
	st, err := s.BeginSettlement(ctx, league.Settlement{League: "l", Period: start, PeriodEnd: start.AddDate(0, 0, 7)})
	mustOK(t, err)
	var outcomes []league.Outcome
	for i, b := range []league.BoardID{
		{Tier: "gold", Cohort: "core", N: 2}, {Tier: "gold", N: 1}, {Tier: "gold", Cohort: "core", N: 1},
		{Tier: "gold", Cohort: "casual", N: 1}, {Tier: "gold", N: 1}, {Tier: "gold", Cohort: "core", N: 1},
	} {
		rank := 1
		for _, o := range outcomes {
			if o.Cohort == b.Cohort && o.Board == b.N {
				rank++
			}
		}
		outcomes = append(outcomes, league.Outcome{Player: fmt.Sprintf("p%d", i), TierBefore: "gold", TierAfter: "gold",
			Cohort: b.Cohort, Board: b.N, Rank: rank, Score: int64(100 - i), Zone: tiers.Stay})
	}
	st.Players, st.Tiers = len(outcomes), []league.TierCount{{Tier: "gold", Players: len(outcomes)}}
	mustOK(t, s.WriteOutcomes(ctx, st, outcomes, nil))
	mustOK(t, s.Advance(ctx, "l", start, league.StatusWritten, league.StatusApplied))
	mustOK(t, s.Advance(ctx, "l", start, league.StatusApplied, league.StatusDone))

	for id, want := range map[string]string{"gold-1": "p1 p4", "gold.core-1": "p2 p5", "gold.core-2": "p0", "gold.casual-1": "p3"} {
		bid, err := league.ParseBoardID(id)
		mustOK(t, err)
		b, err := s.ArchivedBoard(ctx, "l", start, bid)
		mustOK(t, err)
		var got []string
		for _, e := range b.Entries {
			got = append(got, e.Player)
		}
		if strings.Join(got, " ") != want || b.ID != bid {
			t.Errorf("%s: %v (id %s), want %s", id, got, b.ID, want)
		}
	}
	if _, err := s.ArchivedBoard(ctx, "l", start, league.BoardID{Tier: "gold", Cohort: "casual", N: 2}); league.ErrorCode(err) != league.NotFound {
		t.Errorf("gold.casual-2: %v, want not found", err)
	}
	var got []string
	var after *league.PreviewCursor
	for {
		_, rows, err := s.ArchivedOutcomes(ctx, "l", start, after, 2)
		mustOK(t, err)
		for _, r := range rows {
			got = append(got, fmt.Sprintf("%s:%d", r.Board, r.Rank))
		}
		if len(rows) < 2 {
			break
		}
		after = &league.PreviewCursor{Board: rows[len(rows)-1].Board, Rank: rows[len(rows)-1].Rank}
	}
	if want := "gold-1:1 gold-1:2 gold.casual-1:1 gold.core-1:1 gold.core-1:2 gold.core-2:1"; strings.Join(got, " ") != want {
		t.Errorf("pages: %v, want %s", got, want)
	}
	p, err := s.Profile(ctx, "l", "p5", 10)
	mustOK(t, err)
	if len(p.History) != 1 || p.History[0].Cohort != "core" || p.History[0].Board != 1 {
		t.Errorf("p5's history %+v, want gold.core-1", p.History)
	}
}

// settleArchiveWeek writes a settled week (done) of the players: each on board
// gold-1 or gold-2 by their index, ranked in order, the first of each board
// promoted and rewarded.
func settleArchiveWeek(t *testing.T, s archiveStore, week int, players []string) league.Settlement {
	t.Helper()
	ctx := context.Background()
	start := archiveWeek0.AddDate(0, 0, 7*week)
	st, err := s.BeginSettlement(ctx, league.Settlement{League: "l", Period: start, PeriodEnd: start.AddDate(0, 0, 7)})
	if err != nil {
		t.Fatal(err)
	}
	var (
		outcomes []league.Outcome
		rewards  []league.EarnedReward
	)
	for i, p := range players {
		board, rank := i%2+1, i/2+1
		o := league.Outcome{Player: p, TierBefore: "gold", TierAfter: "gold", Board: board, Rank: rank,
			Score: int64(1000 - rank), Zone: tiers.Stay, Name: "Name " + p}
		if rank == 1 {
			o.TierAfter, o.Move, o.Zone, o.Avatar = "diamond", league.Promoted, tiers.Promote, "https://a.example/"+p
			rewards = append(rewards, league.EarnedReward{Player: p, Tier: "gold", Rank: 1, Items: []tiers.Item{{ID: "gems", Qty: 5}}})
		}
		outcomes = append(outcomes, o)
	}
	st.Players, st.Tiers = len(players), []league.TierCount{{Tier: "gold", Players: len(players)}, {Tier: "diamond"}}
	mustOK(t, s.WriteOutcomes(ctx, st, outcomes, rewards))
	mustOK(t, s.Advance(ctx, "l", start, league.StatusWritten, league.StatusApplied))
	mustOK(t, s.Advance(ctx, "l", start, league.StatusApplied, league.StatusDone))
	return st
}

func testArchivedBoard(t *testing.T, s archiveStore) {
	ctx := context.Background()
	st := settleArchiveWeek(t, s, 0, []string{"a", "b", "c", "d", "e"})

	b, err := s.ArchivedBoard(ctx, "l", st.Period, league.BoardID{Tier: "gold", N: 1})
	mustOK(t, err)
	want := []league.ArchivedEntry{
		{Entry: league.Entry{Rank: 1, Player: "a", Name: "Name a", Avatar: "https://a.example/a", Score: 999, Zone: tiers.Promote},
			TierAfter: "diamond", Rewards: []tiers.Item{{ID: "gems", Qty: 5}}},
		{Entry: league.Entry{Rank: 2, Player: "c", Name: "Name c", Score: 998, Zone: tiers.Stay}, TierAfter: "gold"},
		{Entry: league.Entry{Rank: 3, Player: "e", Name: "Name e", Score: 997, Zone: tiers.Stay}, TierAfter: "gold"},
	}
	if !reflect.DeepEqual(b.Entries, want) {
		t.Fatalf("gold-1:\n got %+v\nwant %+v", b.Entries, want)
	}
	if !b.Period.End.Equal(st.PeriodEnd) || b.ID.String() != "gold-1" {
		t.Fatalf("gold-1: period %+v id %s", b.Period, b.ID)
	}

	for _, tc := range []struct {
		name     string
		period   time.Time
		board    league.BoardID
		want     string
		archived bool // the period is archived (the board is what is missing)
	}{
		{"never settled", archiveWeek0.AddDate(0, 0, 70), league.BoardID{Tier: "gold", N: 1}, "period 20270125T000000Z was never settled", false},
		{"no such board", st.Period, league.BoardID{Tier: "gold", N: 3}, `had no board gold-3 in the settled period 20261116T000000Z`, true},
		{"no such tier", st.Period, league.BoardID{Tier: "bronze", N: 1}, `had no board bronze-1`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.ArchivedBoard(ctx, "l", tc.period, tc.board)
			if league.ErrorCode(err) != league.NotFound || !strings.Contains(err.Error(), tc.want) ||
				errors.Is(err, league.ErrNotArchived) == tc.archived {
				t.Fatalf("got %v, want NotFound saying %q", err, tc.want)
			}
		})
	}
	// A period begun but not written is not archived yet.
	started := archiveWeek0.AddDate(0, 0, 7)
	_, err = s.BeginSettlement(ctx, league.Settlement{League: "l", Period: started, PeriodEnd: started.AddDate(0, 0, 7)})
	mustOK(t, err)
	if _, err := s.ArchivedBoard(ctx, "l", started, league.BoardID{Tier: "gold", N: 1}); !errors.Is(err, league.ErrNotArchived) ||
		!strings.Contains(err.Error(), "is being settled") {
		t.Fatalf("a period being settled: %v", err)
	}
}

func testEachArchived(t *testing.T, s archiveStore) {
	ctx := context.Background()
	players := make([]string, 4500) // more than one FETCH
	for i := range players {
		players[i] = fmt.Sprintf("p%05d", i)
	}
	st := settleArchiveWeek(t, s, 0, players)
	var got []league.ArchivedRow
	mustOK(t, s.EachArchived(ctx, "l", st.Period, func(r league.ArchivedRow, total int) error {
		if total != len(players) {
			t.Fatalf("total %d, want %d", total, len(players))
		}
		got = append(got, r)
		return nil
	}))
	if len(got) != len(players) {
		t.Fatalf("got %d rows, want %d", len(got), len(players))
	}
	for i, r := range got {
		board, rank := 1, i+1
		if i >= len(players)/2 {
			board, rank = 2, i-len(players)/2+1
		}
		if r.Board.N != board || r.Rank != rank || r.Board.Tier != "gold" || r.Name != "Name "+r.Player ||
			(rank == 1) != (r.Rewards != nil) {
			t.Fatalf("row %d: got %+v, want board %d rank %d", i, r, board, rank)
		}
	}
	// fn's error ends the stream and comes back as is.
	stop := errors.New("stop")
	n := 0
	if err := s.EachArchived(ctx, "l", st.Period, func(league.ArchivedRow, int) error { n++; return stop }); err != stop || n != 1 {
		t.Fatalf("stopping: %v after %d rows", err, n)
	}
	if err := s.EachArchived(ctx, "l", archiveWeek0.AddDate(1, 0, 0), func(league.ArchivedRow, int) error { return nil }); !errors.Is(err, league.ErrNotArchived) {
		t.Fatalf("a period never settled: %v", err)
	}
}

// testPrune: a dry run changes nothing; a prune deletes claimed rewards,
// their claims, and outcomes, but keeps unclaimed rewards with their
// outcomes, each player's latest outcome, young periods, and standings.
func testPrune(t *testing.T, s archiveStore) {
	ctx := context.Background()
	old := settleArchiveWeek(t, s, 0, []string{"a", "b", "c", "d"}) // a and b rewarded
	settleArchiveWeek(t, s, 1, []string{"a", "b", "c"})             // d stops playing: its week 0 outcome is its latest
	young := settleArchiveWeek(t, s, 2, []string{"a", "b", "c"})
	// a claims its week 0 reward; b never does.
	mustOK(t, s.RecordClaims(ctx, []league.Claim{{League: "l", Player: "a", Earned: old.Period, Period: old.PeriodEnd}}))

	before := archiveWeek0.AddDate(0, 0, 15) // weeks 0 and 1 ended before it, week 2 did not
	snapshot := tableCounts(t, s)
	var dry []league.PruneCount
	mustOK(t, s.Prune(ctx, league.PruneQuery{Before: before, DryRun: true}, func(c league.PruneCount) error { dry = append(dry, c); return nil }))
	if got := tableCounts(t, s); got != snapshot {
		t.Fatalf("a dry run changed the tables: %s, were %s", got, snapshot)
	}
	var real []league.PruneCount
	mustOK(t, s.Prune(ctx, league.PruneQuery{Before: before, Batch: 1}, func(c league.PruneCount) error { real = append(real, c); return nil }))
	if !reflect.DeepEqual(dry, real) {
		t.Fatalf("the dry run said %+v, the prune did %+v", dry, real)
	}
	want := []league.PruneCount{
		// week 0: a's claimed reward and claim go; b's unclaimed reward and
		// outcome stay, as does d's outcome (its latest).
		{League: "l", Period: old.Period, Outcomes: 2, Rewards: 1, Claims: 1, Kept: 1},
		// week 1: a and b's rewards unclaimed: their outcomes stay; c's goes.
		{League: "l", Period: old.Period.AddDate(0, 0, 7), Outcomes: 1, Kept: 2},
	}
	if !reflect.DeepEqual(real, want) {
		t.Fatalf("prune:\n got %+v\nwant %+v", real, want)
	}
	// b's reward is still there to be claimed, with the outcome that shows it.
	b, err := s.ArchivedBoard(ctx, "l", old.Period, league.BoardID{Tier: "gold", N: 2})
	mustOK(t, err)
	if len(b.Entries) != 2 || b.Entries[0].Player != "b" || b.Entries[0].Rewards == nil || b.Entries[1].Player != "d" {
		t.Fatalf("week 0's gold-2 after the prune: %+v", b.Entries)
	}
	// The young week is whole.
	if yb, err := s.ArchivedBoard(ctx, "l", young.Period, league.BoardID{Tier: "gold", N: 1}); err != nil || len(yb.Entries) != 2 {
		t.Fatalf("the young week after the prune: %+v, %v", yb, err)
	}
	// A second prune finds nothing more; every standing survives.
	real = nil
	mustOK(t, s.Prune(ctx, league.PruneQuery{Before: before}, func(c league.PruneCount) error { real = append(real, c); return nil }))
	if len(real) != 0 {
		t.Fatalf("a second prune: %+v", real)
	}
	if pop, err := s.Populations(ctx, "l"); err != nil || pop["gold"]+pop["diamond"] != 4 {
		t.Fatalf("standings after the prune: %v, %v", pop, err)
	}

	// Once b claims and plays on, everything of week 0 but d's latest
	// outcome can go; the settlement row stays for d's.
	mustOK(t, s.RecordClaims(ctx, []league.Claim{{League: "l", Player: "b", Earned: old.Period}}))
	real = nil
	mustOK(t, s.Prune(ctx, league.PruneQuery{Before: before}, func(c league.PruneCount) error { real = append(real, c); return nil }))
	if len(real) != 1 || real[0].Outcomes != 1 || real[0].Rewards != 1 || real[0].Settled {
		t.Fatalf("prune after b's claim: %+v", real)
	}
	if _, err := s.Settlement(ctx, "l", old.Period); err != nil {
		t.Fatalf("week 0's settlement went while d's outcome is kept: %v", err)
	}
	if err := s.Prune(ctx, league.PruneQuery{}, nil); league.ErrorCode(err) != league.Invalid {
		t.Fatalf("prune without a time: %v", err)
	}
}

// testPruneDeletesEmptySettlements: a period whose rows all went loses its
// settlement row too.
func testPruneDeletesEmptySettlements(t *testing.T, s archiveStore) {
	ctx := context.Background()
	old := settleArchiveWeek(t, s, 0, []string{"a", "b"}) // both rewarded
	settleArchiveWeek(t, s, 1, []string{"a", "b"})
	mustOK(t, s.RecordClaims(ctx, []league.Claim{{League: "l", Player: "a", Earned: old.Period}, {League: "l", Player: "b", Earned: old.Period}}))
	var got []league.PruneCount
	mustOK(t, s.Prune(ctx, league.PruneQuery{League: "l", Before: archiveWeek0.AddDate(0, 0, 8)}, func(c league.PruneCount) error { got = append(got, c); return nil }))
	if len(got) != 1 || !got[0].Settled || got[0].Outcomes != 2 {
		t.Fatalf("prune: %+v", got)
	}
	if _, err := s.Settlement(ctx, "l", old.Period); league.ErrorCode(err) != league.NotFound {
		t.Fatalf("the emptied period's settlement: %v", err)
	}
}

// tableCounts is everything the archive shows of league l: every
// settlement, every row of each with its reward and claim, and each
// player's tier.
// mustOK fails the test on err.
func mustOK(t *testing.T, err error) {
	t.Helper()
	must(t, err, "archive")
}

func tableCounts(t *testing.T, s archiveStore) string {
	t.Helper()
	ctx := context.Background()
	sts, err := s.Settlements(ctx, "l", 0)
	mustOK(t, err)
	var out []string
	for _, st := range sts {
		out = append(out, fmt.Sprintf("%s %s %d", st.Period.Format(time.RFC3339), st.Status, st.Players))
		mustOK(t, s.EachArchived(ctx, "l", st.Period, func(r league.ArchivedRow, total int) error {
			out = append(out, fmt.Sprintf("  %d %+v", total, r))
			return nil
		}))
	}
	pop, err := s.Populations(ctx, "l")
	mustOK(t, err)
	return strings.Join(out, "\n") + fmt.Sprint(pop)
}
