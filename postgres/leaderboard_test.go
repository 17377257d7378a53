package postgres_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/league-engine/league/leaderboard"
)

// TestArchiveKilledMidway: an archive stopped in the middle of its COPY
// (its context cancelled, as a process killed) leaves nothing of the
// period; the next archive stores it whole, once.
func TestArchiveKilledMidway(t *testing.T) {
	s, _ := newStore(t)
	start := time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC)
	p := leaderboard.Period{Kind: leaderboard.Day, Start: start, End: start.AddDate(0, 0, 1)}
	entries := make([]leaderboard.Entry, 200000)
	for i := range entries {
		entries[i] = leaderboard.Entry{Rank: i + 1, Member: fmt.Sprintf("member-%07d", i), Score: int64(len(entries) - i)}
	}
	stopped := 0
	for _, after := range []time.Duration{time.Millisecond, 5 * time.Millisecond, 20 * time.Millisecond, 50 * time.Millisecond} {
		ctx, cancel := context.WithTimeout(context.Background(), after)
		saved, err := s.ArchivePeriod(ctx, "kills", p, len(entries), -1, entries)
		cancel()
		if err == nil {
			t.Fatalf("archived whole within %v (saved %v): the machine is too fast for this test's sizes", after, saved)
		}
		stopped++
		if _, _, _, found, err := s.ArchivedPage(context.Background(), "kills", p, 0, 1); found || err != nil {
			t.Fatalf("stopped after %v: the period is archived (found %v, %v)", after, found, err)
		}
	}
	saved, err := s.ArchivePeriod(context.Background(), "kills", p, len(entries), -1, entries)
	if err != nil || !saved {
		t.Fatalf("the archive after %d stopped ones: %v, %v", stopped, saved, err)
	}
	page, members, _, _, err := s.ArchivedPage(context.Background(), "kills", p, len(entries)-2, 10)
	if err != nil || members != len(entries) || len(page) != 2 || page[1].Rank != len(entries) {
		t.Fatalf("after: %d members, last page %v, %v", members, page, err)
	}
}
