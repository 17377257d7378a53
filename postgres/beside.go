package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// A side transaction does part of a write on a second connection while the
// write's own transaction does the rest, so that a settlement keeps both of
// the database's cores busy: Postgres runs one statement on one core, and a
// million players' outcomes, events and standings, one after the other in
// one transaction, left the other core idle for most of the write.
//
// The side transaction commits only when the main one is ready to, just
// before it: until then a failure of either rolls both back, and nothing of
// the write is seen. A crash between the two commits (milliseconds) leaves
// the side's rows committed and the main transaction's not; the retry finds
// them (see WriteOutcomes) and writes only the rest, so nothing is written
// twice.
type sideTx struct {
	ready  chan error // the side's work done (nil) or failed
	decide chan bool  // true: commit; false: roll back
	result chan error // the commit's result
	cancel context.CancelFunc
	apart  bool // false: ran in the main transaction, nothing to commit apart
	asked  bool
}

// beside starts fn in a side transaction on conn. When conn is nil (a pool
// too small to lend a second connection) it runs fn in tx instead.
//
// The caller acquires conn before its own transaction takes any lock
// (Store.writeConns): a writer waiting for a connection while it holds a
// lock others wait for, with connections of their own, could wait for
// ever.
func beside(ctx context.Context, tx pgx.Tx, conn *pgxpool.Conn, fn func(pgx.Tx) error) (*sideTx, error) {
	if conn == nil {
		return &sideTx{}, fn(tx)
	}
	ctx, cancel := context.WithCancel(ctx)
	side := &sideTx{ready: make(chan error, 1), decide: make(chan bool, 1), result: make(chan error, 1), cancel: cancel, apart: true}
	go func() { side.result <- runSide(ctx, side, conn, fn) }()
	return side, nil
}

func runSide(ctx context.Context, side *sideTx, conn *pgxpool.Conn, fn func(pgx.Tx) error) error {
	tx, err := conn.Begin(ctx)
	if err != nil {
		side.ready <- err
		return err
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) // after a commit, a no-op
	if err := fn(tx); err != nil {
		side.ready <- err
		return err
	}
	side.ready <- nil
	if !<-side.decide {
		return errAbandoned
	}
	return tx.Commit(ctx)
}

var errAbandoned = errors.New("side transaction abandoned")

// commit waits for the side's work and commits it: the caller commits its
// own transaction next. On an error the side is rolled back, unless its
// commit failed on the way, in which case the retry finds out whether it
// committed.
func (t *sideTx) commit() error {
	if !t.apart || t.asked {
		return nil
	}
	t.asked = true
	defer t.cancel()
	if err := <-t.ready; err != nil {
		<-t.result
		return err
	}
	t.decide <- true
	return <-t.result
}

// abandon rolls the side back unless commit ran, and waits for it to
// finish: a deferred call, so no side outlives its write.
func (t *sideTx) abandon() {
	if !t.apart || t.asked {
		return
	}
	t.asked = true
	t.cancel()        // a COPY under way stops
	t.decide <- false // buffered: the side reads it once its work is done
	<-t.result
}
