package scheduler_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/league-engine/league/inmem"
	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/leaderboard"
	"github.com/league-engine/league/league"
	"github.com/league-engine/league/scheduler"
)

// TestArchiveClosedPeriods: the scheduler archives a day as soon as it
// closes, and counts it.
func TestArchiveClosedPeriods(t *testing.T) {
	ctx := context.Background()
	ns := testsvc.Namespace(t)
	rdb := testsvc.Redis(t, ns)
	l := &leaderboard.Leaderboard{ID: "kills", Kinds: []leaderboard.Kind{leaderboard.Day}, Archive: &leaderboard.ArchivePolicy{}}
	testsvc.Must(t, l.Init(), "Init")
	clock := testsvc.NewClock(time.Date(2026, 11, 25, 23, 59, 0, 0, time.UTC))
	store := inmem.New()
	boards, err := leaderboard.Open(ctx, rdb, []*leaderboard.Leaderboard{l}, leaderboard.WithNamespace(ns),
		leaderboard.WithClock(clock.Now), leaderboard.WithArchive(store))
	testsvc.Must(t, err, "Open")
	_, err = boards.Write(ctx, "kills", leaderboard.Write{Member: "ann", Value: 4})
	testsvc.Must(t, err, "write")
	leagues, err := league.Open(ctx, rdb, nil, league.WithNamespace(ns))
	testsvc.Must(t, err, "league.Open")
	reg := prometheus.NewRegistry()
	s := scheduler.New(leagues, store, scheduler.WithLeaderboards(boards), scheduler.WithPoll(20*time.Millisecond),
		scheduler.WithRegistry(reg), scheduler.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	s.Start()
	defer s.Stop(ctx)
	archived := func() float64 { return metricValue(t, reg, "league_leaderboard_archived_periods_total") }
	deadline := time.Now().Add(10 * time.Second)
	for archived() != 1 { // the day before, at the first run
		if time.Now().After(deadline) {
			t.Fatal("the first run archived nothing")
		}
		time.Sleep(10 * time.Millisecond)
	}
	clock.Set(time.Date(2026, 11, 26, 0, 0, 5, 0, time.UTC))
	for archived() != 2 {
		if time.Now().After(deadline) {
			t.Fatal("11-25 was not archived after it closed")
		}
		time.Sleep(10 * time.Millisecond)
	}
	page, members, _, found, err := store.ArchivedPage(ctx, "kills", l.Calendar.At(leaderboard.Day, time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)), 0, 10)
	if err != nil || !found || members != 1 || len(page) != 1 || page[0].Member != "ann" || page[0].Score != 4 {
		t.Fatalf("archived 11-25: %v, %d, %v, %v", page, members, found, err)
	}
}
