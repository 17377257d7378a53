// Package redisclock keeps a process's best idea of Redis's time. Redis's
// clock decides which period a call lands in (the scripts read TIME), so
// every app server agrees on a boundary whatever its own clock says; the
// process's guess only picks the period a call asks about first (a wrong
// guess costs a second round trip, the script answering with Redis's now)
// and the period reads show. A host whose clock is off by seconds would
// guess wrong for those seconds around every boundary, and a replica that
// only reads would never learn otherwise, so the clock asks Redis for TIME
// when it starts and again every SyncEvery while it is used.
package redisclock

import (
	"context"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// SyncEvery is how often the clock asks Redis for TIME while it is used.
const SyncEvery = 5 * time.Second

// Clock is Redis's time as this process knows it. Safe for concurrent use.
type Clock struct {
	fixed func() time.Time                    // an injected clock (tests); nil: Redis decides
	node  func(context.Context) redis.Cmdable // whose TIME the scripts read
	// skew is Redis's clock minus ours in ms; synced is when TIME last
	// said so (Unix ns), syncing while a check is under way.
	skew    atomic.Int64
	synced  atomic.Int64
	syncing atomic.Bool
}

// New returns a clock following the TIME of node (on Redis Cluster, the
// node whose scripts read it: a keyless TIME would go to any node). With
// fixed set, the clock is fixed's and scripts are told it (Arg): for tests
// that cross boundaries without sleeping.
func New(fixed func() time.Time, node func(context.Context) redis.Cmdable) *Clock {
	return &Clock{fixed: fixed, node: node}
}

// Now is the clock's best idea of Redis's time.
func (c *Clock) Now() time.Time {
	if c.fixed != nil {
		return c.fixed()
	}
	t := time.Now()
	if t.UnixNano()-c.synced.Load() > int64(SyncEvery) && c.syncing.CompareAndSwap(false, true) {
		go func() {
			defer c.syncing.Store(false)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			c.Sync(ctx)
		}()
	}
	return t.Add(time.Duration(c.skew.Load()) * time.Millisecond)
}

// Sync sets the skew from Redis's TIME, taken as read halfway through the
// round trip (off by at most half of it). A failed read, or one slower than
// a second (a pause, not the link), changes nothing: the next use past
// SyncEvery tries again, and Learn still corrects the skew.
func (c *Clock) Sync(ctx context.Context) {
	if c.fixed != nil {
		return
	}
	node := c.node(ctx)
	sent := time.Now()
	redisNow, err := node.Time(ctx).Result()
	back := time.Now()
	c.synced.Store(back.UnixNano())
	if err != nil || back.Sub(sent) > time.Second {
		return
	}
	c.skew.Store(redisNow.Sub(sent.Add(back.Sub(sent) / 2)).Milliseconds())
}

// Learn takes Redis's time from a script's reply (a call that asked about
// another period than the one at Redis's now) and moves the skew there.
func (c *Clock) Learn(redisNow time.Time) {
	if c.fixed == nil {
		c.skew.Store(redisNow.Sub(time.Now()).Milliseconds())
	}
}

// Arg is the ARGV a script reads its clock from: the injected clock's time
// in ms, or "" for Redis TIME (scripts/common.lua's now_ms).
func (c *Clock) Arg() string {
	if c.fixed == nil {
		return ""
	}
	return strconv.FormatInt(c.fixed().UnixMilli(), 10)
}
