package main

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/league-engine/league/league"
	"github.com/league-engine/league/scheduler"
)

// settleResult is a settlement of n players, end to end, and its steps.
type settleResult struct {
	players      int
	join, scores time.Duration // setting up: not part of the settlement
	steps        []step
	total        time.Duration // SettleNow, start to return
	settlement   league.Settlement
	restore      time.Duration // league.Restore of the settled league, after its keys were deleted
	// settleCPU and restoreCPU are the CPU the settlement (SettleNow) and
	// the restore took, Redis's and this process's; Postgres's is not
	// readable from here.
	settleCPU, restoreCPU cpuSpent
}

// cpuSpent is CPU seconds of this process (the engine, the scheduler) and
// of Redis: readings so far, or the difference of two.
type cpuSpent struct{ proc, redis float64 }

func (b *bench) cpuSoFar(ctx context.Context) cpuSpent {
	return cpuSpent{proc: processCPU(), redis: b.redisCPU(ctx, nil)}
}

func (c cpuSpent) since(start cpuSpent) cpuSpent {
	return cpuSpent{proc: c.proc - start.proc, redis: c.redis - start.redis}
}

// perPlayer is "<Redis> + <bench>" CPU microseconds per player.
func (c cpuSpent) perPlayer(players int) string {
	n := uint64(max(players, 0))
	return fmt.Sprintf("%.1f + %.1f", microsPer(c.redis, n), microsPer(c.proc, n))
}

type step struct {
	name string
	took time.Duration // -1: the step did not report on its own
}

// settleSteps are the steps of a settlement as the scheduler reports them:
// a step's time runs from the report before it to its own. Reading reports
// every 100,000 players (its last report ends it), so smaller settlements
// count their reading in the write.
var settleSteps = []struct{ mark, name string }{
	{scheduler.StepClose, "close"},
	{scheduler.StepRead, "read+decide"},
	{scheduler.StepWrite, "write (Postgres)"},
	{scheduler.StepApply, "apply (Redis)"},
	{stepEnd, "expire+done"},
}

const stepEnd = "end"

func stepTimes(began time.Time, marks map[string]time.Time) []step {
	out := make([]step, len(settleSteps))
	prev := began
	for i, s := range settleSteps {
		out[i] = step{name: s.name, took: -1}
		if t, ok := marks[s.mark]; ok {
			out[i].took = t.Sub(prev)
			prev = t
		}
	}
	return out
}

// runSettle joins n players, writes a score for each, moves the engine's
// clock past the period's end and settles the period into Postgres (a
// scratch schema), as the scheduler does at a boundary.
func (b *bench) runSettle(ctx context.Context, n int) error {
	ns := newNamespace()
	defer b.dropNamespace(ns)
	fmt.Fprintf(b.out, "settle: namespace %s, %s players\n", ns, thousands(float64(n)))
	store, err := openScratchStore(ctx, b.o.databaseURL, ns)
	if err != nil {
		return err
	}
	defer func() {
		if err := store.drop(); err != nil {
			fmt.Fprintf(b.out, "warning: %v\n", err)
		}
	}()
	// The clock is Redis's until the players are in, then jumps past the
	// period's end: the settlement of a period that just ended, without
	// waiting a week.
	var skew atomic.Int64
	clock := func() time.Time { return time.Now().Add(time.Duration(skew.Load())) }
	leagues, err := loadLeagues(b.o.configPath, b.o.leagueID, b.o.guards)
	if err != nil {
		return err
	}
	engine, err := league.Open(ctx, b.rdb, leagues, append(b.engineOptions(ns), league.WithClock(clock))...)
	if err != nil {
		return err
	}
	lg, _ := engine.League(b.o.leagueID)
	lib := libTarget{engine: engine, league: lg.ID}
	res := settleResult{players: n}

	ids := newIDSource(ns[len(ns)-3:], 's')
	if res.join, err = load(ctx, "settle: join", n, b.o.loaders, b.out, func(ctx context.Context, w *worker, i int) error {
		id := ids.id(int64(i))
		if len(lg.Cohorts) > 0 {
			// a league with cohorts: players spread evenly over the shared
			// boards and each cohort's
			c := ""
			if k := i % (len(lg.Cohorts) + 1); k > 0 {
				c = lg.Cohorts[k-1]
			}
			_, err := engine.Join(ctx, lg.ID, league.JoinRequest{Player: id, Name: playerName(id), Cohort: c})
			return err
		}
		return lib.join(ctx, w, id, playerName(id))
	}); err != nil {
		return err
	}
	// One score per player, 0..999, in batches of 100: a tenth of a percent
	// stay at 0, which min_promote_score keeps from promoting.
	const batch = 100
	if res.scores, err = load(ctx, "settle: scores", (n+batch-1)/batch, b.o.loaders, b.out, func(ctx context.Context, w *worker, i int) error {
		w.writes = w.writes[:0]
		for p := i * batch; p < min(n, (i+1)*batch); p++ {
			w.writes = append(w.writes, league.ScoreWrite{Player: ids.id(int64(p)), Value: w.rng.Int64N(1000)})
		}
		_, err := lib.scoreBatch(ctx, w, w.writes)
		return err
	}); err != nil {
		return err
	}
	fmt.Fprintf(b.out, "  set up: joins %s (%s/s), scores %s (%s/s)\n",
		res.join.Round(time.Millisecond), thousands(float64(n)/res.join.Seconds()),
		res.scores.Round(time.Millisecond), thousands(float64(n)/res.scores.Seconds()))

	cur, err := engine.Current(lg.ID)
	if err != nil {
		return err
	}
	skew.Store(int64(time.Until(cur.End) + time.Second))

	var mu sync.Mutex
	marks := map[string]time.Time{} // when each step's (last) report came
	cpu0 := b.cpuSoFar(ctx)
	began := time.Now()
	sched := scheduler.New(engine, store, scheduler.WithLogger(b.log), scheduler.WithProgress(func(p scheduler.Progress) {
		mu.Lock()
		defer mu.Unlock()
		now := time.Now()
		marks[p.Step] = now
		fmt.Fprintf(b.out, "  settle %s: %-5s %s/%s players (%s)\n", p.Period.ID(), p.Step,
			thousands(float64(p.Done)), thousands(float64(p.Total)), now.Sub(began).Round(time.Millisecond))
	}))
	st, err := sched.SettleNow(ctx, lg.ID, time.Time{})
	res.total = time.Since(began)
	res.settleCPU = b.cpuSoFar(ctx).since(cpu0)
	if err != nil {
		return err
	}
	mu.Lock()
	marks[stepEnd] = began.Add(res.total)
	res.steps = stepTimes(began, marks)
	mu.Unlock()
	if st.Status != league.StatusDone || st.Players != n {
		return fmt.Errorf("settlement ended %s with %d players, want done with %d", st.Status, st.Players, n)
	}
	res.settlement = st
	fmt.Fprintln(b.out, res.summary())

	// Redis loses the league; restore rebuilds every player's record and
	// pending rewards from the store (leaguectl restore).
	if _, err := deleteNamespace(ctx, b.rdb, ns); err != nil {
		return err
	}
	cpu0 = b.cpuSoFar(ctx)
	began = time.Now()
	// The run's namespace is its own: a league of the same id under another
	// namespace of this Redis (a deployment, another run) is not this one.
	rst, err := league.Restore(ctx, b.rdb, lg, store,
		append(b.engineOptions(ns), league.WithClock(clock), league.WithOtherDeployments())...)
	res.restore = time.Since(began)
	res.restoreCPU = b.cpuSoFar(ctx).since(cpu0)
	if err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	if rst.Players != n {
		return fmt.Errorf("restore: %d players, want %d", rst.Players, n)
	}
	fmt.Fprintf(b.out, "restore: %s players in %s (%s players/s), %s rewards pending\n", thousands(float64(n)),
		res.restore.Round(time.Millisecond), thousands(float64(n)/res.restore.Seconds()), thousands(float64(rst.Rewards)))
	b.rep.settle = append(b.rep.settle, res)
	return nil
}

func (r settleResult) rate() float64 { return float64(r.players) / r.total.Seconds() }

func (r settleResult) summary() string {
	var promoted, demoted, rewarded int
	for _, t := range r.settlement.Tiers {
		promoted, demoted, rewarded = promoted+t.Promoted, demoted+t.Demoted, rewarded+t.Rewarded
	}
	return fmt.Sprintf("settle: %s players in %s (%s players/s); %s promoted, %s demoted, %s rewarded",
		thousands(float64(r.players)), r.total.Round(time.Millisecond), thousands(r.rate()),
		thousands(float64(promoted)), thousands(float64(demoted)), thousands(float64(rewarded)))
}
