package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/league-engine/league/leaderboard"
)

// The rolling boards' workloads (issue #20), each write 1..10 of a member
// the fixture wrote first, with a fresh request id as lbwrite's:
//
//	lbroll     a write to hour, day, week, month, all time and rolling 7d
//	           and 30d at once (leaderboard "roll")
//	lbwindow   a write to one rolling window alone, no periodic board
//	           (leaderboard "roll_<window>"), a row per -windows
//	lbscheme3  what a write to that window would cost under seed 001's
//	           scheme 3: ZINCRBY of the N rolling boards the write belongs
//	           to, S(i)..S(i+N-1), in one script (plain Redis: no request
//	           id, no rank, no expiry, so a floor of scheme 3's cost), a row
//	           per -windows
//
// The rolling leaderboards are pre-filled before their members are written
// (so the current board is filled and writes need no seeding), and hold
// -players members each before measuring.

const rollLeaderboardID = "roll"

// rollWindows are lbroll's rolling boards.
var rollWindows = []leaderboard.Window{{N: 7, Unit: leaderboard.Day}, {N: 30, Unit: leaderboard.Day}}

// windowLeaderboardID is the leaderboard of lbwindow's rows for w.
func windowLeaderboardID(w leaderboard.Window) string { return "roll_" + string(w.Kind()) }

// rollingLeaderboards returns fresh, initialised copies of the rolling
// leaderboards: lbroll's, and one per window of -windows.
func rollingLeaderboards(windows []leaderboard.Window) ([]*leaderboard.Leaderboard, error) {
	out := []*leaderboard.Leaderboard{{
		ID:      rollLeaderboardID,
		Kinds:   []leaderboard.Kind{leaderboard.Hour, leaderboard.Day, leaderboard.Week, leaderboard.Month, leaderboard.AllTime},
		Windows: append([]leaderboard.Window(nil), rollWindows...),
	}}
	for _, w := range windows {
		out = append(out, &leaderboard.Leaderboard{ID: windowLeaderboardID(w), Windows: []leaderboard.Window{w}})
	}
	for _, l := range out {
		l.Operator, l.Order, l.TieBreak = leaderboard.Incr, leaderboard.Descending, leaderboard.ByMember
		if err := l.Init(); err != nil {
			return nil, fmt.Errorf("leaderboard %s: %w", l.ID, err)
		}
	}
	return out, nil
}

// rolling is the fixture's part for the rolling workloads.
type rolling struct {
	rdb     *redis.Client
	members []string
	scheme3 *redis.Script
	// keys3 are scheme 3's rolling boards by window: N keys in one slot.
	keys3 map[leaderboard.Kind][]string
}

// scheme3Script adds ARGV[2] to member ARGV[1] on every board of KEYS.
var scheme3Script = redis.NewScript(`for i = 1, #KEYS do redis.call('ZINCRBY', KEYS[i], ARGV[2], ARGV[1]) end return #KEYS`)

// writeRolling pre-fills the rolling leaderboards names needs and writes n
// fresh members to each in batches of 1000, then sets up scheme 3's keys.
func (b *bench) writeRolling(ctx context.Context, f *fixture, p *population, src *idSource, n int, names []string) error {
	r := &rolling{rdb: b.rdb, scheme3: scheme3Script, keys3: map[leaderboard.Kind][]string{}}
	r.members = make([]string, n)
	for i := range r.members {
		r.members[i] = src.id(int64(i))
	}
	var ids []string
	if slices.Contains(names, "lbroll") {
		ids = append(ids, rollLeaderboardID)
	}
	if slices.Contains(names, "lbwindow") {
		for _, w := range b.o.windows {
			ids = append(ids, windowLeaderboardID(w))
		}
	}
	for _, id := range ids {
		if _, err := f.boards.PreFill(ctx, id); err != nil {
			return fmt.Errorf("pre-fill %s: %w", id, err)
		}
		took, err := writeBatches(ctx, f.boards, id, r.members, b.o.loaders, b.out)
		if err != nil {
			return err
		}
		fmt.Fprintf(b.out, "  wrote %s members to leaderboard %s in %s (%s/s)\n", thousands(float64(n)), id,
			took.Round(time.Millisecond), thousands(float64(n)/took.Seconds()))
	}
	if slices.Contains(names, "lbscheme3") {
		if err := r.scheme3.Load(ctx, b.rdb).Err(); err != nil {
			return fmt.Errorf("scheme 3 script: %w", err)
		}
		for _, w := range b.o.windows {
			keys := make([]string, w.N)
			for j := range keys {
				keys[j] = f.ns + ":{scheme3-" + string(w.Kind()) + "}:" + strconv.Itoa(j)
			}
			r.keys3[w.Kind()] = keys
		}
	}
	p.rolling = r
	return nil
}

// writeBatches writes members once each (1..10, no request id) to
// leaderboard id through WriteBatch, 1000 a call.
func writeBatches(ctx context.Context, e *leaderboard.Engine, id string, members []string, loaders int, out io.Writer) (time.Duration, error) {
	const chunk = leaderboard.MaxBatch
	calls := (len(members) + chunk - 1) / chunk
	return load(ctx, "write "+id, calls, min(loaders, 16), out, func(ctx context.Context, w *worker, c int) error {
		batch := make([]leaderboard.Write, 0, chunk)
		for _, m := range members[c*chunk : min((c+1)*chunk, len(members))] {
			batch = append(batch, leaderboard.Write{Member: m, Value: 1 + w.rng.Int64N(10)})
		}
		_, errs, err := e.WriteBatch(ctx, id, batch)
		if err != nil {
			return err
		}
		return errors.Join(errs...)
	})
}

// rollWrite is a write as lbwrite's, of a member of the rolling boards.
func (r *rolling) write(p *population, w *worker) leaderboard.Write {
	return leaderboard.Write{Member: r.members[w.rng.IntN(len(r.members))], Value: 1 + w.rng.Int64N(10), RequestID: p.requests.fresh()}
}

var errNoRolling = errors.New("no rolling members: the fixture did not write the rolling leaderboards")

func lbRollOp(t target, p *population, _ int) op {
	return func(ctx context.Context, w *worker) (int, error) {
		if p.rolling == nil {
			return 0, errNoRolling
		}
		return one(t.lbRollWrite(ctx, w, p.rolling.write(p, w)))
	}
}

var errLibOnly = errors.New("this workload runs through lib only")

func lbWindowOp(t target, p *population, win leaderboard.Window) op {
	lib, ok := t.(libTarget)
	id := windowLeaderboardID(win)
	return func(ctx context.Context, w *worker) (int, error) {
		if !ok {
			return 0, errLibOnly
		}
		if p.rolling == nil {
			return 0, errNoRolling
		}
		_, err := lib.boards.Write(ctx, id, p.rolling.write(p, w))
		return one(err)
	}
}

func lbScheme3Op(_ target, p *population, win leaderboard.Window) op {
	return func(ctx context.Context, w *worker) (int, error) {
		if p.rolling == nil {
			return 0, errNoRolling
		}
		r := p.rolling
		keys := r.keys3[win.Kind()]
		member := r.members[w.rng.IntN(len(r.members))]
		return one(r.scheme3.EvalSha(ctx, r.rdb, keys, member, 1+w.rng.Int64N(10)).Err())
	}
}

// variants are the rows of a workload: one, or one per -windows for a
// workload of a window, named "<workload> <window>", or one per -limits
// for lbvote, named "lbvote <n> limits".
func variants(wl workload, windows []leaderboard.Window, limits []int) []workload {
	if wl.limitOp != nil {
		out := make([]workload, 0, len(limits))
		for _, n := range limits {
			v := wl
			v.name = fmt.Sprintf("%s %d limits", wl.name, n)
			v.op = func(t target, p *population, _ int) op { return wl.limitOp(t, p, n) }
			out = append(out, v)
		}
		return out
	}
	if wl.windowOp == nil {
		return []workload{wl}
	}
	out := make([]workload, 0, len(windows))
	for _, win := range windows {
		v := wl
		v.name = wl.name + " " + string(win.Kind())
		v.op = func(t target, p *population, _ int) op { return wl.windowOp(t, p, win) }
		out = append(out, v)
	}
	return out
}

// parseWindows parses -windows: rolling windows as configs spell them.
func parseWindows(list string) ([]leaderboard.Window, error) {
	var out []leaderboard.Window
	for s := range strings.SplitSeq(list, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		w, err := leaderboard.ParseWindow(s)
		if err != nil {
			return nil, fmt.Errorf("-windows: %w", err)
		}
		if slices.Contains(out, w) {
			return nil, fmt.Errorf("-windows: %s is listed twice", w.Kind())
		}
		out = append(out, w)
	}
	if len(out) == 0 {
		return nil, errors.New("-windows: empty")
	}
	return out, nil
}
