package league

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/league-engine/league/scripts"
	"github.com/league-engine/league/tiers"
)

// The Redis side of settlement. The scheduler drives these steps; each is
// safe to repeat, so a settlement killed at any point can run again.

// Populations of a closed period: ladder index -> players who joined it.
type Populations map[int]int

// Players is the total of all tiers.
func (p Populations) Players() int {
	n := 0
	for _, c := range p {
		n += c
	}
	return n
}

// ErrNotEnded is returned by Close for a period Redis's clock has not left.
var ErrNotEnded = Errorf(Conflict, "the period has not ended")

// Close closes a period for settlement once Redis's clock is past its end
// (ErrNotEnded before), freezing its boards, and returns how many players
// joined each tier.
func (e *Engine) Close(ctx context.Context, leagueID string, p Period) (Populations, error) {
	lv, err := e.live(leagueID)
	if err != nil {
		return nil, err
	}
	// Tiers this config lacks are refused before close.lua records this
	// process's rules as the period's: a process that cannot settle the
	// period must not decide the rules it is settled under. (After the end
	// no join adds a tier to the counters.)
	if err := e.checkKnownTiers(ctx, lv, p); err != nil {
		return nil, err
	}
	_, fp := lv.ladderAt(p.Start.Unix())
	reply, err := e.run.RunAlone(ctx, scripts.Close, []string{lv.keys.counters(p.Start.Unix()), lv.keys.meta()},
		e.clock.Arg(), p.End.Unix(), lv.epoch, fp).Slice()
	if err != nil {
		return nil, internal("close", err)
	}
	switch scripts.Status(reply[0].(int64)) {
	case scripts.NotEnded:
		return nil, ErrNotEnded
	case scripts.Lost:
		return nil, lv.lostError()
	}
	flat, _ := reply[1].([]any)
	counters := make(map[string]string, len(flat)/2)
	for i := 0; i+1 < len(flat); i += 2 {
		field, _ := flat[i].(string)
		counters[field] = fmt.Sprint(flat[i+1])
	}
	return e.populations(ctx, lv, p, counters)
}

// populations reads a period's counters hash (field -> value): the players
// of each tier (on its shared and cohort boards). A tier code this config lacks is refused as
// checkKnownTiers refuses it.
func (e *Engine) populations(ctx context.Context, lv *live, p Period, counters map[string]string) (Populations, error) {
	pop := Populations{}
	for field, v := range counters {
		if field == "closed" || field == "ladder" {
			continue
		}
		code, err1 := strconv.Atoi(field)
		n, err2 := strconv.Atoi(v)
		if err1 != nil || err2 != nil {
			return nil, internal("populations", fmt.Errorf("bad counter %v=%v", field, v))
		}
		idx, known := lv.index[code]
		if !known {
			return nil, e.unknownTierIn(ctx, lv, p, code)
		}
		pop[idx] += n // a tier's shared boards and its cohorts'
	}
	return pop, nil
}

// checkKnownTiers refuses a period holding players in a tier this config
// does not have.
func (e *Engine) checkKnownTiers(ctx context.Context, lv *live, p Period) error {
	fields, err := e.rdb.HKeys(ctx, lv.keys.counters(p.Start.Unix())).Result()
	if err != nil {
		return internal("close", err)
	}
	for _, f := range fields {
		if code, err := strconv.Atoi(f); err == nil {
			if _, known := lv.index[code]; !known {
				return e.unknownTierIn(ctx, lv, p, code)
			}
		}
	}
	return nil
}

// unknownTierIn is the error of period p holding players in tier code,
// which this config lacks.
func (e *Engine) unknownTierIn(ctx context.Context, lv *live, p Period, code int) error {
	tier, _ := e.tierID(ctx, lv, code)
	return Errorf(Unavailable, "league %q: period %s holds players in tier %q, which this process's config does not have "+
		"(a config adding it is rolling out): a process with that config settles it", lv.ID, p.ID(), tier)
}

// PeriodLadder returns the ladder a closed period is decided under: the
// rules recorded with it by its first decision (Close, or a join deciding a
// player's outcome early), which are this engine's own unless a process
// with other rules (a replica mid-way through a config change) came first.
// Settlement decides with it, so it agrees with every early join.
func (e *Engine) PeriodLadder(ctx context.Context, leagueID string, p Period) (*tiers.Ladder, error) {
	lv, err := e.live(leagueID)
	if err != nil {
		return nil, err
	}
	return e.periodLadder(ctx, lv, p.Start.Unix())
}

// periodLadder is PeriodLadder of the period starting at start. A period's
// recorded rules never change, so they are asked of Redis only until some
// decision has recorded them.
func (e *Engine) periodLadder(ctx context.Context, lv *live, start int64) (*tiers.Ladder, error) {
	fp, err := e.periodFingerprint(ctx, lv, start)
	if err != nil {
		return nil, err
	}
	return e.ladderFor(ctx, lv, fp, start)
}

// periodFingerprint is the fingerprint of the rules recorded with the
// period starting at start, "" while none are.
func (e *Engine) periodFingerprint(ctx context.Context, lv *live, start int64) (string, error) {
	if fp, ok := lv.periodRules.get(start); ok {
		return fp, nil
	}
	fp, err := e.rdb.HGet(ctx, lv.keys.counters(start), "ladder").Result()
	if err != nil && err != redis.Nil {
		return "", internal("period ladder", err)
	}
	if fp != "" {
		lv.periodRules.put(start, fp)
	}
	return fp, nil
}

// PeriodRules returns the rules a closed period is decided under as
// recorded (tiers.Ladder.RulesJSON) and their fingerprint: what settlement
// keeps in the store beside the outcomes, so that verifying them needs no
// Redis. They are the recorded text itself, not PeriodLadder's rules laid on
// this config's tiers, so that they rebuild alone (tiers.FromRules).
func (e *Engine) PeriodRules(ctx context.Context, leagueID string, p Period) (rules, fp string, err error) {
	lv, err := e.live(leagueID)
	if err != nil {
		return "", "", err
	}
	start := p.Start.Unix()
	if fp, err = e.periodFingerprint(ctx, lv, start); err != nil {
		return "", "", err
	}
	if own, ownFP := lv.ladderAt(start); fp == "" || fp == ownFP {
		return own.RulesJSON(), ownFP, nil
	}
	if fp == lv.rulesFP {
		return lv.Ladder.RulesJSON(), fp, nil
	}
	rules, err = e.rdb.HGet(ctx, lv.keys.meta(), "ladder:"+fp).Result()
	if err == redis.Nil {
		return "", "", Errorf(Internal, "league %q: a period is decided under ladder rules %s, which Redis does not hold", lv.ID, fp)
	}
	if err != nil {
		return "", "", internal("ladder rules", err)
	}
	return rules, fp, nil
}

// ladderFor returns the ladder whose rules have fingerprint fp (this
// engine's own, or "" for none recorded yet: this config's for the period
// starting at start, ladderAt), rebuilt from the rules Open recorded in the
// meta hash and laid on this engine's tiers (tiers.Ladder.Recorded).
func (e *Engine) ladderFor(ctx context.Context, lv *live, fp string, start int64) (*tiers.Ladder, error) {
	if fp == "" {
		ld, _ := lv.ladderAt(start)
		return ld, nil
	}
	if fp == lv.rulesFP {
		return lv.Ladder, nil
	}
	if l, ok := lv.recorded.Load(fp); ok {
		return l.(*tiers.Ladder), nil
	}
	rules, err := e.rdb.HGet(ctx, lv.keys.meta(), "ladder:"+fp).Result()
	if err == redis.Nil {
		return nil, Errorf(Internal, "league %q: a period is decided under ladder rules %s, which Redis does not hold", lv.ID, fp)
	}
	if err != nil {
		return nil, internal("ladder rules", err)
	}
	l, err := lv.Ladder.Recorded(rules)
	if err != nil {
		// Another process's config has tiers this one lacks (a config adding
		// a tier is rolling out): this process cannot decide the period.
		return nil, Errorf(Unavailable, "league %q: a period is decided under another process's ladder rules, "+
			"which this process's tiers cannot carry (%v): restart this process with that config", lv.ID, err)
	}
	e.log.Warn("league: a period is decided under another process's ladder rules (replicas with different tier configs)",
		"league", lv.ID, "rules", fp, "ours", lv.rulesFP)
	lv.recorded.Store(fp, l)
	return l, nil
}

// applyBatch is how many players one apply.lua call handles; applyPerTrip
// calls go in one pipeline.
const (
	applyBatch   = 200
	applyPerTrip = 16
)

// Apply makes a settled period's outcomes visible to joins: new tiers of the
// players who moved and rewards to deliver at their next join. Players who
// stay need nothing: MarkSettled covers them. Safe to repeat.
func (e *Engine) Apply(ctx context.Context, leagueID string, p Period, outcomes []tiers.Outcome) error {
	lv, err := e.live(leagueID)
	if err != nil {
		return err
	}
	todo := make([]tiers.Outcome, 0, len(outcomes)/2)
	for _, o := range outcomes {
		if o.TierAfter != o.TierBefore || o.Rewards != nil {
			todo = append(todo, o)
		}
	}
	start := p.Start.Unix()
	batches := (len(todo) + applyBatch - 1) / applyBatch
	for lo := 0; lo < batches; lo += applyPerTrip {
		n := min(applyPerTrip, batches-lo)
		cmds, err := e.run.Pipeline(ctx, scripts.Apply, n, func(j int) ([]string, []any) {
			batch := todo[(lo+j)*applyBatch : min((lo+j+1)*applyBatch, len(todo))]
			ks := make([]string, 0, 1+2*len(batch))
			args := make([]any, 0, 2+3*len(batch))
			ks = append(ks, lv.keys.meta())
			args = append(args, start, lv.epoch)
			for _, o := range batch {
				ks = append(ks, lv.keys.record(o.Player), lv.keys.reward(o.Player))
				next, items := "", ""
				if o.TierAfter != o.TierBefore {
					next = strconv.Itoa(lv.code[o.TierAfter])
				}
				if o.Rewards != nil {
					js, _ := json.Marshal(Reward{Tier: lv.Ladder.Tier(o.TierBefore).ID, Rank: o.Rank, Items: o.Rewards})
					items = string(js)
				}
				args = append(args, o.Player, next, items)
			}
			return ks, args
		})
		if err != nil {
			return internal("apply", err)
		}
		for _, c := range cmds {
			moved, err := c.Int64()
			if err != nil {
				return internal("apply", err)
			}
			if moved < 0 {
				return lv.lostError()
			}
		}
	}
	return nil
}

// MarkSettled records that the period's outcomes are applied: joins of
// players who stayed no longer need the frozen board.
func (e *Engine) MarkSettled(ctx context.Context, leagueID string, p Period) error {
	lv, err := e.live(leagueID)
	if err != nil {
		return err
	}
	moved, err := e.run.RunAlone(ctx, scripts.Settled, []string{lv.keys.meta()}, p.Start.Unix(), lv.epoch).Int64()
	if err != nil {
		return internal("mark settled", err)
	}
	if moved < 0 {
		return lv.lostError()
	}
	return nil
}

// Expire sets the league's retention as the time to live of every key of a
// settled period, so they leave Redis without a blocking DEL: the last step
// before the settlement is done.
func (e *Engine) Expire(ctx context.Context, leagueID string, p Period, pop Populations) error {
	lv, err := e.live(leagueID)
	if err != nil {
		return err
	}
	start := p.Start.Unix()
	ks := []string{lv.keys.counters(start), lv.keys.claimed(start), lv.keys.moderated(start), lv.keys.promoted(start)}
	joined, err := e.joinedPerCode(ctx, lv, start, pop)
	if err != nil {
		return err
	}
	for code, count := range joined {
		for n := 1; n <= (count+lv.BoardSize-1)/lv.BoardSize; n++ {
			ks = append(ks, lv.keys.board(start, code, n), lv.keys.names(start, code, n))
		}
	}
	for lo := 0; lo < len(ks); lo += 1000 {
		pipe := e.rdb.Pipeline()
		for _, k := range ks[lo:min(lo+1000, len(ks))] {
			pipe.Expire(ctx, k, lv.Retention+e.expiryLag)
		}
		if _, err := pipe.Exec(ctx); err != nil {
			return internal("expire", err)
		}
	}
	return nil
}

// Forget drops a period from those waiting for settlement (Unsettled), once
// the Store has it done. Not before: Unsettled is how every replica finds
// work, and a period forgotten before the Store's last step would be left
// unfinished there for good if that step failed.
func (e *Engine) Forget(ctx context.Context, leagueID string, p Period) error {
	lv, err := e.live(leagueID)
	if err != nil {
		return err
	}
	// The operators of this period and of any before it: an older version
	// settling a period leaves its op: field behind.
	fields, err := e.rdb.HKeys(ctx, lv.keys.meta()).Result()
	if err != nil {
		return internal("forget", err)
	}
	old := []string{opField(p.Start.Unix())}
	for _, f := range fields {
		if start, ok := strings.CutPrefix(f, "op:"); ok && f != old[0] {
			if n, err := strconv.ParseInt(start, 10, 64); err == nil && n < p.Start.Unix() {
				old = append(old, f)
			}
		}
	}
	pipe := e.rdb.Pipeline()
	pipe.ZRem(ctx, lv.keys.periods(), p.Start.Unix())
	pipe.HDel(ctx, lv.keys.meta(), old...)
	_, err = pipe.Exec(ctx)
	return internal("forget", err)
}

// Unsettled returns the periods of the league that hold players, have ended
// by the engine's clock and were not marked settled, oldest first.
func (e *Engine) Unsettled(ctx context.Context, leagueID string) ([]Period, error) {
	lv, err := e.live(leagueID)
	if err != nil {
		return nil, err
	}
	cur, _ := e.current(lv)
	starts, err := e.rdb.ZRangeByScore(ctx, lv.keys.periods(), &redis.ZRangeBy{
		Min: "-inf", Max: "(" + strconv.FormatInt(cur.Start.Unix(), 10),
	}).Result()
	if err != nil {
		return nil, internal("unsettled", err)
	}
	out := make([]Period, 0, len(starts))
	for _, s := range starts {
		sec, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			continue
		}
		p, err := lv.periodOf(sec)
		if err != nil {
			// Another process reads the schedule otherwise (Open refuses
			// such a league when it starts): its period may not have ended,
			// and settling it up to a boundary of ours would decide it early.
			e.log.Error("league: a period waiting for settlement is not a period of this process's schedule; "+
				"processes disagree on its boundaries: give every process the same schedule (with its CRON_TZ)",
				"league", lv.ID, "start", time.Unix(sec, 0).UTC(), "schedule", lv.Schedule.Spec)
			continue
		}
		out = append(out, p)
	}
	return out, nil
}
