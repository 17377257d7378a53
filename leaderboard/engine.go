package leaderboard

import (
	"context"
	"fmt"
	"log/slog"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/league-engine/league/internal/evalsha"
	"github.com/league-engine/league/internal/keyspace"
	"github.com/league-engine/league/internal/redisclock"
	"github.com/league-engine/league/league"
	"github.com/league-engine/league/scripts"
)

// Engine serves the leaderboards on Redis. It is safe for concurrent use;
// any number of engines (processes) may share one Redis.
type Engine struct {
	rdb       redis.UniversalClient
	run       *evalsha.Runner
	clock     *redisclock.Clock
	ns        string
	fixed     func() time.Time
	shared    int
	expiryLag time.Duration
	log       *slog.Logger
	boards    map[string]*Leaderboard
	plans     *plans // by leaderboard id: its shard counts over time (reshard.go)
	ids       []string
	token     string    // this engine's name in the pre-fill lease
	archive   Archive   // nil: no archive
	public    bool      // a Public view
	claimed   *sync.Map // leaderboard id -> when Drain last claimed stale entries
	afterTake func()    // tests: runs between a write's takes and the write (reserve.go)
}

// Option configures an Engine.
type Option func(*Engine)

// WithNamespace sets the first part of every key (default "league", as
// leagues': a leaderboard's keys are <ns>:lb:{id}:...).
func WithNamespace(ns string) Option { return func(e *Engine) { e.ns = ns } }

// WithClock makes the engine decide periods by this clock instead of
// Redis's, for tests that cross boundaries without sleeping.
func WithClock(now func() time.Time) Option { return func(e *Engine) { e.fixed = now } }

// WithSharedRoundTrips lets the writes of concurrent goroutines share round
// trips to Redis, at most n in flight (internal/evalsha); 0: none.
func WithSharedRoundTrips(n int) Option { return func(e *Engine) { e.shared = n } }

// WithExpiryLag adds d to every time to live the engine sets, for a Redis
// whose keys may expire up to d early (the embedded one; see
// league.WithExpiryLag).
func WithExpiryLag(d time.Duration) Option { return func(e *Engine) { e.expiryLag = max(d, 0) } }

// WithArchive stores closed periods in a (Engine.Archive), for the
// leaderboards whose ArchivePolicy says so, and reads their periods past
// retention from it.
func WithArchive(a Archive) Option { return func(e *Engine) { e.archive = a } }

// WithLogger sets the logger (default slog.Default()).
func WithLogger(l *slog.Logger) Option { return func(e *Engine) { e.log = l } }

// Open prepares the leaderboards (which must have passed Init) on Redis:
// loads the scripts and learns Redis's clock. Leaderboards keep no state
// beyond their boards, so a new one needs nothing written.
func Open(ctx context.Context, rdb redis.UniversalClient, boards []*Leaderboard, opts ...Option) (*Engine, error) {
	e := &Engine{rdb: rdb, ns: "league", log: slog.Default(), boards: map[string]*Leaderboard{},
		plans: &plans{byID: map[string]*planSlot{}}, claimed: &sync.Map{}, shared: league.DefaultSharedRoundTrips, token: newToken()}
	for _, o := range opts {
		o(e)
	}
	for _, l := range boards {
		if _, dup := e.boards[l.ID]; dup {
			return nil, fmt.Errorf("leaderboard: %q configured twice", l.ID)
		}
		if l.tieBits == nil {
			return nil, fmt.Errorf("leaderboard: %q has not passed Init", l.ID)
		}
		e.boards[l.ID] = l
		e.ids = append(e.ids, l.ID)
	}
	sort.Strings(e.ids)
	e.run = evalsha.New(rdb, e.shared)
	e.clock = redisclock.New(e.fixed, e.clockNode)
	if err := scripts.Load(ctx, rdb); err != nil {
		return nil, league.RedisError("load scripts", err)
	}
	e.clock.Sync(ctx) // the plan's switches are on Redis's clock
	for _, id := range e.ids {
		if err := e.openPlan(ctx, e.boards[id]); err != nil {
			return nil, err
		}
		if err := e.openQueues(ctx, e.boards[id]); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// clockNode is where the scripts of the first leaderboard read TIME.
func (e *Engine) clockNode(ctx context.Context) redis.Cmdable {
	if c, ok := e.rdb.(*redis.ClusterClient); ok && len(e.ids) > 0 {
		if n, err := c.MasterForKey(ctx, "{"+e.ids[0]+"}"); err == nil {
			return n
		}
	}
	return e.rdb
}

// Leaderboard returns a configured leaderboard, or NotFound.
func (e *Engine) Leaderboard(id string) (*Leaderboard, error) {
	if l, ok := e.boards[id]; ok {
		return l, nil
	}
	return nil, league.Errorf(league.NotFound, "unknown leaderboard %q", id)
}

// Leaderboards returns the configured leaderboards, sorted by id.
func (e *Engine) Leaderboards() []*Leaderboard {
	out := make([]*Leaderboard, len(e.ids))
	for i, id := range e.ids {
		out[i] = e.boards[id]
	}
	return out
}

// Now is the engine's best idea of Redis's time.
func (e *Engine) Now() time.Time { return e.clock.Now() }

// Ping checks that Redis answers.
func (e *Engine) Ping(ctx context.Context) error {
	return league.RedisError("ping", e.rdb.Ping(ctx).Err())
}

// RoundTripStats counts the writes sent through shared round trips.
func (e *Engine) RoundTripStats() evalsha.Stats { return e.run.Stats() }

// keys of one leaderboard:
//
//	<ns>:lb:{L}:<kind>:<start>   zset  a periodic board: member -> packed score (start: Unix s)
//	<ns>:lb:{L}:all_time         zset  the all-time board
//	<ns>:lb:{L}:q:[<scope>:]<id> string a write's stored result, for the idempotency window
//	<ns>:lb:{L}:<window>:<start> zset  a rolling board: member -> sum (window: 7d, 24h; start: its last bucket's)
//	<ns>:lb:{L}:bucket:<unit>:<start> zset  a bucket (hour or day) of the rolling windows: member -> sum
//	<ns>:lb:{L}:fill:<window>:<start> string the pre-fill's progress on that rolling board; "done"
//	<ns>:lb:{L}:fill             string the token of the process pre-filling the leaderboard (the shard)
//	<ns>:lb:{L}:pub:<kind>:<start> zset the public twin of a periodic board: values times the multiplier
//	<ns>:lb:{L}:mult             hash  member -> its multiplier, where not 1
//	<ns>:lb:{L}:hll:<kind>:<start>[:<member>] HyperLogLog the actors who wrote in the period (for the member)
//	<ns>:lb:{L}:catalog          hash  member -> {"name":...,"metadata":...}
//	<ns>:lb:{L}:initial          hash  member -> the initial score applied to its all-time score
//	<ns>:lb:{L}:queue            stream a queued leaderboard's waiting writes (the shard's)
//	<ns>:lb:{L}:drainer          string the token of the consumer draining the shard's queue (queue.go)
//	<ns>:lb:{L}:rl:<limit>:<window> <values> string a rate limit's counter (limit.go)
//	<ns>:lb:{L}:rv:[<scope>:]<id> hash the limits a request id took before its write (reserve.go)
//	<ns>:lb:{L}:refusals         stream the last ~1000 writes a rate limit refused (refusals.go; shard 0's only)
//
// On a sharded leaderboard each shard s > 0 has its own, under {L:s}.
type keys struct{ prefix string }

// keys are the keys of l's shard 0: all of l's, unless it is sharded
// (shard.go).
func (e *Engine) keys(l *Leaderboard) keys { return e.plan(l).keys[0] }

func (k keys) board(p Period) string {
	if p.Kind == AllTime {
		return k.prefix + string(AllTime)
	}
	return k.prefix + string(p.Kind) + ":" + strconv.FormatInt(p.Start.Unix(), 10)
}

func (k keys) request(scope, id string) string { return keyspace.Request(k.prefix, scope, id) }

// bucket is the raw board of one bucket of the rolling windows of its unit.
func (k keys) bucket(b Period) string {
	return k.prefix + "bucket:" + string(b.Kind) + ":" + strconv.FormatInt(b.Start.Unix(), 10)
}

// filled is the pre-fill's progress on the rolling board of p ("done" once
// filled).
func (k keys) filled(p Period) string {
	return k.prefix + "fill:" + string(p.Kind) + ":" + strconv.FormatInt(p.Start.Unix(), 10)
}

// public is the public twin of a periodic board (Leaderboard.PublicBoards).
func (k keys) public(p Period) string {
	if p.Kind == AllTime {
		return k.prefix + "pub:" + string(AllTime)
	}
	return k.prefix + "pub:" + string(p.Kind) + ":" + strconv.FormatInt(p.Start.Unix(), 10)
}

// participants is the HyperLogLog of the actors who wrote in period p;
// memberParticipants, of those who wrote for member.
func (k keys) participants(p Period) string {
	if p.Kind == AllTime {
		return k.prefix + "hll:" + string(AllTime)
	}
	return k.prefix + "hll:" + string(p.Kind) + ":" + strconv.FormatInt(p.Start.Unix(), 10)
}

func (k keys) memberParticipants(p Period, member string) string {
	return k.participants(p) + ":" + member
}

// multipliers holds members' multipliers, where not 1.
func (k keys) multipliers() string { return k.prefix + "mult" }

// catalog holds members' display names and metadata (catalog.go).
func (k keys) catalog() string { return k.prefix + "catalog" }

// catalogInitial holds the initial score applied to each member.
func (k keys) catalogInitial() string { return k.prefix + "initial" }

// lease is the token of the process pre-filling the leaderboard: one per
// shard of a sharded one (Engine.PreFill).
func (k keys) lease() string { return k.prefix + "fill" }

// BoardKey is the Redis key of leaderboard id's board of period p under
// namespace ns (for `leaguectl config check` and operators).
func BoardKey(ns, id string, p Period) string {
	return keys{prefix: keyspace.Prefix(ns, keyspace.Leaderboard, id)}.board(p)
}

// BucketKey is the Redis key of leaderboard id's bucket b (an hour or a day
// of its rolling windows) under namespace ns.
func BucketKey(ns, id string, b Period) string {
	return keys{prefix: keyspace.Prefix(ns, keyspace.Leaderboard, id)}.bucket(b)
}
