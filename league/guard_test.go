package league_test

import (
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/league"
)

// refusedBy checks err is the RateLimited refusal of limit name, with a
// Retry-After of at most within.
func refusedBy(tb testing.TB, err error, name string, within time.Duration) {
	tb.Helper()
	var r *league.Refusal
	if league.ErrorCode(err) != league.RateLimited || !errors.As(err, &r) || r.Limit != name {
		tb.Fatalf("got %v, want refused by limit %s", err, name)
	}
	if ra := r.RetryAfter(); ra <= 0 || ra > within {
		tb.Fatalf("%v: Retry-After %v, want within (0, %v]", err, ra, within)
	}
}

// TestLimits: limits by player and by the writer's key, each over its
// window of the league's clock; a refused write and a replayed request id
// consume nothing; the window's end frees it.
func TestLimits(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b testsvc.Backend) {
		f := newFixture(t, b, func(l *league.League) {
			l.Limits = []league.Limit{
				{By: []league.LimitBy{league.ByPlayer}, Per: league.PerMinute, Max: 2},
				{Name: "servers", By: []league.LimitBy{league.ByKey}, Per: league.PerHour, Max: 5},
			}
		})
		for _, p := range []string{"a", "b", "c"} {
			f.join(p)
		}
		write := func(player, key, rid string) (league.ScoreResult, error) {
			return f.engine.Score(f.ctx, "weekly", league.ScoreWrite{Player: player, Value: 1, Scope: key, RequestID: rid})
		}
		for _, rid := range []string{"r1", "r2", "r1"} { // the replay of r1 consumes nothing
			if _, err := write("a", "eu", rid); err != nil {
				t.Fatalf("%s: %v", rid, err)
			}
		}
		_, err := write("a", "eu", "r3")
		refusedBy(t, err, "player-minute", time.Minute)
		// b and c: the key eu has 2 of 5 this hour
		for _, w := range [][2]string{{"b", "eu"}, {"b", "eu"}, {"c", "eu"}} {
			if _, err := write(w[0], w[1], ""); err != nil {
				t.Fatalf("%v: %v", w, err)
			}
		}
		_, err = write("c", "eu", "")
		refusedBy(t, err, "servers", time.Hour)
		if _, err := write("c", "us", ""); err != nil { // another key counts apart
			t.Fatalf("key us: %v", err)
		}
		st, err := f.engine.Standing(f.ctx, "weekly", "a")
		testsvc.Must(t, err, "Standing")
		if st.Score != 2 {
			t.Fatalf("a's score %d after a refusal and a replay, want 2", st.Score)
		}
		// the next minute frees the player's limit, not the key's hour
		f.clock.Add(time.Minute)
		if _, err := write("a", "us", ""); err != nil {
			t.Fatalf("next minute: %v", err)
		}
		_, err = write("a", "eu", "")
		refusedBy(t, err, "servers", time.Hour)
	})
}

// TestLimitChange: a league reopened with a limit's max changed applies
// the new max to the counter already running.
func TestLimitChange(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b testsvc.Backend) {
		limit := func(max int64) func(*league.League) {
			return func(l *league.League) {
				l.Limits = []league.Limit{{By: []league.LimitBy{league.ByPlayer}, Per: league.PerDay, Max: max}}
			}
		}
		f := newFixture(t, b, limit(3))
		f.join("a")
		for i := 0; i < 3; i++ {
			f.score("a", 1)
		}
		lowered := testLeague(t, limit(2))
		e, err := league.Open(f.ctx, f.rdb, []*league.League{lowered}, league.WithNamespace(f.ns), league.WithClock(f.clock.Now))
		testsvc.Must(t, err, "Open")
		_, err = e.Score(f.ctx, "weekly", league.ScoreWrite{Player: "a", Value: 1})
		refusedBy(t, err, "player-day", 24*time.Hour)
		raised := testLeague(t, limit(4))
		e, err = league.Open(f.ctx, f.rdb, []*league.League{raised}, league.WithNamespace(f.ns), league.WithClock(f.clock.Now))
		testsvc.Must(t, err, "Open")
		if _, err := e.Score(f.ctx, "weekly", league.ScoreWrite{Player: "a", Value: 1}); err != nil {
			t.Fatalf("raised to 4: %v", err)
		}
		_, err = e.Score(f.ctx, "weekly", league.ScoreWrite{Player: "a", Value: 1})
		refusedBy(t, err, "player-day", 24*time.Hour)
	})
}

// TestLimitRace: 64 racing writers against a limit of 5 make exactly 5
// writes.
func TestLimitRace(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b testsvc.Backend) {
		f := newFixture(t, b, func(l *league.League) {
			l.Limits = []league.Limit{{By: []league.LimitBy{league.ByPlayer}, Per: league.PerPeriod, Max: 5}}
		})
		f.join("a")
		var ok, refused atomic.Int64
		var wg sync.WaitGroup
		for i := 0; i < 64; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := f.engine.Score(f.ctx, "weekly", league.ScoreWrite{Player: "a", Value: 1})
				switch {
				case err == nil:
					ok.Add(1)
				case league.ErrorCode(err) == league.RateLimited:
					refused.Add(1)
				default:
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		st, err := f.engine.Standing(f.ctx, "weekly", "a")
		testsvc.Must(t, err, "Standing")
		if ok.Load() != 5 || refused.Load() != 59 || st.Score != 5 {
			t.Fatalf("%d written, %d refused, score %d; want 5, 59, 5", ok.Load(), refused.Load(), st.Score)
		}
	})
}

// TestMaxGainPer: a player gains at most max_gain_per in each window,
// counted as what the write gained (a best that does not raise the score
// gains nothing); the next window frees it.
func TestMaxGainPer(t *testing.T) {
	tests := []struct {
		op      league.Operator
		writes  []int64
		refused []bool
		want    int64
	}{
		{league.Incr, []int64{60, 50, 40, 1}, []bool{false, true, false, true}, 100},
		{league.Best, []int64{60, 50, 100, 101}, []bool{false, false, false, true}, 100},
		{league.Set, []int64{60, 10, 100}, []bool{false, false, true}, 10},
	}
	forEachBackend(t, func(t *testing.T, b testsvc.Backend) {
		for _, tt := range tests {
			t.Run(string(tt.op), func(t *testing.T) {
				f := newFixture(t, b, func(l *league.League) {
					l.Operator, l.MaxScore = tt.op, 1000
					l.MaxGainPer = map[league.Per]int64{league.PerDay: 100}
				})
				f.join("a")
				for i, v := range tt.writes {
					_, err := f.engine.Score(f.ctx, "weekly", league.ScoreWrite{Player: "a", Value: v})
					if tt.refused[i] {
						refusedBy(t, err, "gain-day", 24*time.Hour)
					} else if err != nil {
						t.Fatalf("write %d of %d: %v", i, v, err)
					}
				}
				st, err := f.engine.Standing(f.ctx, "weekly", "a")
				testsvc.Must(t, err, "Standing")
				if st.Score != tt.want {
					t.Fatalf("score %d, want %d", st.Score, tt.want)
				}
				f.clock.Add(24 * time.Hour) // the next day
				if tt.op == league.Incr {
					if r := f.score("a", 100); r.Score != tt.want+100 {
						t.Fatalf("the next day: %+v", r)
					}
				}
			})
		}
	})
}

// TestHold: a league that holds writes past its caps keeps them out of
// the ranking and lists them; approving one applies it once; rejecting
// drops it; once the period has ended, only rejecting is left.
func TestHold(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b testsvc.Backend) {
		f := newFixture(t, b, func(l *league.League) {
			l.MaxGain, l.Hold, l.MaxScore = 50, true, 1000
			l.MaxGainPer = map[league.Per]int64{league.PerDay: 70}
		})
		f.join("a")
		f.join("b")
		f.score("b", 20)
		f.score("a", 10)
		write := func(player string, v int64, rid string) league.ScoreResult {
			t.Helper()
			r, err := f.engine.Score(f.ctx, "weekly", league.ScoreWrite{Player: player, Value: v, RequestID: rid})
			testsvc.Must(t, err, "Score")
			return r
		}
		r := write("a", 80, "big") // past max_gain
		if r.Held == nil || r.Held.ID != 1 || r.Held.Cap != "max_gain" || r.Score != 10 || r.Rank != 2 || r.Replayed {
			t.Fatalf("a write past max_gain: %+v %+v, want held as 1, score 10, rank 2", r, r.Held)
		}
		if again := write("a", 80, "big"); again.Held == nil || again.Held.ID != 1 || !again.Replayed {
			t.Fatalf("its replay: %+v %+v, want held 1, replayed", again, again.Held)
		}
		if r := write("a", 40, ""); r.Held != nil || r.Score != 50 { // 50 of 70 gained today
			t.Fatalf("a write within the caps: %+v", r)
		}
		r = write("a", 30, "") // 80 of 70 today
		if r.Held == nil || r.Held.ID != 2 || r.Held.Cap != "gain-day" || r.Score != 50 {
			t.Fatalf("a write past max_gain_per: %+v %+v", r, r.Held)
		}
		_, held, err := f.engine.HeldWrites(f.ctx, "weekly", "")
		testsvc.Must(t, err, "HeldWrites")
		if len(held) != 2 || held[0].Player != "a" || held[0].Value != 80 || held[1].Value != 30 || held[1].At.IsZero() {
			t.Fatalf("held: %+v", held)
		}
		res, err := f.engine.Approve(f.ctx, "weekly", 1)
		testsvc.Must(t, err, "Approve")
		if res.Score != 130 || res.Rank != 1 {
			t.Fatalf("approved: %+v, want score 130, rank 1", res)
		}
		if _, err := f.engine.Approve(f.ctx, "weekly", 1); league.ErrorCode(err) != league.NotFound {
			t.Fatalf("approved twice: %v", err)
		}
		if h, err := f.engine.Reject(f.ctx, "weekly", "", 2); err != nil || h.Value != 30 {
			t.Fatalf("Reject: %+v %v", h, err)
		}
		if _, held, _ := f.engine.HeldWrites(f.ctx, "weekly", ""); len(held) != 0 {
			t.Fatalf("held after deciding both: %+v", held)
		}
		st, err := f.engine.Standing(f.ctx, "weekly", "a")
		testsvc.Must(t, err, "Standing")
		if st.Score != 130 {
			t.Fatalf("score %d, want 130", st.Score)
		}
		// the period ends with a write held: approving it is refused
		write("a", 60, "")
		p := f.period()
		f.clock.Set(p.End.Add(time.Minute))
		if _, err := f.engine.Approve(f.ctx, "weekly", 3); err == nil {
			t.Fatal("approved a held write of an ended period")
		}
		if h, err := f.engine.Reject(f.ctx, "weekly", p.ID(), 3); err != nil || h.Value != 60 {
			t.Fatalf("Reject of the ended period: %+v %v", h, err)
		}
	})
}

// TestGuardConfig: inconsistent guards are refused at Init, naming the
// field.
func TestGuardConfig(t *testing.T) {
	tests := []struct {
		name string
		edit func(*league.League)
		want string
	}{
		{"dimension", func(l *league.League) {
			l.Limits = []league.Limit{{By: []league.LimitBy{"actor"}, Per: league.PerDay, Max: 1}}
		}, `limits[0].by: "actor" is not player or key`},
		{"window", func(l *league.League) {
			l.Limits = []league.Limit{{By: []league.LimitBy{league.ByPlayer}, Per: "fortnight", Max: 1}}
		}, `limits[0].per: "fortnight" is not second`},
		{"names", func(l *league.League) {
			l.Limits = []league.Limit{{By: []league.LimitBy{league.ByKey}, Per: league.PerDay, Max: 1}, {By: []league.LimitBy{league.ByKey}, Per: league.PerDay, Max: 2}}
		}, `limits[1].name: "key-day" is the name of another limit`},
		{"gain window", func(l *league.League) { l.MaxGainPer = map[league.Per]int64{"year": 5} }, `max_gain_per: "year" is not`},
		{"gain zero", func(l *league.League) { l.MaxGainPer = map[league.Per]int64{league.PerDay: 0} }, "max_gain_per.day: 0 is outside 1.."},
		{"hold alone", func(l *league.League) { l.Hold = true }, "hold: holds writes past max_gain or max_gain_per"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := league.ParseSchedule("0 0 * * MON")
			l := &league.League{ID: "weekly", Schedule: s, Ladder: testLadder(t)}
			tt.edit(l)
			if err := l.Init(); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error saying %s", err, tt.want)
			}
		})
	}
}

// TestGuardsInBatch: a batch's writes meet the guards one by one, in
// order, as single writes do: past the limit a write fails on its own,
// past the gain cap it is held.
func TestGuardsInBatch(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b testsvc.Backend) {
		f := newFixture(t, b, func(l *league.League) {
			l.MaxGain, l.Hold, l.MaxScore = 10, true, 1000
			l.Limits = []league.Limit{{By: []league.LimitBy{league.ByPlayer}, Per: league.PerHour, Max: 3}}
		})
		f.join("a")
		res, errs, err := f.engine.ScoreBatch(f.ctx, "weekly", []league.ScoreWrite{
			{Player: "a", Value: 5}, {Player: "a", Value: 50}, {Player: "a", Value: 5}, {Player: "a", Value: 5},
		})
		testsvc.Must(t, err, "ScoreBatch")
		if errs[0] != nil || errs[1] != nil || errs[2] != nil || res[1].Held == nil || res[2].Score != 10 {
			t.Fatalf("the first three: %+v %v", res[:3], errs[:3])
		}
		refusedBy(t, errs[3], "player-hour", time.Hour)
	})
}
