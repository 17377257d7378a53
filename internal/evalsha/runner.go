// Package evalsha is the one way both products send their Lua scripts to
// Redis: by EVALSHA, each call at most once (a write that may have reached
// Redis is never sent again, so it cannot count twice), alone or sharing a
// round trip with the calls of other goroutines (coalesce.go), and sent
// again only when Redis lost its script cache and so ran nothing.
package evalsha

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// Runner sends script calls to one Redis (a server or a cluster). It is
// safe for concurrent use.
type Runner struct {
	rdb   redis.UniversalClient
	limit time.Duration // bounds each round trip (sendOnce)
	co    *coalescer    // nil: every call is its own round trip
}

// New returns a runner for rdb. With shared > 0 the single calls of
// concurrent goroutines share round trips, at most shared pipelines in
// flight (coalesce.go); 0 sends each call on its own.
func New(rdb redis.UniversalClient, shared int) *Runner {
	r := &Runner{rdb: rdb, limit: replyLimit(rdb)}
	if shared > 0 {
		r.co = newCoalescer(rdb, r.limit, shared)
	}
	return r
}

// Run runs one call of script, sharing a round trip when the runner does.
// A read-only call (ro: EVALSHA_RO, which replicas may serve) may be
// retried as the client allows; a write never is.
func (r *Runner) Run(ctx context.Context, script *redis.Script, ro bool, keys []string, args ...any) *redis.Cmd {
	c := &call{ctx: ctx, script: script, ro: ro, keys: keys, args: args}
	if r.co == nil {
		c.sendAlone(r.rdb, r.limit)
		return c.cmd
	}
	return r.co.do(c)
}

// RunAlone runs one write call of script as its own round trip, never
// shared: calls that carry a period's worth of work (settlement), or that
// run once at start.
func (r *Runner) RunAlone(ctx context.Context, script *redis.Script, keys []string, args ...any) *redis.Cmd {
	c := &call{ctx: ctx, script: script, keys: keys, args: args}
	c.sendAlone(r.rdb, r.limit)
	return c.cmd
}

// Pipeline runs n write calls of script in one round trip; args gives the
// KEYS and ARGV of call j. A call's error reply stays in its Cmd; the error
// is the round trip's own (Redis unreachable).
func (r *Runner) Pipeline(ctx context.Context, script *redis.Script, n int, args func(j int) ([]string, []any)) ([]*redis.Cmd, error) {
	return r.pipeline(ctx, script, false, n, args)
}

// ReadPipeline runs n read-only calls of script (EVALSHA_RO) in one round
// trip, as Pipeline: reads that may be retried, and that a cluster client
// routing reads to replicas may send there.
func (r *Runner) ReadPipeline(ctx context.Context, script *redis.Script, n int, args func(j int) ([]string, []any)) ([]*redis.Cmd, error) {
	return r.pipeline(ctx, script, true, n, args)
}

func (r *Runner) pipeline(ctx context.Context, script *redis.Script, ro bool, n int, args func(j int) ([]string, []any)) ([]*redis.Cmd, error) {
	calls := make([]*call, n)
	for j := range calls {
		ks, as := args(j)
		calls[j] = &call{ctx: ctx, script: script, ro: ro, keys: ks, args: as}
	}
	if err := evalPipelined(ctx, r.rdb, r.limit, calls); err != nil {
		return nil, err
	}
	cmds := make([]*redis.Cmd, n)
	for j, c := range calls {
		cmds[j] = c.cmd
	}
	return cmds, nil
}

// Stats counts the single calls sent through shared round trips, and the
// round trips that carried them: Calls / RoundTrips is how many calls a
// round trip carried on average. Both stay 0 when sharing is off.
type Stats struct {
	Calls, RoundTrips uint64
}

// Stats returns the counts since New.
func (r *Runner) Stats() Stats {
	if r.co == nil {
		return Stats{}
	}
	return Stats{Calls: r.co.calls.Load(), RoundTrips: r.co.trips.Load()}
}

// Unavailable reports errors that mean Redis cannot be reached or is not
// ready, as opposed to a bug: a call failing so may be retried (a write
// with its request id, since it may have landed).
func Unavailable(err error) bool {
	var ne net.Error
	switch {
	case errors.As(err, &ne), errors.Is(err, context.DeadlineExceeded),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), // the connection broke
		errors.Is(err, redis.ErrClosed), errors.Is(err, redis.ErrPoolTimeout):
		return true
	}
	msg := err.Error()
	return strings.HasPrefix(msg, "LOADING") || strings.HasPrefix(msg, "CLUSTERDOWN") ||
		strings.HasPrefix(msg, "TRYAGAIN") || strings.HasPrefix(msg, "MASTERDOWN") ||
		strings.Contains(msg, "connection refused") || strings.HasPrefix(msg, "READONLY") ||
		// a script met a key Redis Cluster moved while migrating the slot
		// (before writing: the scripts touch such keys first)
		strings.Contains(msg, "non local key")
}
