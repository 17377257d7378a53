package scheduler_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/league-engine/league/inmem"
	"github.com/league-engine/league/internal/keyspace"
	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/leaderboard"
	"github.com/league-engine/league/league"
	"github.com/league-engine/league/scheduler"
)

// TestPreFillRollingBoards: the scheduler carries a member who stopped
// writing into the next rolling board ahead of the boundary, so the board
// is complete the instant it begins; with no scheduler over two
// boundaries, reads say incomplete and the metric says so, and a scheduler
// started again completes the board at once. The same over 4 shards: each
// shard filled, the board complete once every shard is.
func TestPreFillRollingBoards(t *testing.T) {
	for _, shards := range []int{1, 4} {
		t.Run(fmt.Sprintf("%d shards", shards), func(t *testing.T) { preFillRollingBoards(t, shards) })
	}
}

func preFillRollingBoards(t *testing.T, shards int) {
	f := &fixture{t: t, ctx: context.Background(), ns: testsvc.Namespace(t)}
	f.rdb = testsvc.Redis(t, f.ns)
	l := &leaderboard.Leaderboard{ID: "votes", Windows: []leaderboard.Window{{N: 3, Unit: leaderboard.Hour}}, Shards: shards}
	testsvc.Must(t, l.Init(), "Init")
	clock := testsvc.NewClock(time.Date(2026, 11, 25, 9, 30, 0, 0, time.UTC))
	boards, err := leaderboard.Open(f.ctx, f.rdb, []*leaderboard.Leaderboard{l}, leaderboard.WithNamespace(f.ns), leaderboard.WithClock(clock.Now))
	testsvc.Must(t, err, "Open")
	write := func(member string, v int64) {
		t.Helper()
		_, err := boards.Write(f.ctx, "votes", leaderboard.Write{Member: member, Value: v})
		testsvc.Must(t, err, "write %s", member)
	}
	read := func() leaderboard.Board {
		t.Helper()
		b, err := boards.Top(f.ctx, "votes", "3h", "", 0, 100)
		testsvc.Must(t, err, "top")
		return b
	}
	// leaderboards only: no league to settle
	leagues, err := league.Open(f.ctx, f.rdb, nil, league.WithNamespace(f.ns))
	testsvc.Must(t, err, "league.Open")
	start := func() (*scheduler.Scheduler, *prometheus.Registry) {
		reg := prometheus.NewRegistry()
		s := scheduler.New(leagues, inmem.New(), scheduler.WithLeaderboards(boards), scheduler.WithPoll(20*time.Millisecond),
			scheduler.WithRegistry(reg), scheduler.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
		s.Start()
		return s, reg
	}
	incomplete := func(reg *prometheus.Registry) float64 {
		return metricValue(t, reg, "league_leaderboard_rolling_incomplete")
	}
	// waitFor polls cond (the scheduler runs in its own goroutines).
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for !cond() {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s", what)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}

	// filled reports the pre-fill's mark on the board of the hour at h, in
	// every shard (shard s > 0 under the hash tag {votes:s}).
	filled := func(h int) bool {
		for s := range shards {
			id := "votes"
			if s > 0 {
				id += ":" + strconv.Itoa(s)
			}
			key := keyspace.Prefix(f.ns, keyspace.Leaderboard, id) + "fill:3h:" +
				strconv.FormatInt(time.Date(2026, 11, 25, h, 0, 0, 0, time.UTC).Unix(), 10)
			if f.rdb.Get(f.ctx, key).Val() != "done" {
				return false
			}
		}
		return true
	}

	write("carol", 5) // 09:30, before any fill
	s, reg := start()
	waitFor("the first fill", func() bool { return filled(9) && filled(10) })

	// 10:30: carol's 5 is within the last 3 hours.
	clock.Set(time.Date(2026, 11, 25, 10, 30, 0, 0, time.UTC))
	if b := read(); b.Incomplete || entries(b) != "carol=5" {
		t.Fatalf("10:30: %s (incomplete %v), want carol=5", entries(b), b.Incomplete)
	}
	write("alice", 3)
	// the scheduler sees the 10:00 bucket begin and fills 11:00's board
	// (its count is added once PreFill returns, a moment after the mark)
	waitFor("the fill of 11:00", func() bool {
		return filled(11) && metricValue(t, reg, "league_leaderboard_prefill_members_total") >= 1
	})
	if n := metricValue(t, reg, "league_leaderboard_prefill_members_total"); n != 1 {
		t.Errorf("members pre-filled: %v, want 1 (carol)", n)
	}
	// 11:30: carol wrote nothing since 09:30, and the pre-fill carried her
	// into the board of 11:00 ahead of the boundary.
	clock.Set(time.Date(2026, 11, 25, 11, 30, 0, 0, time.UTC))
	if b := read(); b.Incomplete || entries(b) != "carol=5 alice=3" {
		t.Fatalf("11:30: %s (incomplete %v), want carol=5 alice=3", entries(b), b.Incomplete)
	}
	testsvc.Must(t, s.Stop(context.Background()), "Stop")

	// No scheduler from 11:30 to 13:30: two boundaries pass unfilled.
	write("eve", 7)
	write("bob", 4)
	clock.Set(time.Date(2026, 11, 25, 12, 30, 0, 0, time.UTC))
	write("bob", 1)
	clock.Set(time.Date(2026, 11, 25, 13, 30, 0, 0, time.UTC))
	write("dave", 2)
	if b := read(); !b.Incomplete || entries(b) != "bob=5 dave=2" {
		t.Fatalf("13:30 with no pre-fill since 11:30: %s (incomplete %v), want bob=5 dave=2 reported incomplete (eve is missing)", entries(b), b.Incomplete)
	}
	// Another process holds the lease (and died): the board stays
	// incomplete, and the metric says so, until the lease runs out. (Over
	// shards, the lease of shard 0: the others are filled meanwhile.)
	lease := keyspace.Prefix(f.ns, keyspace.Leaderboard, "votes") + "fill"
	f.rdb.Set(f.ctx, lease, "a-dead-replica", time.Minute)
	s, reg = start()
	defer s.Stop(context.Background())
	waitFor("the incomplete board in the metric", func() bool { return incomplete(reg) == 1 })
	if filled(13) || !read().Incomplete {
		t.Fatal("filled under another process's lease")
	}
	f.rdb.Del(f.ctx, lease)
	waitFor("the late fill", func() bool {
		return filled(13) && filled(14) && metricValue(t, reg, "league_leaderboard_prefill_members_total") == 2
	})
	if incomplete(reg) != 0 {
		t.Error("the metric still says incomplete")
	}
	if b := read(); entries(b) != "eve=7 bob=5 dave=2" {
		t.Fatalf("13:30 after the late fill: %s, want eve=7 bob=5 dave=2", entries(b))
	}
	// eve into 13:00's board, late; bob, ahead, into 14:00's (5 - 4)
	if n := metricValue(t, reg, "league_leaderboard_prefill_members_total"); n != 2 {
		t.Errorf("members pre-filled: %v, want 2 (eve, bob)", n)
	}
}

func entries(b leaderboard.Board) string {
	var out []string
	for _, e := range b.Entries {
		out = append(out, e.Member+"="+strconv.FormatInt(e.Score, 10))
	}
	return strings.Join(out, " ")
}

// metricValue returns the value of the one series of a gauge or counter.
func metricValue(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	testsvc.Must(t, err, "gather")
	for _, mf := range mfs {
		if mf.GetName() == name && len(mf.GetMetric()) == 1 {
			m := mf.GetMetric()[0]
			return m.GetGauge().GetValue() + m.GetCounter().GetValue()
		}
	}
	t.Fatalf("no single series of %s", name)
	return 0
}
