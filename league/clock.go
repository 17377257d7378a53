package league

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// Redis's clock decides which period a call lands in: the scripts read
// TIME. The engine's guess of it picks the period a call asks about first
// (a wrong guess costs a second round trip) and the period reads show
// (a wrong guess shows the next or the last period). A host whose clock is
// off by seconds guesses wrong for those seconds around every boundary, and
// a replica that only reads would never learn otherwise, so the engine
// asks Redis for TIME at Open and again every clockSync while it is used.
const clockSync = 5 * time.Second

// now is the engine's best idea of Redis's time.
func (e *Engine) now() time.Time {
	if e.clock != nil {
		return e.clock()
	}
	t := time.Now()
	if t.UnixNano()-e.synced.Load() > int64(clockSync) && e.syncing.CompareAndSwap(false, true) {
		go func() {
			defer e.syncing.Store(false)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			e.syncClock(ctx)
		}()
	}
	return t.Add(time.Duration(e.skew.Load()) * time.Millisecond)
}

// syncClock sets the skew from Redis's TIME, taken as read halfway through
// the round trip (off by at most half of it). On Redis Cluster it asks the
// node of the engine's first league, whose clock its scripts read (a
// keyless TIME would go to any node). A failed read, or one slower than a
// second (a pause, not the link), changes nothing: the next call past
// clockSync tries again, and WrongPeriod replies still correct the skew.
func (e *Engine) syncClock(ctx context.Context) {
	if e.clock != nil {
		return
	}
	var node redis.Cmdable = e.rdb
	if len(e.ids) > 0 {
		if n, err := e.leagueNode(ctx, e.leagues[e.ids[0]]); err == nil {
			node = n
		}
	}
	sent := time.Now()
	redisNow, err := node.Time(ctx).Result()
	back := time.Now()
	e.synced.Store(back.UnixNano())
	if err != nil || back.Sub(sent) > time.Second {
		return
	}
	e.skew.Store(redisNow.Sub(sent.Add(back.Sub(sent) / 2)).Milliseconds())
}

// nowArg is the ARGV a script reads its clock from: the injected clock, or
// "" for Redis TIME.
func (e *Engine) nowArg() string {
	if e.clock == nil {
		return ""
	}
	return fmt.Sprint(e.clock().UnixMilli())
}

// redisSaid learns from a WrongPeriod reply: Redis's clock is at ms, so the
// period to use is the one holding ms, and our skew estimate moves there.
func (e *Engine) redisSaid(lv *live, ms int64) (Period, Period) {
	redisNow := time.UnixMilli(ms)
	if e.clock == nil {
		e.skew.Store(redisNow.Sub(time.Now()).Milliseconds())
	}
	return e.periodAt(lv, redisNow)
}
