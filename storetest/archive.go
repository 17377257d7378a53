package storetest

import (
	"fmt"
	"reflect"
	"sync"
	"testing"

	"github.com/league-engine/league/leaderboard"
)

// RunArchive runs the contract of leaderboard.Archive: newArchive returns an
// empty archive of the test's own.
func RunArchive(t *testing.T, newArchive func(t *testing.T) leaderboard.Archive) {
	for _, tc := range []struct {
		name string
		fn   func(t *testing.T, a leaderboard.Archive)
	}{
		{"Empty", testArchiveEmpty},
		{"PagesAndRanks", testArchivePages},
		{"OnceOnly", testArchiveOnce},
		{"Concurrent", testArchiveConcurrent},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.fn(t, newArchive(t))
		})
	}
}

func day(n int) leaderboard.Period {
	start := base.AddDate(0, 0, n)
	return leaderboard.Period{Kind: leaderboard.Day, Start: start, End: start.AddDate(0, 0, 1)}
}

func standings(n int) []leaderboard.Entry {
	out := make([]leaderboard.Entry, n)
	for i := range out {
		out[i] = leaderboard.Entry{Rank: i + 1, Member: fmt.Sprintf("m%04d", i), Score: int64(1000 - 3*i)}
	}
	return out
}

func testArchiveEmpty(t *testing.T, a leaderboard.Archive) {
	ctx := t.Context()
	last, err := a.LastArchived(ctx, "kills", leaderboard.Day)
	must(t, err, "LastArchived")
	if !last.IsZero() {
		t.Fatalf("LastArchived of nothing: %v", last)
	}
	page, members, participants, found, err := a.ArchivedPage(ctx, "kills", day(0), 0, 10)
	if err != nil || found || members != 0 || participants != -1 || page == nil || len(page) != 0 {
		t.Fatalf("ArchivedPage of nothing: %v, %d, %d, %v, %v", page, members, participants, found, err)
	}
	if r, err := a.ArchivedRank(ctx, "kills", day(0), "m0001"); r != 0 || err != nil {
		t.Fatalf("ArchivedRank of nothing: %d, %v", r, err)
	}
}

func testArchivePages(t *testing.T, a leaderboard.Archive) {
	ctx := t.Context()
	want := standings(25)
	// 40 on the board, 57 participants, the top 25 kept
	saved, err := a.ArchivePeriod(ctx, "kills", day(0), 40, 57, want)
	if err != nil || !saved {
		t.Fatalf("ArchivePeriod: %v, %v", saved, err)
	}
	_, err = a.ArchivePeriod(ctx, "kills", day(2), 0, -1, nil) // an empty board, participants not counted
	must(t, err, "ArchivePeriod of an empty board")
	_, err = a.ArchivePeriod(ctx, "other", day(5), 1, 0, standings(1)) // another leaderboard, no participant
	must(t, err, "ArchivePeriod")
	last, err := a.LastArchived(ctx, "kills", leaderboard.Day)
	if err != nil || !last.Equal(day(2).Start) {
		t.Fatalf("LastArchived: %v, %v; want %v", last, err, day(2).Start)
	}
	if last, _ := a.LastArchived(ctx, "kills", leaderboard.Week); !last.IsZero() {
		t.Fatalf("LastArchived of weeks: %v", last)
	}
	page, members, participants, found, err := a.ArchivedPage(ctx, "kills", day(0), 10, 5)
	if err != nil || !found || members != 40 || participants != 57 || !reflect.DeepEqual(page, want[10:15]) {
		t.Fatalf("ArchivedPage 10+5: %v, %d, %d, %v, %v", page, members, participants, found, err)
	}
	page, _, _, _, _ = a.ArchivedPage(ctx, "kills", day(0), 20, 100)
	if !reflect.DeepEqual(page, want[20:]) {
		t.Fatalf("ArchivedPage past the kept top: %v", page)
	}
	page, members, participants, found, err = a.ArchivedPage(ctx, "kills", day(2), 0, 10)
	if err != nil || !found || members != 0 || participants != -1 || len(page) != 0 {
		t.Fatalf("ArchivedPage of an empty board: %v, %d, %d, %v, %v", page, members, participants, found, err)
	}
	// none counted is 0, not "not counted"
	if _, _, participants, _, err := a.ArchivedPage(ctx, "other", day(5), 0, 10); participants != 0 || err != nil {
		t.Fatalf("ArchivedPage of a period without participants: %d, %v; want 0", participants, err)
	}
	if r, err := a.ArchivedRank(ctx, "kills", day(0), "m0007"); r != 8 || err != nil {
		t.Fatalf("ArchivedRank: %d, %v", r, err)
	}
	if r, _ := a.ArchivedRank(ctx, "kills", day(0), "m0030"); r != 0 {
		t.Fatalf("ArchivedRank past the kept top: %d", r)
	}
}

func testArchiveOnce(t *testing.T, a leaderboard.Archive) {
	ctx := t.Context()
	first := standings(5)
	if saved, err := a.ArchivePeriod(ctx, "kills", day(1), 5, 3, first); !saved || err != nil {
		t.Fatalf("first: %v, %v", saved, err)
	}
	if saved, err := a.ArchivePeriod(ctx, "kills", day(1), 9, 8, standings(9)); saved || err != nil {
		t.Fatalf("second: %v, %v; want false, nothing stored", saved, err)
	}
	page, members, participants, _, _ := a.ArchivedPage(ctx, "kills", day(1), 0, 100)
	if members != 5 || participants != 3 || !reflect.DeepEqual(page, first) {
		t.Fatalf("after a second archive: %d members, %d participants, %v", members, participants, page)
	}
}

func testArchiveConcurrent(t *testing.T, a leaderboard.Archive) {
	ctx := t.Context()
	var wg sync.WaitGroup
	var mu sync.Mutex
	saves := 0
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			saved, err := a.ArchivePeriod(ctx, "kills", day(3), 300, 420, standings(300))
			if err != nil {
				t.Errorf("ArchivePeriod: %v", err)
			}
			if saved {
				mu.Lock()
				saves++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	page, members, participants, _, _ := a.ArchivedPage(ctx, "kills", day(3), 0, 1000)
	if saves != 1 || members != 300 || participants != 420 || len(page) != 300 {
		t.Fatalf("8 archivers at once: %d saved, %d members, %d participants, %d entries; want 1, 300, 420, 300",
			saves, members, participants, len(page))
	}
}
