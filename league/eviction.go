package league

import (
	"context"
	"strings"

	"github.com/redis/go-redis/v9"
)

// warnIfEvicting logs a warning for every Redis server whose
// maxmemory-policy lets it drop keys when memory runs short. A league's
// keys are its data, not a cache: under an allkeys-* policy a board, a
// player's record or a name hash can vanish mid-period (placements and
// scores lost without an error); under a volatile-* policy the keys with a
// time to live go first, and those are the remembered request ids, so a
// retried score write would count twice. Redis's own advice for data that
// must stay is noeviction (writes then fail with OOM, which the engine
// reports as unavailable). This warns rather than refuses: managed Redis
// services default to volatile-lru, and the risk is only real once Redis
// reaches maxmemory. A server that does not report its policy (miniredis,
// a proxy) is left alone.
func (e *Engine) warnIfEvicting(ctx context.Context) {
	check := func(ctx context.Context, c *redis.Client) error {
		info, err := c.Info(ctx, "memory").Result()
		if err != nil {
			return nil
		}
		if policy, risk := evictionRisk(info); risk != "" {
			e.log.Warn("league: Redis may evict the league's keys; set maxmemory-policy noeviction",
				"addr", c.Options().Addr, "maxmemory-policy", policy, "risk", risk)
		}
		return nil
	}
	switch c := e.rdb.(type) {
	case *redis.ClusterClient:
		c.ForEachMaster(ctx, check)
	case *redis.Ring:
		c.ForEachShard(ctx, check)
	case *redis.Client:
		check(ctx, c)
	}
}

// evictionRisk reads maxmemory_policy from an INFO memory reply and says
// what that policy could cost a league ("" when nothing: noeviction, or no
// policy reported).
func evictionRisk(info string) (policy, risk string) {
	for line := range strings.SplitSeq(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "maxmemory_policy:"); ok {
			policy = v
			break
		}
	}
	switch {
	case policy == "" || policy == "noeviction":
		return policy, ""
	case strings.HasPrefix(policy, "volatile-"):
		return policy, "keys with a time to live may go: remembered request ids (a retried score write would count twice) and settled boards"
	default:
		return policy, "any key may go: boards, placements and scores vanish without an error"
	}
}
