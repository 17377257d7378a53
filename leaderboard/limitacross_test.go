package leaderboard_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/leaderboard"
	"github.com/league-engine/league/league"
)

// Limits that do not count by member, on a sharded leaderboard: taken in
// the shard of their values before the write, given back when the write is
// refused (reserve.go).

// across is a 7-shard "kills" whose limits are limits, edited by edit.
func across(t *testing.T, b testsvc.Backend, limits []leaderboard.Limit, edit func(*leaderboard.Leaderboard)) *fixture {
	t.Helper()
	return open(t, b, func(l *leaderboard.Leaderboard) {
		l.Kinds, l.Shards, l.Limits = []leaderboard.Kind{leaderboard.Day, leaderboard.AllTime}, 7, limits
		l.Channels = []string{"web", "partner", "tv", "radio", "print"}
		if edit != nil {
			edit(l)
		}
	})
}

func by(ds ...leaderboard.Dimension) []leaderboard.Dimension { return ds }

// used renders the counters Counters reports for w: "name used/max, ...".
func used(t *testing.T, f *fixture, w leaderboard.Write) string {
	t.Helper()
	cs, err := f.engine.Counters(f.ctx, "kills", w)
	testsvc.Must(t, err, "Counters")
	s := ""
	for i, c := range cs {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%s %d/%d", c.Limit.Name, c.Used, c.Max)
	}
	return s
}

// TestLimitsAcrossShardsRace: racing writers for members on every shard
// get exactly as many acceptances as each limit allows, whichever shard
// holds it; and in a random mix of voters, channels and candidates no
// limit is passed, every counter says what was accepted, and the boards
// hold every accepted write.
func TestLimitsAcrossShardsRace(t *testing.T) {
	for _, b := range testsvc.Backends {
		t.Run(b.Name, func(t *testing.T) {
			f := across(t, b, []leaderboard.Limit{
				{By: by(leaderboard.OfActor), Per: leaderboard.PerDay, Max: 10},
				{By: by(leaderboard.OfChannel), Per: leaderboard.PerHour, Max: 35},
				{By: by(leaderboard.OfActor, leaderboard.OfMember), Per: leaderboard.PerDay, Max: 3},
			}, nil)
			race := func(n int, w func(i int) leaderboard.Write) (accepted int64) {
				var ok atomic.Int64
				var wg sync.WaitGroup
				for i := range n {
					wg.Add(1)
					go func() {
						defer wg.Done()
						_, err := f.engine.Write(f.ctx, "kills", w(i))
						switch {
						case err == nil:
							ok.Add(1)
						case league.ErrorCode(err) != league.RateLimited:
							t.Errorf("write %d: %v", i, err)
						}
					}()
				}
				wg.Wait()
				return ok.Load()
			}
			// one voter, 64 candidates over the shards: the voter's 10
			if got := race(64, func(i int) leaderboard.Write {
				return leaderboard.Write{Member: fmt.Sprintf("c%02d", i), Value: 1, Actor: "fan", Channel: "tv"}
			}); got != 10 {
				t.Fatalf("64 racing votes of one voter allowed 10 a day: %d accepted", got)
			}
			// 64 voters through one channel: the channel's 35
			if got := race(64, func(i int) leaderboard.Write {
				return leaderboard.Write{Member: fmt.Sprintf("c%02d", i), Value: 1, Actor: fmt.Sprintf("v%02d", i), Channel: "radio"}
			}); got != 35 {
				t.Fatalf("64 racing votes through a channel allowed 35 an hour: %d accepted", got)
			}
			if got, want := used(t, f, leaderboard.Write{Actor: "fan", Channel: "tv"}), "actor-day 10/10, channel-hour 10/35"; got != want {
				t.Fatalf("counters: got %s, want %s", got, want)
			}

			// the mix: 8 voters, 4 writers each, over 12 candidates and 2 channels
			var mu sync.Mutex
			ok := map[string]int{}
			var wg sync.WaitGroup
			for g := range 32 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					r := rand.New(rand.NewPCG(uint64(g), 9))
					for range 15 {
						w := leaderboard.Write{Member: fmt.Sprintf("m%02d", r.IntN(12)), Value: 1, Actor: fmt.Sprintf("a%d", g%8),
							Channel: []string{"web", "partner"}[r.IntN(2)]}
						_, err := f.engine.Write(f.ctx, "kills", w)
						if err != nil {
							if league.ErrorCode(err) != league.RateLimited {
								t.Errorf("write %+v: %v", w, err)
							}
							continue
						}
						mu.Lock()
						ok["actor "+w.Actor]++
						ok["channel "+w.Channel]++
						ok["vote "+w.Actor+" "+w.Member]++
						ok["all"]++
						mu.Unlock()
					}
				}()
			}
			wg.Wait()
			for a := range 8 {
				for m := range 12 {
					w := leaderboard.Write{Actor: fmt.Sprintf("a%d", a), Member: fmt.Sprintf("m%02d", m), Channel: "web"}
					want := fmt.Sprintf("actor-day %d/10, channel-hour %d/35, actor-member-day %d/3",
						ok["actor "+w.Actor], ok["channel web"], ok["vote "+w.Actor+" "+w.Member])
					if got := used(t, f, w); got != want {
						t.Fatalf("counters of %+v: got %s, want (what was accepted) %s", w, got, want)
					}
				}
			}
			if ok["channel partner"] > 35 {
				t.Errorf("channel partner: %d accepted, past its 35", ok["channel partner"])
			}
			top, err := f.engine.Top(f.ctx, "kills", leaderboard.AllTime, "", 0, 100)
			testsvc.Must(t, err, "Top")
			sum := 0
			for _, en := range top.Entries {
				sum += int(en.Score)
			}
			if want := 10 + 35 + ok["all"]; sum != want {
				t.Errorf("the all-time board holds %d votes; %d were accepted", sum, want)
			}
		})
	}
}

// TestLimitsAcrossShardsGiveBack: a write refused after its takes (a
// member's limit, the maximum score, a request id of another member,
// another shard's limit) gives back what it took, alone or in a batch.
func TestLimitsAcrossShardsGiveBack(t *testing.T) {
	for _, b := range testsvc.Backends {
		t.Run(b.Name, func(t *testing.T) {
			f := across(t, b, []leaderboard.Limit{
				{By: by(leaderboard.OfActor), Per: leaderboard.PerDay, Max: 3},
				{By: by(leaderboard.OfChannel), Per: leaderboard.PerDay, Max: 3},
				{By: by(leaderboard.OfActor, leaderboard.OfMember), Per: leaderboard.PerDay, Max: 1},
			}, func(l *leaderboard.Leaderboard) { l.MaxScore = 100 })
			// a channel in another shard than ann's counter, so that the
			// two are taken apart
			channel := "web"
			for _, c := range []string{"partner", "tv", "radio", "print"} {
				if leaderboard.ShardOf(channel, 7) == leaderboard.ShardOf("ann", 7) {
					channel = c
				}
			}
			if leaderboard.ShardOf(channel, 7) == leaderboard.ShardOf("ann", 7) {
				t.Fatal("no channel in another shard than ann")
			}
			write := func(w leaderboard.Write) error {
				w.Value, w.Channel = max(w.Value, 1), channel
				_, err := f.engine.Write(f.ctx, "kills", w)
				return err
			}
			counts := func(when, want string) {
				t.Helper()
				if got := used(t, f, leaderboard.Write{Actor: "ann", Channel: channel}); got != want {
					t.Fatalf("%s: got %s, want %s", when, got, want)
				}
			}
			testsvc.Must(t, write(leaderboard.Write{Member: "x", Actor: "ann"}), "ann for x")
			if err := write(leaderboard.Write{Member: "x", Actor: "ann"}); refusal(err) == nil || refusal(err).Limit != "actor-member-day" {
				t.Fatalf("a second vote of ann for x: %v", err)
			}
			counts("refused by the member's limit", "actor-day 1/3, channel-day 1/3")
			// 90 for big by bob, then ann's 20 would pass the maximum score
			testsvc.Must(t, write(leaderboard.Write{Member: "big", Actor: "bob", Value: 90}), "bob for big")
			if err := write(leaderboard.Write{Member: "big", Actor: "ann", Value: 20}); league.ErrorCode(err) != league.Overflow {
				t.Fatalf("past the maximum on the board: %v", err)
			}
			counts("refused past the maximum score", "actor-day 1/3, channel-day 2/3")
			// a request id ann used for y, again for z
			testsvc.Must(t, write(leaderboard.Write{Member: "y", Actor: "ann", RequestID: "r1"}), "ann for y")
			if err := write(leaderboard.Write{Member: "z", Actor: "ann", RequestID: "r1"}); league.ErrorCode(err) != league.Conflict {
				t.Fatalf("r1 again for another member: %v", err)
			}
			counts("refused a request id of another member", "actor-day 2/3, channel-day 3/3")
			// the channel is full: its refusal gives back ann's take in the other shard
			if err := write(leaderboard.Write{Member: "w", Actor: "ann"}); refusal(err) == nil || refusal(err).Limit != "channel-day" {
				t.Fatalf("past the channel's limit: %v", err)
			}
			counts("refused by another shard's limit", "actor-day 2/3, channel-day 3/3")
			if got := entries(f.top(leaderboard.AllTime, "")); got != "1.big=90 2.y=1 3.x=1 " {
				t.Fatalf("the board after the refusals: %s", got)
			}
		})
	}
}

// TestLimitsAcrossShardsRetry: the bound of two steps. A write cancelled
// between its take and its write leaves its units taken: with a request
// id its retry reuses them (nothing lost, nothing taken twice); without,
// one unit a limit is lost. A retry after the window moved replays the
// write its first attempt made, whether or not the new window has room.
func TestLimitsAcrossShardsRetry(t *testing.T) {
	for _, b := range testsvc.Backends {
		t.Run(b.Name, func(t *testing.T) {
			f := across(t, b, []leaderboard.Limit{{By: by(leaderboard.OfActor), Per: leaderboard.PerMinute, Max: 2}}, nil)
			f.clock.Set(time.Date(2026, 11, 25, 10, 30, 0, 0, time.UTC))
			ann := leaderboard.Write{Actor: "ann"}
			vote := func(ctx context.Context, member, rid string) (leaderboard.WriteResult, error) {
				return f.engine.Write(ctx, "kills", leaderboard.Write{Member: member, Value: 1, Actor: "ann", RequestID: rid})
			}
			cancelled := func(member, rid string) {
				t.Helper()
				ctx, cancel := context.WithCancel(f.ctx)
				leaderboard.SetAfterTake(f.engine, cancel)
				defer leaderboard.SetAfterTake(f.engine, nil)
				if _, err := vote(ctx, member, rid); err == nil {
					t.Fatal("a write cancelled between its take and its write succeeded")
				}
			}
			score := func(member string) int64 {
				t.Helper()
				st, err := f.engine.Member(f.ctx, "kills", member)
				testsvc.Must(t, err, "Member")
				return st[1].Score
			}

			cancelled("x", "r1")
			if got := used(t, f, ann); got != "actor-minute 1/2" || score("x") != 0 {
				t.Fatalf("cancelled between the steps: %s, x has %d; want 1/2 taken and nothing written", got, score("x"))
			}
			for i, replayed := range []bool{false, true} {
				res, err := vote(f.ctx, "x", "r1")
				testsvc.Must(t, err, "retry %d of r1", i)
				if res.Replayed != replayed || used(t, f, ann) != "actor-minute 1/2" || score("x") != 1 {
					t.Fatalf("retry %d of r1: replayed %v, %s, x has %d; want replayed %v, 1/2, 1", i, res.Replayed, used(t, f, ann), score("x"), replayed)
				}
			}
			_, err := vote(f.ctx, "y", "r2")
			testsvc.Must(t, err, "r2")
			if _, err := vote(f.ctx, "y", "r3"); refusal(err) == nil {
				t.Fatalf("a third vote in the minute: %v", err)
			}

			// without a request id the unit is lost: one vote left in the minute
			f.clock.Add(time.Minute)
			cancelled("x", "")
			if _, err := vote(f.ctx, "x", ""); err != nil {
				t.Fatalf("the one vote left: %v", err)
			}
			if _, err := vote(f.ctx, "x", ""); refusal(err) == nil || score("x") != 2 {
				t.Fatalf("past the unit lost: %v, x has %d", err, score("x"))
			}

			// r4 made, then retried in the next minute: once that minute
			// is full, and once with room, which it gives back
			f.clock.Add(time.Minute)
			_, err = vote(f.ctx, "z", "r4")
			testsvc.Must(t, err, "r4")
			_, err = vote(f.ctx, "w", "r5")
			testsvc.Must(t, err, "r5")
			f.clock.Add(time.Minute)
			_, err = vote(f.ctx, "w", "r6")
			testsvc.Must(t, err, "r6")
			_, err = vote(f.ctx, "w", "r7")
			testsvc.Must(t, err, "r7")
			res, err := vote(f.ctx, "z", "r4")
			if err != nil || !res.Replayed {
				t.Fatalf("r4 retried in a full minute: %+v, %v; want its first result replayed", res, err)
			}
			f.clock.Add(time.Minute)
			res, err = vote(f.ctx, "w", "r5")
			if err != nil || !res.Replayed || used(t, f, ann) != "actor-minute 0/2" {
				t.Fatalf("r5 retried in an empty minute: %+v, %v, %s; want replayed, 0/2", res, err, used(t, f, ann))
			}
			if score("z") != 1 || score("w") != 3 {
				t.Fatalf("z %d, w %d; want 1 and 3", score("z"), score("w"))
			}
		})
	}
}

// TestLimitsAcrossShardsBatch: a batch's writes take in order, in one
// round trip: one voter's 12 writes to candidates on every shard get the
// first 5; a write of the batch refused by its member's limit gives back.
func TestLimitsAcrossShardsBatch(t *testing.T) {
	for _, b := range testsvc.Backends {
		t.Run(b.Name, func(t *testing.T) {
			f := across(t, b, []leaderboard.Limit{
				{By: by(leaderboard.OfActor), Per: leaderboard.PerDay, Max: 5},
				{By: by(leaderboard.OfActor, leaderboard.OfMember), Per: leaderboard.PerDay, Max: 1},
			}, nil)
			var ws []leaderboard.Write
			for i := range 12 {
				ws = append(ws, leaderboard.Write{Member: fmt.Sprintf("c%02d", i), Value: 1, Actor: "ann"})
			}
			_, errs, err := f.engine.WriteBatch(f.ctx, "kills", ws)
			testsvc.Must(t, err, "batch")
			for i, err := range errs {
				if (err == nil) != (i < 5) || (err != nil && refusal(err) == nil) {
					t.Fatalf("write %d of the batch: %v", i, err)
				}
			}
			// bob's second vote for c00 is refused in the write script: its
			// take is given back, so his third write of the batch fits
			ws = []leaderboard.Write{{Member: "c00", Value: 1, Actor: "bob"}, {Member: "c00", Value: 1, Actor: "bob"}}
			_, errs, err = f.engine.WriteBatch(f.ctx, "kills", ws)
			testsvc.Must(t, err, "batch")
			if errs[0] != nil || refusal(errs[1]) == nil || refusal(errs[1]).Limit != "actor-member-day" {
				t.Fatalf("bob's batch: %v", errs)
			}
			if got, want := used(t, f, leaderboard.Write{Actor: "bob"}), "actor-day 1/5"; got != want {
				t.Fatalf("bob: got %s, want %s", got, want)
			}
		})
	}
}
