package league

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/league-engine/league/internal/words"
)

// Some edits to a live league's config would reinterpret what Redis already
// holds, so Open refuses them, naming the fix, before it writes anything:
//
//   - a new board size or tie-break packing (layout: tie_break, and under
//     first_reached tie_resolution) would misread every packed score
//     already on the boards and place joiners by another size;
//   - another number of buckets would look every player's record up in
//     another hash: each would join again as a new player;
//   - another schedule would start a period that overlaps the running one
//     (or cut it short), and decide players twice;
//   - a removed tier would leave the players in it unreadable: every call
//     for them fails, some after writing.
//
// Tiers removed with players in settled periods are the config loader's
// check (it reads the standings in the Store); players of the current and
// unsettled periods are only in Redis, so they are checked here.

// layoutOf is what decides where a league's players sit and how their
// scores are packed, under packing p: stored in the league's meta hash by
// the first Open.
func layoutOf(l *League, p Packing) string {
	s := fmt.Sprintf("board_size=%d slot_bits=%d", l.BoardSize, p.SlotBits)
	if p.TimeBits > 0 {
		s += fmt.Sprintf(" time_bits=%d tie_resolution_ms=%d", p.TimeBits, p.Unit)
	}
	return s
}

// presence reads whether Redis holds any of the league's data (the tier
// codes every Open since the first has written, or the layout) and when a
// restore of it began, if one is under way.
func (e *Engine) presence(ctx context.Context, lv *live) (present bool, restoring string, err error) {
	pipe := e.rdb.Pipeline()
	tiers := pipe.Exists(ctx, lv.keys.tiers())
	meta := pipe.HMGet(ctx, lv.keys.meta(), "layout", "restoring")
	if _, err := pipe.Exec(ctx); err != nil {
		return false, "", internal("meta", err)
	}
	restoring, _ = meta.Val()[1].(string)
	return tiers.Val() > 0 || meta.Val()[0] != nil, restoring, nil
}

// checkPresent refuses a league a restore is rebuilding, and asks the
// WithAbsentLeagues hook about one Redis holds no data of. A hook answering
// SkipAbsent leaves either kind out: skip then says why.
func (e *Engine) checkPresent(ctx context.Context, lv *live) (skip, err error) {
	present, restoring, err := e.presence(ctx, lv)
	if err != nil {
		return nil, err
	}
	var why error
	switch {
	case restoring != "":
		why = fmt.Errorf("league %q: a restore of its Redis data began at %s and has not finished: run leaguectl restore -league %s again",
			lv.ID, restoring, lv.ID)
	case !present:
		why = fmt.Errorf("league %q has no data in Redis yet: leagued creates it when it starts "+
			"(if Redis lost it, leagued refuses to start; run leaguectl restore -league %s)", lv.ID, lv.ID)
	default:
		return nil, nil
	}
	if e.absent == nil {
		if restoring != "" {
			return nil, why
		}
		return nil, nil // a new league: Open creates it
	}
	err = e.absent(ctx, lv.ID)
	switch {
	case errors.Is(err, SkipAbsent):
		return why, nil
	case restoring != "":
		return nil, why
	case err != nil:
		// Name where the league is, if this Redis holds it elsewhere: a
		// changed redis.namespace is likelier than a loss then.
		if others, _ := e.elsewhere(ctx, lv); len(others) > 0 {
			return nil, fmt.Errorf("%w (this Redis holds league %q under %s)", err, lv.ID, namespaces(others))
		}
	}
	return nil, err
}

// checkStored refuses, before anything is written for the league, a config
// that would misread what Redis holds (see above).
func (e *Engine) checkStored(ctx context.Context, lv *live) error {
	stored, err := e.rdb.HMGet(ctx, lv.keys.meta(), "layout", "buckets", "schedule", "settled").Result()
	if err != nil {
		return internal("layout", err)
	}
	if err := e.checkFixed(lv, stored[:3]); err != nil {
		return err
	}
	starts, err := e.recordedStarts(ctx, lv, stored[3])
	if err != nil {
		return err
	}
	if err := e.checkBoundaries(lv, starts, "Redis"); err != nil {
		return err
	}
	if stored[0] != nil && stored[1] == nil {
		if err := e.checkBuckets(ctx, lv); err != nil {
			return err
		}
	}
	return e.checkRemovedTiers(ctx, lv)
}

// checkBuckets checks, for a league recorded before its bucket count was
// (by an older version), that its records are where this config looks for
// them: in a sample of record hashes, each hash must be one of this
// config's and each player in it one this config puts there.
func (e *Engine) checkBuckets(ctx context.Context, lv *live) error {
	node, err := e.leagueNode(ctx, lv)
	if err != nil {
		return err
	}
	prefix := lv.keys.prefix + "r:"
	iter := node.Scan(ctx, 0, prefix+"*", 1000).Iterator()
	for seen := 0; seen < 16 && iter.Next(ctx); seen++ {
		b, err := strconv.ParseUint(strings.TrimPrefix(iter.Val(), prefix), 10, 32)
		if err != nil {
			continue
		}
		players, err := node.HRandField(ctx, iter.Val(), 4).Result()
		if err != nil {
			return internal("buckets", err)
		}
		misplaced := b >= uint64(lv.Buckets)
		for _, p := range players {
			misplaced = misplaced || uint64(lv.keys.bucket(p)) != b
		}
		if misplaced {
			return fmt.Errorf("league %q: buckets changed (Redis holds player records in another number of buckets than the config's %d): "+
				"every player's record would be looked up in another hash; revert the change, or give the changed league a new id", lv.ID, lv.Buckets)
		}
	}
	return internal("buckets", iter.Err())
}

// checkFixed compares the layout, buckets and schedule Redis recorded for
// the league (nil: none yet) with the config's.
func (e *Engine) checkFixed(lv *live, stored []any) error {
	layoutWas, _ := stored[0].(string)
	bucketsWas, _ := stored[1].(string)
	scheduleWas, _ := stored[2].(string)
	// The schedule first: under first_reached it sizes the layout's time
	// bits, and its change is the one to name.
	if scheduleWas != "" && scheduleWas != lv.Schedule.recorded() {
		if !sameSchedule(scheduleWas, lv.Schedule, e.now()) {
			return fmt.Errorf("league %q: schedule changed (Redis holds periods of %q, the config says %q): "+
				"a period of the new schedule would overlap the running one, or cut it short; revert the change, "+
				"or give the league with the new cycle a new id", lv.ID, scheduleWas, lv.Schedule.Spec)
		}
	}
	if want := layoutOf(lv.League, lv.packing); layoutWas != "" && layoutWas != want {
		p, fewer := lv.packing.withFewerTimeBits(func(p Packing) bool { return layoutOf(lv.League, p) == layoutWas })
		if !fewer {
			return fmt.Errorf("league %q: board_size, tie_break or tie_resolution changed (Redis holds boards laid out as %q, the config says %q): "+
				"the scores on its boards would be misread; revert the change, or give the changed league a new id", lv.ID, layoutWas, want)
		}
		// Only first_reached's time bits differ, and fewer were recorded:
		// versions before 2026-11-23 sized them from the day the league
		// first started, and could miss a long period a clock change
		// makes. The recorded packing stays; time left past it clamps, so
		// ties in such a period's first moments fall to join order.
		lv.packing = p
	}
	if want := strconv.Itoa(lv.Buckets); bucketsWas != "" && bucketsWas != want {
		return fmt.Errorf("league %q: buckets changed (Redis holds player records in %s buckets, the config says %s): "+
			"every player's record would be looked up in another hash; revert the change, or give the changed league a new id", lv.ID, bucketsWas, want)
	}
	return nil
}

// recordLayout records the league's layout, buckets, schedule and epoch
// on first use (checkStored compared them before), and checks them again:
// another process may have recorded others meanwhile. The epoch names this
// generation of the league's data: joins carry the one their engine opened,
// so a Redis that lost the data (or a restore that replaced it) is noticed
// by every running process, not only by the next to start.
func (e *Engine) recordLayout(ctx context.Context, lv *live) error {
	meta := lv.keys.meta()
	pipe := e.rdb.Pipeline()
	pipe.HSetNX(ctx, meta, "layout", layoutOf(lv.League, lv.packing))
	pipe.HSetNX(ctx, meta, "buckets", lv.Buckets)
	pipe.HSetNX(ctx, meta, "schedule", lv.Schedule.recorded())
	pipe.HSetNX(ctx, meta, "epoch", newEpoch())
	// The rules a period decided by this process is decided under, for the
	// other processes that decide it too (ladderFor).
	pipe.HSetNX(ctx, meta, "ladder:"+lv.rulesFP, lv.Ladder.RulesJSON())
	for _, o := range lv.overrides {
		pipe.HSetNX(ctx, meta, "ladder:"+o.fp, o.Ladder.RulesJSON())
	}
	stored := pipe.HMGet(ctx, meta, "layout", "buckets", "schedule", "epoch", "restored")
	if _, err := pipe.Exec(ctx); err != nil {
		return internal("layout", err)
	}
	v := stored.Val()
	lv.epoch, _ = v[3].(string)
	if r, _ := v[4].(string); r != "" {
		sec, _ := strconv.ParseInt(r, 10, 64)
		lv.restored = time.Unix(sec, 0).UTC()
	}
	if err := e.checkFixed(lv, v[:3]); err != nil {
		return err
	}
	if was, _ := v[2].(string); was != "" {
		if zone, _ := splitZone(was); zone == "" {
			return e.rerecordSchedule(ctx, lv, was)
		}
	}
	return nil
}

var errLost = errors.New("redis lost the league's data")

// lostError answers a call whose script found another epoch than the one
// this engine opened: its tier codes may be stale, so it writes nothing
// until the process is restarted. From then on every call for the league
// fails the same way before reaching Redis (live).
func (lv *live) lostError() error {
	lv.lost.Store(true)
	e := Errorf(Unavailable, "league %q: Redis no longer holds the data this process opened "+
		"(it lost it, or a restore replaced it): if Redis lost it, run leaguectl restore -league %s; then restart leagued", lv.ID, lv.ID)
	e.Err = errLost // Redis's state, not this process's config: a dependency failure
	return e
}

// CheckEpochs returns an Unavailable error unless Redis holds, for every
// league, the data this engine opened: readiness fails while Redis has lost
// a league or after a restore replaced it, as every join would.
func (e *Engine) CheckEpochs(ctx context.Context) error {
	pipe := e.rdb.Pipeline()
	cmds := make([]*redis.StringCmd, len(e.ids))
	for i, id := range e.ids {
		cmds[i] = pipe.HGet(ctx, e.leagues[id].keys.meta(), "epoch")
	}
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return internal("epochs", err)
	}
	for i, id := range e.ids {
		if lv := e.leagues[id]; cmds[i].Val() != lv.epoch {
			return lv.lostError()
		}
	}
	return nil
}

// newEpoch returns a fresh epoch: 16 random hex digits.
func newEpoch() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// checkRemovedTiers refuses a config that dropped a tier which holds players
// of the current or an unsettled period.
func (e *Engine) checkRemovedTiers(ctx context.Context, lv *live) error {
	all, err := e.rdb.HGetAll(ctx, lv.keys.tiers()).Result()
	if err != nil {
		return internal("tiers", err)
	}
	removed := map[string]string{} // code -> tier id
	for id, code := range all {
		if _, ok := lv.Ladder.Index(id); !ok {
			removed[code] = id
		}
	}
	if len(removed) == 0 {
		return nil
	}
	waiting, err := e.rdb.ZRange(ctx, lv.keys.periods(), 0, -1).Result()
	if err != nil {
		return internal("tiers", err)
	}
	cur, _ := e.current(lv)
	starts := []int64{cur.Start.Unix()}
	for _, m := range waiting {
		if start, err := strconv.ParseInt(m, 10, 64); err == nil && start != starts[0] {
			starts = append(starts, start)
		}
	}
	codes := make([]string, 0, len(removed))
	for c := range removed {
		codes = append(codes, c)
	}
	pipe := e.rdb.Pipeline()
	counts := make([]*redis.SliceCmd, len(starts))
	for i, start := range starts {
		counts[i] = pipe.HMGet(ctx, lv.keys.counters(start), codes...)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return internal("tiers", err)
	}
	var held []string
	for i, cmd := range counts {
		for j, v := range cmd.Val() {
			count, _ := v.(string) // nil: nobody of the tier in that period
			if n, _ := strconv.Atoi(count); n > 0 {
				p := Period{Start: time.Unix(starts[i], 0).UTC()}
				held = append(held, fmt.Sprintf("%s: %s in period %s", removed[codes[j]], words.Count(n, "player"), p.ID()))
			}
		}
	}
	if len(held) > 0 {
		return fmt.Errorf("league %q: tiers this config lacks still hold players (%s): if they were removed from it, "+
			"keep them in the ladder; if another process's newer config added them, start this one with that config",
			lv.ID, strings.Join(held, "; "))
	}
	return nil
}
