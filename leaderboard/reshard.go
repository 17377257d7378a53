package leaderboard

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/league-engine/league/league"
)

// Resharding: a leaderboard's shard count may change for the periods that
// start after a switch, never within one. A member's place is found by
// shardOf(member, n), so a board written under one count cannot be read
// under another; boards are per period, so a switch at an instant that
// begins a period of every kind the leaderboard keeps needs nothing moved:
// the boards before it stay under the old count, those after start empty
// under the new one.
//
// Redis holds the plan (<ns>:lb:{id}:shards, shard 0): "4" for one count,
// "4,8@1767225600" for 4 until that Unix second and 8 from it. When Open
// meets a configured count other than the plan's last, it schedules the
// switch at the first boundary common to the leaderboard's kinds at least
// switchNotice ahead (replacing a switch not yet reached, or cancelling it
// when the configuration returns to the count before it). Every engine
// re-reads the plan every planRefresh, well inside switchNotice, so every
// replica places members by the same count at every instant.
//
// Each write is placed by the count at its time, which the script checks
// against Redis's clock the way it checks the periods (a switch is a
// period boundary of every board: a write sent with the periods of one
// side, run on the other, is refused WrongPeriod and sent again), and a
// queued write the same way (lb_enqueue.lua checks the count's span).
//
// What outlives a period cannot follow a switch: the all-time board, the
// rolling boards (their buckets span periods), carry-overs (written into
// the next period's board), the catalog and its multipliers, and rate
// limit counters (their windows need not end at the switch). A leaderboard
// keeping any of them keeps its count: a change is refused at load, naming
// why (reshardable).

// switchNotice is the least time between scheduling a switch and the
// switch; planRefresh, how often an engine re-reads the plan.
const (
	switchNotice = time.Minute
	planRefresh  = 5 * time.Second
)

// shardStep is a count and the instant it applies from (zero: always).
type shardStep struct {
	from time.Time
	n    int
}

// shardPlan is a leaderboard's counts over time, as Redis holds them, with
// the keys of every shard any of them uses.
type shardPlan struct {
	steps   []shardStep // sorted by from; the first from is zero
	keys    []keys      // shards 0 .. the largest count - 1
	fetched time.Time   // when read from Redis (the wall clock, for refreshes)
}

// countAt is the shard count at t.
func (p *shardPlan) countAt(t time.Time) int {
	n := p.steps[0].n
	for _, s := range p.steps[1:] {
		if t.Before(s.from) {
			break
		}
		n = s.n
	}
	return n
}

// span is the interval around t over which the count at t holds: from
// (zero: always) until (zero: for ever).
func (p *shardPlan) span(t time.Time) (from, until time.Time) {
	for _, s := range p.steps[1:] {
		if t.Before(s.from) {
			return from, s.from
		}
		from = s.from
	}
	return from, time.Time{}
}

// last is the step the plan ends with.
func (p *shardPlan) last() shardStep { return p.steps[len(p.steps)-1] }

func formatPlan(steps []shardStep) string {
	var b strings.Builder
	for i, s := range steps {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(s.n))
		if i > 0 {
			b.WriteByte('@')
			b.WriteString(strconv.FormatInt(s.from.Unix(), 10))
		}
	}
	return b.String()
}

func parsePlan(s string) ([]shardStep, error) {
	var steps []shardStep
	for i, f := range strings.Split(s, ",") {
		count, at, timed := strings.Cut(f, "@")
		n, err := strconv.Atoi(count)
		if err != nil || n < 1 || n > MaxShards || timed != (i > 0) {
			return nil, fmt.Errorf("shard plan %q: step %q is not a count (1..%d) with @<unix s> after the first", s, f, MaxShards)
		}
		step := shardStep{n: n}
		if timed {
			u, err := strconv.ParseInt(at, 10, 64)
			if err != nil || (i > 1 && time.Unix(u, 0).Before(steps[i-1].from)) {
				return nil, fmt.Errorf("shard plan %q: step %q has no time after the one before", s, f)
			}
			step.from = time.Unix(u, 0).UTC()
		}
		steps = append(steps, step)
	}
	return steps, nil
}

// newPlan is the plan of steps for leaderboard id under namespace ns.
func newPlan(ns, id string, steps []shardStep, fetched time.Time) *shardPlan {
	most := 0
	for _, s := range steps {
		most = max(most, s.n)
	}
	p := &shardPlan{steps: steps, fetched: fetched, keys: make([]keys, most)}
	for s := range p.keys {
		p.keys[s] = shardKeys(ns, id, s)
	}
	return p
}

// plans holds each leaderboard's current plan.
type plans struct {
	byID map[string]*planSlot
	mu   sync.Mutex // one refresh at a time
}

type planSlot struct {
	ptr        atomic.Pointer[shardPlan]
	switchable bool // may switch while the engine runs: re-read every planRefresh
}

// reshardable says why l cannot change its shard count, or nil.
func (l *Leaderboard) reshardable() error {
	var keeps []string
	if slices.Contains(l.Kinds, AllTime) {
		keeps = append(keeps, "an all-time board")
	}
	if len(l.Windows) > 0 {
		keeps = append(keeps, "rolling boards (their buckets span periods)")
	}
	if len(l.CarryOver) > 0 {
		keeps = append(keeps, "carry_over (written into the next period's board)")
	}
	if l.Catalog || l.PublicBoards {
		keeps = append(keeps, "a catalog (its names and multipliers are kept by shard)")
	}
	if len(l.Limits) > 0 {
		keeps = append(keeps, "rate limits (their counters are kept by shard, over windows that need not end at a switch)")
	}
	if len(keeps) == 0 {
		return nil
	}
	return errors.New("it keeps " + strings.Join(keeps, ", ") + ", which cannot move to other shards")
}

// nextSwitch is the first instant at or after t that begins a period of
// every kind l keeps.
func (l *Leaderboard) nextSwitch(t time.Time) (time.Time, error) {
	longest := l.Kinds[len(l.Kinds)-1] // Init sorts them shortest first
	p := l.Calendar.At(longest, t)
	if !p.Start.Equal(t) {
		p = l.Calendar.Next(p)
	}
	for range 1000 {
		common := true
		for _, k := range l.Kinds {
			common = common && l.Calendar.At(k, p.Start).Start.Equal(p.Start)
		}
		if common {
			return p.Start, nil
		}
		p = l.Calendar.Next(p)
	}
	return time.Time{}, fmt.Errorf("no instant in the next 1000 %s periods begins a period of every kind of %v", longest, l.Kinds)
}

// openPlan reads l's plan from Redis, records it the first time, and
// schedules a switch to l.Shards when the plan ends with another count.
func (e *Engine) openPlan(ctx context.Context, l *Leaderboard) error {
	k := shardKeys(e.ns, l.ID, 0).shardCount()
	for attempt := 0; attempt < 8; attempt++ {
		var plan *shardPlan
		var refused error // the configuration's fault, not Redis's
		err := e.rdb.Watch(ctx, func(tx *redis.Tx) error {
			raw, err := tx.Get(ctx, k).Result()
			missing := err == redis.Nil
			if missing {
				raw = strconv.Itoa(l.Shards)
			} else if err != nil {
				return err
			}
			steps, err := parsePlan(raw)
			if err != nil {
				refused = fmt.Errorf("leaderboard %q: %w", l.ID, err)
				return nil
			}
			want, change, err := e.scheduled(l, steps)
			if err != nil {
				refused = err
				return nil
			}
			plan = newPlan(e.ns, l.ID, want, time.Now())
			if !change && !missing {
				return nil
			}
			_, err = tx.TxPipelined(ctx, func(pipe redis.Pipeliner) error {
				pipe.Set(ctx, k, formatPlan(want), 0)
				return nil
			})
			if err == nil && change {
				e.log.Warn("leaderboard: shard count switch scheduled (or cancelled)", "leaderboard", l.ID,
					"plan", formatPlan(want), "was", raw)
			}
			return err
		}, k)
		if errors.Is(err, redis.TxFailedErr) {
			continue // another engine changed it meanwhile: read it again
		}
		if err != nil {
			return league.RedisError("leaderboard shards", err)
		}
		if refused != nil {
			return refused
		}
		slot := &planSlot{switchable: l.reshardable() == nil}
		slot.ptr.Store(plan)
		e.plans.byID[l.ID] = slot
		return nil
	}
	return league.RedisError("leaderboard shards", errors.New("the shard plan kept changing"))
}

// scheduled is the plan l's configuration asks of steps (Redis's), and
// whether it differs.
func (e *Engine) scheduled(l *Leaderboard, steps []shardStep) ([]shardStep, bool, error) {
	now := e.clock.Now()
	plan := &shardPlan{steps: steps}
	last := plan.last()
	why := l.reshardable()
	if last.n == l.Shards && (why == nil || plan.countAt(now) == l.Shards) {
		return steps, false, nil
	}
	base := steps
	if last.from.After(now) { // a switch not reached yet: replaced
		base = steps[:len(steps)-1]
		if base[len(base)-1].n == l.Shards {
			return base, true, nil // cancelled
		}
	}
	if why != nil {
		return nil, false, fmt.Errorf("leaderboard %q: shards: %d, but Redis holds it in %d (plan %q), and %s; set shards: %d, or use a new leaderboard id",
			l.ID, l.Shards, plan.countAt(now), formatPlan(steps), why, plan.countAt(now))
	}
	at, err := l.nextSwitch(now.Add(switchNotice))
	if err != nil {
		return nil, false, fmt.Errorf("leaderboard %q: shards: %d: %w", l.ID, l.Shards, err)
	}
	return append(slices.Clone(base), shardStep{from: at, n: l.Shards}), true, nil
}

// plan is l's plan, re-read from Redis when older than planRefresh (for a
// leaderboard that can switch; the others' counts cannot change while
// this engine runs: Open refuses a change).
func (e *Engine) plan(l *Leaderboard) *shardPlan {
	slot := e.plans.byID[l.ID]
	p := slot.ptr.Load()
	if !slot.switchable || time.Since(p.fetched) < planRefresh {
		return p
	}
	e.plans.mu.Lock()
	defer e.plans.mu.Unlock()
	if p = slot.ptr.Load(); time.Since(p.fetched) < planRefresh {
		return p
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	raw, err := e.rdb.Get(ctx, shardKeys(e.ns, l.ID, 0).shardCount()).Result()
	var steps []shardStep
	if err == nil {
		steps, err = parsePlan(raw)
	}
	if err != nil {
		// kept: a switch is scheduled switchNotice ahead, so a plan a
		// few refreshes old still places members right
		e.log.Error("leaderboard: re-reading the shard plan", "leaderboard", l.ID, "err", err)
		return p
	}
	p = newPlan(e.ns, l.ID, steps, time.Now())
	slot.ptr.Store(p)
	return p
}

// switched says l's plan has a switch of shard count: only then may a
// write be the retry of one made under another count (switchreplay.go).
func (e *Engine) switched(l *Leaderboard) bool { return len(e.plan(l).steps) > 1 }

// refreshPlans has the next use of each plan re-read it (tests).
func (e *Engine) refreshPlans() {
	for _, slot := range e.plans.byID {
		p := *slot.ptr.Load()
		p.fetched = time.Time{}
		slot.ptr.Store(&p)
	}
}

// ShardSwitch is a leaderboard's scheduled change of shard count.
type ShardSwitch struct {
	From, To int       // the counts before and after
	At       time.Time // the instant the new count applies from
}

// Switch is leaderboard id's scheduled switch of shard count, the last
// one if it was reached already, or nil when it never had one.
func (e *Engine) Switch(id string) (*ShardSwitch, error) {
	l, err := e.Leaderboard(id)
	if err != nil {
		return nil, err
	}
	p := e.plan(l)
	if len(p.steps) < 2 {
		return nil, nil
	}
	last := p.last()
	return &ShardSwitch{From: p.steps[len(p.steps)-2].n, To: last.n, At: last.from}, nil
}

// msArg is t in Unix ms for a script, empty for the zero time.
func msArg(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return strconv.FormatInt(t.UnixMilli(), 10)
}

// Shards is how many shards leaderboard id's boards of the current
// periods are split over (Leaderboard.Shards is the count configured,
// which a switch may not have reached yet).
func (e *Engine) Shards(id string) (int, error) {
	l, err := e.Leaderboard(id)
	if err != nil {
		return 0, err
	}
	return e.plan(l).countAt(e.clock.Now()), nil
}
