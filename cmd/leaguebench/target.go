package main

import (
	"bytes"
	"context"
	"math/rand/v2"
	"time"

	"github.com/league-engine/league/leaderboard"
	"github.com/league-engine/league/league"
)

// target is what a workload drives: the league and leaderboard packages in
// this process (lib.go) or the HTTP API of a leagued (http.go). Each call is
// one request of the product; errors are the product's.
type target interface {
	join(ctx context.Context, w *worker, player, name string) error
	score(ctx context.Context, w *worker, write league.ScoreWrite) error
	// scoreBatch returns how many of the writes failed; err is the
	// request's own failure, or a sample of the writes' errors.
	scoreBatch(ctx context.Context, w *worker, writes []league.ScoreWrite) (failed int, err error)
	standing(ctx context.Context, w *worker, player string) error
	board(ctx context.Context, w *worker, id league.BoardID) error

	// The leaderboard's: a write to every board, the first limit entries of
	// the current day board (and how many members that board holds), and
	// a member on every board.
	lbWrite(ctx context.Context, w *worker, write leaderboard.Write) error
	lbTop(ctx context.Context, w *worker, limit int) (size int, err error)
	lbMember(ctx context.Context, w *worker, member string) error
	// lbRollWrite is a write to every board of the rolling leaderboard
	// lbroll drives (rolling.go).
	lbRollWrite(ctx context.Context, w *worker, write leaderboard.Write) error
}

// worker is one load-generating goroutine's state: its random numbers and
// buffers it reuses from request to request, so the load generator
// allocates little.
type worker struct {
	rng    *rand.Rand
	body   []byte       // a request body being built
	resp   bytes.Buffer // a response body read back
	writes []league.ScoreWrite
	timer  *time.Timer // open loop: waits for the scheduled send time
	conn   *wireConn   // the HTTP connection of the wire client
	num    [20]byte    // scratch for formatting numbers
}

// close closes the worker's HTTP connection, if it has one.
func (w *worker) close() {
	if w.conn != nil {
		w.conn.conn.Close()
		w.conn = nil
	}
}

func newWorker(seed uint64, id int) *worker {
	return &worker{rng: rand.New(rand.NewPCG(seed, uint64(id)))}
}
