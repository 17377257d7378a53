package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/redis/go-redis/v9"

	"github.com/league-engine/league/config"
	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/leaderboard"
	"github.com/league-engine/league/league"
)

// TestSmoke runs every workload through every target briefly against the
// real Redis and Postgres (REDIS_URL, DATABASE_URL; see internal/testsvc),
// so CI catches a harness that no longer runs. It checks that each ran
// without errors and cleaned up, not how fast.
func TestSmoke(t *testing.T) {
	o := smokeOptions()
	o.workloads = allWorkloads
	rep, out := smokeRun(t, o)
	// player and httpfloor run through http only, zaddfloor through lib
	// only, lbwindow and lbscheme3 through lib only, a row per window,
	// and lbvote through lib only, a row per count of limits; lbshards
	// makes 4 rows, lbshardwrite 1 (and 1 on the cluster), lbqueue 1.
	clusterRows := 0
	if o.clusterURL != "" {
		clusterRows = 1
	}
	if got, want := len(rep.rows), 2*(len(liveWorkloads)-6)+3+2*len(o.windows)+len(o.limits)+4+1+clusterRows+1; got != want {
		t.Errorf("got %d workload rows, want %d", got, want)
	}
	for _, r := range rep.rows {
		for _, m := range []*measurement{r.base, r.work} {
			if m == nil {
				t.Errorf("%s/%s: no baseline", r.workload, r.via)
				continue
			}
			if m.units.Load() == 0 || m.latency.count() == 0 {
				t.Errorf("%s: did nothing", m.label)
			}
			if n := m.errs.count(); n > 0 {
				t.Errorf("%s: %d errors: %q", m.label, n, m.errs.messages())
			}
			if r.workload == "httpfloor" {
				// the floor server is a process of its own: its CPU is
				// read from its /metrics, as a separate leagued's (and
				// is next to nothing in the baseline's turns)
				if s, ok := m.leagued.total(); m == r.work && (!r.separate || !ok || s <= 0) {
					t.Errorf("%s: floor server's CPU %v (read %v, separate %v), want some", m.label, s, ok, r.separate)
				}
			} else if m.procSecs <= 0 || r.separate {
				t.Errorf("%s: %v CPU seconds in this process (separate %v), want some from the in-process product", m.label, m.procSecs, r.separate)
			}
		}
	}
	if len(rep.memory) != 1 {
		t.Fatalf("got %d memory results, want 1", len(rep.memory))
	}
	for _, kind := range []string{"b", "i", "r"} {
		if k := rep.memory[0].kinds[kind]; k == nil || k.encoding != "listpack" {
			t.Errorf("memory: %s keys: got %+v, want listpack-encoded keys", kindNames[kind], k)
		}
	}
	if len(rep.settle) != 1 || rep.settle[0].settlement.Players != o.players[0] {
		t.Errorf("settle: got %+v, want one settlement of %d players", rep.settle, o.players[0])
	}
	if s := rep.settle[0].settleCPU; s.proc <= 0 || s.redis <= 0 {
		t.Errorf("settle: CPU %+v, want some in this process and in Redis", s)
	}
	if len(rep.fills) != 1 || rep.fills[0].members != o.players[0] || len(rep.fills[0].boards) != 4 || len(rep.fills[0].fills) != 2 {
		t.Errorf("lbfill: got %+v, want 4 boards of %d members and 2 fills", rep.fills, o.players[0])
	}
	if len(rep.votes) != 1 || rep.votes[0].actors != o.players[0] || len(rep.votes[0].limits) != 4 || rep.votes[0].keyBytes() <= 0 {
		t.Errorf("lbvotemem: got %+v, want the counters of 4 limits at %d actors", rep.votes, o.players[0])
	}
	if len(rep.shardMems) != 2 || rep.shardMems[0].shards != o.shards || rep.shardMems[1].shards != 1 || rep.shardMems[0].usage <= 0 {
		t.Errorf("lbshards: got %+v, want the memory of %d shards, then of 1", rep.shardMems, o.shards)
	}
	if len(rep.queues) != 1 {
		t.Fatalf("lbqueue: got %d results, want 1", len(rep.queues))
	}
	if q := rep.queues[0]; q.accepted.Load() == 0 || q.lost() != 0 || q.refused.Load() != 0 || q.failed.Load() != 0 || q.boardGrowth != q.valuesIn.Load() {
		t.Errorf("lbqueue: %s; board growth %d, values accepted %d: want writes accepted, none refused or lost", q.summary(), q.boardGrowth, q.valuesIn.Load())
	}
	if o.clusterURL != "" {
		if len(rep.shares) != 2 || sum(rep.shares[1].counts["shards"]) != int64(o.shards) || sum(rep.shares[1].counts["writes"]) == 0 {
			t.Errorf("lbshardwrite on the cluster: got %+v, want the shares of 1 shard and of %d", rep.shares, o.shards)
		}
	}
	for _, r := range rep.rows {
		// The day board holds every member written before measuring, and
		// lbtop's baseline a set of as many.
		if want := zrevrangeLabel + " of 300"; r.workload == "lbtop" && r.baseLabel != want {
			t.Errorf("lbtop/%s: baseline %q, want %q", r.via, r.baseLabel, want)
		}
	}
	for _, want := range []string{"| join ", "| mix ", "| httpfloor ", "| zaddfloor ", "| lbwrite ", "| lbtop ", "| lbmember ", "| lbroll ", "| lbwindow 2d ", "| lbscheme3 3h ", "| lbvote 0 limits ", "| lbvote 12 limits ", "### Votes at 300 actors",
		"| lbshards top, 4 shards ", "| lbshards rank, 1 shard ", "| lbshardwrite 4 shards ", "### Sharded leaderboards: memory",
		"| lbqueue: direct write ", "### A queued leaderboard: a burst of writes",
		"wrote 300 members to leaderboard roll_2d", "### Rolling boards at 300 members: pre-fill", "### Memory per joined player", "### Settlement",
		"wrote 300 members to every board through lib", "cleanup: unlinked", "| " + inProcessHead + " |"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	checkCleanedUp(t, rep.touched)
}

// TestSmokeLeaderboardsAtHTTP runs the leaderboard's workloads alone, lib
// and a leagued at -http (another in-process server, in a namespace the
// harness does not know, serving config.yaml's leaderboards): members are
// written through each, no player is joined, and the http rows drive
// -leaderboard (kills) at that leagued.
func TestSmokeLeaderboardsAtHTTP(t *testing.T) {
	ctx := context.Background()
	o := smokeOptions()
	o.workloads = []string{"lbwrite", "lbtop", "lbmember"}
	rdb, err := openRedis(ctx, o.redisURL, 8)
	if err != nil {
		t.Fatalf("%v (is Redis up? `make test` starts it)", err)
	}
	defer rdb.Close()
	cfg, err := config.Load("../../config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ns := newNamespace()
	defer deleteNamespace(context.Background(), rdb, ns)
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	engine, err := league.Open(ctx, rdb, cfg.Leagues, league.WithNamespace(ns), league.WithLogger(quiet))
	if err != nil {
		t.Fatal(err)
	}
	boards, err := leaderboard.Open(ctx, rdb, cfg.Leaderboards, leaderboard.WithNamespace(ns), leaderboard.WithLogger(quiet))
	if err != nil {
		t.Fatal(err)
	}
	srv, err := startServer(ctx, engine, boards, "", ns, quiet)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.stop()
	o.httpURL = srv.url

	rep, out := smokeRun(t, o)
	if got, want := len(rep.rows), 2*len(o.workloads); got != want {
		t.Errorf("got %d workload rows, want %d", got, want)
	}
	for _, r := range rep.rows {
		if r.separate != (r.via == "http") {
			t.Errorf("%s/%s: separate %v, want it on http rows only", r.workload, r.via, r.separate)
		}
		for _, m := range []*measurement{r.base, r.work} {
			if m.units.Load() == 0 {
				t.Errorf("%s: did nothing", m.label)
			}
			if n := m.errs.count(); n > 0 {
				t.Errorf("%s: %d errors: %q", m.label, n, m.errs.messages())
			}
		}
	}
	for _, want := range []string{`leaderboard "bench" (built in), "kills" at -http`, "wrote 300 members to every board through lib",
		"wrote 300 members to every board through http", `note: leaderboard "kills" at ` + srv.url} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if strings.Contains(out, "joined") {
		t.Error("players were joined for a run of leaderboard workloads only")
	}
	allTime := leaderboard.BoardKey(ns, "kills", leaderboard.Period{Kind: leaderboard.AllTime})
	if n, err := rdb.ZCard(ctx, allTime).Result(); err != nil || n != 300 {
		t.Errorf("kills' all-time board at -http: %d members (%v), want the 300 written through it", n, err)
	}
	checkCleanedUp(t, rep.touched)
}

// TestSmokeOpenLoop runs score writes at a fixed rate: the send schedule
// must hold and latency must count from it.
func TestSmokeOpenLoop(t *testing.T) {
	o := smokeOptions()
	o.workloads, o.rates, o.duration = []string{"score"}, []float64{100, 200}, 300*time.Millisecond
	rep, out := smokeRun(t, o)
	if len(rep.rows) != len(o.rates)*len(o.vias) {
		t.Fatalf("%d rows, want one per rate and target", len(rep.rows))
	}
	for _, r := range rep.rows {
		rate := r.work.rate
		if got := float64(r.work.latency.count()); got < 0.8*rate*o.duration.Seconds() || got > 1.2*rate*o.duration.Seconds()+float64(r.work.conc) {
			t.Errorf("%s: %v requests at %v/s for %v", r.work.label, got, rate, o.duration)
		}
		if r.base == nil || r.base.rate != rate {
			t.Errorf("%s at %v/s: the baseline should run open loop at the same rate", r.work.label, rate)
		}
		if r.work.service.count() != r.work.latency.count() || r.work.service.quantile(0.5) > r.work.latency.quantile(0.5) {
			t.Errorf("%s: service time should be counted for every request and be at most the latency", r.work.label)
		}
	}
	if !strings.Contains(out, "| target/s |") {
		t.Errorf("open-loop table lacks the target rate column")
	}
	checkCleanedUp(t, rep.touched)
}

func smokeOptions() options {
	return options{
		vias: allVias, players: []int{300}, concurrency: []int{4}, rates: []float64{0},
		duration: 150 * time.Millisecond, batch: 20, baseline: true, shared: 4, loaders: 8, rounds: 2,
		redisURL: testsvc.RedisURL(), databaseURL: testsvc.DatabaseURL(),
		leagueID: "weekly", guards: guardsConfig, leaderboardID: "kills", timeout: time.Minute,
		windows: []leaderboard.Window{{N: 2, Unit: leaderboard.Day}, {N: 3, Unit: leaderboard.Hour}},
		limits:  []int{0, 12},
		shards:  4, burst: 300 * time.Millisecond, burstFactor: 2, drainers: 2,
		clusterURL: os.Getenv("REDIS_CLUSTER_URL"),
	}
}

func smokeRun(t *testing.T, o options) (*report, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), o.timeout)
	defer cancel()
	out := &stampedWriter{began: time.Now()}
	log := slog.New(slog.NewTextHandler(&testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	rep, err := run(ctx, o, out, log)
	rep.write(&out.buf)
	t.Log(out.buf.String())
	if err != nil {
		t.Fatalf("run: %v (is Redis at %s and Postgres at %s up? `make test` starts both)", err, o.redisURL, o.databaseURL)
	}
	return rep, out.buf.String()
}

// stampedWriter keeps the output with the time since the start on each
// line, to show where a slow CI run spent its time.
type stampedWriter struct {
	began time.Time
	buf   bytes.Buffer
}

func (w *stampedWriter) Write(p []byte) (int, error) {
	fmt.Fprintf(&w.buf, "%6.2fs %s", time.Since(w.began).Seconds(), p)
	return len(p), nil
}

// checkCleanedUp checks no key of the run's namespaces and none of its
// schemas is left.
func checkCleanedUp(t *testing.T, namespaces []string) {
	t.Helper()
	ctx := context.Background()
	opt, _ := redis.ParseURL(testsvc.RedisURL())
	rdb := redis.NewClient(opt)
	defer rdb.Close()
	conn, err := pgx.Connect(ctx, testsvc.DatabaseURL())
	if err != nil {
		t.Fatalf("postgres: %v", err)
	}
	defer conn.Close(ctx)
	if len(namespaces) == 0 {
		t.Fatal("the run reports no namespaces")
	}
	for _, ns := range namespaces {
		left := 0
		iter := rdb.Scan(ctx, 0, ns+":*", 10000).Iterator()
		for iter.Next(ctx) {
			left++
		}
		if err := iter.Err(); err != nil || left > 0 {
			t.Errorf("namespace %s: %d keys left (%v)", ns, left, err)
		}
		var n int
		schema := strings.ReplaceAll(ns, "-", "_")
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_namespace WHERE nspname = $1`, schema).Scan(&n); err != nil || n > 0 {
			t.Errorf("schema %s left behind (%v)", schema, err)
		}
	}
}

// testWriter sends the harness's warnings to the test log.
type testWriter struct{ t *testing.T }

func (w *testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
