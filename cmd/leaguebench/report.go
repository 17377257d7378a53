package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// report is everything a run measured, printed at the end as markdown
// tables ready for BENCHMARKS.md.
type report struct {
	env string // Redis version, CPUs, server: what the numbers were taken on
	// touched are the Redis namespaces the run used (and deleted); its
	// Postgres schemas are the same names with _ for -.
	touched []string
	rows    []*row
	memory  []memoryResult
	settle  []settleResult
	stalls  []stallResult
	fills   []fillResult // lbfill (lbfill.go)
	votes   []voteMemory // lbvotemem (votes.go)
	// lbshards's and lbshardwrite's (shards.go, cluster.go), lbqueue's
	// (queue.go)
	shardMems []shardMemory
	shares    []clusterShare
	queues    []*queueResult
}

// row is a workload beside its baseline.
type row struct {
	workload, via string
	players       int
	perUnit       bool // the workload's latency compares with its baseline's
	work          *measurement
	base          *measurement // nil with -baseline=false
	baseLabel     string
	// separate is true when the target is a leagued in another process
	// (-http): its CPU is its own, and this process's is the load's alone.
	separate bool
}

// opsRatio is the workload's rate over its baseline's; NaN without one.
func (r *row) opsRatio() float64 {
	if r.base == nil || r.base.perSecond() == 0 {
		return math.NaN()
	}
	return r.work.perSecond() / r.base.perSecond()
}

// p99Ratio is the workload's p99 over its baseline's; NaN without one or
// for batches.
func (r *row) p99Ratio() float64 {
	if r.base == nil || !r.perUnit || r.base.latency.quantile(0.99) == 0 {
		return math.NaN()
	}
	return float64(r.work.latency.quantile(0.99)) / float64(r.base.latency.quantile(0.99))
}

func (r *row) summary() string {
	w := r.work
	s := fmt.Sprintf("%s/%s: %s %s/s, p50 %s p99 %s p99.9 %s, %d errors", r.workload, r.via,
		thousands(w.perSecond()), w.unit, duration(w.latency.quantile(0.5)), duration(w.latency.quantile(0.99)),
		duration(w.latency.quantile(0.999)), w.errs.count())
	if r.base != nil {
		s += fmt.Sprintf("; baseline (%s) %s/s p99 %s: %s of its rate", r.baseLabel,
			thousands(r.base.perSecond()), duration(r.base.latency.quantile(0.99)), ratio(r.opsRatio()))
	}
	return s
}

// scopes is where the product ran in a table's rows, which decides the
// CPU-per-op columns the table needs.
type scopes struct {
	inProcess bool // a lib row, or http to the in-process leagued
	separate  bool // http to the leagued at -http, or to the floor server
	leagued   bool // http to the leagued at -http
	floor     bool // an httpfloor row: the floor server's CPU in the leagued column
}

func scopesOf(rows []*row) scopes {
	var sc scopes
	for _, r := range rows {
		floor := r.workload == "httpfloor"
		sc.floor = sc.floor || floor
		sc.leagued = sc.leagued || r.separate && !floor
		if r.separate {
			sc.separate = true
		} else {
			sc.inProcess = true
		}
	}
	return sc
}

func liveColumns(openLoop bool, sc scopes) []column[*row] {
	q := func(m *measurement, p float64) string {
		if m == nil {
			return "-"
		}
		return duration(m.latency.quantile(p))
	}
	rate := func(m *measurement) string {
		if m == nil {
			return "-"
		}
		return thousands(m.perSecond())
	}
	cols := []column[*row]{
		{"workload", false, func(r *row) string { return r.workload }},
		{"via", false, func(r *row) string { return r.via }},
		{"players", true, func(r *row) string { return thousands(float64(r.players)) }},
		{"conc", true, func(r *row) string { return strconv.Itoa(r.work.conc) }},
	}
	// openOnly is a cell of the open-loop columns: "-" on a closed-loop row
	// of the same table (-rate 0,10000).
	openOnly := func(cell func(r *row) string) func(r *row) string {
		return func(r *row) string {
			if r.work.rate == 0 {
				return "-"
			}
			return cell(r)
		}
	}
	if openLoop {
		cols = append(cols, column[*row]{"target/s", true, openOnly(func(r *row) string { return thousands(r.work.rate) })})
	}
	cols = append(cols,
		column[*row]{"ops/s", true, func(r *row) string {
			if r.work.unit != "ops" {
				return rate(r.work) + " " + r.work.unit
			}
			return rate(r.work)
		}},
		column[*row]{"p50", true, func(r *row) string { return q(r.work, 0.5) }},
		column[*row]{"p99", true, func(r *row) string { return q(r.work, 0.99) }},
		column[*row]{"p99.9", true, func(r *row) string { return q(r.work, 0.999) }},
	)
	if openLoop {
		cols = append(cols,
			column[*row]{"p99 from send", true, openOnly(func(r *row) string { return duration(r.work.service.quantile(0.99)) })},
			column[*row]{"send lag p50/p99", true, openOnly(func(r *row) string {
				return duration(r.work.lag.quantile(0.5)) + " / " + duration(r.work.lag.quantile(0.99))
			})},
		)
	}
	cols = append(cols,
		column[*row]{"errors", true, func(r *row) string { return strconv.FormatUint(r.work.errs.count(), 10) }},
		column[*row]{"baseline", false, func(r *row) string { return r.baseLabel }},
		column[*row]{"base ops/s", true, func(r *row) string { return rate(r.base) }},
		column[*row]{"base p50", true, func(r *row) string { return q(r.base, 0.5) }},
		column[*row]{"base p99", true, func(r *row) string { return q(r.base, 0.99) }},
		column[*row]{"base p99.9", true, func(r *row) string { return q(r.base, 0.999) }},
		column[*row]{"ops/s vs base", true, func(r *row) string { return ratio(r.opsRatio()) }},
		column[*row]{"p99 vs base", true, func(r *row) string { return ratio(r.p99Ratio()) }},
		column[*row]{"Redis CPU", true, func(r *row) string {
			return cpuPair(r.work, r.base, func(m *measurement) float64 { return m.redisCores() })
		}},
		column[*row]{"Redis µs/op", true, func(r *row) string { return cpuPerUnit(r, redisSecs) }},
	)
	cols = append(cols, perOpColumns(sc)...)
	return append(cols, column[*row]{"bench CPU", true, func(r *row) string {
		return cpuPair(r.work, r.base, func(m *measurement) float64 { return m.procCores() })
	}})
}

// perOpColumns are the product's CPU per op, under a header that says
// whose CPU it is: a leagued of its own reports its process's (its
// /metrics), while a product in this process can only be read together
// with the load generator beside it. Each column is there only when some
// row fills it, and shows "-" on the others.
func perOpColumns(sc scopes) []column[*row] {
	only := func(separate bool, secs func(*measurement) (float64, bool)) func(*row) string {
		return func(r *row) string {
			if r.separate != separate {
				return "-"
			}
			return cpuPerUnit(r, secs)
		}
	}
	var cols []column[*row]
	if sc.separate {
		cols = append(cols, column[*row]{leaguedHead, true, only(true, leaguedSecs)})
	}
	if sc.inProcess {
		cols = append(cols, column[*row]{inProcessHead, true, only(false, procSecs)})
	}
	if sc.separate {
		cols = append(cols, column[*row]{loadHead, true, only(true, procSecs)})
	}
	return cols
}

const (
	leaguedHead   = "leagued µs/op"
	inProcessHead = "bench µs/op (server+load)"
	loadHead      = "bench µs/op (load)"
)

// The CPU seconds a measurement's columns divide; false when unknown.
func redisSecs(m *measurement) (float64, bool)   { return m.redisSecs, true }
func procSecs(m *measurement) (float64, bool)    { return m.procSecs, true }
func leaguedSecs(m *measurement) (float64, bool) { return m.leagued.total() }

// cpuPair is "workload / baseline" cores.
func cpuPair(work, base *measurement, of func(*measurement) float64) string {
	s := fmt.Sprintf("%.2f", of(work))
	if base != nil {
		s += fmt.Sprintf(" / %.2f", of(base))
	}
	return s
}

// microsPer is secs of CPU per unit, in microseconds: what a unit costs
// whatever the rate, so it holds when a noisy machine moves the rate. NaN
// with no units.
func microsPer(secs float64, units uint64) float64 {
	if units == 0 {
		return math.NaN()
	}
	return secs / float64(units) * 1e6
}

// cpuPerUnit is a "workload / baseline" cell of CPU microseconds per unit,
// secs giving a measurement's CPU seconds; "-" for a side unknown or that
// did nothing. A batch row counts writes (its baseline is single writes),
// so its cell says "per write" rather than pass for per request.
func cpuPerUnit(r *row, secs func(*measurement) (float64, bool)) string {
	side := func(m *measurement) string {
		s, ok := secs(m)
		us := microsPer(s, m.units.Load())
		if !ok || math.IsNaN(us) {
			return "-"
		}
		return fmt.Sprintf("%.1f", us)
	}
	s := side(r.work)
	if r.base != nil {
		s += " / " + side(r.base)
	}
	if r.work.unit != "ops" {
		s += " per " + strings.TrimSuffix(r.work.unit, "s")
	}
	return s
}

// perOpNote explains the CPU-per-op columns the table has.
func perOpNote(sc scopes) string {
	s := "µs/op columns are CPU microseconds per completed op (per write on batch rows: a request carries -batch writes)"
	if sc.leagued {
		s += "; " + leaguedHead + " is the leagued at -http alone (" + cpuMetric + " on its /metrics, read around each turn), " +
			loadHead + " this process, the load generator alone"
	}
	if sc.separate && !sc.leagued {
		s += "; " + loadHead + " is this process, the load generator alone"
	}
	if sc.floor {
		s += "; on httpfloor rows " + leaguedHead + " is the floor server's: net/http reading, decoding and answering " +
			"the score workload's requests with no engine behind it (floor.go), the least a leagued on net/http spends on one"
	}
	if sc.inProcess {
		s += "; " + inProcessHead + " is this process, which holds the load generator as well as the product " +
			"(the league or leaderboard package on lib rows, the in-process leagued on http rows), so it is not leagued's alone"
	}
	return s + "."
}

var memoryColumns = []column[memoryResult]{
	{"players", true, func(m memoryResult) string { return thousands(float64(m.players)) }},
	{"used_memory Δ", true, func(m memoryResult) string { return bytesIEC(m.after - m.before) }},
	{"B/player (INFO)", true, func(m memoryResult) string { return fmt.Sprintf("%.1f", float64(m.after-m.before)/float64(m.players)) }},
	{"keys (MEMORY USAGE)", true, func(m memoryResult) string { return bytesIEC(m.keyBytes()) }},
	{"B/player (keys)", true, func(m memoryResult) string { return fmt.Sprintf("%.1f", float64(m.keyBytes())/float64(m.players)) }},
	{"boards", true, func(m memoryResult) string { return m.kindCell("b") }},
	{"names", true, func(m memoryResult) string { return m.kindCell("i") }},
	{"records", true, func(m memoryResult) string { return m.kindCell("r") }},
	{"other", true, func(m memoryResult) string { return m.kindCell("other") }},
	{"buckets", true, func(m memoryResult) string { return strconv.Itoa(m.buckets) }},
}

// kindCell is "<B/player> (<keys> keys, <encoding>)" of one kind of key.
func (m memoryResult) kindCell(kind string) string {
	k := m.kinds[kind]
	if k == nil {
		return "-"
	}
	return fmt.Sprintf("%.1f B/player (%s keys, %s)", float64(k.bytes)/float64(m.players), thousands(float64(k.keys)), k.encoding)
}

// settleColumns has a column per step (settle.go's settleSteps).
func settleColumns() []column[settleResult] {
	cols := []column[settleResult]{
		{"players", true, func(r settleResult) string { return thousands(float64(r.players)) }},
		{"setup: joins/s", true, func(r settleResult) string { return thousands(float64(r.players) / r.join.Seconds()) }},
		{"setup: writes/s", true, func(r settleResult) string { return thousands(float64(r.players) / r.scores.Seconds()) }},
	}
	for i, s := range settleSteps {
		cols = append(cols, column[settleResult]{s.name, true, func(r settleResult) string {
			if i >= len(r.steps) || r.steps[i].took < 0 {
				return "-"
			}
			return seconds(r.steps[i].took)
		}})
	}
	return append(cols,
		column[settleResult]{"settle total", true, func(r settleResult) string { return seconds(r.total) }},
		column[settleResult]{"players/s", true, func(r settleResult) string { return thousands(r.rate()) }},
		column[settleResult]{"settle µs/player Redis + bench", true, func(r settleResult) string { return r.settleCPU.perPlayer(r.players) }},
		column[settleResult]{"restore", true, func(r settleResult) string { return seconds(r.restore) }},
		column[settleResult]{"restore players/s", true, func(r settleResult) string {
			return thousands(float64(r.players) / r.restore.Seconds())
		}},
		column[settleResult]{"restore µs/player Redis + bench", true, func(r settleResult) string { return r.restoreCPU.perPlayer(r.players) }},
	)
}

// write prints the tables and the errors the runs hit.
func (rep *report) write(w io.Writer) {
	fmt.Fprintf(w, "\n## Results\n\n%s\n", rep.env)
	if len(rep.rows) > 0 {
		openLoop := slices.ContainsFunc(rep.rows, func(r *row) bool { return r.work.rate > 0 })
		sc := scopesOf(rep.rows)
		fmt.Fprintf(w, "\n%s", table(liveColumns(openLoop, sc), rep.rows))
		fmt.Fprintln(w, "\nRatios are against the baseline measured in alternating turns with the workload (-rounds), same Redis, same concurrency. CPU columns are workload / baseline: cores busy (1.00 is one core flat out) and Redis CPU per op (INFO cpu, so other clients of the same Redis count too); bench CPU is this process (load generator and, in-process, the server).")
		fmt.Fprintln(w, perOpNote(sc))
		for _, r := range rep.rows {
			for _, m := range []*measurement{r.base, r.work} {
				if m != nil && m.errs.count() > 0 {
					fmt.Fprintf(w, "\n%s: %d errors, first distinct:\n", m.label, m.errs.count())
					for _, msg := range m.errs.messages() {
						fmt.Fprintf(w, "  - %s\n", msg)
					}
				}
			}
		}
	}
	if len(rep.memory) > 0 {
		fmt.Fprintf(w, "\n### Memory per joined player\n\n%s", table(memoryColumns, rep.memory))
		fmt.Fprintln(w, "\nused_memory Δ counts all of Redis over the joins (other clients included); MEMORY USAGE sums only this run's keys.")
	}
	if len(rep.settle) > 0 {
		fmt.Fprintf(w, "\n### Settlement\n\n%s", table(settleColumns(), rep.settle))
		fmt.Fprintln(w, "\nSteps as the scheduler reports them (read+decide \"-\": counted in the write); players/s is over the whole SettleNow, set-up excluded. µs/player is CPU microseconds per player, Redis's (INFO cpu) + this process's (engine and scheduler); Postgres's is not counted.")
	}
	for _, f := range rep.fills {
		fmt.Fprintf(w, "\n### Rolling boards at %s members: memory\n\n%s", thousands(float64(f.members)), table(fillMemoryColumns, f.boards))
		fmt.Fprintf(w, "\nMEMORY USAGE with SAMPLES 0 (every element) of each board after %s members wrote once each (day board and rolling %s, incr, ties by member id, 12-character members); INFO used_memory grew %s over the writes: %.1f B a member a board over the 4 boards (other clients of the same Redis included).\n",
			thousands(float64(f.members)), fillWindow.Kind(), bytesIEC(f.after-f.before), float64(f.after-f.before)/float64(4*f.members))
		fmt.Fprintf(w, "\n### Rolling boards at %s members: pre-fill\n\n%s", thousands(float64(f.members)), table(fillRunColumns, f.fills))
		fmt.Fprintf(w, "\nThe members were written at %s/s (WriteBatch of 1000). previous: S(D+2) from S(D+1) at the start of D+1, every member carried over; buckets: the same board from its %d buckets (all members in one), its previous board unfilled. Redis CPU is cores busy over the fill (INFO cpu); bench is this process (the engine's calls).\n",
			thousands(float64(f.members)/f.write.Seconds()), fillWindow.N)
	}
	for _, v := range rep.votes {
		fmt.Fprintf(w, "\n### Votes at %s actors: rate-limit counters\n\n%s", thousands(float64(v.actors)), table(voteMemoryColumns, v.limits))
		fmt.Fprintf(w, "\n%s votes, one from each actor (WriteBatch of 1000, %s/s), through a day board and 4 limits per day. MEMORY USAGE (SAMPLES 0) of up to %d counters a limit, times its counters: %.1f B an actor; INFO used_memory grew %s over the votes: %.1f B an actor (the day board, the key expiries and other clients of the same Redis included).\n",
			thousands(float64(v.actors)), thousands(float64(v.actors)/v.write.Seconds()), voteMemSample, v.keyBytes()/float64(v.actors), bytesIEC(v.after-v.before), float64(v.after-v.before)/float64(v.actors))
	}
	if len(rep.shardMems) > 0 {
		fmt.Fprintf(w, "\n### Sharded leaderboards: memory\n\n%s", table(shardMemoryColumns, rep.shardMems))
		fmt.Fprintln(w, "\nAn all-time board alone, incr, ties by member id, 12-character members, scores 1..1,000,000; filled by pipelined ZADDs straight into the keys the engine reads, not through the engine's write. used_memory Δ is INFO's growth over each fill (other clients of the same Redis included); MEMORY USAGE is SAMPLES 0 of every shard's key, summed.")
	}
	for _, s := range rep.shares {
		fmt.Fprintf(w, "\n### A leaderboard of %s on a %d-node cluster: each node's share\n\n%s", shardsName(s.shards), len(s.nodes), table(shareColumns(s), shareCounts))
		fmt.Fprintf(w, "\nShards by the slot of each shard's hash tag; keys by SCAN (boards and request ids); members of the all-time boards by ZCARD; writes are the EVALSHA calls each node served (INFO commandstats) over %s of writes to this leaderboard alone, %d in flight. With each node a core of its own, the busiest node bounds the cluster at %.2f× one node's write rate (writes / the busiest node's).\n",
			seconds(s.pass), s.conc, s.predicted())
	}
	for _, q := range rep.queues {
		fmt.Fprintf(w, "\n### A queued leaderboard: a burst of writes\n\n%s", table(queueColumns, queueRows(q)))
		fmt.Fprintln(w, "\nThe leaderboard: five boards (hour, day, week, month, all time), one shard, every write 1..10 with a fresh request id. Enqueue latency counts from each write's scheduled time (open loop), so a burst faster than Redis takes shows as latency, not as fewer writes; from the actual send is what a caller in flight waited. Applied is Drain's count; the all-time board's growth must equal the values accepted.")
	}
	if len(rep.stalls) > 0 {
		fmt.Fprintf(w, "\n### Machine stalls\n\n%s", table(stallColumns, rep.stalls))
		fmt.Fprintln(w, "\nThreads that only read the clock, each on its own OS thread: a gap between two readings is time the thread wanted a CPU and did not have one.")
	}
}
