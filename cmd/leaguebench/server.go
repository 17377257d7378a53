package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/league-engine/league/api"
	"github.com/league-engine/league/inmem"
	"github.com/league-engine/league/leaderboard"
	"github.com/league-engine/league/league"
	"github.com/league-engine/league/scheduler"
)

// server is leagued in this process, wired as cmd/leagued wires it (the
// API and a running scheduler on one engine, the leaderboards' engine
// beside it), on a loopback port of its own.
type server struct {
	url     string
	http    *api.HTTPServer
	sched   *scheduler.Scheduler
	scratch *scratchStore // nil: the store is in memory
	served  chan error
}

// startServer serves the engines' API. With a database URL the store is
// Postgres in a scratch schema named after ns, else process memory.
func startServer(ctx context.Context, engine *league.Engine, boards *leaderboard.Engine, databaseURL, ns string, log *slog.Logger) (*server, error) {
	s := &server{served: make(chan error, 1)}
	var store league.Store = inmem.New()
	if databaseURL != "" {
		var err error
		if s.scratch, err = openScratchStore(ctx, databaseURL, ns); err != nil {
			return nil, err
		}
		store = s.scratch
	}
	s.sched = scheduler.New(engine, store, scheduler.WithLogger(log))
	h := api.New(api.Config{Engine: engine, Leaderboards: boards, Store: store, Settler: s.sched, Logger: log}).Handler()
	s.http = api.NewHTTPServer(h, api.ServeOptions{Logger: log, MaxConnections: -1, MaxConnectionsPerClient: -1})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		s.dropStore()
		return nil, fmt.Errorf("in-process server: %w", err)
	}
	s.url = "http://" + ln.Addr().String()
	s.sched.Start()
	go func() { s.served <- s.http.Serve(ln) }()
	return s, nil
}

// stop shuts down in leagued's order: HTTP, then the scheduler, then the
// store.
func (s *server) stop() error {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	err := s.http.Shutdown(ctx)
	if serr := <-s.served; serr != nil && !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	return errors.Join(err, s.sched.Stop(ctx), s.dropStore())
}

func (s *server) dropStore() error {
	if s.scratch == nil {
		return nil
	}
	return s.scratch.drop()
}
