package console

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/league-engine/league/league"
)

// Failed sign-ins are counted per client address (client.go), in Redis so
// that every replica sees them:
//
//	<ns>:console:f:<client address>  string  failed sign-ins; TTL: the rest of the window
//
// Past SignInFailures within SignInWindow, that address's sign-ins are
// refused (429, Retry-After) before the key is even checked: guessing
// costs a window per SignInFailures tries, and a flood of wrong keys stops
// writing log lines. Admin keys are long random secrets, so this is a
// second wall, not the first.
const (
	SignInFailures = 10
	SignInWindow   = 15 * time.Minute
)

type signinLimit struct {
	rdb    redis.UniversalClient
	prefix string
}

func newSigninLimit(rdb redis.UniversalClient, ns string) *signinLimit {
	return &signinLimit{rdb: rdb, prefix: ns + ":console:f:"}
}

func (l *signinLimit) key(client string) string { return l.prefix + client }

// check says how long client must wait before it may sign in again (0:
// it may now), with the RateLimited error to show it.
func (l *signinLimit) check(ctx context.Context, client string) (time.Duration, error) {
	pipe := l.rdb.Pipeline()
	n := pipe.Get(ctx, l.key(client))
	ttl := pipe.PTTL(ctx, l.key(client))
	if _, err := pipe.Exec(ctx); err != nil && err != redis.Nil {
		return 0, league.RedisError("console sign-in limit", err)
	}
	if failures, _ := n.Int(); failures < SignInFailures {
		return 0, nil
	}
	wait := max(ttl.Val(), time.Second).Round(time.Second)
	return wait, league.Errorf(league.RateLimited, "%d failed sign-ins from your address within %v: try again in %v",
		SignInFailures, SignInWindow, wait)
}

// failed counts a failed sign-in of client; the window starts at the first.
func (l *signinLimit) failed(ctx context.Context, client string) error {
	_, err := l.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.SetNX(ctx, l.key(client), 0, SignInWindow)
		p.Incr(ctx, l.key(client))
		return nil
	})
	return league.RedisError("console sign-in limit", err)
}
