package league

import "sync"

// periodRules remembers which ladder rules (by fingerprint) each recent
// period is decided under. Recorded rules never change, so a period's entry
// never goes stale; the map is bounded because a league on a one-minute
// schedule would otherwise add an entry a minute for as long as the process
// runs. Only the newest periods are asked about (settlement's, and standings
// of players whose last period is not yet settled), so the oldest entry goes
// first.
type periodRules struct {
	mu sync.Mutex
	m  map[int64]string // period start -> fingerprint
}

// periodRulesKept bounds the entries: far more periods than are ever
// waiting for settlement at once.
const periodRulesKept = 64

func (c *periodRules) get(start int64) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	fp, ok := c.m[start]
	return fp, ok
}

// put records start's fingerprint, forgetting the oldest period when full.
func (c *periodRules) put(start int64, fp string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = make(map[int64]string)
	}
	if _, ok := c.m[start]; !ok && len(c.m) >= periodRulesKept {
		oldest := start
		for s := range c.m {
			oldest = min(oldest, s)
		}
		if oldest == start { // older than all kept: not worth keeping
			return
		}
		delete(c.m, oldest)
	}
	c.m[start] = fp
}
