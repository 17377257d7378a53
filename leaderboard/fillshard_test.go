package leaderboard_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/league-engine/league/internal/keyspace"
	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/leaderboard"
)

// rollingTwins are sideBySide's leaderboards with an hourly board and
// rolling windows of 3 hours and 2 days.
func rollingTwins(t *testing.T, b testsvc.Backend, op leaderboard.Operator) *fixture {
	t.Helper()
	return sideBySide(t, b, func(l *leaderboard.Leaderboard) {
		l.Kinds = []leaderboard.Kind{leaderboard.Hour, leaderboard.AllTime}
		l.Windows = []leaderboard.Window{{N: 3, Unit: leaderboard.Hour}, {N: 2, Unit: leaderboard.Day}}
		l.Operator, l.Participants = op, nil
	})
}

// writeSame makes n random writes of 100 members to both of sideBySide's
// leaderboards.
func writeSame(t *testing.T, f *fixture, r *rand.Rand, n int) {
	t.Helper()
	ws := make([]leaderboard.Write, n)
	for i := range ws {
		ws[i] = leaderboard.Write{Member: fmt.Sprintf("m%03d", r.IntN(100)), Value: int64(1 + r.IntN(3))}
	}
	writeTwins(t, f, ws)
}

// writeTwins makes writes ws to both of sideBySide's leaderboards, in
// batches (one round trip each).
func writeTwins(t *testing.T, f *fixture, ws []leaderboard.Write) {
	t.Helper()
	for len(ws) > 0 {
		n := min(len(ws), leaderboard.MaxBatch/2)
		var batch []leaderboard.BoardWrite
		for _, w := range ws[:n] {
			batch = append(batch, leaderboard.BoardWrite{Leaderboard: "one", Write: w}, leaderboard.BoardWrite{Leaderboard: "many", Write: w})
		}
		ws = ws[n:]
		_, errs, err := f.engine.WriteMany(f.ctx, batch)
		testsvc.Must(t, err, "WriteMany")
		for i, err := range errs {
			testsvc.Must(t, err, "write %d of the batch", i)
		}
	}
}

// preFillBoth pre-fills both leaderboards and fails unless the sharded
// one reports what the unsharded one does, board by board.
func preFillBoth(t *testing.T, f *fixture) []leaderboard.Fill {
	t.Helper()
	one, err := f.engine.PreFill(f.ctx, "one")
	testsvc.Must(t, err, "pre-fill one")
	many, err := f.engine.PreFill(f.ctx, "many")
	testsvc.Must(t, err, "pre-fill many")
	if got, want := fmt.Sprintf("%+v", many), fmt.Sprintf("%+v", one); got != want {
		t.Fatalf("the sharded pre-fill reported\n%s\nwant, as the unsharded one\n%s", got, want)
	}
	return one
}

// sameRolling fails unless every rolling board reads the same on both.
func sameRolling(t *testing.T, f *fixture, when string) (incomplete bool) {
	t.Helper()
	for _, k := range []leaderboard.Kind{"3h", "2d"} {
		one, err := f.engine.Top(f.ctx, "one", k, "", 0, leaderboard.MaxPage)
		testsvc.Must(t, err, "Top one %s", k)
		many, err := f.engine.Top(f.ctx, "many", k, "", 0, leaderboard.MaxPage)
		testsvc.Must(t, err, "Top many %s", k)
		if got, want := entries(many.Entries), entries(one.Entries); got != want || many.Size != one.Size || many.Incomplete != one.Incomplete {
			t.Fatalf("%s, %s: sharded %d members (incomplete %v), unsharded %d (incomplete %v); entries differ at %q",
				when, k, many.Size, many.Incomplete, one.Size, one.Incomplete, firstDifference(got, want))
		}
		incomplete = incomplete || one.Incomplete
	}
	return incomplete
}

// TestShardedPreFill: a leaderboard over 7 shards pre-fills every shard's
// rolling boards, and they read exactly as an unsharded twin's fed the
// same writes, hour after hour: filled at the start of an hour, late in
// it, or not at all (the boundary passes unfilled; after two, each shard
// fills from its buckets). Each pre-fill reports what the twin's does,
// the members added summed over the shards.
func TestShardedPreFill(t *testing.T) {
	// per hour: s filled at its start, l late (after its writes), - not at all
	const plan = "sl-sls--slss"
	for _, b := range testsvc.Backends {
		for _, op := range []leaderboard.Operator{leaderboard.Incr, leaderboard.Decr} {
			t.Run(b.Name+"/"+string(op), func(t *testing.T) {
				f := rollingTwins(t, b, op)
				r := rand.New(rand.NewPCG(11, 3))
				hour0 := start.Truncate(time.Hour)
				methods := map[string]int{}
				incomplete := 0
				for h, what := range plan {
					f.clock.Set(hour0.Add(time.Duration(h)*time.Hour + time.Second))
					if sameRolling(t, f, fmt.Sprintf("hour %d, before its writes", h)) {
						incomplete++
					}
					fill := func() {
						for _, fl := range preFillBoth(t, f) {
							if !fl.Filled || fl.Busy {
								t.Fatalf("hour %d: %+v, want filled", h, fl)
							}
							if fl.Added > 0 {
								methods[fl.Method]++
							}
						}
					}
					if what == 's' {
						fill()
					}
					writeSame(t, f, r, 40)
					if what == 'l' {
						fill()
					}
					if sameRolling(t, f, fmt.Sprintf("hour %d, after its writes", h)) && what != '-' {
						t.Fatalf("hour %d: incomplete after a fill", h)
					}
				}
				if methods["previous"] == 0 || methods["buckets"] == 0 || incomplete == 0 {
					t.Errorf("fills that added members, by method: %v; hours begun incomplete: %d; want both methods and some", methods, incomplete)
				}
			})
		}
	}
}

// TestShardedPreFillBusy: a shard whose lease another process holds is
// left to it: the pre-fill fills every other shard, reports the board
// busy and not filled (and fills no board after it), and completes it
// once the lease is free.
func TestShardedPreFillBusy(t *testing.T) {
	for _, b := range testsvc.Backends {
		t.Run(b.Name, func(t *testing.T) {
			f := rollingTwins(t, b, leaderboard.Incr)
			hour0 := start.Truncate(time.Hour)
			f.clock.Set(hour0.Add(time.Second))
			writeSame(t, f, rand.New(rand.NewPCG(5, 5)), 300)
			f.clock.Set(hour0.Add(2*time.Hour + time.Second)) // two boundaries passed unfilled
			lease := keyspace.Prefix(f.ns, keyspace.Leaderboard, "many:3") + "fill"
			testsvc.Must(t, f.rdb.Set(f.ctx, lease, "another process", time.Minute).Err(), "hold shard 3's lease")
			one, err := f.engine.PreFill(f.ctx, "one")
			testsvc.Must(t, err, "pre-fill one")
			many, err := f.engine.PreFill(f.ctx, "many")
			testsvc.Must(t, err, "pre-fill many")
			if len(many) != 2 || !many[0].Busy || many[0].Filled || many[0].Added == 0 || many[0].Added >= one[0].Added {
				t.Fatalf("shard 3 held: %+v; want the 3h board busy, not filled, with some of the %d members added, and the 2d board after it", many, one[0].Added)
			}
			if b, err := f.engine.Top(f.ctx, "many", "3h", "", 0, 10); err != nil || !b.Incomplete {
				t.Fatalf("the 3h board while shard 3 is held: incomplete %v, %v; want incomplete", b.Incomplete, err)
			}
			testsvc.Must(t, f.rdb.Del(f.ctx, lease).Err(), "free the lease")
			again, err := f.engine.PreFill(f.ctx, "many")
			testsvc.Must(t, err, "pre-fill many again")
			if again[0].Busy || !again[0].Filled || many[0].Added+again[0].Added != one[0].Added {
				t.Fatalf("after the lease was freed: %+v; want filled, %d members added in all", again[0], one[0].Added)
			}
			sameRolling(t, f, "after the lease was freed")
		})
	}
}
