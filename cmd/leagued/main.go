// Command leagued is the league service game servers call: the HTTP API and
// the settlement scheduler.
//
//	go run ./cmd/leagued
//
// Configuration: config.yaml (or LEAGUE_CONFIG), overridden by LISTEN_ADDR,
// LEAGUE_API_KEYS, LEAGUE_ADMIN_KEYS; REDIS_URL and DATABASE_URL choose the
// services (without them: an in-process Redis and in-memory settlements).
package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/league-engine/league/api"
	"github.com/league-engine/league/config"
	"github.com/league-engine/league/internal/connect"
	"github.com/league-engine/league/league"
	"github.com/league-engine/league/scheduler"
)

const usage = `leagued serves the league HTTP API and settles periods on schedule.
It takes no arguments. Configuration: config.yaml (or LEAGUE_CONFIG),
overridden by LISTEN_ADDR, LEAGUE_API_KEYS and LEAGUE_ADMIN_KEYS; REDIS_URL
and DATABASE_URL choose the services (without them: an in-process Redis and
in-memory settlements, nothing survives a restart). See README.md.
`

func main() {
	if len(os.Args) > 1 {
		// No flags: a mistyped one must not start the service unnoticed.
		switch os.Args[1] {
		case "-h", "-help", "--help", "help":
			fmt.Print(usage)
			os.Exit(0)
		}
		fmt.Fprintf(os.Stderr, "leagued: unexpected argument %q\n\n%s", os.Args[1], usage)
		os.Exit(2)
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, log); err != nil {
		if ctx.Err() != nil {
			// Told to stop while it was still starting: the dependency it
			// was waiting for (whose error now says "context canceled") is
			// not at fault, and the stop is what was asked for.
			log.Info("leagued stopped by a signal before it served", "waiting_for", err)
			return
		}
		log.Error("leagued stopped", "err", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, log *slog.Logger) error {
	path := os.Getenv("LEAGUE_CONFIG")
	if path == "" {
		path = "config.yaml"
	}
	cfg, err := config.Load(path)
	if err != nil {
		return err
	}
	if err := cfg.ApplyEnv(os.Getenv); err != nil {
		return err
	}

	rdb, embedded, closeRedis, err := connect.Redis(ctx, os.Getenv("REDIS_URL"), log)
	if err != nil {
		return err
	}
	defer closeRedis()
	store, closeStore, err := connect.Store(ctx, os.Getenv("DATABASE_URL"), true, log)
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
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	sched := scheduler.New(engine, store, scheduler.WithPoll(cfg.Settlement.Poll),
		scheduler.WithRegistry(reg), scheduler.WithLogger(log))

	listen := cfg.Listen
	if len(cfg.APIKeys) == 0 && len(cfg.AdminKeys) == 0 {
		if listen, err = loopbackOnly(listen); err != nil {
			return err
		}
		log.Warn("no API keys configured: authentication is off, serving loopback only", "listen", listen)
	}
	srv := api.NewHTTPServer(api.New(api.Config{
		Engine: engine, Store: store, Settler: sched, Registry: reg, Logger: log,
		APIKeys: cfg.APIKeys, AdminKeys: cfg.AdminKeys, HistoryLimit: cfg.Settlement.HistoryLimit,
	}).Handler(), log)
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return err
	}
	sched.Start()
	log.Info("leagued serving", "addr", ln.Addr().String(), "leagues", len(cfg.Leagues),
		"embedded_redis", embedded, "config", path)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()

	select {
	case err := <-served:
		sched.Stop(context.Background())
		return err
	case <-ctx.Done():
	}
	// Stop taking requests and finish those in flight, and let a running
	// settlement reach a safe point, side by side: a client holding a
	// half-sent request must not eat the settlement's time.
	log.Info("shutting down")
	shutdown, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	stopped := make(chan error, 1)
	go func() { stopped <- sched.Stop(shutdown) }()
	if err := srv.Shutdown(shutdown); err != nil {
		log.Warn("http shutdown: requests still in flight were cut off", "err", err)
	}
	if err := <-stopped; err != nil {
		log.Warn("scheduler did not reach a safe point in time; the next start resumes it", "err", err)
	}
	return <-served
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
