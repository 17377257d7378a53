package redisclock_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/league-engine/league/internal/redisclock"
	"github.com/league-engine/league/internal/testsvc"
)

// TestFollowsRedis: a clock whose host is 90 s behind Redis (miniredis's
// time stands in for it) says Redis's time after Sync, and moves when a
// script's reply says otherwise.
func TestFollowsRedis(t *testing.T) {
	rdb, m := testsvc.Mini(t)
	ahead := time.Now().Add(90 * time.Second)
	m.SetTime(ahead)
	c := redisclock.New(nil, func(context.Context) redis.Cmdable { return rdb })
	c.Sync(t.Context())
	if d := c.Now().Sub(ahead); d < -2*time.Second || d > 2*time.Second {
		t.Fatalf("Now is %v off Redis's time after Sync", d)
	}
	if c.Arg() != "" {
		t.Fatalf("Arg %q: scripts must read Redis's TIME", c.Arg())
	}
	later := time.Now().Add(time.Hour)
	c.Learn(later)
	if d := c.Now().Sub(later); d < -2*time.Second || d > 2*time.Second {
		t.Fatalf("Now is %v off what a reply said", d)
	}
}

// TestFixed: an injected clock is the clock, and scripts are told it.
func TestFixed(t *testing.T) {
	at := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	c := redisclock.New(func() time.Time { return at }, nil)
	c.Sync(t.Context()) // asks no Redis
	c.Learn(at.Add(time.Hour))
	if !c.Now().Equal(at) || c.Arg() != "1795600800000" {
		t.Fatalf("Now %v, Arg %q; want the injected time", c.Now(), c.Arg())
	}
}
