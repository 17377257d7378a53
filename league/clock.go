package league

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"
)

// The engine follows Redis's clock (internal/redisclock), read on the node
// of its first league: on Redis Cluster that is the node whose scripts read
// it for that league.
func (e *Engine) clockNode(ctx context.Context) redis.Cmdable {
	if len(e.ids) > 0 {
		if n, err := e.leagueNode(ctx, e.leagues[e.ids[0]]); err == nil {
			return n
		}
	}
	return e.rdb
}

// now is the engine's best idea of Redis's time.
func (e *Engine) now() time.Time { return e.clock.Now() }

// redisSaid learns from a WrongPeriod reply: Redis's clock is at ms, so the
// period to use is the one holding ms, and the clock's skew moves there.
func (e *Engine) redisSaid(lv *live, ms int64) (Period, Period) {
	redisNow := time.UnixMilli(ms)
	e.clock.Learn(redisNow)
	return e.periodAt(lv, redisNow)
}
