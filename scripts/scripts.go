// Package scripts holds the Redis Lua scripts of both products: leagues
// (join.lua, score.lua, ...) and leaderboards (lb_*.lua). Each script's header
// says its KEYS, ARGV and reply, and on a "-- uses:" line the helpers of
// common.lua it needs, which are prepended to it.
// Scripts run by EVALSHA (go-redis's Script falls back to EVAL once, which
// loads the script); Load them before pipelining, since a pipeline only sends
// EVALSHA.
package scripts

import (
	"context"
	_ "embed"
	"fmt"
	"strings"

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
	//go:embed prune.lua
	prune string
	//go:embed restore.lua
	restore string
	//go:embed moderate.lua
	moderate string
	//go:embed correct.lua
	correct string
	//go:embed merged.lua
	merged string
	//go:embed lb_write.lua
	lbWrite string
	//go:embed lb_member.lua
	lbMember string
	//go:embed lb_around.lua
	lbAround string
	//go:embed lb_rank.lua
	lbRank string
	//go:embed lb_fill.lua
	lbFill string
	//go:embed lb_catalog.lua
	lbCatalog string
	//go:embed lb_enqueue.lua
	lbEnqueue string
	//go:embed lb_drainer.lua
	lbDrainer string
	//go:embed lb_take.lua
	lbTake string
	//go:embed lb_give.lua
	lbGive string
)

// The scripts. See each .lua file for its contract.
var (
	Join     = redis.NewScript(assemble(join))
	Score    = redis.NewScript(assemble(score))
	Standing = redis.NewScript(assemble(standing))
	Close    = redis.NewScript(assemble(closeSrc))
	Apply    = redis.NewScript(assemble(apply))
	Settled  = redis.NewScript(assemble(settled))
	Tiers    = redis.NewScript(assemble(tiersSrc))
	Prune    = redis.NewScript(assemble(prune))
	Restore  = redis.NewScript(assemble(restore))
	Moderate = redis.NewScript(assemble(moderate))
	Correct  = redis.NewScript(assemble(correct))
	Merged   = redis.NewScript(assemble(merged))

	// Leaderboards' scripts (package leaderboard).
	LBWrite   = redis.NewScript(assemble(lbWrite))
	LBMember  = redis.NewScript(assemble(lbMember))
	LBAround  = redis.NewScript(assemble(lbAround))
	LBRank    = redis.NewScript(assemble(lbRank))
	LBFill    = redis.NewScript(assemble(lbFill))
	LBCatalog = redis.NewScript(assemble(lbCatalog))
	LBEnqueue = redis.NewScript(assemble(lbEnqueue))
	LBDrainer = redis.NewScript(assemble(lbDrainer))
	LBTake    = redis.NewScript(assemble(lbTake))
	LBGive    = redis.NewScript(assemble(lbGive))
)

// helpers are common.lua's sections by name, in file order.
var helpers, helperOrder = sections(common)

// sections splits common.lua at its "--- <name>" lines.
func sections(src string) (map[string]string, []string) {
	out := map[string]string{}
	var order []string
	name := ""
	for _, line := range strings.SplitAfter(src, "\n") {
		if n, ok := strings.CutPrefix(strings.TrimSpace(line), "--- "); ok {
			name = n
			order = append(order, n)
			continue
		}
		if name != "" {
			out[name] += line
		}
	}
	return out, order
}

// assemble prepends to a script the helpers its "-- uses:" line names, in
// common.lua's order. A script without that line, or naming an unknown
// helper, is a programming error caught when the package loads.
func assemble(body string) string {
	var uses string
	for _, line := range strings.Split(body, "\n") {
		if u, ok := strings.CutPrefix(line, "-- uses:"); ok {
			uses = u
			break
		}
	}
	want := map[string]bool{}
	for _, name := range strings.Fields(uses) {
		if name == "(no" || name == "helpers)" {
			continue
		}
		if _, ok := helpers[name]; !ok {
			panic(fmt.Sprintf("scripts: unknown helper %q", name))
		}
		want[name] = true
	}
	var b strings.Builder
	for _, name := range helperOrder {
		if want[name] {
			b.WriteString(helpers[name])
		}
	}
	b.WriteString(body)
	return b.String()
}

// All lists every script, for Load.
var All = []*redis.Script{Join, Score, Standing, Close, Apply, Settled, Tiers, Prune, Restore, Moderate, Correct, Merged, LBWrite, LBMember, LBAround, LBRank, LBFill, LBCatalog, LBEnqueue, LBTake, LBGive}

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
	Lost        Status = 11 // join: the league's data in Redis is not the data this process opened
	OtherRules  Status = 12 // join: the record's period is decided under other ladder rules
	OtherTier   Status = 13 // score: the player's tier code is not one the caller knows: reply[1]
	NeedSeed    Status = 14 // leaderboard write: a rolling board is not filled yet; send its buckets
	Busy        Status = 15 // leaderboard pre-fill: another process holds the lease
	Limited     Status = 16 // leaderboard and score writes: a rate limit is reached (reply[1] which, reply[2] when it frees)
	TooMuch     Status = 17 // score: the write would gain more than a cap allows (reply[3]: 0 max_gain, l gain limit l)
	Attempts    Status = 18 // score: the player used the league's max_attempts in the period
	Held        Status = 19 // score: the write passed a gain cap and is held for an operator
	NotHeld     Status = 20 // score (approve): no such held write
	Banned      Status = 21 // join: the player is banned; reply[1] is when the ban ends (ms)
	OffBoard    Status = 22 // score: an operator took the player off their board (reply[1] their entry)
	NoPlayer    Status = 23 // moderate: the player never joined the league
	BadState    Status = 24 // moderate: the action cannot apply to the player's state (reply[1])
	BadEnd      Status = 25 // moderate: a ban's end is not after Redis's now (reply[1])
	BoardLost   Status = 26 // moderate: the player is in the period but on no board
	Playing     Status = 27 // join, in a join_cutoff: the player is in the running period already (reply as Existing)
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

// Source returns body with every helper of common.lua before it, for tests
// that run the helpers against a server.
func Source(body string) string { return common + body }
