package league

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/league-engine/league/internal/evalsha"
	"github.com/league-engine/league/internal/excerpt"
	"github.com/league-engine/league/internal/redisclock"
	"github.com/league-engine/league/scripts"
)

// Engine runs the live leagues on Redis: joins, score writes and reads, and
// the Redis side of settlement. It is safe for concurrent use; any number of
// engines (processes) may share one Redis.
type Engine struct {
	rdb     redis.UniversalClient
	run     *evalsha.Runner // every script call goes through it
	ns      string
	fixed   func() time.Time // WithClock; nil: Redis's clock decides
	clock   *redisclock.Clock
	log     *slog.Logger
	leagues map[string]*live
	ids     []string
	shared  int // shared round trips in flight (evalsha.New); 0: none
	names   nameCache
	absent  func(ctx context.Context, league string) error // see WithAbsentLeagues
	skipped map[string]error                               // leagues the absent hook left out: why
	// otherDeployments: Restore ignores the league under other namespaces.
	otherDeployments bool
	expiryLag        time.Duration // see WithExpiryLag
	// correctionFault: see WithCorrectionFault; nil: none.
	correctionFault func(step string) error
}

// live is a league plus what the engine keeps for it at run time.
type live struct {
	*League
	keys        keys
	code        []int                      // ladder index -> tier code in Redis
	codes       string                     // code as bytes, one a tier: score.lua refuses a player in another
	ranks       string                     // promotionRanks: join.lua's protection argument, "" without protection
	index       map[int]int                // tier code (and cohort code: cohort.go) -> ladder index
	cohortCode  [][]int                    // ladder index -> cohort (0: shared boards) -> code; nil without cohorts
	cohortOf    map[int]int                // cohort code -> 1-based cohort; shared boards' codes absent
	seqCodes    [][]int                    // ladder index -> its codes in tie order (setSeqs); nil without cohorts
	seq         map[int]int                // code -> its position in seqCodes
	groups      string                     // group_at's argument (setSeqs); "" without cohorts
	codeTiers   string                     // join.lua's ARGV[26] (setCodes): each code's tier code; "" without cohorts
	cohortMaps  []string                   // join.lua's ARGV[27] by cohort (0: shared boards); nil without cohorts
	epoch       string                     // the league's data generation at Open (stored.go)
	restored    time.Time                  // start of the period the last restore ran in; zero: none
	lost        atomic.Bool                // a script found another epoch (lostError)
	rulesFP     string                     // fingerprint of Ladder's rules, recorded in meta by Open
	overrides   map[int64]override         // period start -> its override's ladder (override.go)
	recorded    sync.Map                   // fingerprint -> *tiers.Ladder: other processes' rules (ladderFor)
	periodRules periodRules                // period start -> fingerprint of the rules it is decided under
	warned      sync.Map                   // tier ids this config lacks that a join placed players in, logged once
	period      atomic.Pointer[[2]Period]  // the current period and the one before
	packing     Packing                    // see Packing
	scoreFixed  atomic.Pointer[scoreFixed] // the current period's score.lua arguments (score.go)
}

// Option configures an Engine.
type Option func(*Engine)

// WithNamespace sets the first part of every key (default "league"), so
// several deployments, or tests, can share one Redis.
func WithNamespace(ns string) Option { return func(e *Engine) { e.ns = ns } }

// WithClock makes the engine decide periods by this clock instead of Redis's
// (the clock's time is passed to every script). For tests that cross period
// boundaries without sleeping; production leaves Redis's clock in charge.
func WithClock(now func() time.Time) Option { return func(e *Engine) { e.fixed = now } }

// WithSharedRoundTrips lets the single calls (a join, a write, a standing)
// of concurrent goroutines share round trips to Redis: at most n pipelines
// are in flight, and calls that arrive while all n are busy go together in
// the next one (internal/evalsha). A call never waits for others, so an idle
// engine sends plain round trips; at load Redis spends far less CPU per
// call (BENCHMARKS.md). n = 0 sends every call on its own.
func WithSharedRoundTrips(n int) Option { return func(e *Engine) { e.shared = n } }

// DefaultSharedRoundTrips is the engine's default for WithSharedRoundTrips.
const DefaultSharedRoundTrips = 2

// WithExpiryLag adds d to every time to live the engine sets (request ids,
// settled periods' keys), for a Redis whose keys may expire up to d early:
// the embedded one (miniredis), whose TTLs count down in steps of d (see
// internal/connect), so a key set just before a step loses that whole step.
// Late is the safe side: a request id must be remembered for at least the
// idempotency window.
func WithExpiryLag(d time.Duration) Option { return func(e *Engine) { e.expiryLag = max(d, 0) } }

// WithLogger sets the logger (default slog.Default()).
func WithLogger(l *slog.Logger) Option { return func(e *Engine) { e.log = l } }

// WithAbsentLeagues has Open ask fn about every league Redis holds no data
// of, before it writes anything for it: an error refuses Open. Such a league
// is either new or lost by Redis (restarted without persistence, flushed, a
// changed namespace); only the store can tell which, and starting a lost one
// afresh would put every player back in the entry tier. fn returning
// SkipAbsent leaves the league out of the engine instead (calls for it are
// NotFound). leagued refuses when the store has standings for the league
// (WithLostCheck); leaguectl leaves such leagues to leagued.
func WithAbsentLeagues(fn func(ctx context.Context, league string) error) Option {
	return func(e *Engine) { e.absent = fn }
}

// SkipAbsent, returned by a WithAbsentLeagues hook, makes Open leave the
// league out rather than create its data.
var SkipAbsent = errors.New("league: leave out a league Redis holds no data of")

// Open prepares the leagues on Redis: loads the scripts and settles each
// tier's code. The leagues must have passed Init.
//
// A call waits for Redis at most rdb's read timeout (of a *redis.Client,
// *redis.ClusterClient or *redis.Ring; go-redis's default 5 s for another
// client) and is then Unavailable. The engine never lets rdb send a script
// call twice, whatever its MaxRetries or MaxRedirects (eval.go): Redis may
// have run the first, and a score write would count twice. The plain
// commands it sends (reads, EXPIRE, ZREM, XACK) do the same when run twice,
// so rdb may retry those as it likes.
func Open(ctx context.Context, rdb redis.UniversalClient, leagues []*League, opts ...Option) (*Engine, error) {
	e, err := newEngine(ctx, rdb, opts)
	if err != nil {
		return nil, err
	}
	// Every league's presence and stored layout is checked before any
	// league's data is written: a refusal (a lost league, a mistyped
	// namespace, a changed board size) leaves Redis as it found it.
	opened := make([]*live, 0, len(leagues))
	for _, l := range leagues {
		if _, dup := e.leagues[l.ID]; dup || e.skipped[l.ID] != nil {
			return nil, fmt.Errorf("league: %q configured twice", l.ID)
		}
		lv := e.newLive(l)
		skip, err := e.checkPresent(ctx, lv)
		if err != nil {
			return nil, err
		}
		if skip != nil {
			e.skipped[l.ID] = skip
			continue
		}
		e.leagues[l.ID] = lv
		opened = append(opened, lv)
	}
	e.clock.Sync(ctx) // overrides are checked against Redis's clock
	for _, lv := range opened {
		if err := lv.checkPassed(e.clock.Now()); err != nil {
			return nil, err
		}
		if err := e.checkStored(ctx, lv); err != nil {
			return nil, err
		}
	}
	for _, lv := range opened {
		if err := e.tierCodes(ctx, lv); err != nil {
			return nil, err
		}
		if err := e.recordLayout(ctx, lv); err != nil {
			return nil, err
		}
		e.ids = append(e.ids, lv.ID)
	}
	sort.Strings(e.ids)
	e.clock.Sync(ctx)
	return e, nil
}

// newEngine applies opts over the defaults, checks them and loads the
// scripts: what Open and Restore share.
func newEngine(ctx context.Context, rdb redis.UniversalClient, opts []Option) (*Engine, error) {
	e := &Engine{rdb: rdb, ns: "league", log: slog.Default(), leagues: map[string]*live{},
		shared: DefaultSharedRoundTrips, skipped: map[string]error{}}
	for _, o := range opts {
		o(e)
	}
	if strings.ContainsAny(e.ns, "{}") || e.ns == "" {
		return nil, fmt.Errorf("league: namespace %q must be non-empty and free of braces", e.ns)
	}
	if e.shared < 0 {
		return nil, fmt.Errorf("league: %d shared round trips; want 0 (off) or more", e.shared)
	}
	if err := checkAttempts(rdb); err != nil {
		return nil, err
	}
	e.run = evalsha.New(rdb, e.shared)
	e.clock = redisclock.New(e.fixed, e.clockNode)
	if err := loadScripts(ctx, rdb); err != nil {
		return nil, internal("load scripts", err)
	}
	e.warnIfEvicting(ctx)
	return e, nil
}

// checkAttempts refuses a client that would send nothing: go-redis makes
// MaxRetries+1 attempts at a command (MaxRedirects+1 on a cluster), -1
// meaning none after the first, so below -1 it makes none, and reports no
// error either.
func checkAttempts(rdb redis.UniversalClient) error {
	var retries, redirects int
	switch c := rdb.(type) {
	case *redis.Client:
		retries = c.Options().MaxRetries
	case *redis.ClusterClient:
		retries, redirects = c.Options().MaxRetries, c.Options().MaxRedirects
	case *redis.Ring:
		retries = c.Options().MaxRetries
	}
	if retries < -1 {
		return fmt.Errorf("league: the Redis client's max retries is %d, with which go-redis sends no command; use -1 for none", retries)
	}
	if redirects < -1 {
		return fmt.Errorf("league: the Redis client's max redirects is %d, with which go-redis sends no command; use -1 for none", redirects)
	}
	return nil
}

// newLive is league l as this engine keeps it, before Open or Restore fills
// in its tier codes and epoch.
func (e *Engine) newLive(l *League) *live {
	lv := &live{League: l, keys: newKeys(e.ns, l.ID, l.Buckets), index: map[int]int{}, rulesFP: l.Ladder.Fingerprint(),
		packing: l.Packing(), overrides: map[int64]override{}}
	for _, o := range l.Overrides {
		fp := o.Ladder.Fingerprint()
		lv.overrides[o.Period.Unix()] = override{Ladder: o.Ladder, fp: fp}
		lv.recorded.Store(fp, o.Ladder) // ladderFor: this config's own
	}
	return lv
}

// Packing is the packing of the league's boards in Redis: the config's,
// unless the boards were laid out with fewer time bits (checkFixed).
func (lv *live) Packing() Packing { return lv.packing }

// loadScripts loads the scripts into every master (cluster) or the server.
func loadScripts(ctx context.Context, rdb redis.UniversalClient) error {
	if c, ok := rdb.(*redis.ClusterClient); ok {
		return c.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error {
			return scripts.Load(ctx, m)
		})
	}
	return scripts.Load(ctx, rdb)
}

func (e *Engine) tierCodes(ctx context.Context, lv *live) error {
	codes, err := e.run.RunAlone(ctx, scripts.Tiers, []string{lv.keys.tiers()}, lv.codeIDs()...).Int64Slice()
	if err != nil {
		return internal("tier codes", err)
	}
	cs := make([]int, len(codes))
	for i, c := range codes {
		if c < 0 {
			return fmt.Errorf("league %q: all 255 tier codes are used; remove old ids from %s", lv.ID, lv.keys.tiers())
		}
		cs[i] = int(c)
	}
	lv.setCodes(cs)
	lv.ranks = promotionRanks(lv)
	return nil
}

// RoundTripStats counts the single calls (joins, score writes, standings)
// the engine sent through shared round trips, and the round trips that
// carried them: Calls / RoundTrips is how many calls a round trip carried on
// average. Both stay 0 when sharing is off (WithSharedRoundTrips(0)).
type RoundTripStats = evalsha.Stats

// RoundTripStats returns the counts since Open.
func (e *Engine) RoundTripStats() RoundTripStats { return e.run.Stats() }

// League returns a configured league.
func (e *Engine) League(id string) (*League, error) {
	lv, err := e.live(id)
	if err != nil {
		return nil, err
	}
	return lv.League, nil
}

// Leagues returns the configured leagues, sorted by id.
func (e *Engine) Leagues() []*League {
	out := make([]*League, len(e.ids))
	for i, id := range e.ids {
		out[i] = e.leagues[id].League
	}
	return out
}

func (e *Engine) live(id string) (*live, error) {
	lv, ok := e.leagues[id]
	if ok && lv.lost.Load() {
		return nil, lv.lostError()
	}
	if !ok {
		if id == "" {
			return nil, fieldError("league", "must not be empty")
		}
		if why := e.skipped[id]; why != nil {
			return nil, &Error{Code: NotFound, Message: why.Error()}
		}
		return nil, Errorf(NotFound, "unknown league %q", excerpt.Of(id))
	}
	return lv, nil
}

// tierID names a tier code this engine may not know: its own tiers', or,
// for a tier another process's newer config added (Redis's tiers hash has
// it), that tier's id; ok is false for a tier this config does not have.
func (e *Engine) tierID(ctx context.Context, lv *live, code int) (id string, ok bool) {
	if idx, known := lv.index[code]; known {
		return lv.Ladder.Tier(idx).ID, true
	}
	all, _ := e.rdb.HGetAll(ctx, lv.keys.tiers()).Result()
	for tid, c := range all {
		if c == strconv.Itoa(code) {
			return tid, false
		}
	}
	return "code " + strconv.Itoa(code), false
}

// unknownTier is the error of a player in a tier this process's config does
// not have: another process runs a config that added it. A score write for
// such a player is refused before it writes (score.lua); a join's placement
// stands and names the tier. This process must be restarted with the new
// config.
func (lv *live) unknownTier(player, tier string) error {
	return Errorf(Unavailable, "league %q: player %q plays in tier %q, which this process's config does not have "+
		"(a config adding it is rolling out): restart this process with it, or retry on one that has it", lv.ID, player, tier)
}

// Current returns the league's period at the engine's clock.
func (e *Engine) Current(leagueID string) (Period, error) {
	lv, err := e.live(leagueID)
	if err != nil {
		return Period{}, err
	}
	p, _ := e.current(lv)
	return p, nil
}

// current returns the period at the engine's clock and the one before it.
func (e *Engine) current(lv *live) (Period, Period) {
	return e.periodAt(lv, e.now())
}

// periodAt returns the period holding t and the one before it, cached:
// finding a period walks the cron schedule, which is too slow for every call.
func (e *Engine) periodAt(lv *live, t time.Time) (Period, Period) {
	if p := lv.period.Load(); p != nil && !t.Before(p[0].Start) && t.Before(p[0].End) {
		return p[0], p[1]
	}
	cur := lv.Schedule.At(t)
	pair := [2]Period{cur, lv.Schedule.Preceding(cur)}
	lv.period.Store(&pair)
	return pair[0], pair[1]
}

// periodOf returns the period that starts at the given Unix second.
func (lv *live) periodOf(start int64) (Period, error) {
	return lv.Schedule.Containing(time.Unix(start, 0).UTC())
}

// startsPeriod reports whether a period of the league's schedule starts at
// start (Unix seconds).
func (lv *live) startsPeriod(start int64) bool {
	_, err := lv.periodOf(start)
	return err == nil
}

// Ping checks that Redis answers, for readiness probes.
func (e *Engine) Ping(ctx context.Context) error {
	return internal("ping", e.rdb.Ping(ctx).Err())
}

// PeriodOf returns the league's period named by id (see Period.ID), or a
// NotFound error when no period of the schedule starts there.
func (e *Engine) PeriodOf(leagueID, id string) (Period, error) {
	lv, err := e.live(leagueID)
	if err != nil {
		return Period{}, err
	}
	start, err := ParsePeriodID(id)
	if err != nil {
		return Period{}, fieldError("period", "%v", err)
	}
	p, err := lv.Schedule.Containing(start)
	if err != nil {
		return Period{}, Errorf(NotFound, "league %q has no period %s", lv.ID, id)
	}
	return p, nil
}
