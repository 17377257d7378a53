package leaderboard_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/leaderboard"
	"github.com/league-engine/league/league"
)

// start is a Wednesday 10:30 UTC, in the middle of every kind of period.
var start = time.Date(2026, 11, 25, 10, 30, 0, 0, time.UTC)

type fixture struct {
	tb     testing.TB
	ctx    context.Context
	rdb    *redis.Client
	ns     string
	clock  *testsvc.Clock
	engine *leaderboard.Engine
}

// newLeaderboard is "kills": every kind of board, incr, descending, ties
// by member id, unless edit changes it.
func newLeaderboard(tb testing.TB, edit func(*leaderboard.Leaderboard)) *leaderboard.Leaderboard {
	l := &leaderboard.Leaderboard{ID: "kills", Kinds: []leaderboard.Kind{leaderboard.AllTime, leaderboard.Hour,
		leaderboard.Day, leaderboard.Week, leaderboard.Month}}
	if edit != nil {
		edit(l)
	}
	testsvc.Must(tb, l.Init(), "Init")
	return l
}

func open(tb testing.TB, b testsvc.Backend, edit func(*leaderboard.Leaderboard)) *fixture {
	tb.Helper()
	f := &fixture{tb: tb, ctx: context.Background(), ns: testsvc.Namespace(tb), clock: testsvc.NewClock(start)}
	f.rdb = b.New(tb, f.ns)
	e, err := leaderboard.Open(f.ctx, f.rdb, []*leaderboard.Leaderboard{newLeaderboard(tb, edit)},
		leaderboard.WithNamespace(f.ns), leaderboard.WithClock(f.clock.Now))
	testsvc.Must(tb, err, "Open")
	f.engine = e
	return f
}

func (f *fixture) write(member string, value int64) leaderboard.WriteResult {
	f.tb.Helper()
	res, err := f.engine.Write(f.ctx, "kills", leaderboard.Write{Member: member, Value: value})
	testsvc.Must(f.tb, err, "write %s %d", member, value)
	return res
}

func (f *fixture) top(k leaderboard.Kind, period string) []leaderboard.Entry {
	f.tb.Helper()
	b, err := f.engine.Top(f.ctx, "kills", k, period, 0, 100)
	testsvc.Must(f.tb, err, "top of %s", k)
	return b.Entries
}

func entries(es []leaderboard.Entry) string {
	s := ""
	for _, e := range es {
		s += fmt.Sprintf("%d.%s=%d ", e.Rank, e.Member, e.Score)
	}
	return s
}

// TestOneWriteEveryBoard: a write lands on every board in one call, each
// in its own period; past a boundary a board starts afresh while the longer
// ones keep counting.
func TestOneWriteEveryBoard(t *testing.T) {
	for _, b := range testsvc.Backends {
		t.Run(b.Name, func(t *testing.T) {
			f := open(t, b, nil)
			f.write("alice", 5)
			f.write("bob", 7)
			res := f.write("alice", 3)
			if len(res.Boards) != 5 || res.Boards[0].Period.Kind != leaderboard.Hour || res.Boards[4].Period.Kind != leaderboard.AllTime {
				t.Fatalf("boards %+v, want hour, day, week, month, all_time", res.Boards)
			}
			for _, p := range res.Boards {
				if p.Score != 8 || p.Rank != 1 {
					t.Errorf("%s: alice %d at rank %d, want 8 at rank 1", p.Period.Kind, p.Score, p.Rank)
				}
			}
			// The next hour: the hour board starts afresh, the others go on.
			f.clock.Set(start.Add(time.Hour))
			res = f.write("bob", 1)
			want := map[leaderboard.Kind][2]int64{leaderboard.Hour: {1, 1}, leaderboard.Day: {8, 1}, leaderboard.AllTime: {8, 1}}
			for _, p := range res.Boards {
				if w, ok := want[p.Period.Kind]; ok && (p.Score != w[0] || int64(p.Rank) != w[1]) {
					t.Errorf("%s after the hour: bob %d at rank %d, want %d at %d", p.Period.Kind, p.Score, p.Rank, w[0], w[1])
				}
			}
			if got := entries(f.top(leaderboard.Hour, "")); got != "1.bob=1 " {
				t.Errorf("this hour: %s", got)
			}
			lastHour := res.Boards[0].Period
			prev := f.engine // the hour before, by its id
			b, err := prev.Top(f.ctx, "kills", leaderboard.Hour, startOf(t, f, leaderboard.Hour, start), 0, 10)
			testsvc.Must(t, err, "last hour")
			if got := entries(b.Entries); got != "1.alice=8 2.bob=7 " || b.Size != 2 || b.Period.End != lastHour.Start {
				t.Errorf("last hour: %s (size %d, ends %v)", got, b.Size, b.Period.End)
			}
			if got := entries(f.top(leaderboard.Day, "")); got != "1.bob=8 2.alice=8 " {
				t.Errorf("today (ties by member id, the greater first): %s", got)
			}
		})
	}
}

func startOf(t *testing.T, f *fixture, k leaderboard.Kind, at time.Time) string {
	l, err := f.engine.Leaderboard("kills")
	testsvc.Must(t, err, "leaderboard")
	return l.Calendar.At(k, at).ID()
}

// TestOperatorsAndOrder against hand-computed scores.
func TestOperatorsAndOrder(t *testing.T) {
	for _, c := range []struct {
		op     leaderboard.Operator
		order  leaderboard.Order
		writes []int64
		want   int64
	}{
		{leaderboard.Incr, leaderboard.Descending, []int64{5, 3}, 8},
		{leaderboard.Decr, leaderboard.Descending, []int64{5, 3}, -8},
		{leaderboard.Best, leaderboard.Descending, []int64{5, 9, 3}, 9},
		{leaderboard.Best, leaderboard.Ascending, []int64{50, 30, 40}, 30},
		{leaderboard.Set, leaderboard.Descending, []int64{5, 9, 3}, 3},
	} {
		t.Run(fmt.Sprintf("%s %s", c.op, c.order), func(t *testing.T) {
			f := open(t, testsvc.Backends[1], func(l *leaderboard.Leaderboard) { l.Operator, l.Order = c.op, c.order })
			var res leaderboard.WriteResult
			for _, v := range c.writes {
				res = f.write("m", v)
			}
			for _, p := range res.Boards {
				if p.Score != c.want {
					t.Errorf("%s: %d, want %d", p.Period.Kind, p.Score, c.want)
				}
			}
		})
	}
	// An ascending board ranks the lowest first.
	f := open(t, testsvc.Backends[1], func(l *leaderboard.Leaderboard) { l.Operator, l.Order = leaderboard.Best, leaderboard.Ascending })
	f.write("slow", 90)
	f.write("fast", 30)
	if got := entries(f.top(leaderboard.Week, "")); got != "1.fast=30 2.slow=90 " {
		t.Errorf("ascending: %s", got)
	}
}

// TestFirstReached: at equal scores the member who reached the score first
// ranks higher, on a descending and an ascending board alike; a write that
// leaves the score as it was keeps its time.
func TestFirstReached(t *testing.T) {
	for _, order := range []leaderboard.Order{leaderboard.Descending, leaderboard.Ascending} {
		t.Run(string(order), func(t *testing.T) {
			f := open(t, testsvc.Backends[0], func(l *leaderboard.Leaderboard) {
				l.TieBreak, l.Order, l.Operator = leaderboard.FirstReached, order, leaderboard.Best
			})
			f.write("zed", 10)
			f.clock.Add(time.Minute)
			f.write("amy", 10)
			f.clock.Add(time.Minute)
			f.write("zed", 10) // no better: keeps its first time
			for _, k := range []leaderboard.Kind{leaderboard.Hour, leaderboard.Month, leaderboard.AllTime} {
				if got := entries(f.top(k, "")); got != "1.zed=10 2.amy=10 " {
					t.Errorf("%s: %s, want zed first, who reached 10 first", k, got)
				}
			}
		})
	}
}

// TestRefusedWritesChangeNothing: bad input, a write past the maximum on
// any board, a request id used for another member: an error naming what is
// wrong, and no board touched.
func TestRefusedWritesChangeNothing(t *testing.T) {
	f := open(t, testsvc.Backends[0], func(l *leaderboard.Leaderboard) { l.MaxScore = 100 })
	f.write("alice", 60)
	f.clock.Add(time.Hour) // the hour board of alice's new hour is empty: only the longer ones overflow
	res, err := f.engine.Write(f.ctx, "kills", leaderboard.Write{Member: "carol", Value: 1, RequestID: "r1"})
	testsvc.Must(t, err, "r1")
	before := snapshot(t, f)
	for _, c := range []struct {
		w    leaderboard.Write
		code league.Code
		says string
	}{
		{leaderboard.Write{Member: "alice", Value: 50}, league.Overflow, "on the day board from 60 past the maximum score 100"},
		{leaderboard.Write{Member: "alice", Value: 101}, league.Overflow, "over the leaderboard's maximum score 100"},
		{leaderboard.Write{Member: "", Value: 1}, league.Invalid, "member: must not be empty"},
		{leaderboard.Write{Member: "a b", Value: 1}, league.Invalid, "member: byte 1"},
		{leaderboard.Write{Member: "alice", Value: -1}, league.Invalid, "value: -1 is negative"},
		{leaderboard.Write{Member: "bob", Value: 1, RequestID: "r1"}, league.Conflict, "already used for another member"},
		{leaderboard.Write{Member: "bob", Value: 1, RequestID: "r 1"}, league.Invalid, "request_id"},
	} {
		_, err := f.engine.Write(f.ctx, "kills", c.w)
		if league.ErrorCode(err) != c.code || !contains(league.ErrorMessage(err), c.says) {
			t.Errorf("%+v: %v, want %s saying %q", c.w, err, c.code, c.says)
		}
	}
	if _, err := f.engine.Write(f.ctx, "nope", leaderboard.Write{Member: "a", Value: 1}); !errors.Is(err, league.ErrNotFound) {
		t.Errorf("unknown leaderboard: %v", err)
	}
	if after := snapshot(t, f); after != before {
		t.Fatalf("refused writes changed Redis:\n%s\n%s", before, after)
	}
	again, err := f.engine.Write(f.ctx, "kills", leaderboard.Write{Member: "carol", Value: 1, RequestID: "r1"})
	testsvc.Must(t, err, "retry of r1")
	if !again.Replayed || again.Boards[4].Score != res.Boards[4].Score {
		t.Fatalf("retry: %+v, want the first write's result replayed", again)
	}
}

func contains(s, sub string) bool {
	return len(sub) == 0 || (len(s) >= len(sub) && indexOf(s, sub) >= 0)
}

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

// snapshot is every board's contents and every key's TTL presence.
func snapshot(t *testing.T, f *fixture) string {
	keys, err := f.rdb.Keys(f.ctx, f.ns+":*").Result()
	testsvc.Must(t, err, "keys")
	out := ""
	for _, k := range sortStrings(keys) {
		if typ := f.rdb.Type(f.ctx, k).Val(); typ == "zset" {
			out += fmt.Sprintf("%s %v\n", k, f.rdb.ZRangeWithScores(f.ctx, k, 0, -1).Val())
		} else {
			out += fmt.Sprintf("%s %s\n", k, f.rdb.Get(f.ctx, k).Val())
		}
	}
	return out
}

func sortStrings(s []string) []string {
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
	return s
}

// TestRetryAcrossABoundary: a write retried after an hour passed replays
// the first write, in the periods it was made in.
func TestRetryAcrossABoundary(t *testing.T) {
	f := open(t, testsvc.Backends[0], nil)
	first, err := f.engine.Write(f.ctx, "kills", leaderboard.Write{Member: "a", Value: 3, RequestID: "m1", Scope: "game"})
	testsvc.Must(t, err, "first")
	f.clock.Add(time.Hour)
	again, err := f.engine.Write(f.ctx, "kills", leaderboard.Write{Member: "a", Value: 3, RequestID: "m1", Scope: "game"})
	testsvc.Must(t, err, "retry")
	if !again.Replayed || again.Boards[0].Period != first.Boards[0].Period || again.Boards[0].Score != 3 {
		t.Fatalf("retry after the hour: %+v, want the first write's hour and score", again.Boards[0])
	}
	other, err := f.engine.Write(f.ctx, "kills", leaderboard.Write{Member: "a", Value: 3, RequestID: "m1", Scope: "other"})
	testsvc.Must(t, err, "another scope")
	if other.Replayed || other.Boards[4].Score != 6 {
		t.Fatalf("the same id in another scope: %+v, want a write of its own", other.Boards[4])
	}
}

// TestBoardsExpire: a periodic board expires its retention after its
// period ends; the all-time board never does.
func TestBoardsExpire(t *testing.T) {
	f := open(t, testsvc.Backends[0], nil)
	res := f.write("a", 1)
	for _, p := range res.Boards {
		key := f.ns + ":lb:{kills}:" + string(p.Period.Kind)
		if p.Period.Kind != leaderboard.AllTime {
			key += fmt.Sprintf(":%d", p.Period.Start.Unix())
		}
		ttl := f.rdb.TTL(f.ctx, key).Val()
		l, _ := f.engine.Leaderboard("kills")
		want := p.Period.End.Add(l.Retention[p.Period.Kind]).Sub(f.clock.Now()) // the script's clock
		switch {
		case p.Period.Kind == leaderboard.AllTime && ttl != -1:
			t.Errorf("all_time board: TTL %v, want none", ttl)
		case p.Period.Kind != leaderboard.AllTime && (ttl < want-time.Minute || ttl > want+time.Minute):
			t.Errorf("%s board: TTL %v, want about %v", p.Period.Kind, ttl, want)
		}
	}
}

// TestReads: a page from an offset, a window around a member, and one
// member on every board with the gap above and the period before.
func TestReads(t *testing.T) {
	for _, b := range testsvc.Backends {
		t.Run(b.Name, func(t *testing.T) {
			f := open(t, b, nil)
			for i := range 10 {
				f.write(fmt.Sprintf("m%d", i), int64(10*(i+1))) // m9=100 first
			}
			page, err := f.engine.Top(f.ctx, "kills", leaderboard.Day, "", 2, 3)
			testsvc.Must(t, err, "page")
			if got := entries(page.Entries); got != "3.m7=80 4.m6=70 5.m5=60 " || page.Size != 10 {
				t.Errorf("ranks 3-5: %s (size %d)", got, page.Size)
			}
			around, err := f.engine.Around(f.ctx, "kills", leaderboard.Week, "", "m1", 2)
			testsvc.Must(t, err, "around")
			if got := entries(around.Entries); got != "7.m3=40 8.m2=30 9.m1=20 10.m0=10 " {
				t.Errorf("around m1: %s", got)
			}
			if _, err := f.engine.Around(f.ctx, "kills", leaderboard.Week, "", "nobody", 2); !errors.Is(err, league.ErrNotFound) {
				t.Errorf("around a member not on the board: %v", err)
			}
			f.clock.Add(time.Hour)
			f.write("m0", 5)
			st, err := f.engine.Member(f.ctx, "kills", "m0")
			testsvc.Must(t, err, "member")
			hour, day := st[0], st[1]
			if hour.Score != 5 || hour.Rank != 1 || hour.Gap != -1 || hour.Previous.Score != 10 || hour.Previous.Rank != 10 {
				t.Errorf("this hour: %+v (previous %+v)", hour, hour.Previous)
			}
			if day.Score != 15 || day.Rank != 10 || day.Gap != 5 || day.Previous.Rank != 0 {
				t.Errorf("today: %+v (previous %+v)", day, day.Previous)
			}
			if st[4].Previous != nil {
				t.Errorf("all time has no period before: %+v", st[4].Previous)
			}
		})
	}
}

// TestConcurrentWritesAddUp: writes from many goroutines, sharing round
// trips, each count once on every board.
func TestConcurrentWritesAddUp(t *testing.T) {
	f := open(t, testsvc.Backends[0], nil)
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Go(func() {
			for i := range 50 {
				if _, err := f.engine.Write(f.ctx, "kills", leaderboard.Write{Member: fmt.Sprintf("m%d", i%5), Value: 1,
					RequestID: fmt.Sprintf("g%d-%d", g, i)}); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	for _, k := range []leaderboard.Kind{leaderboard.Hour, leaderboard.AllTime} {
		total := int64(0)
		for _, e := range f.top(k, "") {
			total += e.Score
		}
		if total != 800 {
			t.Errorf("%s: %d points in all, want 800", k, total)
		}
	}
}

// TestWriteMany: one batch over several leaderboards, each write on its
// own leaderboard's boards; a write to an unknown leaderboard fails alone.
func TestWriteMany(t *testing.T) {
	f := open(t, testsvc.Backends[0], nil)
	second := newLeaderboard(t, func(l *leaderboard.Leaderboard) {
		l.ID, l.Kinds, l.Operator = "laps", []leaderboard.Kind{leaderboard.Day}, leaderboard.Best
	})
	e, err := leaderboard.Open(f.ctx, f.rdb, []*leaderboard.Leaderboard{newLeaderboard(t, nil), second},
		leaderboard.WithNamespace(f.ns), leaderboard.WithClock(f.clock.Now))
	testsvc.Must(t, err, "Open")
	res, errs, err := e.WriteMany(f.ctx, []leaderboard.BoardWrite{
		{Leaderboard: "kills", Write: leaderboard.Write{Member: "a", Value: 3}},
		{Leaderboard: "laps", Write: leaderboard.Write{Member: "a", Value: 9}},
		{Leaderboard: "nope", Write: leaderboard.Write{Member: "a", Value: 1}},
		{Leaderboard: "laps", Write: leaderboard.Write{Member: "a", Value: 4}},
		{Leaderboard: "kills", Write: leaderboard.Write{Member: "a", Value: 2}},
	})
	testsvc.Must(t, err, "WriteMany")
	if league.ErrorCode(errs[2]) != league.NotFound || errs[0] != nil || errs[1] != nil || errs[3] != nil || errs[4] != nil {
		t.Fatalf("errs %v", errs)
	}
	if len(res[0].Boards) != 5 || len(res[1].Boards) != 1 || res[3].Boards[0].Score != 9 || res[4].Boards[0].Score != 5 {
		t.Fatalf("results %+v", res)
	}
}
