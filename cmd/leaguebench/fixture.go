package main

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/league-engine/league/leaderboard"
	"github.com/league-engine/league/league"
)

// fixture is what the live workloads run against: the league and the
// leaderboard in a Redis namespace of this run's own, players joined to the
// league's current period and members written to every board of the
// leaderboard, the targets (the engines, and leagued's API in-process or at
// -http) and the baselines' keys.
type fixture struct {
	ns      string
	engine  *league.Engine
	boards  *leaderboard.Engine
	server  *server // nil unless the API is served in-process
	targets map[string]target
	pops    map[string]*population
	base    *baselines
	// leagued reads the CPU of the leagued at -http; nil when there is
	// none, or the run does not drive it.
	leagued *leaguedCPU
	// floor is the floor server httpfloor drives (floor.go); nil when the
	// run has no httpfloor row.
	floor *floor
}

// newFixture prepares n players for the league workloads among names, and
// n members for the leaderboard's.
func (b *bench) newFixture(ctx context.Context, n int, names []string) (f *fixture, err error) {
	f = &fixture{ns: newNamespace(), targets: map[string]target{}, pops: map[string]*population{}}
	defer func() {
		if err != nil {
			f.close(b)
		}
	}()
	drives := func(of func(workload) bool) bool {
		return slices.ContainsFunc(names, func(name string) bool { wl, _ := workloadNamed(name); return of(wl) })
	}
	leagueRun := drives(func(wl workload) bool { return !wl.leaderboard && !wl.rolling && !wl.vote })
	voteRun := drives(func(wl workload) bool { return wl.vote })
	boardRun := drives(func(wl workload) bool { return wl.leaderboard })
	rollRun := drives(func(wl workload) bool { return wl.rolling })
	what := "players"
	switch {
	case (boardRun || rollRun) && leagueRun:
		what = "players and as many leaderboard members"
	case boardRun || rollRun:
		what = "leaderboard members"
	case voteRun && !leagueRun:
		what = "voters"
	}
	fmt.Fprintf(b.out, "fixture: namespace %s, %s %s\n", f.ns, thousands(float64(n)), what)
	tag := f.ns[len(f.ns)-3:]
	leagues, err := loadLeagues(b.o.configPath, b.o.leagueID, b.o.guards)
	if err != nil {
		return f, err
	}
	if f.engine, err = league.Open(ctx, b.rdb, leagues, b.engineOptions(f.ns)...); err != nil {
		return f, err
	}
	lg, _ := f.engine.League(b.o.leagueID)
	lb, err := newBenchLeaderboard()
	if err != nil {
		return f, err
	}
	rolls, err := rollingLeaderboards(b.o.windows)
	if err != nil {
		return f, err
	}
	votes, err := voteLeaderboards(b.o.limits)
	if err != nil {
		return f, err
	}
	all := append(append([]*leaderboard.Leaderboard{lb}, rolls...), votes...)
	if f.boards, err = leaderboard.Open(ctx, b.rdb, all, b.leaderboardOptions(f.ns)...); err != nil {
		return f, err
	}
	if f.base, err = newBaselines(ctx, b.rdb, f.ns, b.o.baselineAP); err != nil {
		return f, err
	}
	joins, requests := newIDSource(tag, 'j'), newIDSource(tag, 'r')

	useHTTP := slices.Contains(b.o.vias, "http")
	inProcess := useHTTP && b.o.httpURL == ""
	if slices.Contains(b.o.vias, "lib") || inProcess {
		lib := libTarget{engine: f.engine, league: lg.ID, boards: f.boards, leaderboard: lb.ID}
		p := &population{joins: joins, requests: requests}
		if leagueRun {
			if p.players, err = b.joinPlayers(ctx, lib, newIDSource(tag, 'p'), n, "lib"); err != nil {
				return f, err
			}
			pop, err := f.engine.Populations(ctx, lg.ID, league.Period{})
			if err != nil {
				return f, err
			}
			p.tier, p.boards = lg.EntryTier, fullBoards(pop[lg.EntryTier], lg.BoardSize)
		}
		if boardRun {
			if err := b.writeMembers(ctx, lib, p, newIDSource(tag, 'm'), n, "lib", f.base); err != nil {
				return f, err
			}
		}
		if rollRun {
			if err := b.writeRolling(ctx, f, p, newIDSource(tag, 'o'), n, names); err != nil {
				return f, err
			}
		}
		if voteRun {
			p.voters = newVoters(tag, n)
		}
		f.targets["lib"], f.pops["lib"] = lib, p
	}
	if !useHTTP {
		return f, nil
	}
	url := b.o.httpURL
	if inProcess {
		if f.server, err = startServer(ctx, f.engine, f.boards, b.o.databaseURL, f.ns, b.log); err != nil {
			return f, err
		}
		url = f.server.url
	}
	var client *http.Client // nil: the wire client
	if b.o.netHTTP {
		client = newHTTPClient(b.inFlight)
	}
	lbID := lb.ID
	if !inProcess {
		lbID = b.o.leaderboardID
	}
	ht, err := newHTTPTarget(client, url, lg.ID, lbID, b.o.apiKey)
	if err != nil {
		return f, err
	}
	f.targets["http"] = ht
	if slices.Contains(names, "httpfloor") {
		if f.floor, err = startFloor(client, b.log); err != nil {
			return f, err
		}
	}
	if inProcess {
		if ht.rolling, err = newHTTPRoutes(client, url, "/v1/leaderboards/"+rollLeaderboardID, b.o.apiKey); err != nil {
			return f, err
		}
		f.pops["http"] = f.pops["lib"] // one engine: the same players and members
		return f, nil
	}
	f.leagued = newLeaguedCPU(url, b.log)
	// A leagued of its own keeps its keys elsewhere: join players and write
	// members through it.
	p := &population{joins: joins, requests: requests}
	if leagueRun {
		if p.players, err = b.joinPlayers(ctx, ht, newIDSource(tag, 'h'), n, "http"); err != nil {
			return f, err
		}
		sum, err := ht.summary(ctx)
		if err != nil {
			return f, fmt.Errorf("GET the league from %s: %w", url, err)
		}
		p.tier, p.boards = sum.EntryTier, fullBoards(sum.Populations[sum.EntryTier], sum.BoardSize)
		fmt.Fprintf(b.out, "note: %s players joined the leagued at %s stay in its Redis (the harness cannot tell its namespace)\n",
			thousands(float64(n)), url)
	}
	if boardRun {
		sum, err := ht.leaderboardSummary(ctx)
		if err != nil {
			return f, fmt.Errorf("-leaderboard %q at %s: %w", lbID, url, err)
		}
		if err := b.writeMembers(ctx, ht, p, newIDSource(tag, 'n'), n, "http", f.base); err != nil {
			return f, err
		}
		fmt.Fprintf(b.out, "note: leaderboard %q at %s (%s; %s, %s, ties by %s): the %s members written stay in its Redis, beside any earlier run's\n",
			lbID, url, strings.Join(sum.Periods, ", "), sum.ScoreOperator, sum.Order, sum.TieBreak, thousands(float64(n)))
	}
	f.pops["http"] = p
	return f, nil
}

// writeMembers writes n fresh members once each (1..10, as lbwrite) to
// every board of the leaderboard through t, so the reads read full boards,
// and adds them to p with the size of the day board they made; and, when
// the run has baselines, the sorted set of that size lbtop's is read from.
func (b *bench) writeMembers(ctx context.Context, t target, p *population, src *idSource, n int, via string, base *baselines) error {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = src.id(int64(i))
	}
	took, err := load(ctx, "write members "+via, n, b.o.loaders, b.out, func(ctx context.Context, w *worker, i int) error {
		return t.lbWrite(ctx, w, leaderboard.Write{Member: ids[i], Value: 1 + w.rng.Int64N(10)})
	})
	if err != nil {
		return err
	}
	w := newWorker(0, 0)
	defer w.close()
	size, err := t.lbTop(ctx, w, 1)
	if err != nil {
		return fmt.Errorf("read the day board through %s: %w", via, err)
	}
	if size < n {
		return fmt.Errorf("the day board through %s holds %d members after %d were written to it", via, size, n)
	}
	fmt.Fprintf(b.out, "  wrote %s members to every board through %s in %s (%s/s); the day board holds %s\n", thousands(float64(n)), via,
		took.Round(time.Millisecond), thousands(float64(n)/took.Seconds()), thousands(float64(size)))
	p.members, p.daySize = ids, size
	if b.o.baseline {
		return base.addSized(ctx, size)
	}
	return nil
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
	if f.floor != nil {
		if err := f.floor.stop(); err != nil {
			fmt.Fprintf(b.out, "warning: stopping the floor server: %v\n", err)
		}
	}
	if f.server != nil {
		if err := f.server.stop(); err != nil {
			fmt.Fprintf(b.out, "warning: stopping the in-process server: %v\n", err)
		}
	}
	b.dropNamespace(f.ns)
}
