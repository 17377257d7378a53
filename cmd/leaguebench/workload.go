package main

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/league-engine/league/leaderboard"
	"github.com/league-engine/league/league"
)

// op is one request of a workload: it returns the units it completed
// successfully (0 or 1; a batch's successful writes) and its error.
type op func(ctx context.Context, w *worker) (units int, err error)

// population is what the workloads pick from: players joined to the
// current period and the full boards of the entry tier; the leaderboard's
// members, each on every board.
type population struct {
	players  []string
	tier     string
	boards   int // boards 1..boards are full
	members  []string
	daySize  int      // members on the current day board once they were written
	rolling  *rolling // the rolling workloads' members and keys (rolling.go)
	voters   *voters  // lbvote's actors and candidates (votes.go)
	joins    *idSource
	requests *idSource
}

func (p *population) pick(w *worker) string { return p.players[w.rng.IntN(len(p.players))] }

func (p *population) pickMember(w *worker) string { return p.members[w.rng.IntN(len(p.members))] }

func (p *population) pickBoard(w *worker) league.BoardID {
	return league.BoardID{Tier: p.tier, N: 1 + w.rng.IntN(p.boards)}
}

// write is a score write as a game sends it: incr by 1..10, with a request
// id so a retry is safe.
func (p *population) write(w *worker) league.ScoreWrite {
	return league.ScoreWrite{Player: p.pick(w), Value: 1 + w.rng.Int64N(10), RequestID: p.requests.fresh()}
}

// lbWrite is a leaderboard write as a game sends it, like write: 1..10,
// with a request id.
func (p *population) lbWrite(w *worker) leaderboard.Write {
	return leaderboard.Write{Member: p.pickMember(w), Value: 1 + w.rng.Int64N(10), RequestID: p.requests.fresh()}
}

// lbTopLimit is how many entries lbtop reads: the top 100.
const lbTopLimit = 100

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
	// leaderboard is true for the leaderboard's workloads: the fixture
	// writes every member to its boards first (and joins no players unless
	// a league workload runs too).
	leaderboard bool
	// rolling is true for the rolling boards' workloads (rolling.go): the
	// fixture writes their leaderboards' members first.
	rolling bool
	op      func(t target, p *population, batch int) op
	// windowOp, when set, makes the workload a row per -windows (variants).
	windowOp func(t target, p *population, w leaderboard.Window) op
	// vote is true for lbvote (votes.go): the fixture makes its voters.
	vote bool
	// limitOp, when set, makes the workload a row per -limits.
	limitOp func(t target, p *population, limits int) op
	// baseline returns the baseline's label and op; batch compares with
	// single writes through the same target, the others with plain Redis.
	baseline func(b *baselines, t target, p *population) (string, op)
	// httpFloor sends op's requests to the floor server instead of
	// leagued (floor.go): net/http doing the least a JSON route can.
	httpFloor bool
	// plain, when set, is the op instead of op: a plain Redis command on
	// the baselines' keys, a floor the product is read against (floor.go).
	plain func(b *baselines) op
}

var workloads = []workload{
	{name: "join", unit: "ops", perUnitLatency: true, vias: allVias, op: joinOp, baseline: evalshaBaseline},
	{name: "score", unit: "ops", perUnitLatency: true, vias: allVias, op: scoreOp, baseline: evalshaBaseline},
	{name: "scorenorank", unit: "ops", perUnitLatency: true, vias: allVias, op: scoreNoRankOp, baseline: evalshaBaseline},
	{name: "standing", unit: "ops", perUnitLatency: true, vias: allVias, op: standingOp, baseline: evalshaBaseline},
	{name: "board", unit: "ops", perUnitLatency: true, vias: allVias, op: boardOp, baseline: zrevrangeBaseline},
	{name: "mix", unit: "ops", perUnitLatency: true, vias: allVias, op: mixOp, baseline: mixBaseline},
	{name: "batch", unit: "writes", vias: allVias, op: batchOp, baseline: singleWrites},
	{name: "player", unit: "ops", perUnitLatency: true, vias: []string{"http"}, op: playerOp, baseline: evalshaBaseline},
	{name: "lbwrite", unit: "ops", perUnitLatency: true, vias: allVias, leaderboard: true, op: lbWriteOp, baseline: evalshaBaseline},
	{name: "lbtop", unit: "ops", perUnitLatency: true, vias: allVias, leaderboard: true, op: lbTopOp, baseline: lbTopBaseline},
	{name: "lbmember", unit: "ops", perUnitLatency: true, vias: allVias, leaderboard: true, op: lbMemberOp, baseline: evalshaBaseline},
	{name: "lbroll", unit: "ops", perUnitLatency: true, vias: allVias, rolling: true, op: lbRollOp, baseline: evalshaBaseline},
	{name: "lbwindow", unit: "ops", perUnitLatency: true, vias: []string{"lib"}, rolling: true, windowOp: lbWindowOp, baseline: evalshaBaseline},
	{name: "lbscheme3", unit: "ops", perUnitLatency: true, vias: []string{"lib"}, rolling: true, windowOp: lbScheme3Op, baseline: evalshaBaseline},
	{name: "lbvote", unit: "ops", perUnitLatency: true, vias: []string{"lib"}, vote: true, limitOp: lbVoteOp, baseline: evalshaBaseline},
	{name: "httpfloor", unit: "ops", perUnitLatency: true, vias: []string{"http"}, httpFloor: true, op: scoreOp, baseline: evalshaBaseline},
	{name: "zaddfloor", unit: "ops", perUnitLatency: true, vias: []string{"lib"}, plain: (*baselines).zaddOnly, baseline: evalshaBaseline},
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

// lbTopBaseline reads the top 100 of a sorted set the size of the day board
// lbtop reads (baseline.go says why that size).
func lbTopBaseline(b *baselines, _ target, p *population) (string, op) {
	return b.sizedLabel(p.daySize), b.zrevrangeOf(p.daySize)
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

// scoreNoRankOp is scoreOp's write asking for no rank (?rank=false):
// what a game that does not show it pays.
func scoreNoRankOp(t target, p *population, _ int) op {
	return func(ctx context.Context, w *worker) (int, error) {
		s := p.write(w)
		s.NoRank = true
		return one(t.score(ctx, w, s))
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

func lbWriteOp(t target, p *population, _ int) op {
	return func(ctx context.Context, w *worker) (int, error) {
		return one(t.lbWrite(ctx, w, p.lbWrite(w)))
	}
}

// lbTopOp reads the top of the day board, which must still hold every
// member the fixture wrote: a new day (midnight in the leaderboard's zone)
// starts an empty board, and reading that would measure something else.
func lbTopOp(t target, p *population, _ int) op {
	return func(ctx context.Context, w *worker) (int, error) {
		size, err := t.lbTop(ctx, w, lbTopLimit)
		if err == nil && size < len(p.members) {
			err = fmt.Errorf("the day board holds %d members, not the %d written before measuring: a new day began", size, len(p.members))
		}
		return one(err)
	}
}

func lbMemberOp(t target, p *population, _ int) op {
	return func(ctx context.Context, w *worker) (int, error) {
		return one(t.lbMember(ctx, w, p.pickMember(w)))
	}
}

// one is the result of an op of one unit.
func one(err error) (int, error) {
	if err != nil {
		return 0, err
	}
	return 1, nil
}
