package main

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/league-engine/league/league"
)

// fixture is what the live workloads run against: the league in a Redis
// namespace of this run's own, players joined to its current period, the
// targets (the engine, and leagued's API in-process or at -http) and the
// baselines' keys.
type fixture struct {
	ns      string
	engine  *league.Engine
	server  *server // nil unless the API is served in-process
	targets map[string]target
	pops    map[string]*population
	base    *baselines
	// leagued reads the CPU of the leagued at -http; nil when there is
	// none, or the run does not drive it.
	leagued *leaguedCPU
}

func (b *bench) newFixture(ctx context.Context, players int) (f *fixture, err error) {
	f = &fixture{ns: newNamespace(), targets: map[string]target{}, pops: map[string]*population{}}
	defer func() {
		if err != nil {
			f.close(b)
		}
	}()
	fmt.Fprintf(b.out, "fixture: namespace %s, %s players\n", f.ns, thousands(float64(players)))
	tag := f.ns[len(f.ns)-3:]
	leagues, err := loadLeagues(b.o.configPath, b.o.leagueID)
	if err != nil {
		return f, err
	}
	if f.engine, err = league.Open(ctx, b.rdb, leagues, b.engineOptions(f.ns)...); err != nil {
		return f, err
	}
	lg, _ := f.engine.League(b.o.leagueID)
	if f.base, err = newBaselines(ctx, b.rdb, f.ns, b.o.baselineAP); err != nil {
		return f, err
	}
	joins, requests := newIDSource(tag, 'j'), newIDSource(tag, 'r')

	useHTTP := slices.Contains(b.o.vias, "http")
	inProcess := useHTTP && b.o.httpURL == ""
	if slices.Contains(b.o.vias, "lib") || inProcess {
		lib := libTarget{engine: f.engine, league: lg.ID}
		ids, err := b.joinPlayers(ctx, lib, newIDSource(tag, 'p'), players, "lib")
		if err != nil {
			return f, err
		}
		pop, err := f.engine.Populations(ctx, lg.ID, league.Period{})
		if err != nil {
			return f, err
		}
		f.targets["lib"] = lib
		f.pops["lib"] = &population{players: ids, tier: lg.EntryTier, boards: fullBoards(pop[lg.EntryTier], lg.BoardSize),
			joins: joins, requests: requests}
	}
	if !useHTTP {
		return f, nil
	}
	url := b.o.httpURL
	if inProcess {
		if f.server, err = startServer(ctx, f.engine, b.o.databaseURL, f.ns, b.log); err != nil {
			return f, err
		}
		url = f.server.url
	}
	var client *http.Client // nil: the wire client
	if b.o.netHTTP {
		client = newHTTPClient(b.inFlight)
	}
	ht, err := newHTTPTarget(client, url, lg.ID, b.o.apiKey)
	if err != nil {
		return f, err
	}
	f.targets["http"] = ht
	if inProcess {
		f.pops["http"] = f.pops["lib"] // one engine: the same players
		return f, nil
	}
	f.leagued = newLeaguedCPU(url, b.log)
	// A leagued of its own keeps its keys elsewhere: join players through it.
	ids, err := b.joinPlayers(ctx, ht, newIDSource(tag, 'h'), players, "http")
	if err != nil {
		return f, err
	}
	sum, err := ht.summary(ctx)
	if err != nil {
		return f, fmt.Errorf("GET the league from %s: %w", url, err)
	}
	f.pops["http"] = &population{players: ids, tier: sum.EntryTier, boards: fullBoards(sum.Populations[sum.EntryTier], sum.BoardSize),
		joins: joins, requests: requests}
	fmt.Fprintf(b.out, "note: %s players joined the leagued at %s stay in its Redis (the harness cannot tell its namespace)\n",
		thousands(float64(players)), url)
	return f, nil
}

// joinPlayers joins n fresh players through t and returns their ids.
func (b *bench) joinPlayers(ctx context.Context, t target, src *idSource, n int, via string) ([]string, error) {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = src.id(int64(i))
	}
	took, err := load(ctx, "join "+via, n, b.o.loaders, b.out, func(ctx context.Context, w *worker, i int) error {
		return t.join(ctx, w, ids[i], playerName(ids[i]))
	})
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(b.out, "  joined %s players through %s in %s (%s/s)\n", thousands(float64(n)), via,
		took.Round(time.Millisecond), thousands(float64(n)/took.Seconds()))
	return ids, nil
}

// separateLeagued is the CPU reader of via's target when that target is a
// leagued in another process (-http), whose CPU this process's does not
// include; nil when via's target runs in this process.
func (f *fixture) separateLeagued(via string) *leaguedCPU {
	if via != "http" {
		return nil
	}
	return f.leagued
}

// fullBoards is how many boards of a tier are full, at least one.
func fullBoards(players, size int) int { return max(players/size, 1) }

// close stops the server and deletes the namespace's keys.
func (f *fixture) close(b *bench) {
	if f.server != nil {
		if err := f.server.stop(); err != nil {
			fmt.Fprintf(b.out, "warning: stopping the in-process server: %v\n", err)
		}
	}
	b.dropNamespace(f.ns)
}
