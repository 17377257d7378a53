package main

import (
	"context"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/league-engine/league/internal/keyspace"
	"github.com/league-engine/league/leaderboard"
)

// lbfill: the rolling boards at scale (issue #20). n members are written
// once each (1..10, WriteBatch of 1000, no request id) to a leaderboard of a
// day board and a rolling 7d board, in one day D, by a clock the harness
// sets (leaderboard.WithClock), after the leaderboard was pre-filled (so the
// writes keep S(D) and S(D+1) themselves). Then:
//
//   - memory: MEMORY USAGE (SAMPLES 0: every element) of the day board,
//     S(D), S(D+1) and the bucket B(D), over the members each holds; and
//     INFO used_memory's growth over the writes, over n members on those
//     four boards.
//   - previous: the clock moves to D+1 and PreFill fills S(D+2) from
//     S(D+1) (method "previous": n members carried over, none of whom wrote
//     in D+1), timed, with Redis's CPU.
//   - buckets: the clock moves to D+2; S(D+2) and its fill marker, and
//     S(D+1)'s marker, are deleted, and S(D+3) is marked filled, so PreFill
//     fills S(D+2) alone from its 7 buckets (method "buckets": n members,
//     all in B(D)), as after downtime.

const fillLeaderboardID = "fill"

var fillWindow = leaderboard.Window{N: 7, Unit: leaderboard.Day}

// fillResult is what one lbfill run measured.
type fillResult struct {
	members       int
	write         time.Duration
	before, after int64 // INFO used_memory around the writes
	boards        []boardMemory
	fills         []fillRun
}

// boardMemory is one board's MEMORY USAGE.
type boardMemory struct {
	name     string // "day", "7d S(D)", ...
	members  int64
	bytes    int64
	encoding string
}

// fillRun is one timed PreFill.
type fillRun struct {
	method           string
	added            int
	took             time.Duration
	redisSecs, procs float64
}

func (r fillRun) perSecond() float64 { return float64(r.added) / r.took.Seconds() }

// runFill measures lbfill at n members.
func (b *bench) runFill(ctx context.Context, n int) error {
	ns := newNamespace()
	defer b.dropNamespace(ns)
	fmt.Fprintf(b.out, "lbfill: namespace %s, %s members, day board and rolling %s\n", ns, thousands(float64(n)), fillWindow.Kind())
	l := &leaderboard.Leaderboard{ID: fillLeaderboardID, Kinds: []leaderboard.Kind{leaderboard.Day}, Windows: []leaderboard.Window{fillWindow},
		Operator: leaderboard.Incr, Order: leaderboard.Descending, TieBreak: leaderboard.ByMember}
	if err := l.Init(); err != nil {
		return err
	}
	// Noon of today (UTC): D, then D+1 and D+2 by moving the clock.
	day0 := time.Now().UTC().Truncate(24 * time.Hour).Add(12 * time.Hour)
	var clock atomic.Int64
	clock.Store(day0.UnixMilli())
	now := func() time.Time { return time.UnixMilli(clock.Load()) }
	setDay := func(d int) { clock.Store(day0.AddDate(0, 0, d).UnixMilli()) }
	e, err := leaderboard.Open(ctx, b.rdb, []*leaderboard.Leaderboard{l}, append(b.leaderboardOptions(ns), leaderboard.WithClock(now))...)
	if err != nil {
		return err
	}
	if _, err := e.PreFill(ctx, l.ID); err != nil {
		return fmt.Errorf("pre-fill before the writes: %w", err)
	}
	res := fillResult{members: n}
	if res.before, err = usedMemory(ctx, b.rdb); err != nil {
		return err
	}
	members := make([]string, n)
	src := newIDSource(ns[len(ns)-3:], 'f')
	for i := range members {
		members[i] = src.id(int64(i))
	}
	if res.write, err = writeBatches(ctx, e, l.ID, members, b.o.loaders, b.out); err != nil {
		return err
	}
	if res.after, err = usedMemory(ctx, b.rdb); err != nil {
		return err
	}
	fmt.Fprintf(b.out, "  wrote %s members in %s (%s/s)\n", thousands(float64(n)), res.write.Round(time.Millisecond), thousands(float64(n)/res.write.Seconds()))

	prefix := keyspace.Prefix(ns, keyspace.Leaderboard, l.ID)
	cal, kind := l.Calendar, fillWindow.Kind()
	s := func(d int) leaderboard.Period { return cal.At(kind, day0.AddDate(0, 0, d)) }
	board := func(p leaderboard.Period) string { return leaderboard.BoardKey(ns, l.ID, p) }
	marker := func(p leaderboard.Period) string {
		return prefix + "fill:" + string(kind) + ":" + strconv.FormatInt(p.Start.Unix(), 10)
	}
	bucket := prefix + "bucket:day:" + strconv.FormatInt(cal.At(leaderboard.Day, day0).Start.Unix(), 10)
	for _, k := range []struct{ name, key string }{
		{"day board", board(cal.At(leaderboard.Day, day0))},
		{string(kind) + " S(D)", board(s(0))},
		{string(kind) + " S(D+1)", board(s(1))},
		{"bucket B(D)", bucket},
	} {
		m := boardMemory{name: k.name}
		if m.members, err = b.rdb.ZCard(ctx, k.key).Result(); err != nil {
			return err
		}
		if m.bytes, err = b.rdb.MemoryUsage(ctx, k.key, 0).Result(); err != nil {
			return fmt.Errorf("MEMORY USAGE %s: %w", k.key, err)
		}
		if m.encoding, err = b.rdb.ObjectEncoding(ctx, k.key).Result(); err != nil {
			return err
		}
		if m.members != int64(n) {
			return fmt.Errorf("%s holds %d members after %d were written", k.name, m.members, n)
		}
		res.boards = append(res.boards, m)
	}

	// The pre-fill of S(D+2) from S(D+1), at the start of D+1.
	setDay(1)
	run, err := b.timeFill(ctx, e, l.ID, "previous", n)
	if err != nil {
		return err
	}
	res.fills = append(res.fills, run)

	// The same board from the buckets, at D+2, as after downtime.
	setDay(2)
	if err := b.rdb.Del(ctx, board(s(2)), marker(s(2)), marker(s(1))).Err(); err != nil {
		return err
	}
	if err := b.rdb.Set(ctx, marker(s(3)), "done", 24*time.Hour).Err(); err != nil {
		return err
	}
	if run, err = b.timeFill(ctx, e, l.ID, "buckets", n); err != nil {
		return err
	}
	res.fills = append(res.fills, run)
	if size, err := b.rdb.ZCard(ctx, board(s(2))).Result(); err != nil || size != int64(n) {
		return fmt.Errorf("S(D+2) holds %d members after the fill from the buckets (%v), want %d", size, err, n)
	}
	b.rep.fills = append(b.rep.fills, res)
	fmt.Fprintln(b.out, res.summary())
	return nil
}

// timeFill runs PreFill, which must fill one board by method with want
// members, and times it.
func (b *bench) timeFill(ctx context.Context, e *leaderboard.Engine, id, method string, want int) (fillRun, error) {
	r := fillRun{method: method}
	cpu0, rcpu0 := processCPU(), b.redisCPU(ctx, nil)
	began := time.Now()
	fills, err := e.PreFill(ctx, id)
	r.took = time.Since(began)
	r.procs, r.redisSecs = processCPU()-cpu0, b.redisCPU(ctx, nil)-rcpu0
	if err != nil {
		return r, fmt.Errorf("pre-fill (%s): %w", method, err)
	}
	for _, f := range fills {
		if f.Busy {
			return r, fmt.Errorf("pre-fill (%s): the lease is held elsewhere", method)
		}
		if f.Method != "" {
			if f.Method != method || r.added > 0 {
				return r, fmt.Errorf("pre-fill (%s): got fills %+v, want one board by %s", method, fills, method)
			}
			r.added = f.Added
		}
	}
	if r.added != want {
		return r, fmt.Errorf("pre-fill (%s) added %d members, want %d (fills %+v)", method, r.added, want, fills)
	}
	fmt.Fprintf(b.out, "  pre-fill by %s: %s members in %s (%s/s)\n", method, thousands(float64(r.added)), r.took.Round(time.Millisecond), thousands(r.perSecond()))
	return r, nil
}

func (r fillResult) summary() string {
	return fmt.Sprintf("lbfill: %s members; used_memory +%s (%.1f B a member a board, 4 boards)", thousands(float64(r.members)),
		bytesIEC(r.after-r.before), float64(r.after-r.before)/float64(4*r.members))
}

var fillMemoryColumns = []column[boardMemory]{
	{"board", false, func(m boardMemory) string { return m.name }},
	{"members", true, func(m boardMemory) string { return thousands(float64(m.members)) }},
	{"MEMORY USAGE", true, func(m boardMemory) string { return bytesIEC(m.bytes) }},
	{"B/member", true, func(m boardMemory) string { return fmt.Sprintf("%.1f", float64(m.bytes)/float64(m.members)) }},
	{"encoding", false, func(m boardMemory) string { return m.encoding }},
}

var fillRunColumns = []column[fillRun]{
	{"method", false, func(r fillRun) string { return r.method }},
	{"members added", true, func(r fillRun) string { return thousands(float64(r.added)) }},
	{"took", true, func(r fillRun) string { return seconds(r.took) }},
	{"members/s", true, func(r fillRun) string { return thousands(r.perSecond()) }},
	{"Redis CPU", true, func(r fillRun) string { return fmt.Sprintf("%.2f", r.redisSecs/r.took.Seconds()) }},
	{"Redis µs/member", true, func(r fillRun) string { return fmt.Sprintf("%.2f", microsPer(r.redisSecs, uint64(r.added))) }},
	{"bench µs/member", true, func(r fillRun) string { return fmt.Sprintf("%.2f", microsPer(r.procs, uint64(r.added))) }},
}
