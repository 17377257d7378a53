package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/league-engine/league/leaderboard"
	"github.com/league-engine/league/league"
)

// options is one run of the harness, from the flags and the environment.
type options struct {
	workloads   []string
	vias        []string
	players     []int
	concurrency []int
	duration    time.Duration
	rounds      int // alternating baseline and workload turns per measurement
	warmup      time.Duration
	rates       []float64 // open loop: arrivals per second, each a row; 0 is closed loop
	batch       int
	baseline    bool
	// shared opens the engine WithSharedRoundTrips(shared). The EVALSHA
	// baseline is one plain round trip per call, the definition,
	// unless baselineAP sends it through go-redis's autopipeliner.
	shared     int
	baselineAP bool
	netHTTP    bool // load through net/http's client instead of wire.go's
	loaders    int  // goroutines that join players before a measurement

	redisURL    string
	databaseURL string
	httpURL     string // a running leagued; empty starts one in-process
	apiKey      string
	configPath  string // empty: the built-in league (leagueconf.go)
	leagueID    string
	guards      string // the league's guards on score writes (leagueconf.go)
	// leaderboardID is the leaderboard of the leagued at -http the lb
	// workloads drive; in this process they drive one the harness builds
	// (benchLeaderboardID).
	leaderboardID string
	allowRemote   bool
	// windows are the rolling windows lbwindow and lbscheme3 make a row
	// of each (rolling.go).
	windows []leaderboard.Window
	// limits are the counts of rate limits lbvote makes a row of each
	// (votes.go).
	limits []int
	// shards is the shard count of lbshards's and lbshardwrite's sharded
	// leaderboard (shards.go).
	shards int
	// clusterURL is a Redis Cluster lbshardwrite also writes to
	// (REDIS_CLUSTER_URL); empty: none.
	clusterURL string
	// burst is how long lbqueue's burst lasts, and burstFactor its rate
	// over the sustained direct write rate (queue.go).
	burst       time.Duration
	burstFactor float64
	drainers    int // engines looping Drain in lbqueue

	timeout    time.Duration
	cpuProfile string
	markdown   string // also write the result tables to this file
	quiet      bool   // no per-second progress lines
}

var (
	liveWorkloads = []string{"join", "score", "scorenorank", "standing", "board", "mix", "batch", "player", "lbwrite", "lbtop", "lbmember", "lbroll", "lbwindow", "lbscheme3", "lbvote", "httpfloor", "zaddfloor"}
	// runWorkloads each run apart from the live table's fixture, with
	// fixtures and tables of their own (some add rows to the live table).
	runWorkloads = []string{"memory", "settle", "stalls", "lbfill", "lbvotemem", "lbshards", "lbshardwrite", "lbqueue"}
	allWorkloads = append(slices.Clone(liveWorkloads), runWorkloads...)
	allVias      = []string{"lib", "http"}
)

const usage = `leaguebench measures the league engine and the leaderboards against plain
Redis commands on the same Redis, at the same concurrency, in the same run.
Results are ratios.

  leaguebench -workloads join,score,standing,board,mix -via lib,http -players 10000 -concurrency 32 -duration 10s
  leaguebench -workloads batch -via http
  leaguebench -workloads lbwrite,lbtop,lbmember -via lib,http   (the leaderboards)
  leaguebench -workloads score -via http -rate 8000        (open loop: p99 at a fixed arrival rate)
  leaguebench -workloads score -via http -rate 5k,10.5k,15k (p99 against load, baseline beside each)
  leaguebench -workloads lbroll,lbwindow,lbscheme3 -via lib -windows 7d,30d,365d   (rolling boards)
  leaguebench -workloads score -via lib -guards limits    (score writes through 3 guards)
  leaguebench -workloads lbvote -via lib -limits 0,1,4,12   (votes: limits and participants)
  leaguebench -workloads lbvotemem -players 1000000       (votes: limit counters' bytes per actor)
  leaguebench -workloads memory -players 1000000
  leaguebench -workloads lbfill -players 1000000          (rolling boards: bytes per member, pre-fill rate)
  leaguebench -workloads lbshards -players 10m -shards 16  (one board in 16 shards or one key: bytes, top 100, rank)
  leaguebench -workloads lbshardwrite -concurrency 32,64   (writes, 16 shards against 1; also on REDIS_CLUSTER_URL)
  leaguebench -workloads lbqueue -burst 30s -burst-factor 5 -drainers 3   (a queued leaderboard: a burst, the drain)
  leaguebench -workloads settle -players 100000,1000000    (needs DATABASE_URL)
  leaguebench -workloads stalls -duration 10s              (the machine's own scheduling gaps)
  leaguebench -workloads score,zaddfloor -via lib,http     (score writes beside the least Redis can spend on one)
  leaguebench -http URL -workloads score,httpfloor -via http   (leagued beside the least net/http can spend on a write)

Workloads: join, score, scorenorank (score's write with ?rank=false: no
rank read), standing, board, mix (70% score writes, 25% standings,
5% boards), batch (score writes, -batch per request, against single writes),
player (HTTP GET of a player: standing, pending rewards and history), memory,
settle, stalls (threads that only read the clock, alone and one per CPU: how
long the machine keeps a runnable thread off a CPU). The floors (floor.go),
each the least an operation can cost on this machine with none of the
product's work: httpfloor (http only: score's requests, byte for byte, to
net/http's server in a process of its own that reads, decodes and answers
them with a score reply's bytes and no engine; its CPU is in the leagued
µs/op column, the least any leagued on net/http spends on a write), zaddfloor
(lib only: an EVALSHA of a script doing only the ZADD XX INCR every score
write makes, on a board of 100: the Redis ratio no score write can go under). The leaderboards (a
leaderboard "bench" of hour, day, week, month and all-time boards, incr, built
in this process; -leaderboard at -http), every board holding -players members
first: lbwrite (a write of 1..10 to every board at once), lbtop (the top 100 of
the day board), lbmember (a member on every board). The rolling boards (rolling.go, each
leaderboard pre-filled, then -players members written): lbroll (a write to
hour, day, week, month, all time and rolling 7d and 30d at once; http only
to the in-process leagued), lbwindow (a write to one rolling window alone, a
row per -windows), lbscheme3 (seed 001's scheme 3 for comparison: ZINCRBY of
the N rolling boards a write belongs to, plain Redis, a row per -windows);
lbfill (not live: -players members written to a leaderboard of a day board
and a 7d window, by a clock the harness moves; Redis bytes per member of each
board, then the pre-fill of the next board from the previous one and from
the buckets, members/s). Votes (votes.go): lbvote (a vote of 1 from one of
-players actors to one of 100 candidates on hour, day, week, month and all
time, adding the actor to the day's participants of the leaderboard and the
candidate, and checking and consuming n rate limits, a row per -limits);
lbvotemem (not live: -players votes from as many actors through 4 limits per
day; bytes per actor of their counters). Sharded leaderboards and the queue
(shards.go, queue.go): lbshards (not live: -players members in a leaderboard
of -shards shards and in one of a single key, an all-time board each,
written by pipelined ZADDs straight into the keys the engine reads; Redis
bytes per member of each, then at each -concurrency the top 100 (Engine.Top)
and a member's exact rank (Engine.Member) of each, beside ZREVRANGE 0 99
WITHSCORES and ZREVRANK of the single key); lbshardwrite (lbwrite's write to
a leaderboard of -shards shards beside the same write to one of 1 shard, at
each -concurrency, -players members each first; on REDIS_URL, then on the
Redis Cluster REDIS_CLUSTER_URL names, if any, with each node's share of
the keys, the members and the writes); lbqueue (not live: lbwrite's write
through Engine.Write, closed loop at the highest -concurrency, gives the
sustained direct rate; then, while -drainers engines loop Drain as that many
replicas' schedulers would, Enqueue of one write at a time at -burst-factor
times that rate for -burst, open loop, as many in flight as that -concurrency
at most, nothing sent after -burst; enqueue latency, refusals (max_lag is
10,000,000), the time to drain after the burst, and writes accepted against
applied).

Baselines: EVALSHA of a trivial script, one plain round trip each
(-baseline-autopipelined sends it through an autopipeliner instead), and
ZREVRANGE 0 99 WITHSCORES of a 100-member sorted set; lbtop's is ZREVRANGE 0
99 WITHSCORES of a sorted set the size of the day board it reads.
Environment: REDIS_URL (required; a real Redis), DATABASE_URL (settle; the
in-process server's store, else memory), REDIS_CLUSTER_URL (lbshardwrite's
cluster, in go-redis's form redis://host:port?addr=host2:port&addr=host3:port),
LEAGUE_API_KEY (the key for a leagued at -http that has keys; or -api-key).
Targets must be on loopback unless -allow-remote.

Every row reports CPU microseconds per op, workload / baseline: Redis's
(INFO cpu) and the product's. With -http, leagued's own CPU is read from its
public /metrics (process_cpu_seconds_total) around each turn; without, the
product runs in this process, so its column is this process's CPU
(load generator included).

Flags:
`

// parseOptions reads the flags; getenv supplies REDIS_URL and DATABASE_URL.
func parseOptions(args []string, getenv func(string) string, stderr io.Writer) (options, error) {
	fs := flag.NewFlagSet("leaguebench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	var o options
	workloads := fs.String("workloads", "join,score,standing,board,mix", "workloads to run, comma-separated: "+strings.Join(allWorkloads, ","))
	vias := fs.String("via", "lib,http", "lib (the league package), http (the API), or both")
	players := fs.String("players", "10000", "players joined (and leaderboard members written, for the lb workloads) before measuring; a list runs each size")
	conc := fs.String("concurrency", "32", "requests in flight; a list runs each level")
	fs.DurationVar(&o.duration, "duration", 10*time.Second, "length of each measurement (and of its baseline)")
	fs.IntVar(&o.rounds, "rounds", 4, "split -duration into this many alternating turns of baseline and workload, so both meet the same noise")
	fs.DurationVar(&o.warmup, "warmup", time.Second, "unmeasured run before each measurement")
	rates := fs.String("rate", "0", "open loop: fixed arrival rate in ops/s, latency from the scheduled send time; a list runs each rate; 0 = closed loop")
	fs.IntVar(&o.batch, "batch", 100, "score writes per batch request")
	fs.BoolVar(&o.baseline, "baseline", true, "measure the plain-Redis baseline of each workload")
	fs.IntVar(&o.shared, "shared", league.DefaultSharedRoundTrips, "open the engine with league.WithSharedRoundTrips(n): calls of concurrent goroutines share at most n pipelines in flight; 0 = one round trip per call")
	fs.BoolVar(&o.netHTTP, "net-http-client", false, "send HTTP load through net/http's client instead of the lean keep-alive client (wire.go), for comparison")
	fs.BoolVar(&o.baselineAP, "baseline-autopipelined", false, "send the EVALSHA baseline through go-redis's autopipeliner instead of one round trip each")
	fs.IntVar(&o.loaders, "loaders", 64, "goroutines that join players (and write settle's scores) before measuring")
	fs.StringVar(&o.httpURL, "http", "", "base URL of a running leagued, whose CPU per op is read from its /metrics (default: start one in-process on 127.0.0.1:0)")
	fs.StringVar(&o.apiKey, "api-key", "", "API key for a leagued at -http that has keys, sent as X-API-Key (default $LEAGUE_API_KEY)")
	fs.StringVar(&o.configPath, "config", "", "league config file (default: the built-in copy of config.yaml's weekly league)")
	fs.StringVar(&o.leagueID, "league", "weekly", "league to measure")
	fs.StringVar(&o.guards, "guards", guardsConfig, "the league's guards on score writes: config (as configured; the built-in league has none), none, or limits (a limit by player per minute, one by key per second and max_gain_per day, none of them reached: every write checks and consumes 3 counters)")
	fs.StringVar(&o.leaderboardID, "leaderboard", "kills", "leaderboard of the leagued at -http the lb workloads drive (config.yaml's kills); in this process they drive one the harness builds, "+strconv.Quote(benchLeaderboardID))
	limits := fs.String("limits", "0,1,4,12", "rate limits each lbvote checks and consumes, 0..12, a row each")
	windows := fs.String("windows", "7d,30d,365d", "rolling windows lbwindow and lbscheme3 measure, a row each: N days or hours, as 7d or 24h")
	fs.IntVar(&o.shards, "shards", 16, "shards of the sharded leaderboard lbshards and lbshardwrite hold beside one of a single shard")
	fs.DurationVar(&o.burst, "burst", 30*time.Second, "how long lbqueue's write burst lasts")
	fs.Float64Var(&o.burstFactor, "burst-factor", 5, "lbqueue's burst rate, as a multiple of the sustained direct write rate measured first")
	fs.IntVar(&o.drainers, "drainers", 3, "engines looping Drain during lbqueue, as that many replicas' schedulers")
	fs.BoolVar(&o.allowRemote, "allow-remote", false, "allow Redis, Postgres and -http targets that are not on loopback")
	fs.DurationVar(&o.timeout, "timeout", 30*time.Minute, "give up (and clean up) after this long")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of the harness (and the in-process server) here")
	fs.StringVar(&o.markdown, "markdown", "", "also write the result tables to this file")
	fs.BoolVar(&o.quiet, "quiet", false, "no progress line every second")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	var err error
	if o.workloads, err = pick("workloads", *workloads, allWorkloads); err != nil {
		return o, err
	}
	if o.vias, err = pick("via", *vias, allVias); err != nil {
		return o, err
	}
	if o.players, err = ints("players", *players, 1); err != nil {
		return o, err
	}
	if o.concurrency, err = ints("concurrency", *conc, 1); err != nil {
		return o, err
	}
	if o.rates, err = floats("rate", *rates); err != nil {
		return o, err
	}
	if o.windows, err = parseWindows(*windows); err != nil {
		return o, err
	}
	if o.limits, err = parseLimits(*limits); err != nil {
		return o, err
	}
	if !slices.Contains(guardSets, o.guards) {
		return o, fmt.Errorf("-guards: unknown %q; known: %s", o.guards, strings.Join(guardSets, ","))
	}
	switch {
	case o.duration <= 0:
		return o, errors.New("-duration must be positive")
	case o.rounds < 1 || time.Duration(o.rounds) > o.duration/(100*time.Millisecond):
		return o, errors.New("-rounds must be 1 or more, and leave each turn at least 100ms of -duration")
	case o.warmup < 0:
		return o, errors.New("-warmup must not be negative")
	case o.batch < 1 || o.batch > 1000:
		return o, errors.New("-batch must be 1..1000")
	case o.loaders < 1:
		return o, errors.New("-loaders must be positive")
	case o.shards < 2 || o.shards > leaderboard.MaxShards:
		return o, fmt.Errorf("-shards must be 2..%d", leaderboard.MaxShards)
	case o.burst <= 0 || o.burstFactor <= 0 || o.drainers < 1:
		return o, errors.New("-burst, -burst-factor and -drainers must be positive")
	}
	o.redisURL = getenv("REDIS_URL")
	o.databaseURL = getenv("DATABASE_URL")
	o.clusterURL = getenv("REDIS_CLUSTER_URL")
	if o.apiKey == "" {
		o.apiKey = getenv("LEAGUE_API_KEY")
	}
	if o.redisURL == "" {
		return o, errors.New("REDIS_URL is required: the harness measures a real Redis (not the embedded miniredis), e.g. REDIS_URL=redis://127.0.0.1:6379/0")
	}
	if slices.Contains(o.workloads, "settle") && o.databaseURL == "" {
		return o, errors.New("settle needs DATABASE_URL, e.g. DATABASE_URL=postgres://127.0.0.1:5432/test?sslmode=disable")
	}
	return o, nil
}

// pick splits a comma-separated list and checks each item is known.
func pick(flagName, list string, known []string) ([]string, error) {
	var out []string
	for item := range strings.SplitSeq(list, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		if !slices.Contains(known, item) {
			return nil, fmt.Errorf("-%s: unknown %q; known: %s", flagName, item, strings.Join(known, ","))
		}
		if !slices.Contains(out, item) {
			out = append(out, item)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("-%s: empty", flagName)
	}
	return out, nil
}

// floats parses a comma-separated list of numbers >= 0; "10.5k" is 10500.
func floats(flagName, list string) ([]float64, error) {
	var out []float64
	for item := range strings.SplitSeq(list, ",") {
		item = strings.ToLower(strings.TrimSpace(item))
		mult := 1.0
		if strings.HasSuffix(item, "k") {
			mult, item = 1000, strings.TrimSuffix(item, "k")
		}
		f, err := strconv.ParseFloat(item, 64)
		if err != nil || f < 0 || math.IsInf(f*mult, 0) || math.IsNaN(f) {
			return nil, fmt.Errorf("-%s: %q is not a number >= 0", flagName, item)
		}
		out = append(out, f*mult)
	}
	return out, nil
}

// ints parses a comma-separated list of integers >= least; "1m" and "100k"
// are accepted for players.
func ints(flagName, list string, least int) ([]int, error) {
	var out []int
	for item := range strings.SplitSeq(list, ",") {
		item = strings.ToLower(strings.TrimSpace(item))
		mult := 1
		switch {
		case strings.HasSuffix(item, "k"):
			mult, item = 1000, strings.TrimSuffix(item, "k")
		case strings.HasSuffix(item, "m"):
			mult, item = 1000000, strings.TrimSuffix(item, "m")
		}
		n, err := strconv.Atoi(item)
		if err != nil || n*mult < least {
			return nil, fmt.Errorf("-%s: %q is not a whole number >= %d", flagName, item, least)
		}
		out = append(out, n*mult)
	}
	return out, nil
}

// parseLimits parses -limits: counts of lbvote's rate limits, 0..12.
func parseLimits(list string) ([]int, error) {
	var out []int
	for s := range strings.SplitSeq(list, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 || n > maxVoteLimits {
			return nil, fmt.Errorf("-limits: %q is not a count of limits from 0 to %d", s, maxVoteLimits)
		}
		if slices.Contains(out, n) {
			return nil, fmt.Errorf("-limits: %d is listed twice", n)
		}
		out = append(out, n)
	}
	if len(out) == 0 {
		return nil, errors.New("-limits: empty")
	}
	return out, nil
}
