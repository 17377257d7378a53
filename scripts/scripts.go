// Package scripts holds the engine's Redis Lua scripts. Each script's header
// says its KEYS, ARGV and reply; common.lua is prepended to all of them.
// Scripts run by EVALSHA (go-redis's Script falls back to EVAL once, which
// loads the script); Load them before pipelining, since a pipeline only sends
// EVALSHA.
package scripts

import (
	"context"
	_ "embed"

	"github.com/redis/go-redis/v9"
)

var (
	//go:embed common.lua
	common string
	//go:embed join.lua
	join string
	//go:embed score.lua
	score string
	//go:embed standing.lua
	standing string
	//go:embed close.lua
	closeSrc string
	//go:embed apply.lua
	apply string
	//go:embed settled.lua
	settled string
	//go:embed tiers.lua
	tiersSrc string
)

// The scripts. See each .lua file for its contract.
var (
	Join     = redis.NewScript(common + join)
	Score    = redis.NewScript(common + score)
	Standing = redis.NewScript(common + standing)
	Close    = redis.NewScript(common + closeSrc)
	Apply    = redis.NewScript(common + apply)
	Settled  = redis.NewScript(common + settled)
	Tiers    = redis.NewScript(common + tiersSrc)
)

// All lists every script, for Load.
var All = []*redis.Script{Join, Score, Standing, Close, Apply, Settled, Tiers}

// Status is the first element of a script's reply.
type Status int64

// Reply statuses shared by the scripts (each script's header lists its own).
const (
	OK          Status = 0
	Existing    Status = 1  // join: already joined; score: a retried request id
	WrongPeriod Status = 2  // not the period at Redis's clock; reply[1] is Redis's now in ms
	Closed      Status = 3  // the period ended or is closed for settlement
	NeedTier    Status = 4  // join: the caller decides the tier
	Retry       Status = 5  // join: the record changed while the caller decided
	NotJoined   Status = 6  // score: no placement in this period
	Overflow    Status = 7  // score: over the maximum
	Conflict    Status = 8  // score: request id used by another player
	Full        Status = 9  // join: the tier's join counter is exhausted
	NotEnded    Status = 10 // close: the period has not ended
)

// Load loads every script into the server's script cache, so pipelines of
// EVALSHA find them. On Redis Cluster, run it against every master.
func Load(ctx context.Context, c redis.Scripter) error {
	for _, s := range All {
		if err := s.Load(ctx, c).Err(); err != nil {
			return err
		}
	}
	return nil
}

// Source returns a script's full text (with common.lua), for tests that run
// a helper of common.lua against a server.
func Source(body string) string { return common + body }
