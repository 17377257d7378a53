package testsvc

import (
	"sync/atomic"
	"time"
)

// Clock is a clock tests move by hand: pass its Now to league.WithClock.
// It keeps milliseconds, as the engine's scripts do, and is safe to read
// while a test moves it.
type Clock struct{ ms atomic.Int64 }

// NewClock returns a clock at t.
func NewClock(t time.Time) *Clock {
	c := &Clock{}
	c.Set(t)
	return c
}

func (c *Clock) Now() time.Time      { return time.UnixMilli(c.ms.Load()).UTC() }
func (c *Clock) Set(t time.Time)     { c.ms.Store(t.UnixMilli()) }
func (c *Clock) Add(d time.Duration) { c.ms.Add(d.Milliseconds()) }

// After sets the clock a minute past t, typically a period's end: the
// period is over, and its successor has begun.
func (c *Clock) After(t time.Time) { c.Set(t.Add(time.Minute)) }
