package evalsha

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"
)

// Every script call (a league's join, score, standing and settlement; a
// leaderboard's write and read) goes to Redis through this file: alone, or
// with others in one pipeline, and in either case never twice.
//
// A command that may have reached Redis must not be sent again: when its
// connection broke or its reply timed out, Redis may have run it, or will
// once it answers again, and a score write without a request id would then
// count twice, the caller told of one. go-redis re-sends a failed command on
// such errors as its MaxRetries allow, and on Redis Cluster as MaxRedirects
// allows whatever MaxRetries says. Two guards keep it from doing so, whatever
// the client's settings: each write goes as a command marked NoRetry
// (sentOnce), which go-redis honours in every retry loop, alone or
// pipelined, on a server or a cluster, while still following MOVED and ASK
// (Redis answers those without running the command); and each round trip
// runs under a context bounded by the client's read timeout (sendOnce), so a
// timed-out reply also ends the caller's wait. The caller then gets an
// unavailable error, whose write may have landed (docs/http.md: retry it with the
// same request id). Tests: TestStalledReplyNeverSentTwice and, on a cluster,
// TestRedisClusterStalledWriteNeverSentTwice.

// sentOnce is a script call go-redis must not send again after a failure.
type sentOnce struct{ *redis.Cmd }

func (sentOnce) NoRetry() bool { return true }

// command builds c's EVALSHA (EVALSHA_RO when ro) as go-redis's Script
// does, sets c.cmd and returns what to send: a write marked sentOnce. A
// read (EVALSHA_RO) may be retried as the client allows.
func (c *call) command(ctx context.Context) redis.Cmder {
	name := "evalsha"
	if c.ro {
		name = "evalsha_ro"
	}
	args := make([]any, 0, 3+len(c.keys)+len(c.args))
	args = append(args, name, c.script.Hash(), len(c.keys))
	for _, k := range c.keys {
		args = append(args, k)
	}
	args = append(args, c.args...)
	c.cmd = redis.NewCmd(ctx, args...)
	if len(c.keys) > 0 {
		c.cmd.SetFirstKeyPos(3) // where Redis Cluster finds the slot
	}
	if c.ro {
		return c.cmd
	}
	return sentOnce{c.cmd}
}

// sendAlone runs c as a round trip of its own, under its own context.
func (c *call) sendAlone(rdb redis.UniversalClient, limit time.Duration) {
	_ = evalPipelined(c.ctx, rdb, limit, []*call{c})
}

// sendOnce bounds a round trip's context by limit, the client's read
// timeout (replyLimit): by the time a read times out, the context has ended
// too, and go-redis checks it before taking a connection for any retry.
// Retries of commands never sent (a refused dial) still happen within the
// limit.
//
// A context whose deadline comes sooner (a request's) is bound already, and
// is used as it is: a timer per round trip costs a request about as much
// as decoding its body.
func sendOnce(ctx context.Context, limit time.Duration) (context.Context, context.CancelFunc) {
	if limit <= 0 {
		return ctx, noCancel
	}
	if d, ok := ctx.Deadline(); ok && time.Until(d) <= limit {
		return ctx, noCancel
	}
	return context.WithTimeout(ctx, limit)
}

func noCancel() {}

// replyLimit returns how long rdb waits for a reply before giving up on the
// connection, 0 for never. Clients it cannot ask are taken to keep
// go-redis's default.
func replyLimit(rdb redis.UniversalClient) time.Duration {
	t := 5 * time.Second
	switch c := rdb.(type) {
	case *redis.Client:
		t = c.Options().ReadTimeout
	case *redis.ClusterClient:
		t = c.Options().ReadTimeout
	case *redis.Ring:
		t = c.Options().ReadTimeout
	}
	return max(t, 0)
}

// evalPipelined runs calls as EVALSHA (or EVALSHA_RO), one call as a plain
// round trip and several in one pipeline, and sets each call's Cmd. If the
// server lost its script cache (a restart, SCRIPT FLUSH), the scripts of the
// calls that met NOSCRIPT are loaded again and those calls, and only those,
// are sent once more: Redis ran none of them. The error is the round trip's
// own (Redis unreachable); a command's error reply stays in its Cmd.
func evalPipelined(ctx context.Context, rdb redis.UniversalClient, limit time.Duration, calls []*call) error {
	for attempt := 0; ; attempt++ {
		err := sendPipeline(ctx, rdb, limit, calls)
		if err == nil {
			return nil
		}
		if _, reply := err.(redis.Error); !reply || Unavailable(err) {
			return err
		}
		var lost []*call
		scripts := map[*redis.Script]bool{}
		for _, c := range calls {
			if redis.HasErrorPrefix(c.cmd.Err(), "NOSCRIPT") {
				lost = append(lost, c)
				scripts[c.script] = true
			}
		}
		if len(lost) == 0 || attempt > 0 {
			return nil
		}
		for s := range scripts {
			// on a cluster, go-redis loads it into every node
			if err := s.Load(ctx, rdb).Err(); err != nil {
				return err
			}
		}
		calls = lost
	}
}

// sendPipeline sends calls in one round trip, bounded by sendOnce.
func sendPipeline(ctx context.Context, rdb redis.UniversalClient, limit time.Duration, calls []*call) error {
	ctx, cancel := sendOnce(ctx, limit)
	defer cancel()
	if len(calls) == 1 {
		return rdb.Process(ctx, calls[0].command(ctx))
	}
	pipe := rdb.Pipeline()
	for _, c := range calls {
		_ = pipe.Process(ctx, c.command(ctx))
	}
	_, err := pipe.Exec(ctx)
	return err
}
