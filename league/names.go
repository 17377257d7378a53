package league

import (
	"sync"
	"time"
)

// nameCache keeps each board's name hash in process for a short while.
// Names change only when a player joins a board or rejoins under a new name,
// so most board reads need only the sorted set: half the work for Redis. An
// entry lives namesTTL; a board member the entry does not know (a new
// joiner) refreshes it at once, so only a rename can show late, by up to
// namesTTL.
type nameCache struct {
	mu sync.Mutex
	m  map[string]nameEntry
}

type nameEntry struct {
	names map[string]string // player -> name \x1f avatar
	at    time.Time
}

const (
	namesTTL     = 2 * time.Second
	namesEntries = 4096 // boards; ~5 KB each at 100 players
)

// get returns the cached names of a board if they are fresh.
func (c *nameCache) get(key string) (map[string]string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[key]
	if !ok || time.Since(e.at) > namesTTL {
		return nil, false
	}
	return e.names, true
}

// put stores a board's names, evicting an arbitrary entry when full.
func (c *nameCache) put(key string, names map[string]string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = make(map[string]nameEntry)
	}
	if _, ok := c.m[key]; !ok && len(c.m) >= namesEntries {
		for k := range c.m {
			delete(c.m, k)
			break
		}
	}
	c.m[key] = nameEntry{names: names, at: time.Now()}
}
