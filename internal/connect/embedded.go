package connect

import (
	"fmt"
	"sync"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"
)

// ExpireEvery is how often the embedded Redis lets time to live run out.
// miniredis only counts a key's TTL down when told (FastForward), by the
// time since it was last told, so a key set between two steps loses the
// whole step at the next: it expires up to ExpireEvery early or late. Give
// the engine league.WithExpiryLag(ExpireEvery) so that it is never early (a
// request id must be remembered for the whole idempotency window). Each
// step walks every key under miniredis's lock: ~60 ms per 100,000 keys,
// fine for the development runs embedded mode is for.
const ExpireEvery = time.Second

// startEmbedded starts an in-process miniredis whose keys expire as a real
// Redis's do (within ExpireEvery), and a client of it. stop stops both.
func startEmbedded() (c *redis.Client, stop func(), err error) {
	m, err := miniredis.Run()
	if err != nil {
		return nil, nil, fmt.Errorf("start embedded redis: %w", err)
	}
	// As in Redis: each command sent once, within the caller's deadline.
	c = redis.NewClient(&redis.Options{Addr: m.Addr(), MaxRetries: -1, ContextTimeoutEnabled: true, DialerRetries: 1})
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		expire(m, time.NewTicker(ExpireEvery), done)
	}()
	return c, func() {
		close(done)
		wg.Wait()
		c.Close()
		m.Close()
	}, nil
}

// expire counts m's TTLs down by the time that passed at each tick, until
// done closes.
func expire(m *miniredis.Miniredis, t *time.Ticker, done <-chan struct{}) {
	defer t.Stop()
	last := time.Now()
	for {
		select {
		case <-done:
			return
		case now := <-t.C:
			m.FastForward(now.Sub(last))
			last = now
		}
	}
}
