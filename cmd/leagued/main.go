// Command leagued is the league service game servers call: the HTTP API and
// the settlement scheduler.
//
//	go run ./cmd/leagued
//
// Configuration: config.yaml (or LEAGUE_CONFIG), overridden by LISTEN_ADDR,
// LEAGUE_API_KEYS, LEAGUE_ADMIN_KEYS and the variables server.keys name;
// REDIS_URL and DATABASE_URL choose the services (without them: an
// in-process Redis and in-memory settlements).
package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"runtime/debug"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/redis/go-redis/v9"

	"github.com/league-engine/league/api"
	"github.com/league-engine/league/config"
	"github.com/league-engine/league/console"
	"github.com/league-engine/league/events"
	"github.com/league-engine/league/internal/buildinfo"
	"github.com/league-engine/league/internal/connect"
	"github.com/league-engine/league/internal/tracing"
	"github.com/league-engine/league/leaderboard"
	"github.com/league-engine/league/league"
	"github.com/league-engine/league/postgres"
	"github.com/league-engine/league/scheduler"
)

const usage = `leagued serves the league HTTP API and settles periods on schedule.

  leagued            serve (configuration: config.yaml or LEAGUE_CONFIG,
                     overridden by LISTEN_ADDR, LEAGUE_API_KEYS and
                     LEAGUE_ADMIN_KEYS; REDIS_URL and DATABASE_URL choose the
                     services, without them an in-process Redis and in-memory
                     settlements: nothing survives a restart)
  leagued -version   print the build and exit

Signals: SIGTERM or SIGINT stop it gracefully (readiness fails, then
server.drain_delay later the listener closes and requests in flight finish;
a second signal stops it at once); SIGHUP reloads the API keys from the
config file and the secret files. See docs/operations.md.
`

func main() {
	if len(os.Args) > 1 {
		// No other flags: a mistyped one must not start the service unnoticed.
		switch os.Args[1] {
		case "-h", "-help", "--help", "help":
			fmt.Print(usage)
			os.Exit(0)
		case "-version", "--version", "version":
			fmt.Println(buildinfo.Read())
			os.Exit(0)
		}
		fmt.Fprintf(os.Stderr, "leagued: unexpected argument %q\n\n%s", os.Args[1], usage)
		os.Exit(2)
	}
	if os.Getenv("GOGC") == "" {
		// leagued's live heap is small (tens of MB) and nearly all it
		// allocates is garbage within a request: collecting at 5x the live
		// heap rather than 2x saves ~4% of its CPU per request for a few
		// tens of MB (BENCHMARKS.md). GOGC set in the environment wins.
		debug.SetGCPercent(defaultGCPercent)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	d := &daemon{reload: make(chan struct{}, 1)}
	// Until the config says how to log.
	d.logger.Store(slog.New(slog.NewTextHandler(os.Stderr, nil)))
	go d.handleSignals(cancel)
	if err := d.run(ctx); err != nil {
		if ctx.Err() != nil {
			// Told to stop while it was still starting: the dependency it
			// was waiting for (whose error now says "context canceled") is
			// not at fault, and the stop is what was asked for.
			d.log().Info("leagued stopped by a signal before it served", "waiting_for", err)
			return
		}
		d.log().Error("leagued stopped", "err", err)
		os.Exit(1)
	}
}

// defaultGCPercent is leagued's GOGC when the environment sets none.
const defaultGCPercent = 400

// daemon is leagued running: what the signals act on.
type daemon struct {
	logger atomic.Pointer[slog.Logger] // set again once the config is read
	reload chan struct{}               // SIGHUP: reload the keys
}

func (d *daemon) log() *slog.Logger { return d.logger.Load() }

// handleSignals turns signals into the daemon's moves: the first SIGTERM or
// SIGINT stops it gracefully (cancel), a second at once; SIGHUP asks for
// the keys to be reloaded (a SIGHUP's default, to die at once, would lose
// requests in flight).
func (d *daemon) handleSignals(cancel context.CancelFunc) {
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	stopping := false
	for sig := range sigs {
		switch {
		case sig == syscall.SIGHUP:
			select {
			case d.reload <- struct{}{}:
			default: // one already waiting covers this one
			}
		case stopping:
			d.log().Warn("second signal: stopping at once", "signal", sig.String())
			os.Exit(1)
		default:
			stopping = true
			d.log().Info("stopping", "signal", sig.String())
			cancel()
		}
	}
}

func (d *daemon) run(ctx context.Context) error {
	path := os.Getenv("LEAGUE_CONFIG")
	if path == "" {
		path = "config.yaml"
	}
	cfg, err := loadConfig(path)
	if err != nil {
		return err
	}
	log := newLogger(cfg.Log)
	d.logger.Store(log)
	connect.RouteRedisLogs(log)
	build := buildinfo.Read()
	d.log().Info("leagued starting", "build", build.String())

	traces, err := tracing.Start(ctx, cfg.Tracing)
	if err != nil {
		return err
	}
	defer traces.Stop(context.Background()) // after the servers stop: their last spans flushed
	if traces != nil {
		log.Info("tracing: spans go to "+cfg.Tracing.Endpoint, "sample_ratio", cfg.Tracing.SampleRatio)
	}
	rdb, embedded, closeRedis, err := connect.Redis(ctx, os.Getenv("REDIS_URL"), log)
	if err != nil {
		return err
	}
	defer closeRedis()
	if err := traces.Redis(rdb); err != nil {
		return err
	}
	store, closeStore, err := connect.Store(ctx, os.Getenv("DATABASE_URL"), true, log, postgres.WithTracer(traces.Postgres()))
	if err != nil {
		return err
	}
	defer closeStore()
	if err := cfg.CheckStore(ctx, store); err != nil {
		return err
	}

	opts := []league.Option{league.WithNamespace(cfg.Namespace), league.WithLogger(log),
		league.WithSharedRoundTrips(cfg.SharedRoundTrips), league.WithLostCheck(store)}
	if embedded {
		opts = append(opts, league.WithExpiryLag(connect.ExpireEvery))
	}
	engine, err := league.Open(ctx, rdb, cfg.Leagues, opts...)
	if err != nil {
		return err
	}
	boards, err := openLeaderboards(ctx, rdb, cfg, embedded, store, log)
	if err != nil {
		return err
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if err := buildinfo.Register(reg, build); err != nil {
		return err
	}
	sched := scheduler.New(engine, store, scheduler.WithPoll(cfg.Settlement.Poll),
		scheduler.WithRegistry(reg), scheduler.WithLogger(log), scheduler.WithLeaderboards(boards))
	// The outbox is in Postgres: the pull feed and the webhooks need it.
	var feed api.EventFeed
	var deliverer *events.Deliverer
	if pg, ok := store.(*postgres.Store); ok {
		feed = pg
		if len(cfg.Events.Webhooks) > 0 {
			deliverer = events.New(pg, cfg.Events.Webhooks, events.WithRegistry(reg), events.WithLogger(log))
		}
	} else if len(cfg.Events.Webhooks) > 0 {
		return fmt.Errorf("events.webhooks: %d webhooks are configured, but DATABASE_URL is not set: the events they deliver are kept in Postgres", len(cfg.Events.Webhooks))
	}

	listen := cfg.Server.Listen
	if len(cfg.Server.Keys) == 0 {
		if listen, err = loopbackOnly(listen); err != nil {
			return err
		}
		d.log().Warn("no API keys configured: authentication is off, serving loopback only", "listen", listen)
	}
	consoleCfg := &console.Config{Redis: rdb, Namespace: cfg.Namespace, Scheduler: sched, TrustedProxies: cfg.Server.TrustedProxies}
	if embedded {
		consoleCfg.RedisNote = "in-process (miniredis, REDIS_URL not set): nothing survives a restart"
	}
	if os.Getenv("DATABASE_URL") == "" {
		consoleCfg.StoreNote = "in memory (DATABASE_URL not set): nothing survives a restart"
	}
	apiServer := api.New(api.Config{
		Engine: engine, Leaderboards: boards, Store: store, Settler: sched, Events: feed, Registry: reg, Logger: log,
		Keys: cfg.Server.Keys, HistoryLimit: cfg.Settlement.HistoryLimit,
		RequestTimeout: cfg.Server.RequestTimeout, AccessLog: cfg.Log.Access,
		Console: consoleCfg, Tracer: traces.Tracer("league/api"),
	})
	srv := api.NewHTTPServer(apiServer.Handler(), api.ServeOptions{
		MaxConnections: noCapIsMinusOne(cfg.Server.MaxConnections), MaxConnectionsPerClient: noCapIsMinusOne(cfg.Server.MaxConnectionsPerClient),
		H2C: cfg.Server.H2C, Logger: log, Registry: reg,
	})
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return err
	}
	sched.Start()
	if deliverer != nil {
		deliverer.Start()
	}
	d.log().Info("leagued serving", "addr", ln.Addr().String(), "leagues", len(cfg.Leagues), "leaderboards", len(cfg.Leaderboards),
		"embedded_redis", embedded, "config", path, "keys", keyNames(cfg.Server.Keys))
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()

	for {
		select {
		case err := <-served:
			sched.Stop(context.Background())
			if deliverer != nil {
				deliverer.Stop(context.Background())
			}
			return err
		case <-d.reload:
			d.reloadKeys(path, apiServer)
			continue
		case <-ctx.Done():
		}
		break
	}
	d.shutdown(cfg.Server.DrainDelay, apiServer, srv, sched, deliverer)
	return <-served
}

// openLeaderboards opens the leaderboard engine on the leagues' Redis, with
// their namespace and round-trip sharing, and the store as the archive of
// closed periods; nil when none is configured.
func openLeaderboards(ctx context.Context, rdb redis.UniversalClient, cfg *config.Config, embedded bool, store league.Store, log *slog.Logger) (*leaderboard.Engine, error) {
	if len(cfg.Leaderboards) == 0 {
		return nil, nil
	}
	opts := []leaderboard.Option{leaderboard.WithNamespace(cfg.Namespace), leaderboard.WithLogger(log),
		leaderboard.WithSharedRoundTrips(cfg.SharedRoundTrips)}
	if a, ok := store.(leaderboard.Archive); ok { // postgres.Store and inmem.Store both are
		opts = append(opts, leaderboard.WithArchive(a))
	}
	if embedded {
		opts = append(opts, leaderboard.WithExpiryLag(connect.ExpireEvery))
	}
	return leaderboard.Open(ctx, rdb, cfg.Leaderboards, opts...)
}

// shutdown stops gracefully: readiness fails first, so that load balancers
// stop sending requests while they are still served; after the drain delay
// the listener closes, requests in flight finish, and a running settlement
// reaches a safe point, side by side (a client holding a half-sent request
// must not eat the settlement's time).
func (d *daemon) shutdown(drain time.Duration, apiServer *api.Server, srv *api.HTTPServer, sched *scheduler.Scheduler, deliverer *events.Deliverer) {
	apiServer.Drain()
	if drain > 0 {
		d.log().Info("draining: /readyz answers 503; the listener closes after the drain delay (a second signal stops at once)", "drain_delay", drain.String())
		time.Sleep(drain)
	}
	d.log().Info("shutting down")
	shutdown, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	stopped := make(chan error, 1)
	go func() { stopped <- sched.Stop(shutdown) }()
	delivered := make(chan error, 1)
	go func() {
		if deliverer != nil {
			delivered <- deliverer.Stop(shutdown)
			return
		}
		delivered <- nil
	}()
	if err := srv.Shutdown(shutdown); err != nil {
		d.log().Warn("http shutdown: requests still in flight were cut off", "err", err)
	}
	if err := <-stopped; err != nil {
		d.log().Warn("scheduler did not reach a safe point in time; the next start resumes it", "err", err)
	}
	if err := <-delivered; err != nil {
		d.log().Warn("event delivery did not record its last round in time; the next deliverer sends it again", "err", err)
	}
}

// reloadKeys reads the config file and the secret files again (the
// environment is the one the process started with) and puts the keys they
// give in place, for requests from now on. Nothing else is reloaded:
// leagues, limits and the rest take a restart. A config that does not load
// leaves the keys as they were.
func (d *daemon) reloadKeys(path string, s *api.Server) {
	cfg, err := loadConfig(path)
	if err == nil {
		err = s.SetKeys(cfg.Server.Keys)
	}
	if err != nil {
		d.log().Error("SIGHUP: keys not reloaded; the keys in use stay", "err", err)
		return
	}
	d.log().Info("SIGHUP: keys reloaded (nothing else is: other changes take a restart)", "keys", keyNames(cfg.Server.Keys))
}

func loadConfig(path string) (*config.Config, error) {
	cfg, err := config.Load(path)
	if err != nil {
		return nil, err
	}
	if err := cfg.ApplyEnv(os.Getenv); err != nil {
		return nil, err
	}
	return cfg, nil
}

// newLogger builds the logger log: asks for, on stderr.
func newLogger(c config.Log) *slog.Logger {
	opts := &slog.HandlerOptions{Level: c.Level}
	if c.JSON {
		return slog.New(slog.NewJSONHandler(os.Stderr, opts))
	}
	return slog.New(slog.NewTextHandler(os.Stderr, opts))
}

// noCapIsMinusOne turns the config's "0: no cap" into api.ServeOptions's
// "-1: no cap" (its 0 is the default).
func noCapIsMinusOne(n int) int {
	if n == 0 {
		return -1
	}
	return n
}

func keyNames(keys []api.Key) []string {
	names := make([]string, len(keys))
	for i, k := range keys {
		names[i] = k.Name
	}
	return names
}

// loopbackOnly keeps the port of addr but binds it to 127.0.0.1 unless it
// already names a loopback host.
func loopbackOnly(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("listen address %q: %w", addr, err)
	}
	if host == "localhost" {
		return addr, nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return addr, nil
	}
	return net.JoinHostPort("127.0.0.1", port), nil
}
