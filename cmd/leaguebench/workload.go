package main

import (
	"context"
	"errors"
	"slices"

	"github.com/league-engine/league/league"
)

// op is one request of a workload: it returns the units it completed
// successfully (0 or 1; a batch's successful writes) and its error.
type op func(ctx context.Context, w *worker) (units int, err error)

// population is what the workloads pick from: players joined to the
// current period and the full boards of the entry tier.
type population struct {
	players  []string
	tier     string
	boards   int // boards 1..boards are full
	joins    *idSource
	requests *idSource
}

func (p *population) pick(w *worker) string { return p.players[w.rng.IntN(len(p.players))] }

func (p *population) pickBoard(w *worker) league.BoardID {
	return league.BoardID{Tier: p.tier, N: 1 + w.rng.IntN(p.boards)}
}

// write is a score write as a game sends it: incr by 1..10, with a request
// id so a retry is safe.
func (p *population) write(w *worker) league.ScoreWrite {
	return league.ScoreWrite{Player: p.pick(w), Value: 1 + w.rng.Int64N(10), RequestID: p.requests.fresh()}
}

// The mix of a live game: mostly writes, some standings, few boards.
const (
	mixWrites    = 70
	mixStandings = 25
)

// workload is one kind of load, and the baseline it is held against.
type workload struct {
	name string
	unit string // what a unit is: "ops", or "writes" for batches
	// perUnitLatency is false when a request is many units (a batch): its
	// latency is not comparable with its baseline's.
	perUnitLatency bool
	vias           []string // targets it runs through
	op             func(t target, p *population, batch int) op
	// baseline returns the baseline's label and op; batch compares with
	// single writes through the same target, the others with plain Redis.
	baseline func(b *baselines, t target, p *population) (string, op)
}

var workloads = []workload{
	{name: "join", unit: "ops", perUnitLatency: true, vias: allVias, op: joinOp, baseline: evalshaBaseline},
	{name: "score", unit: "ops", perUnitLatency: true, vias: allVias, op: scoreOp, baseline: evalshaBaseline},
	{name: "standing", unit: "ops", perUnitLatency: true, vias: allVias, op: standingOp, baseline: evalshaBaseline},
	{name: "board", unit: "ops", perUnitLatency: true, vias: allVias, op: boardOp, baseline: zrevrangeBaseline},
	{name: "mix", unit: "ops", perUnitLatency: true, vias: allVias, op: mixOp, baseline: mixBaseline},
	{name: "batch", unit: "writes", vias: allVias, op: batchOp, baseline: singleWrites},
	{name: "player", unit: "ops", perUnitLatency: true, vias: []string{"http"}, op: playerOp, baseline: evalshaBaseline},
}

func workloadNamed(name string) (workload, bool) {
	i := slices.IndexFunc(workloads, func(w workload) bool { return w.name == name })
	if i < 0 {
		return workload{}, false
	}
	return workloads[i], true
}

func evalshaBaseline(b *baselines, _ target, _ *population) (string, op) { return b.label, b.evalsha() }

func zrevrangeBaseline(b *baselines, _ target, _ *population) (string, op) {
	return zrevrangeLabel, b.zrevrange()
}

func mixBaseline(b *baselines, _ target, _ *population) (string, op) {
	return "same mix of " + b.label + " / " + zrevrangeLabel, b.mix()
}

func singleWrites(_ *baselines, t target, p *population) (string, op) {
	return "single score writes", scoreOp(t, p, 1)
}

func joinOp(t target, p *population, _ int) op {
	return func(ctx context.Context, w *worker) (int, error) {
		id := p.joins.fresh()
		return one(t.join(ctx, w, id, playerName(id)))
	}
}

func scoreOp(t target, p *population, _ int) op {
	return func(ctx context.Context, w *worker) (int, error) {
		return one(t.score(ctx, w, p.write(w)))
	}
}

func standingOp(t target, p *population, _ int) op {
	return func(ctx context.Context, w *worker) (int, error) {
		return one(t.standing(ctx, w, p.pick(w)))
	}
}

func boardOp(t target, p *population, _ int) op {
	return func(ctx context.Context, w *worker) (int, error) {
		return one(t.board(ctx, w, p.pickBoard(w)))
	}
}

func mixOp(t target, p *population, _ int) op {
	return func(ctx context.Context, w *worker) (int, error) {
		switch r := w.rng.IntN(100); {
		case r < mixWrites:
			return one(t.score(ctx, w, p.write(w)))
		case r < mixWrites+mixStandings:
			return one(t.standing(ctx, w, p.pick(w)))
		default:
			return one(t.board(ctx, w, p.pickBoard(w)))
		}
	}
}

func batchOp(t target, p *population, batch int) op {
	return func(ctx context.Context, w *worker) (int, error) {
		w.writes = w.writes[:0]
		for range batch {
			w.writes = append(w.writes, p.write(w))
		}
		failed, err := t.scoreBatch(ctx, w, w.writes)
		return batch - failed, err
	}
}

var errNoPlayerRoute = errors.New("the player workload runs through http only")

func playerOp(t target, p *population, _ int) op {
	ht, ok := t.(*httpTarget)
	return func(ctx context.Context, w *worker) (int, error) {
		if !ok {
			return 0, errNoPlayerRoute
		}
		return one(ht.player(ctx, w, p.pick(w)))
	}
}

// one is the result of an op of one unit.
func one(err error) (int, error) {
	if err != nil {
		return 0, err
	}
	return 1, nil
}
