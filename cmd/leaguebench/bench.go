package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/league-engine/league/leaderboard"
	"github.com/league-engine/league/league"
)

// bench is one run of the harness: its options, where it writes, and the
// Redis every part of it shares.
type bench struct {
	o        options
	out      io.Writer    // progress lines and the tables
	log      *slog.Logger // the engine's, scheduler's and server's warnings
	rdb      *redis.Client
	inFlight int // the most requests in flight at once
	rep      *report
	seed     uint64
}

// run measures what o asks for and returns the report, complete or as far
// as it got when an error stopped it.
func run(ctx context.Context, o options, out io.Writer, log *slog.Logger) (*report, error) {
	rep := &report{}
	if err := checkTargets(o); err != nil {
		return rep, err
	}
	b := &bench{o: o, out: out, log: log, rep: rep, seed: uint64(time.Now().UnixNano()),
		inFlight: max(slices.Max(o.concurrency), o.loaders)}
	var err error
	if b.rdb, err = openRedis(ctx, o.redisURL, b.inFlight); err != nil {
		return rep, err
	}
	defer b.rdb.Close()
	version, err := checkRealRedis(ctx, b.rdb)
	if err != nil {
		return rep, err
	}
	server := "in-process (127.0.0.1:0)"
	if o.httpURL != "" {
		server = o.httpURL
	}
	rep.env = fmt.Sprintf("Redis %s at %s; %d CPUs, GOMAXPROCS %d, %s; HTTP server %s; league %q; engine shared round trips %d",
		version, b.rdb.Options().Addr, runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.Version(), server, o.leagueID, o.shared)
	if o.baselineAP {
		rep.env += " (baseline EVALSHA autopipelined)"
	}
	if o.guards != guardsConfig {
		rep.env += "; guards " + o.guards
	}
	if slices.ContainsFunc(o.workloads, func(name string) bool { wl, _ := workloadNamed(name); return wl.leaderboard }) {
		var lbs []string
		if slices.Contains(o.vias, "lib") || o.httpURL == "" {
			lbs = append(lbs, fmt.Sprintf("%q (built in)", benchLeaderboardID))
		}
		if o.httpURL != "" && slices.Contains(o.vias, "http") {
			lbs = append(lbs, fmt.Sprintf("%q at -http", o.leaderboardID))
		}
		rep.env += "; leaderboard " + strings.Join(lbs, ", ")
	}
	if slices.ContainsFunc(o.workloads, func(name string) bool { wl, _ := workloadNamed(name); return wl.rolling }) {
		rep.env += fmt.Sprintf("; rolling leaderboards %q (hour, day, week, month, all time, 7d, 30d) and %q..., one window each, built in",
			rollLeaderboardID, windowLeaderboardID(o.windows[0]))
	}
	if slices.Contains(o.workloads, "lbvote") {
		rep.env += fmt.Sprintf("; vote leaderboards vote_<limits> (hour, day, week, month, all time; day participants), built in, -players actors and %d candidates", voteCandidates)
	}
	fmt.Fprintln(out, rep.env)

	if slices.Contains(o.workloads, "stalls") {
		b.runStalls(ctx)
	}
	live := slices.DeleteFunc(slices.Clone(o.workloads), func(w string) bool { return slices.Contains(runWorkloads, w) })
	for _, n := range o.players {
		if len(live) > 0 {
			if err := b.runLive(ctx, n, live); err != nil {
				return rep, err
			}
		}
		if slices.Contains(o.workloads, "memory") {
			if err := b.runMemory(ctx, n); err != nil {
				return rep, fmt.Errorf("memory at %d players: %w", n, err)
			}
		}
		if slices.Contains(o.workloads, "lbfill") {
			if err := b.runFill(ctx, n); err != nil {
				return rep, fmt.Errorf("lbfill at %d members: %w", n, err)
			}
		}
		if slices.Contains(o.workloads, "lbvotemem") {
			if err := b.runVoteMemory(ctx, n); err != nil {
				return rep, fmt.Errorf("lbvotemem at %d actors: %w", n, err)
			}
		}
		if slices.Contains(o.workloads, "lbshards") {
			if err := b.runShards(ctx, n); err != nil {
				return rep, fmt.Errorf("lbshards at %d members: %w", n, err)
			}
		}
		if slices.Contains(o.workloads, "lbshardwrite") {
			if err := b.runShardWrites(ctx, n); err != nil {
				return rep, fmt.Errorf("lbshardwrite at %d members: %w", n, err)
			}
		}
		if slices.Contains(o.workloads, "lbqueue") {
			if err := b.runQueue(ctx, n); err != nil {
				return rep, fmt.Errorf("lbqueue at %d members: %w", n, err)
			}
		}
		if slices.Contains(o.workloads, "settle") {
			if err := b.runSettle(ctx, n); err != nil {
				return rep, fmt.Errorf("settle at %d players: %w", n, err)
			}
		}
	}
	return rep, nil
}

// runLive measures the live workloads, each beside its baseline, on one
// fixture of n players.
func (b *bench) runLive(ctx context.Context, n int, names []string) error {
	f, err := b.newFixture(ctx, n, names)
	if err != nil {
		return err
	}
	defer f.close(b)
	for _, conc := range b.o.concurrency {
		for _, rate := range b.o.rates {
			for _, name := range names {
				wl, _ := workloadNamed(name)
				for _, via := range b.o.vias {
					if !slices.Contains(wl.vias, via) {
						fmt.Fprintf(b.out, "%s/%s: skipped (%s runs through %v only)\n", name, via, name, wl.vias)
						continue
					}
					if wl.rolling && via == "http" && b.o.httpURL != "" {
						fmt.Fprintf(b.out, "%s/http: skipped (the leagued at -http has no leaderboard %q; the in-process one has)\n", name, rollLeaderboardID)
						continue
					}
					for _, v := range variants(wl, b.o.windows, b.o.limits) {
						b.runRow(ctx, f, v, via, n, pace{conc, rate})
						if err := ctx.Err(); err != nil {
							return err
						}
					}
				}
			}
		}
	}
	return nil
}

// runRow measures one workload through one target beside its baseline.
func (b *bench) runRow(ctx context.Context, f *fixture, wl workload, via string, players int, l pace) {
	t, pop := f.targets[via], f.pops[via]
	leagued := f.separateLeagued(via)
	if wl.httpFloor {
		t, leagued = f.floor.target, f.floor.cpu
	}
	r := &row{workload: wl.name, via: via, players: players, perUnit: wl.perUnitLatency, separate: leagued != nil}
	tn := turns{unit: wl.unit, pace: l, leagued: leagued}
	if wl.plain != nil {
		tn.work = wl.plain(f.base)
	} else {
		tn.work = wl.op(t, pop, b.o.batch)
	}
	if b.o.baseline {
		r.baseLabel, tn.base = wl.baseline(f.base, t, pop)
	}
	b.measureRow(ctx, r, tn)
}

// turns are a workload and its baseline to measure in alternating turns.
type turns struct {
	unit       string
	pace       pace
	work, base op // base nil: no baseline
	// leagued, when not nil, is the separate leagued the ops drive, whose
	// CPU is read around each turn too.
	leagued *leaguedCPU
	// redis is the Redis whose CPU is read (a cluster: every node's);
	// nil: the run's.
	redis redis.UniversalClient
}

// measureRow measures r's workload and baseline: -rounds alternating turns
// of each (baseline first), which add up to -duration each, so a noisy
// neighbour that comes and goes weighs on both alike. It adds r to the
// report.
func (b *bench) measureRow(ctx context.Context, r *row, t turns) {
	label := r.workload + "/" + r.via
	var bspec spec
	if t.base != nil {
		bspec = b.spec(label+" baseline", t.unit, t.pace)
		bspec.redis = t.redis
		r.base = newMeasurement(bspec)
		warm(ctx, bspec, t.base)
	}
	wspec := b.spec(label, t.unit, t.pace)
	wspec.redis = t.redis
	r.work = newMeasurement(wspec)
	warm(ctx, wspec, t.work)
	for round := 0; round < b.o.rounds && ctx.Err() == nil; round++ {
		if t.base != nil {
			b.measure(ctx, bspec, t.base, b.progress(), r.base, t.leagued)
		}
		b.measure(ctx, wspec, t.work, b.progress(), r.work, t.leagued)
	}
	b.rep.rows = append(b.rep.rows, r)
	fmt.Fprintln(b.out, r.summary())
}

// engineOptions are the options every engine of the run is opened with.
func (b *bench) engineOptions(ns string) []league.Option {
	return []league.Option{league.WithNamespace(ns), league.WithLogger(b.log), league.WithSharedRoundTrips(b.o.shared)}
}

// leaderboardOptions are those of the leaderboard engines, likewise.
func (b *bench) leaderboardOptions(ns string) []leaderboard.Option {
	return []leaderboard.Option{leaderboard.WithNamespace(ns), leaderboard.WithLogger(b.log), leaderboard.WithSharedRoundTrips(b.o.shared)}
}

// pace is how hard a row drives its target: requests in flight at most,
// and the open loop's arrival rate (0: closed loop).
type pace struct {
	conc int
	rate float64
}

func (b *bench) spec(label, unit string, l pace) spec {
	b.seed++
	return spec{label: label, unit: unit, conc: l.conc, rate: l.rate, duration: b.o.duration / time.Duration(b.o.rounds), warmup: b.o.warmup, seed: b.seed}
}

// progress is where the per-second lines go: nowhere when quiet.
func (b *bench) progress() io.Writer {
	if b.o.quiet {
		return nil
	}
	return b.out
}

// redisCPU is Redis's CPU seconds so far (rdb's, every node's of a
// cluster; nil: the run's Redis), 0 if INFO fails (the report then shows a
// meaningless share rather than failing the run).
func (b *bench) redisCPU(ctx context.Context, rdb redis.UniversalClient) float64 {
	if rdb == nil {
		rdb = b.rdb
	}
	s, err := redisCPU(ctx, rdb)
	if err != nil {
		b.log.Warn("INFO cpu failed", "err", err)
	}
	return s
}

// dropNamespace deletes a namespace's keys, even after the run's context
// ended (Ctrl-C still cleans up).
func (b *bench) dropNamespace(ns string) { b.dropNamespaceOn(b.rdb, ns) }

// dropNamespaceOn is dropNamespace on rdb: the run's Redis or a cluster.
func (b *bench) dropNamespaceOn(rdb redis.UniversalClient, ns string) {
	b.rep.touched = append(b.rep.touched, ns)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var n int
	var err error
	switch c := rdb.(type) {
	case *redis.ClusterClient:
		n, err = deleteClusterNamespace(ctx, c, ns)
	case *redis.Client:
		n, err = deleteNamespace(ctx, c, ns)
	}
	if err != nil {
		fmt.Fprintf(b.out, "warning: deleting the keys of %s: %v (delete %s:* by hand)\n", ns, err, ns)
		return
	}
	fmt.Fprintf(b.out, "cleanup: unlinked %s keys of %s\n", thousands(float64(n)), ns)
}
