package league_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/league"
	"github.com/league-engine/league/tiers"
)

func TestJoinPlacesByCounter(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b testsvc.Backend) {
		f := newFixture(t, b)
		for i := 1; i <= 25; i++ {
			p := f.join(fmt.Sprintf("p%02d", i))
			wantBoard, wantSlot := (i+9)/10, (i-1)%10+1
			if p.Tier != "bronze" || p.Board.N != wantBoard || p.Slot != wantSlot || p.Rejoined {
				t.Fatalf("join %d: got %s board %d slot %d rejoined %v; want bronze board %d slot %d",
					i, p.Tier, p.Board.N, p.Slot, p.Rejoined, wantBoard, wantSlot)
			}
			if p.Period.ID() != "20261116T000000Z" {
				t.Fatalf("period %s, want 20261116T000000Z", p.Period.ID())
			}
		}
		again := f.join("p07")
		if !again.Rejoined || again.Board.N != 1 || again.Slot != 7 {
			t.Fatalf("rejoin: got board %d slot %d rejoined %v; want the first placement 1/7", again.Board.N, again.Slot, again.Rejoined)
		}
		pop, err := f.engine.Populations(f.ctx, "weekly", league.Period{})
		testsvc.Must(t, err, "Populations")
		if pop["bronze"] != 25 {
			t.Fatalf("bronze population %d, want 25", pop["bronze"])
		}
	})
}

func TestScoreOperators(t *testing.T) {
	tests := []struct {
		op     league.Operator
		writes []int64
		want   int64
	}{
		{league.Incr, []int64{5, 7, 0}, 12},
		{league.Best, []int64{5, 9, 3}, 9},
		{league.Set, []int64{5, 9, 3}, 3},
	}
	forEachBackend(t, func(t *testing.T, b testsvc.Backend) {
		for _, tt := range tests {
			t.Run(string(tt.op), func(t *testing.T) {
				f := newFixture(t, b, func(l *league.League) { l.Operator = tt.op })
				f.join("a")
				var r league.ScoreResult
				for _, v := range tt.writes {
					r = f.score("a", v)
				}
				if r.Score != tt.want || r.Rank != 1 || r.BoardSize != 1 {
					t.Fatalf("got score %d rank %d size %d, want %d 1 1", r.Score, r.Rank, r.BoardSize, tt.want)
				}
			})
		}
	})
}

func TestRankingTies(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b testsvc.Backend) {
		t.Run("join_order", func(t *testing.T) {
			f := newFixture(t, b)
			for _, p := range []string{"first", "second", "third", "fourth"} {
				f.join(p)
			}
			// fourth scores 10 first, then first; second and third tie on 5
			// in the reverse order of joining.
			f.score("fourth", 10)
			f.clock.Add(time.Second)
			f.score("first", 10)
			f.score("third", 5)
			f.clock.Add(time.Second)
			f.score("second", 5)
			assertOrder(t, f, "first", "fourth", "second", "third")
		})
		t.Run("first_reached", func(t *testing.T) {
			f := newFixture(t, b, func(l *league.League) { l.TieBreak = league.FirstReached })
			for _, p := range []string{"first", "second", "third", "fourth"} {
				f.join(p)
			}
			f.score("fourth", 10)
			f.clock.Add(time.Second)
			f.score("first", 10)
			f.score("third", 5)
			f.clock.Add(time.Second)
			f.score("second", 5)
			// fourth reached 10 a second before first; third reached 5 before second.
			assertOrder(t, f, "fourth", "first", "third", "second")
			// same second: join order decides
			f.score("first", 1)
			f.score("fourth", 1)
			assertOrder(t, f, "first", "fourth", "third", "second")
		})
	})
}

func assertOrder(t *testing.T, f *fixture, want ...string) {
	t.Helper()
	b, err := f.engine.Board(f.ctx, "weekly", league.Period{}, league.BoardID{Tier: "bronze", N: 1})
	testsvc.Must(t, err, "Board")
	var got []string
	for _, e := range b.Entries {
		got = append(got, e.Player)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("order %v, want %v", got, want)
	}
	for i, e := range b.Entries {
		if e.Rank != i+1 || e.Name != "name "+e.Player {
			t.Fatalf("entry %d: rank %d name %q", i, e.Rank, e.Name)
		}
	}
}

func TestMaxExactScore(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b testsvc.Backend) {
		for _, tie := range []league.TieBreak{league.JoinOrder, league.FirstReached} {
			t.Run(string(tie), func(t *testing.T) {
				f := newFixture(t, b, func(l *league.League) { l.TieBreak = tie; l.Operator = league.Set })
				max := f.league.MaxScore
				if max != f.league.Packing().MaxExact {
					t.Fatalf("default max %d, want the exact max %d", max, f.league.Packing().MaxExact)
				}
				for i := 0; i < 10; i++ { // fill the board: slots 1..size
					f.join(fmt.Sprintf("p%d", i))
				}
				f.clock.Set(f.period().End.Add(-time.Millisecond)) // the last instant of the period
				f.score("p9", max)
				f.score("p0", max-1)
				// same score, same instant: p1 joined before p9 (slot 2 vs slot 10)
				r := f.score("p1", max)
				if r.Score != max || r.Rank != 1 {
					t.Fatalf("p1: score %d rank %d, want %d rank 1", r.Score, r.Rank, max)
				}
				s9, err := f.engine.Standing(f.ctx, "weekly", "p9")
				testsvc.Must(t, err, "Standing")
				if s9.Score != max || s9.Rank != 2 || s9.Gap != 0 {
					t.Fatalf("p9: score %d rank %d gap %d, want %d rank 2 gap 0", s9.Score, s9.Rank, s9.Gap, max)
				}
				s, err := f.engine.Standing(f.ctx, "weekly", "p0")
				testsvc.Must(t, err, "Standing")
				if s.Score != max-1 || s.Gap != 1 || s.Rank != 3 {
					t.Fatalf("p0: score %d gap %d rank %d, want %d 1 3", s.Score, s.Gap, s.Rank, max-1)
				}
			})
		}
	})
}

func TestOverflowRefusedWritesNothing(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b testsvc.Backend) {
		f := newFixture(t, b, func(l *league.League) { l.MaxScore = 100 })
		f.join("a")
		f.score("a", 60)
		before := f.dump()
		for _, v := range []int64{41, 101, 1 << 40} {
			_, err := f.engine.Score(f.ctx, "weekly", league.ScoreWrite{Player: "a", Value: v, RequestID: fmt.Sprint("r", v)})
			if !errors.Is(err, league.ErrOverflow) {
				t.Fatalf("incr %d: err %v, want overflow", v, err)
			}
		}
		if after := f.dump(); fmt.Sprint(after) != fmt.Sprint(before) {
			t.Fatalf("a refused write changed Redis:\nbefore %v\nafter  %v", before, after)
		}
		if r := f.score("a", 40); r.Score != 100 {
			t.Fatalf("score %d, want 100: exactly the maximum is allowed", r.Score)
		}
	})
}

func TestClosedPeriodRefused(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b testsvc.Backend) {
		f := newFixture(t, b)
		f.join("a")
		f.score("a", 3)
		week := f.period()

		// After the period's end, by the clock: the write is refused, and a
		// player who has not joined the new period is told so.
		f.clock.After(week.End)
		_, err := f.engine.Score(f.ctx, "weekly", league.ScoreWrite{Player: "a", Value: 1})
		if !errors.Is(err, league.ErrPeriodClosed) || !strings.Contains(err.Error(), "period "+week.ID()+" ") {
			t.Fatalf("late write: %v, want period %s closed", err, week.ID())
		}
		_, err = f.engine.Score(f.ctx, "weekly", league.ScoreWrite{Player: "nobody", Value: 1})
		if !errors.Is(err, league.ErrNotJoined) {
			t.Fatalf("write of a stranger: %v, want not joined", err)
		}

		// Close before the end is refused: Redis's clock has not passed it.
		f.clock.Set(week.Start.Add(time.Minute))
		if _, err := f.engine.Close(f.ctx, "weekly", week); !errors.Is(err, league.ErrNotEnded) {
			t.Fatalf("early close: %v, want not ended", err)
		}
		f.clock.After(week.End)
		pop, err := f.engine.Close(f.ctx, "weekly", week)
		testsvc.Must(t, err, "Close")
		if pop.Players() != 1 {
			t.Fatalf("closed period has %d players, want 1", pop.Players())
		}
		// Even a clock moved back cannot write into a closed period.
		f.clock.Set(week.Start.Add(time.Minute))
		_, err = f.engine.Score(f.ctx, "weekly", league.ScoreWrite{Player: "a", Value: 1})
		if !errors.Is(err, league.ErrPeriodClosed) || !strings.Contains(err.Error(), "period "+week.ID()+" ") {
			t.Fatalf("write into a closed period: %v, want period %s closed", err, week.ID())
		}
		if _, err := f.engine.Join(f.ctx, "weekly", league.JoinRequest{Player: "b", Name: "b"}); !errors.Is(err, league.ErrPeriodClosed) {
			t.Fatalf("join into a closed period: %v, want period closed", err)
		}
	})
}

func TestBadInputWritesNothing(t *testing.T) {
	long := func(n int) string { return fmt.Sprintf("%0*d", n, 0) }
	forEachBackend(t, func(t *testing.T, b testsvc.Backend) {
		f := newFixture(t, b)
		f.join("a")
		joins := []struct {
			name   string
			league string
			req    league.JoinRequest
			want   error
			field  string
		}{
			{"unknown league", "nope", league.JoinRequest{Player: "x", Name: "x"}, league.ErrNotFound, ""},
			{"empty player", "weekly", league.JoinRequest{Name: "x"}, league.ErrInvalid, "player_id"},
			{"long player", "weekly", league.JoinRequest{Player: long(65), Name: "x"}, league.ErrInvalid, "player_id"},
			{"space in player", "weekly", league.JoinRequest{Player: "a b", Name: "x"}, league.ErrInvalid, "player_id"},
			{"empty name", "weekly", league.JoinRequest{Player: "x"}, league.ErrInvalid, "name"},
			{"long name", "weekly", league.JoinRequest{Player: "x", Name: long(33)}, league.ErrInvalid, "name"},
			{"control in name", "weekly", league.JoinRequest{Player: "x", Name: "a\x1fb"}, league.ErrInvalid, "name"},
			{"bad utf8 name", "weekly", league.JoinRequest{Player: "x", Name: "\xff"}, league.ErrInvalid, "name"},
			{"long avatar", "weekly", league.JoinRequest{Player: "x", Name: "x", Avatar: long(32)}, league.ErrInvalid, "avatar"},
		}
		writes := []struct {
			name  string
			w     league.ScoreWrite
			want  error
			field string
		}{
			{"negative", league.ScoreWrite{Player: "a", Value: -1}, league.ErrInvalid, "value"},
			{"long request id", league.ScoreWrite{Player: "a", Value: 1, RequestID: long(65)}, league.ErrInvalid, "request_id"},
			{"request id with space", league.ScoreWrite{Player: "a", Value: 1, RequestID: "a b"}, league.ErrInvalid, "request_id"},
			{"empty player", league.ScoreWrite{Value: 1}, league.ErrInvalid, "player_id"},
			{"not joined", league.ScoreWrite{Player: "b", Value: 1}, league.ErrNotJoined, ""},
		}
		before := f.dump()
		for _, tt := range joins {
			_, err := f.engine.Join(f.ctx, tt.league, tt.req)
			checkErr(t, "join "+tt.name, err, tt.want, tt.field)
		}
		for _, tt := range writes {
			_, err := f.engine.Score(f.ctx, "weekly", tt.w)
			checkErr(t, "score "+tt.name, err, tt.want, tt.field)
		}
		_, err := f.engine.Standing(f.ctx, "weekly", "")
		checkErr(t, "standing empty player", err, league.ErrInvalid, "player_id")
		_, err = f.engine.Standing(f.ctx, "weekly", "ghost")
		checkErr(t, "standing of a stranger", err, league.ErrNotFound, "")
		_, err = f.engine.Board(f.ctx, "weekly", league.Period{}, league.BoardID{Tier: "platinum", N: 1})
		checkErr(t, "board of an unknown tier", err, league.ErrNotFound, "")
		_, err = f.engine.Board(f.ctx, "weekly", league.Period{}, league.BoardID{Tier: "bronze", N: 2})
		checkErr(t, "board not there", err, league.ErrNotFound, "")
		if after := f.dump(); fmt.Sprint(after) != fmt.Sprint(before) {
			t.Fatalf("bad input changed Redis:\nbefore %v\nafter  %v", before, after)
		}
	})
}

func checkErr(t *testing.T, what string, err, want error, field string) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Errorf("%s: err %v, want %v", what, err, want)
		return
	}
	var le *league.Error
	if errors.As(err, &le) && le.Field != field {
		t.Errorf("%s: field %q, want %q (%v)", what, le.Field, field, err)
	}
}

func TestRacingDuplicateJoins(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b testsvc.Backend) {
		for _, mode := range roundTripModes {
			t.Run(mode.name, func(t *testing.T) { racingDuplicateJoins(t, newFixtureWith(t, b, mode.opts)) })
		}
	})
}

func racingDuplicateJoins(t *testing.T, f *fixture) {
	f.join("before")
	var wg sync.WaitGroup
	got := make([]league.Placement, 50)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i] = f.join("racer")
		}()
	}
	wg.Wait()
	fresh := 0
	for _, p := range got {
		if p.Board != got[0].Board || p.Slot != got[0].Slot || p.Slot != 2 {
			t.Fatalf("placements differ: %+v vs %+v", p, got[0])
		}
		if !p.Rejoined {
			fresh++
		}
	}
	if fresh != 1 {
		t.Fatalf("%d joins placed the racer, want exactly 1", fresh)
	}
	pop, _ := f.engine.Populations(f.ctx, "weekly", league.Period{})
	if pop["bronze"] != 2 {
		t.Fatalf("bronze population %d, want 2", pop["bronze"])
	}
}

func TestIdempotentRetriesUnderConcurrency(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b testsvc.Backend) {
		for _, mode := range roundTripModes {
			t.Run(mode.name, func(t *testing.T) { idempotentRetries(t, newFixtureWith(t, b, mode.opts)) })
		}
	})
}

func idempotentRetries(t *testing.T, f *fixture) {
	f.join("a")
	f.join("b")
	var wg sync.WaitGroup
	results := make([]league.ScoreResult, 40)
	errs := make([]error, 40)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// 20 retries of one request and 20 of another, interleaved
			id := fmt.Sprint("req-", i%2)
			results[i], errs[i] = f.engine.Score(f.ctx, "weekly", league.ScoreWrite{Player: "a", Value: 7, RequestID: id})
		}()
	}
	wg.Wait()
	firsts := 0
	for i, r := range results {
		testsvc.Must(t, errs[i], "write %d", i)
		if !r.Replayed {
			firsts++
			continue
		}
	}
	if firsts != 2 {
		t.Fatalf("%d writes applied, want 2 (one per request id)", firsts)
	}
	s, _ := f.engine.Standing(f.ctx, "weekly", "a")
	if s.Score != 14 {
		t.Fatalf("score %d, want 14", s.Score)
	}
	// A retry returns the stored result, not today's: b overtakes a,
	// then a's retry still reports rank 1 and a's score at the time.
	f.score("b", 100)
	r, err := f.engine.Score(f.ctx, "weekly", league.ScoreWrite{Player: "a", Value: 7, RequestID: "req-0"})
	testsvc.Must(t, err, "retry")
	if !r.Replayed || r.Rank != 1 || (r.Score != 7 && r.Score != 14) {
		t.Fatalf("retry got %+v, want the first result (rank 1)", r)
	}
	_, err = f.engine.Score(f.ctx, "weekly", league.ScoreWrite{Player: "b", Value: 7, RequestID: "req-0"})
	if !errors.Is(err, league.ErrConflict) {
		t.Fatalf("request id reused by another player: %v, want conflict", err)
	}
}

// TestIdempotencyWindowToTheMillisecond: a request id is remembered for
// the whole window, its fraction of a second included (the key's expiry
// was set in whole seconds, so 1.999s remembered it for one).
func TestIdempotencyWindowToTheMillisecond(t *testing.T) {
	f := newFixture(t, testsvc.Backends[0], func(l *league.League) { l.IdempotencyWindow = 1999 * time.Millisecond })
	f.join("a")
	_, err := f.engine.Score(f.ctx, "weekly", league.ScoreWrite{Player: "a", Value: 7, RequestID: "r1"})
	testsvc.Must(t, err, "Score")
	ttl, err := f.rdb.PTTL(f.ctx, f.ns+":{weekly}:q:r1").Result()
	testsvc.Must(t, err, "PTTL")
	if ttl < 1500*time.Millisecond || ttl > 1999*time.Millisecond {
		t.Fatalf("request id remembered for %v, want the 1.999s window", ttl)
	}
}

// TestExpiryLag: an engine on a Redis whose keys may expire a step early
// (leagued's embedded miniredis) remembers a request id for the window plus
// that step, so a retry inside the window is always replayed.
func TestExpiryLag(t *testing.T) {
	f := newFixtureWith(t, testsvc.Backends[0], []league.Option{league.WithExpiryLag(time.Second)},
		func(l *league.League) { l.IdempotencyWindow = 1999 * time.Millisecond })
	f.join("a")
	_, err := f.engine.Score(f.ctx, "weekly", league.ScoreWrite{Player: "a", Value: 7, RequestID: "r1"})
	testsvc.Must(t, err, "Score")
	ttl, err := f.rdb.PTTL(f.ctx, f.ns+":{weekly}:q:r1").Result()
	testsvc.Must(t, err, "PTTL")
	if ttl <= 2500*time.Millisecond || ttl > 2999*time.Millisecond {
		t.Fatalf("request id remembered for %v, want the 1.999s window and the 1s lag", ttl)
	}
}

func TestBatchScoresAndStandings(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b testsvc.Backend) {
		f := newFixture(t, b)
		for _, p := range []string{"a", "b", "c"} {
			f.join(p)
		}
		res, errs, err := f.engine.ScoreBatch(f.ctx, "weekly", []league.ScoreWrite{
			{Player: "a", Value: 5}, {Player: "b", Value: 9}, {Player: "ghost", Value: 1}, {Player: "c", Value: -3}, {Player: "c", Value: 1},
		})
		testsvc.Must(t, err, "ScoreBatch")
		if errs[0] != nil || errs[1] != nil || errs[4] != nil || res[1].Rank != 1 || res[4].Score != 1 {
			t.Fatalf("batch results %+v errs %v", res, errs)
		}
		if !errors.Is(errs[2], league.ErrNotJoined) || !errors.Is(errs[3], league.ErrInvalid) {
			t.Fatalf("batch errors %v, want not joined and invalid", errs)
		}
		st, errs, err := f.engine.Standings(f.ctx, "weekly", []string{"a", "b", "zed", "c"})
		testsvc.Must(t, err, "Standings")
		if st[0].Rank != 2 || st[0].Gap != 4 || st[1].Rank != 1 || st[3].Rank != 3 || !errors.Is(errs[2], league.ErrNotFound) {
			t.Fatalf("standings %+v errs %v", st, errs)
		}
	})
}

func TestZonesOnBoard(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b testsvc.Backend) {
		f := newFixture(t, b)
		for i := 0; i < 10; i++ {
			f.join(fmt.Sprint("p", i))
		}
		f.score("p3", 5) // only p3 scored: the one other promote rank has score 0
		board, err := f.engine.Board(f.ctx, "weekly", league.Period{}, league.BoardID{Tier: "bronze", N: 1})
		testsvc.Must(t, err, "Board")
		want := map[int]tiers.Zone{1: tiers.Promote, 2: tiers.Stay, 10: tiers.Stay}
		for rank, z := range want {
			if got := board.Entries[rank-1].Zone; got != z {
				t.Errorf("rank %d zone %v, want %v", rank, got, z)
			}
		}
	})
}

// TestBoardNamesOfNewJoiners: board reads cache names, but a player who
// joins after a read shows with their name on the very next read.
func TestBoardNamesOfNewJoiners(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b testsvc.Backend) {
		f := newFixture(t, b)
		f.join("a")
		id := league.BoardID{Tier: "bronze", N: 1}
		for _, p := range []string{"b", "c"} {
			if _, err := f.engine.Board(f.ctx, "weekly", league.Period{}, id); err != nil {
				t.Fatal(err)
			}
			f.join(p)
			board, err := f.engine.Board(f.ctx, "weekly", league.Period{}, id)
			testsvc.Must(t, err, "Board")
			last := board.Entries[len(board.Entries)-1]
			if last.Player != p || last.Name != "name "+p {
				t.Fatalf("new joiner shows as %+v", last)
			}
		}
	})
}

func TestOpenRefusesNegativeSharedRoundTrips(t *testing.T) {
	rdb, _ := testsvc.Mini(t)
	_, err := league.Open(context.Background(), rdb, []*league.League{testLeague(t)}, league.WithSharedRoundTrips(-1))
	if err == nil || !strings.Contains(err.Error(), "shared round trips") {
		t.Fatalf("Open with -1 shared round trips: %v, want an error saying so", err)
	}
}

// TestOpenRefusesAClientThatSendsNothing: go-redis makes no attempt at a
// command below -1 retries (or redirects), and reports no error; the engine
// would read empty replies.
func TestOpenRefusesAClientThatSendsNothing(t *testing.T) {
	_, m := testsvc.Mini(t)
	for _, c := range []struct {
		rdb  redis.UniversalClient
		want string
	}{
		{redis.NewClient(&redis.Options{Addr: m.Addr(), MaxRetries: -2}), "max retries is -2"},
		{redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{m.Addr()}, MaxRedirects: -3}), "max redirects is -3"},
		{redis.NewRing(&redis.RingOptions{Addrs: map[string]string{"a": m.Addr()}, MaxRetries: -2}), "max retries is -2"},
	} {
		_, err := league.Open(context.Background(), c.rdb, []*league.League{testLeague(t)})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%T: Open: %v, want an error saying %q", c.rdb, err, c.want)
		}
		c.rdb.Close()
	}
}

// TestMaxGain: the most one write may add (an anti-cheat cap), for each
// operator: a write past it is refused, says why, and changes nothing;
// set may always lower a score.
func TestMaxGain(t *testing.T) {
	tests := []struct {
		op      league.Operator
		writes  []int64
		refused []bool
		want    int64
	}{
		{league.Incr, []int64{50, 51, 50}, []bool{false, true, false}, 100},
		{league.Best, []int64{50, 101, 100, 60}, []bool{false, true, false, false}, 100},
		{league.Set, []int64{50, 101, 100, 5, 56}, []bool{false, true, false, false, true}, 5},
	}
	forEachBackend(t, func(t *testing.T, b testsvc.Backend) {
		for _, tt := range tests {
			t.Run(string(tt.op), func(t *testing.T) {
				f := newFixture(t, b, func(l *league.League) { l.Operator, l.MaxGain = tt.op, 50 })
				f.join("a")
				for i, v := range tt.writes {
					r, err := f.engine.Score(f.ctx, "weekly", league.ScoreWrite{Player: "a", Value: v})
					switch {
					case tt.refused[i] && (league.ErrorCode(err) != league.Overflow || !strings.Contains(err.Error(), "max_gain 50")):
						t.Fatalf("write %d of %d: %v, want refused by max_gain", i, v, err)
					case !tt.refused[i] && err != nil:
						t.Fatalf("write %d of %d: %v", i, v, err)
					case !tt.refused[i] && i == len(tt.writes)-1 && r.Score != tt.want:
						t.Fatalf("score %d, want %d", r.Score, tt.want)
					}
				}
				st, err := f.engine.Standing(f.ctx, "weekly", "a")
				testsvc.Must(t, err, "Standing")
				if st.Score != tt.want {
					t.Fatalf("score %d after the refusals, want %d", st.Score, tt.want)
				}
			})
		}
	})
}

// TestMaxAttempts: a player makes at most max_attempts score writes a
// period; replays and refused writes are not attempts; the next period
// starts afresh.
func TestMaxAttempts(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b testsvc.Backend) {
		f := newFixture(t, b, func(l *league.League) { l.MaxAttempts, l.MaxScore = 2, 100 })
		f.join("a")
		f.join("b")
		write := func(player string, v int64, rid string) (league.ScoreResult, error) {
			return f.engine.Score(f.ctx, "weekly", league.ScoreWrite{Player: player, Value: v, RequestID: rid})
		}
		if _, err := write("a", 5, "r1"); err != nil {
			t.Fatal(err)
		}
		if _, err := write("a", 500, "r2"); league.ErrorCode(err) != league.Overflow { // refused: not an attempt
			t.Fatalf("over the maximum: %v", err)
		}
		if _, err := write("a", 5, "r3"); err != nil {
			t.Fatal(err)
		}
		if r, err := write("a", 5, "r1"); err != nil || !r.Replayed { // a replay: not an attempt
			t.Fatalf("replay: %+v %v", r, err)
		}
		_, err := write("a", 5, "r4")
		var ra interface{ RetryAfter() time.Duration }
		if league.ErrorCode(err) != league.RateLimited || !strings.Contains(err.Error(), "max_attempts of 2") ||
			!errors.As(err, &ra) || ra.RetryAfter() <= 0 {
			t.Fatalf("a third write: %v", err)
		}
		if r := f.score("b", 1); r.Score != 1 { // another player counts apart
			t.Fatalf("b: %+v", r)
		}
		st, err := f.engine.Standing(f.ctx, "weekly", "a")
		testsvc.Must(t, err, "Standing")
		if st.Score != 10 {
			t.Fatalf("a's score %d, want 10", st.Score)
		}
		// the next period: afresh
		f.clock.Set(f.period().End.Add(time.Minute))
		f.join("a")
		if r := f.score("a", 7); r.Score != 7 {
			t.Fatalf("next period: %+v", r)
		}
	})
}
