package league

import (
	"strconv"

	"github.com/league-engine/league/internal/keyspace"
)

// Redis key layout. Every key of a league carries the league in a hash tag,
// {league}, so all keys one script touches share a cluster slot and the engine
// runs unchanged on Redis Cluster (a league lives on one shard; leagues spread
// over shards). <S> is a period start in Unix seconds, <t> a tier code (see
// tierCodes), <n> a board number, <b> a bucket number.
//
//	<ns>:{L}:tiers          hash   tier id -> tier code (stable across config edits)
//	<ns>:{L}:meta           hash   settled -> start of the last period whose tiers are applied;
//	                               layout, buckets, schedule, epoch (stored.go); restoring while Restore runs;
//	                               restored -> start of the period the last restore ran in;
//	                               ladder:<fp> -> ladder rules as JSON (tiers.Ladder.RulesJSON);
//	                               op:<S> -> period S's score operator, until it is settled
//	<ns>:{L}:periods        zset   starts of periods with players not yet settled
//	<ns>:{L}:played         zset   starts of the latest periods anyone joined (decay counts them)
//	<ns>:{L}:c:<S>          hash   tier code -> players joined (the HINCRBY of placement); closed -> 1;
//	                               ladder -> fingerprint of the rules the period is decided under
//	<ns>:{L}:b:<S>:<t>:<n>  zset   a sub-board: player -> packed score (pack.go); listpack-sized
//	<ns>:{L}:i:<S>:<t>:<n>  hash   the sub-board's names: player -> name \x1f avatar
//	<ns>:{L}:k:<S>          hash   player -> rewards claimed by their join of period S (for retries)
//	<ns>:{L}:r:<b>          hash   player -> 9-byte record (record.go): last period joined, tier, number
//	<ns>:{L}:w:<b>          hash   player -> rewards earned and not yet delivered (reward.go)
//	<ns>:{L}:q:<request id> string the stored result of a score write, for the idempotency window
//	<ns>:{L}:q:<scope>:<request id>  the same, of a caller with a name (ScoreWrite.Scope;
//	                               internal/keyspace.Request)
//	<ns>:{L}:x              stream reward claims and decays waiting to be recorded in Postgres
//	<ns>:{L}:m:<S>          hash   players an operator took off period S's boards (moderate.go):
//	                               player -> <state>:<tier code>:<packed score>
//	<ns>:{L}:ban            hash   banned players: player -> when the ban ends (Unix ms)
//	<ns>:{L}:pp:<S>         set    players promoted into the tier they joined period S in (a jump
//	                               too): tiers with protect_promoted keep them (protect.go);
//	                               written only by leagues where a tier protects
//	<ns>:{L}:y              stream admin actions waiting to be recorded in the store's audit
//
// Per-player records live in Buckets small hashes rather than one big hash:
// small hashes stay listpack-encoded (~24 bytes a player instead of ~80).
// The Lua scripts build b:, i: and k: keys from the prefix they are given
// (as asynq does): those keys depend on values read inside the script and
// carry the same hash tag. scripts/common.lua mirrors the functions below;
// TestKeysMatchLua holds them together.
type keys struct {
	prefix  string // <ns>:{L}:
	buckets uint32
}

func newKeys(ns, league string, buckets int) keys {
	return keys{prefix: keyspace.Prefix(ns, keyspace.League, league), buckets: uint32(buckets)}
}

func (k keys) tiers() string   { return k.prefix + "tiers" }
func (k keys) meta() string    { return k.prefix + "meta" }
func (k keys) periods() string { return k.prefix + "periods" }
func (k keys) played() string  { return k.prefix + "played" }
func (k keys) claims() string  { return k.prefix + "x" }
func (k keys) bans() string    { return k.prefix + "ban" }
func (k keys) actions() string { return k.prefix + "y" }

// moderated is period start's hash of the players an operator took off
// its boards (moderate.lua).
func (k keys) moderated(start int64) string { return k.prefix + "m:" + strconv.FormatInt(start, 10) }

// promoted is the set of players whose join of the period starting at
// start put them in a tier above the one they last played (join.lua):
// what promotion protection asks (protect.go).
func (k keys) promoted(start int64) string { return k.prefix + "pp:" + strconv.FormatInt(start, 10) }

// opField is the meta field of period start's score operator (join.lua
// and score.lua build it too).
func opField(start int64) string { return "op:" + strconv.FormatInt(start, 10) }

func (k keys) counters(start int64) string {
	return k.prefix + "c:" + strconv.FormatInt(start, 10)
}

func (k keys) board(start int64, code, n int) string {
	return k.prefix + "b:" + strconv.FormatInt(start, 10) + ":" + strconv.Itoa(code) + ":" + strconv.Itoa(n)
}

func (k keys) names(start int64, code, n int) string {
	return k.prefix + "i:" + strconv.FormatInt(start, 10) + ":" + strconv.Itoa(code) + ":" + strconv.Itoa(n)
}

func (k keys) claimed(start int64) string {
	return k.prefix + "k:" + strconv.FormatInt(start, 10)
}

func (k keys) request(scope, id string) string { return keyspace.Request(k.prefix, scope, id) }

// attempts counts each player's accepted score writes in the period
// starting at start (League.MaxAttempts).
func (k keys) attempts(start int64) string { return k.prefix + "a:" + strconv.FormatInt(start, 10) }

func (k keys) bucket(player string) uint32 {
	// FNV-1a, inlined: hash/fnv allocates, and this runs on every call.
	h := uint32(2166136261)
	for i := 0; i < len(player); i++ {
		h ^= uint32(player[i])
		h *= 16777619
	}
	return h % k.buckets
}

func (k keys) record(player string) string { return k.recordBucket(k.bucket(player)) }

func (k keys) recordBucket(b uint32) string {
	return k.prefix + "r:" + strconv.FormatUint(uint64(b), 10)
}

func (k keys) reward(player string) string {
	return k.prefix + "w:" + strconv.FormatUint(uint64(k.bucket(player)), 10)
}
