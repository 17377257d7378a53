package league_test

import (
	"context"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/league"
	"github.com/league-engine/league/tiers"
)

// TestOpenRefusesConfigThatMisreadsRedis: a live league's board size and
// score packing, and the tiers its players are in, are part of what Redis
// holds. A config that changes them is refused at Open; changes that keep
// what Redis holds readable open.
func TestOpenRefusesConfigThatMisreadsRedis(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b testsvc.Backend) {
		f := newFixture(t, b)
		f.join("a")
		f.score("a", 7)
		open := func(edit func(*league.League)) error {
			_, err := league.Open(f.ctx, f.rdb, []*league.League{testLeague(t, edit)},
				league.WithNamespace(f.ns), league.WithClock(f.clock.Now))
			return err
		}
		withTiers := func(ids ...string) func(*league.League) {
			return func(l *league.League) {
				var ts []tiers.Tier
				for _, id := range ids {
					ts = append(ts, tiers.Tier{ID: id, Name: id})
				}
				ladder, err := tiers.NewLadder(ts)
				testsvc.Must(t, err, "NewLadder")
				l.Ladder = ladder
			}
		}
		// What a refused Open must leave as it was.
		stored := func() map[string]string {
			out := map[string]string{}
			for _, key := range []string{"tiers", "meta"} {
				h, err := f.rdb.HGetAll(f.ctx, f.ns+":{weekly}:"+key).Result()
				testsvc.Must(t, err, "HGETALL %s", key)
				for k, v := range h {
					out[key+" "+k] = v
				}
			}
			return out
		}
		for _, c := range []struct {
			name string
			edit func(*league.League)
			want string // "" opens
		}{
			{"same config", func(*league.League) {}, ""},
			{"board size", func(l *league.League) { l.BoardSize = 20 }, "board_size, tie_break or tie_resolution changed"},
			{"tie break", func(l *league.League) { l.TieBreak = league.FirstReached }, "board_size, tie_break or tie_resolution changed"},
			{"tie resolution under join_order", func(l *league.League) { l.TieResolution = 10 * time.Millisecond }, ""},
			{"buckets", func(l *league.League) { l.Buckets = 64 }, "buckets changed (Redis holds player records in 16384 buckets, the config says 64)"},
			{"schedule", withSchedule(t, "0 0 * * *"), `schedule changed (Redis holds periods of "CRON_TZ=UTC 0 0 * * MON", the config says "0 0 * * *")`},
			{"schedule spelled otherwise", withSchedule(t, "0 0 0 * * 1"), ""},
			{"schedule in another zone", withSchedule(t, "CRON_TZ=Europe/Paris 0 0 * * MON"), "schedule changed"},
			{"bronze removed", withTiers("silver", "gold"), "(bronze: 1 player in period 20261116T000000Z)"},
			{"bronze renamed", withTiers("copper", "silver", "gold"), "(bronze: 1 player in period 20261116T000000Z)"},
			{"tiers reordered and added", withTiers("gold", "platinum", "silver", "bronze"), ""},
		} {
			before := stored()
			err := open(c.edit)
			if c.want == "" && err != nil {
				t.Errorf("%s: Open: %v, want it to open", c.name, err)
			}
			if c.want == "" {
				continue
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: Open: %v, want an error saying %q", c.name, err, c.want)
			}
			if after := stored(); !reflect.DeepEqual(after, before) {
				t.Errorf("%s: the refused Open wrote to Redis:\n%v\nwas\n%v", c.name, after, before)
			}
		}
		// The refused configs changed nothing: the player reads as before.
		if s := f.score("a", 1); s.Score != 8 || s.Board.Tier != "bronze" {
			t.Fatalf("after the refused configs: %+v, want bronze with 8", s)
		}

		// A league an older version recorded, before buckets were: its
		// records show where they are.
		old := newFixture(t, b)
		for i := 0; i < 20; i++ {
			old.join("p" + strconv.Itoa(i))
		}
		meta := old.ns + ":{weekly}:meta"
		testsvc.Must(t, old.rdb.HDel(old.ctx, meta, "buckets").Err(), "HDEL buckets")
		openOld := func(buckets int) error {
			_, err := league.Open(old.ctx, old.rdb, []*league.League{testLeague(t, func(l *league.League) { l.Buckets = buckets })},
				league.WithNamespace(old.ns), league.WithClock(old.clock.Now))
			return err
		}
		for _, n := range []int{64, 1 << 15} {
			if err := openOld(n); err == nil || !strings.Contains(err.Error(), "buckets changed") {
				t.Errorf("buckets %d on a league recorded without them: Open: %v, want refused", n, err)
			}
		}
		testsvc.Must(t, openOld(league.DefaultBuckets), "Open with the buckets it has")
		if got := old.rdb.HGet(old.ctx, meta, "buckets").Val(); got != strconv.Itoa(league.DefaultBuckets) {
			t.Errorf("buckets recorded: %q, want %d", got, league.DefaultBuckets)
		}

		// Under first_reached the tie resolution is part of the packing too.
		firstReached := func(res time.Duration) func(*league.League) {
			return func(l *league.League) { l.TieBreak = league.FirstReached; l.TieResolution = res }
		}
		g := newFixture(t, b, firstReached(time.Second))
		_, err := league.Open(g.ctx, g.rdb, []*league.League{testLeague(t, firstReached(10*time.Millisecond))},
			league.WithNamespace(g.ns), league.WithClock(g.clock.Now))
		if want := "board_size, tie_break or tie_resolution changed"; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("tie resolution under first_reached: Open: %v, want an error saying %q", err, want)
		}
	})
}

// TestOpenKeepsFewerRecordedTimeBits: boards an older version laid out with
// fewer first_reached time bits than this one computes for the same config
// (it sized them from the day it started) are opened with the recorded
// packing, and read back right; more recorded bits than computed are
// refused, as any other layout change.
func TestOpenKeepsFewerRecordedTimeBits(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b testsvc.Backend) {
		night := func(l *league.League) {
			s, err := league.ParseSchedule("CRON_TZ=America/New_York * 2-23 * * *")
			testsvc.Must(t, err, "schedule")
			l.Schedule, l.TieBreak, l.TieResolution = s, league.FirstReached, time.Second
		}
		f := newFixture(t, b, night)
		meta := f.ns + ":{weekly}:meta"
		computed := f.rdb.HGet(f.ctx, meta, "layout").Val()
		if !strings.Contains(computed, "time_bits=14 ") {
			t.Fatalf("layout %q: want 14 time bits (3h01m in seconds)", computed)
		}
		open := func() (*league.Engine, error) {
			return league.Open(f.ctx, f.rdb, []*league.League{testLeague(t, night)}, league.WithNamespace(f.ns), league.WithClock(f.clock.Now))
		}
		older := strings.Replace(computed, "time_bits=14 ", "time_bits=13 ", 1)
		testsvc.Must(t, f.rdb.HSet(f.ctx, meta, "layout", older).Err(), "as 657612c recorded it")
		e, err := open()
		testsvc.Must(t, err, "Open on boards of 13 time bits")
		if _, err := e.Join(f.ctx, "weekly", league.JoinRequest{Player: "a", Name: "a"}); err != nil {
			t.Fatal(err)
		}
		r, err := e.Score(f.ctx, "weekly", league.ScoreWrite{Player: "a", Value: 1000})
		testsvc.Must(t, err, "Score")
		boards, err := f.rdb.Keys(f.ctx, f.ns+":{weekly}:b:*").Result()
		testsvc.Must(t, err, "KEYS")
		packed := f.rdb.ZScore(f.ctx, boards[0], "a").Val()
		// slot bits 4 (boards of 10), then 13 time bits: the score starts at bit 17
		if r.Score != 1000 || int64(packed)>>17 != 1000 || f.rdb.HGet(f.ctx, meta, "layout").Val() != older {
			t.Fatalf("write %d packed as %v (score %d at bit 17), layout %q; want 1000 packed under the recorded layout",
				r.Score, packed, int64(packed)>>17, f.rdb.HGet(f.ctx, meta, "layout").Val())
		}

		testsvc.Must(t, f.rdb.HSet(f.ctx, meta, "layout", strings.Replace(computed, "time_bits=14 ", "time_bits=15 ", 1)).Err(), "more bits")
		if _, err := open(); err == nil || !strings.Contains(err.Error(), "board_size, tie_break or tie_resolution changed") {
			t.Fatalf("Open on boards of 15 time bits: %v, want refused", err)
		}
	})
}

// TestOpenAsksOnlyAboutAbsentLeagues: the WithAbsentLeagues hook is asked
// about a league Redis holds nothing of, not about one whose data predates
// the layout mark (tier codes only) or one Redis holds whole.
func TestOpenAsksOnlyAboutAbsentLeagues(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b testsvc.Backend) {
		f := newFixture(t, b)
		f.join("a")
		asked := 0
		open := func() error {
			_, err := league.Open(f.ctx, f.rdb, []*league.League{testLeague(t)}, league.WithNamespace(f.ns), league.WithClock(f.clock.Now),
				league.WithAbsentLeagues(func(_ context.Context, id string) error { asked++; return errors.New("absent: " + id) }))
			return err
		}
		testsvc.Must(t, open(), "Open of a league Redis holds")
		meta := f.ns + ":{" + testLeague(t).ID + "}:meta"
		testsvc.Must(t, f.rdb.Del(f.ctx, meta).Err(), "DEL meta") // as written before the layout mark
		testsvc.Must(t, open(), "Open of a league with tier codes and no layout")
		if asked != 0 {
			t.Fatalf("the hook was asked %d times about leagues Redis holds", asked)
		}
		testsvc.Must(t, testsvc.DeleteNamespace(f.ctx, f.rdb, f.ns), "lose the league")
		if err := open(); err == nil || !strings.Contains(err.Error(), "absent: ") || asked != 1 {
			t.Fatalf("Open of a lost league: %v (asked %d times)", err, asked)
		}
		// A new league configured before the lost one: the refusal comes
		// before anything of either is written.
		fresh := testLeague(t, func(l *league.League) { l.ID = "fresh" })
		_, err := league.Open(f.ctx, f.rdb, []*league.League{fresh, testLeague(t)}, league.WithNamespace(f.ns),
			league.WithAbsentLeagues(func(_ context.Context, id string) error {
				if id == "fresh" {
					return nil // new: Open may create it
				}
				return errors.New("absent: " + id)
			}))
		if err == nil || !strings.Contains(err.Error(), "absent: weekly") {
			t.Fatalf("Open of a new and a lost league: %v", err)
		}
		if keys, _ := f.rdb.Keys(f.ctx, f.ns+":*").Result(); len(keys) != 0 {
			t.Fatalf("the refused Open wrote %v", keys)
		}

		// A restore under way: refused, or left out by a hook that skips
		// (leaguectl), with the reason for calls.
		testsvc.Must(t, f.rdb.HSet(f.ctx, meta, "restoring", "2026-11-22T16:00:00Z").Err(), "HSET")
		if _, err := league.Open(f.ctx, f.rdb, []*league.League{testLeague(t)}, league.WithNamespace(f.ns)); err == nil ||
			!strings.Contains(err.Error(), "has not finished") {
			t.Fatalf("Open during a restore: %v", err)
		}
		e, err := league.Open(f.ctx, f.rdb, []*league.League{testLeague(t)}, league.WithNamespace(f.ns),
			league.WithAbsentLeagues(func(context.Context, string) error { return league.SkipAbsent }))
		testsvc.Must(t, err, "Open skipping what is not ready")
		if _, err := e.Current("weekly"); league.ErrorCode(err) != league.NotFound || !strings.Contains(err.Error(), "has not finished") {
			t.Fatalf("a league left out during a restore: %v", err)
		}
	})
}
