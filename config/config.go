// Package config loads config.yaml: the server settings and the leagues.
// Loading checks everything a league needs before anything starts; an error
// names the league, the field and what is wrong with it.
package config

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/league-engine/league/api"
	"github.com/league-engine/league/internal/tracing"
	"github.com/league-engine/league/internal/words"
	"github.com/league-engine/league/leaderboard"
	"github.com/league-engine/league/league"
	"github.com/league-engine/league/tiers"
)

// Config is a loaded, checked configuration.
type Config struct {
	Server    Server
	Log       Log
	Namespace string // first part of every Redis key
	// SharedRoundTrips is how many pipelines the engine keeps in flight for
	// the single calls of concurrent requests (league.WithSharedRoundTrips);
	// 0 sends each call on its own round trip.
	SharedRoundTrips int
	Settlement       Settlement
	// Tracing says where OpenTelemetry spans go (off without an endpoint).
	Tracing      tracing.Settings
	Events       Events
	Leagues      []*league.League
	Leaderboards []*leaderboard.Leaderboard
}

// Settlement configures the scheduler.
type Settlement struct {
	// Poll is how often every replica looks for periods left unsettled (a
	// replica died mid-settlement, Postgres was down). Cron fires settle on
	// time; Poll bounds how late a takeover can be.
	Poll time.Duration
	// HistoryLimit is how many past periods a player profile shows.
	HistoryLimit int
	// KeepHistory is how long settled history stays in Postgres: the age
	// leaguectl prune deletes beyond when run without -older-than. 0 (the
	// default): kept for ever, and prune needs -older-than.
	KeepHistory time.Duration
}

// Defaults.
const (
	DefaultListen       = "127.0.0.1:8080"
	DefaultNamespace    = "league"
	DefaultPoll         = 15 * time.Second
	DefaultHistoryLimit = 10
	MaxHistoryLimit     = 1000
	MaxNamespaceLen     = 64
	// MaxSharedRoundTrips bounds redis.shared_round_trips: more pipelines
	// than connections in the pool would only queue for connections.
	MaxSharedRoundTrips = 64
)

// file mirrors config.yaml.
type file struct {
	Server serverFile `yaml:"server"`
	Log    logFile    `yaml:"log"`
	Redis  struct {
		Namespace        *string `yaml:"namespace"`
		SharedRoundTrips *int    `yaml:"shared_round_trips"`
		// AutoPipeline is the key shared_round_trips replaced; kept only to
		// say so.
		AutoPipeline *bool `yaml:"autopipeline"`
	} `yaml:"redis"`
	Settlement struct {
		Poll         duration `yaml:"poll"`
		HistoryLimit *int     `yaml:"history_limit"`
		KeepHistory  duration `yaml:"keep_history"`
	} `yaml:"settlement"`
	Tracing struct {
		OTLPEndpoint string   `yaml:"otlp_endpoint"`
		SampleRatio  *float64 `yaml:"sample_ratio"`
		ServiceName  string   `yaml:"service_name"`
	} `yaml:"tracing"`
	Events       eventsFile        `yaml:"events"`
	Leagues      []leagueFile      `yaml:"leagues"`
	Leaderboards []leaderboardFile `yaml:"leaderboards"`
}

type leagueFile struct {
	ID                string           `yaml:"id"`
	BoardSize         *int             `yaml:"board_size"`
	Schedule          string           `yaml:"schedule"`
	EntryTier         string           `yaml:"entry_tier"`
	TieBreak          string           `yaml:"tie_break"`
	TieResolution     duration         `yaml:"tie_resolution"`
	ScoreOperator     string           `yaml:"score_operator"`
	MaxScore          int64            `yaml:"max_score"`
	MaxGain           int64            `yaml:"max_gain"`
	MaxAttempts       int              `yaml:"max_attempts"`
	Limits            []limitFile      `yaml:"limits"`
	MaxGainPer        map[string]int64 `yaml:"max_gain_per"`
	Hold              bool             `yaml:"hold"`
	Retention         duration         `yaml:"retention"`
	IdempotencyWindow duration         `yaml:"idempotency_window"`
	DecayAfter        int              `yaml:"decay_after"`
	JoinCutoff        duration         `yaml:"join_cutoff"`
	Cohorts           []string         `yaml:"cohorts"`
	MinBoardSize      int              `yaml:"min_board_size"`
	Buckets           *int             `yaml:"buckets"`
	Tiers             []tierFile       `yaml:"tiers"`
	Overrides         []overrideFile   `yaml:"overrides"`
}

type tierFile struct {
	ID              string     `yaml:"id"`
	Name            *string    `yaml:"name"` // nil: the id
	Promote         float64    `yaml:"promote"`
	Demote          float64    `yaml:"demote"`
	PromoteCount    int        `yaml:"promote_count"`
	DemoteCount     int        `yaml:"demote_count"`
	PromoteAtLeast  int        `yaml:"promote_at_least"`
	DemoteAtLeast   int        `yaml:"demote_at_least"`
	AtLeastFrom     int        `yaml:"at_least_from"`
	JumpTop         int        `yaml:"jump_top"`
	JumpTiers       int        `yaml:"jump_tiers"`
	ProtectPromoted bool       `yaml:"protect_promoted"`
	MinPromoteScore int64      `yaml:"min_promote_score"`
	MinRewardScore  int64      `yaml:"min_reward_score"`
	MinBoardSize    *int       `yaml:"min_board_size"` // nil: the league's
	Rewards         []bandFile `yaml:"rewards"`
}

type bandFile struct {
	Ranks string           `yaml:"ranks"` // "1" or "2-3"
	Items map[string]int64 `yaml:"items"`
}

// Load reads and checks a config file.
func Load(path string) (*Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	c, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// Parse checks a config given as YAML.
func Parse(b []byte) (*Config, error) {
	var f file
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true) // a misspelt field is an error, not a silent default
	if err := dec.Decode(&f); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("the file is empty: it needs at least one league under leagues: or leaderboard under leaderboards:")
		}
		// A number that is not one fails decoding with yaml.v3's words
		// ("cannot unmarshal !!str into int64"); checkWhole names the field.
		var doc yaml.Node
		if yaml.Unmarshal(b, &doc) == nil {
			if werr := checkWhole(&doc, false); werr != nil {
				return nil, werr
			}
			if uerr := checkUnknown(&doc, "", reflect.TypeFor[file](), err.Error()); uerr != nil {
				return nil, uerr
			}
		}
		// yaml.v3's errors start with "yaml: " already.
		return nil, err
	}
	var extra any
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, errors.New("more than one YAML document (---): put everything in one")
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, err
	}
	if err := checkWhole(&doc, false); err != nil {
		return nil, err
	}
	if err := checkNulls(&doc, ""); err != nil {
		return nil, err
	}
	c := &Config{
		Namespace:        DefaultNamespace,
		SharedRoundTrips: league.DefaultSharedRoundTrips,
		Settlement:       Settlement{HistoryLimit: DefaultHistoryLimit},
	}
	var err error
	if c.Log, err = f.Log.build(); err != nil {
		return nil, err
	}
	if ns := f.Redis.Namespace; ns != nil {
		if err := checkNamespace(*ns); err != nil {
			return nil, fmt.Errorf("redis.namespace: %v", err)
		}
		c.Namespace = *ns
	}
	if f.Redis.AutoPipeline != nil {
		return nil, fmt.Errorf("redis.autopipeline: replaced by redis.shared_round_trips (pipelines in flight for concurrent calls, 0 = off; default %d)",
			league.DefaultSharedRoundTrips)
	}
	if n := f.Redis.SharedRoundTrips; n != nil {
		if *n < 0 || *n > MaxSharedRoundTrips {
			return nil, fmt.Errorf("redis.shared_round_trips: %d is outside 0..%d (0 sends every call on its own round trip)", *n, MaxSharedRoundTrips)
		}
		c.SharedRoundTrips = *n
	}
	poll, err := f.Settlement.Poll.get("settlement.poll", time.Second)
	if err != nil {
		return nil, err
	}
	c.Settlement.Poll = poll
	if c.Settlement.Poll == 0 {
		c.Settlement.Poll = DefaultPoll
	}
	if n := f.Settlement.HistoryLimit; n != nil {
		if *n < 1 || *n > MaxHistoryLimit {
			return nil, fmt.Errorf("settlement.history_limit: %d is outside 1..%d", *n, MaxHistoryLimit)
		}
		c.Settlement.HistoryLimit = *n
	}
	c.Tracing = tracing.Settings{Endpoint: f.Tracing.OTLPEndpoint, SampleRatio: 1, ServiceName: f.Tracing.ServiceName}
	if r := f.Tracing.SampleRatio; r != nil {
		c.Tracing.SampleRatio = *r
	}
	if err := c.Tracing.Check(); err != nil {
		return nil, err
	}
	// A day at least: history younger than that is still being claimed and
	// looked at, and a bare number of seconds here is surely a slip.
	if c.Settlement.KeepHistory, err = f.Settlement.KeepHistory.get("settlement.keep_history", 24*time.Hour); err != nil {
		return nil, err
	}
	if len(f.Leagues) == 0 && len(f.Leaderboards) == 0 {
		return nil, errors.New("leagues, leaderboards: at least one league or leaderboard is required")
	}
	if c.Leagues, err = buildAll[*league.League]("league", f.Leagues); err != nil {
		return nil, err
	}
	if c.Leaderboards, err = buildAll[*leaderboard.Leaderboard]("leaderboard", f.Leaderboards); err != nil {
		return nil, err
	}
	if c.Server, err = f.Server.build(c.LeagueIDs(), c.LeaderboardIDs()); err != nil {
		return nil, err
	}
	if c.Events, err = f.Events.build(c.LeagueIDs()); err != nil {
		return nil, err
	}
	return c, nil
}

// LeaderboardIDs returns the ids of the leaderboards, in the file's order.
func (c *Config) LeaderboardIDs() []string {
	ids := make([]string, len(c.Leaderboards))
	for i, l := range c.Leaderboards {
		ids[i] = l.ID
	}
	return ids
}

// LeagueIDs returns the ids of the leagues, in the file's order.
func (c *Config) LeagueIDs() []string {
	ids := make([]string, len(c.Leagues))
	for i, l := range c.Leagues {
		ids[i] = l.ID
	}
	return ids
}

func (lf leagueFile) build() (*league.League, error) {
	sched, err := league.ParseSchedule(lf.Schedule)
	if err != nil {
		return nil, fmt.Errorf("schedule: %v", err)
	}
	ts := make([]tiers.Tier, len(lf.Tiers))
	for i, tf := range lf.Tiers {
		if ts[i], err = tf.build(); err != nil {
			return nil, fmt.Errorf("tiers[%d] (%s).%w", i, tf.ID, err)
		}
		if tf.MinBoardSize == nil {
			ts[i].MinBoardSize = lf.MinBoardSize
		}
	}
	ladder, err := tiers.NewLadder(ts)
	if err != nil {
		return nil, err
	}
	l := &league.League{
		ID: lf.ID, Schedule: sched, Ladder: ladder, EntryTier: lf.EntryTier,
		TieBreak: league.TieBreak(lf.TieBreak), Operator: league.Operator(lf.ScoreOperator), MaxScore: lf.MaxScore,
		MaxGain: lf.MaxGain, MaxAttempts: lf.MaxAttempts, Hold: lf.Hold,
		DecayAfter: lf.DecayAfter, Cohorts: lf.Cohorts,
	}
	if l.JoinCutoff, err = lf.JoinCutoff.get("join_cutoff", time.Second); err != nil {
		return nil, err
	}
	for i, lim := range lf.Limits {
		if lim.Max == nil {
			return nil, fmt.Errorf("limits[%d].max: required", i)
		}
		if len(lim.Extra) > 0 {
			return nil, fmt.Errorf("limits[%d].extra: extra allowances go by channel or terminal, which league score writes do not have", i)
		}
		out := league.Limit{Name: lim.Name, Per: league.Per(lim.Per), Max: *lim.Max}
		for _, d := range lim.By {
			out.By = append(out.By, league.LimitBy(d))
		}
		l.Limits = append(l.Limits, out)
	}
	for per, most := range lf.MaxGainPer {
		if l.MaxGainPer == nil {
			l.MaxGainPer = map[league.Per]int64{}
		}
		l.MaxGainPer[league.Per(per)] = most
	}
	// Init reads a zero as "left out" and gives it the default, so a zero
	// written in the file is refused here, where the two still differ (for
	// the durations, by get).
	for _, n := range []struct {
		field string
		in    *int
		max   int
		out   *int
	}{
		{"board_size", lf.BoardSize, league.MaxBoardSize, &l.BoardSize},
		{"buckets", lf.Buckets, league.MaxBuckets, &l.Buckets},
	} {
		if n.in == nil {
			continue
		}
		if *n.in == 0 {
			return nil, fmt.Errorf("%s: 0 is outside 1..%d", n.field, n.max)
		}
		*n.out = *n.in
	}
	for _, d := range []struct {
		field string
		in    duration
		min   time.Duration
		out   *time.Duration
	}{
		{"tie_resolution", lf.TieResolution, time.Millisecond, &l.TieResolution},
		{"retention", lf.Retention, time.Second, &l.Retention},
		{"idempotency_window", lf.IdempotencyWindow, time.Second, &l.IdempotencyWindow},
	} {
		if *d.out, err = d.in.get(d.field, d.min); err != nil {
			return nil, err
		}
	}
	if l.Overrides, err = lf.overrides(ladder); err != nil {
		return nil, err
	}
	if err := l.Init(); err != nil {
		return nil, err
	}
	for i, o := range l.Overrides {
		if err := checkMoves(fmt.Sprintf("overrides[%d].", i), o.Ladder.Tiers(), l.BoardSize); err != nil {
			return nil, err
		}
	}
	if err := checkMoves("", ts, l.BoardSize); err != nil {
		return nil, err
	}
	for i, b := range ts {
		for _, band := range b.Rewards {
			if band.To > l.BoardSize {
				return nil, fmt.Errorf("tiers[%d] (%s).rewards: ranks %d-%d go past the board size %d", i, b.ID, band.From, band.To, l.BoardSize)
			}
		}
		if b.MinPromoteScore > l.MaxScore {
			return nil, fmt.Errorf("tiers[%d] (%s).min_promote_score: %d is over max_score %d, so nobody could be promoted",
				i, b.ID, b.MinPromoteScore, l.MaxScore)
		}
		if b.MinRewardScore > l.MaxScore {
			return nil, fmt.Errorf("tiers[%d] (%s).min_reward_score: %d is over max_score %d, so nobody could earn a reward",
				i, b.ID, b.MinRewardScore, l.MaxScore)
		}
	}
	return l, nil
}

var itemID = regexp.MustCompile(`^[a-z0-9_]{1,32}$`)

func (tf tierFile) build() (tiers.Tier, error) {
	t := tiers.Tier{ID: tf.ID, Name: tf.ID, MinPromoteScore: tf.MinPromoteScore, MinRewardScore: tf.MinRewardScore,
		PromoteCount: tf.PromoteCount, DemoteCount: tf.DemoteCount, PromoteAtLeast: tf.PromoteAtLeast,
		DemoteAtLeast: tf.DemoteAtLeast, AtLeastFrom: tf.AtLeastFrom, JumpTop: tf.JumpTop, JumpBy: tf.JumpTiers,
		ProtectPromoted: tf.ProtectPromoted}
	if tf.MinBoardSize != nil {
		t.MinBoardSize = *tf.MinBoardSize
	}
	if tf.Name != nil {
		// Init checks the name (league.MaxTierNameLen); an empty one would
		// pass it as unnamed, though name: "" is more likely a slip.
		if *tf.Name == "" {
			return t, errors.New("name: must not be empty (leave it out to show the id)")
		}
		t.Name = *tf.Name
	}
	var err error
	if t.Promote, err = tiers.RatioOf(tf.Promote); err != nil {
		return t, fmt.Errorf("promote: %v", err)
	}
	if t.Demote, err = tiers.RatioOf(tf.Demote); err != nil {
		return t, fmt.Errorf("demote: %v", err)
	}
	for j, bf := range tf.Rewards {
		from, to, err := parseRanks(bf.Ranks)
		if err != nil {
			return t, fmt.Errorf("rewards[%d].ranks: %v", j, err)
		}
		band := tiers.Band{From: from, To: to}
		ids := make([]string, 0, len(bf.Items))
		for id := range bf.Items {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		for _, id := range ids {
			if !itemID.MatchString(id) {
				return t, fmt.Errorf("rewards[%d].items: %q must be 1-32 characters of a-z, 0-9 and _", j, id)
			}
			band.Items = append(band.Items, tiers.Item{ID: id, Qty: bf.Items[id]})
		}
		t.Rewards = append(t.Rewards, band)
	}
	return t, nil
}

// parseRanks parses "3" or "2-10".
func parseRanks(s string) (int, int, error) {
	a, b, isRange := strings.Cut(strings.TrimSpace(s), "-")
	from, err := strconv.Atoi(strings.TrimSpace(a))
	if err != nil {
		return 0, 0, fmt.Errorf("%q is not a rank or a range like 2-10", s)
	}
	to := from
	if isRange {
		if to, err = strconv.Atoi(strings.TrimSpace(b)); err != nil {
			return 0, 0, fmt.Errorf("%q is not a rank or a range like 2-10", s)
		}
	}
	return from, to, nil
}

// badKey says what is wrong with an API or admin key, or "": a bearer token
// of at least 16 printable ASCII characters, no spaces. It never quotes the
// key, which is a secret.
func badKey(k string) string {
	if k == "" {
		return "empty (a stray comma?); a key is at least 16 printable ASCII characters"
	}
	if len(k) < 16 {
		return fmt.Sprintf("%d characters; a key is at least 16", len(k))
	}
	for i, c := range []byte(k) {
		if c <= ' ' || c > '~' {
			return fmt.Sprintf("character %d is not printable ASCII (or is a space); a key is printable ASCII without spaces", i+1)
		}
	}
	return ""
}

// checkNamespace accepts 1..MaxNamespaceLen bytes of printable ASCII
// without spaces, braces or colons. The namespace starts every Redis key
// (<ns>:{league}:...): a brace would move the hash tag that keeps a league's
// keys in one cluster slot, and a colon would blur where the namespace ends.
func checkNamespace(ns string) error {
	if ns == "" {
		return fmt.Errorf("must not be empty (leave it out for %q)", DefaultNamespace)
	}
	if len(ns) > MaxNamespaceLen {
		return fmt.Errorf("is %d bytes, at most %d", len(ns), MaxNamespaceLen)
	}
	for i := 0; i < len(ns); i++ {
		if c := ns[i]; c <= ' ' || c > '~' || c == '{' || c == '}' || c == ':' {
			return fmt.Errorf("%q: byte %d (%q) is not printable ASCII without spaces, braces or colons", ns, i, ns[i:i+1])
		}
	}
	return nil
}

// checkListen refuses an address leagued could not bind, so that config
// check says so rather than the start: host:port with a numeric port.
func checkListen(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%q is not host:port, e.g. 127.0.0.1:8080 or :8080", addr)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("%q: port %q is not a number in 0..65535", addr, port)
	}
	if strings.ContainsAny(host, " /") {
		return fmt.Errorf("%q: %q is not a host name or IP address", addr, host)
	}
	return nil
}

// ApplyEnv applies the environment: LISTEN_ADDR; LEAGUE_API_KEYS and
// LEAGUE_ADMIN_KEYS (comma-separated), which replace api_keys and
// admin_keys; and the secrets of server.keys and events.webhooks given by
// secret_env (and secret_file).
func (c *Config) ApplyEnv(getenv func(string) string) error {
	if v := getenv("LISTEN_ADDR"); v != "" {
		if err := checkListen(v); err != nil {
			return fmt.Errorf("LISTEN_ADDR: %v", err)
		}
		c.Server.Listen = v
	}
	for _, o := range []struct {
		env   string
		admin bool
	}{{"LEAGUE_API_KEYS", false}, {"LEAGUE_ADMIN_KEYS", true}} {
		v := getenv(o.env)
		if v == "" {
			continue
		}
		var env []api.Key
		secrets := strings.Split(v, ",")
		for i, k := range secrets {
			k = strings.TrimSpace(k)
			if why := badKey(k); why != "" {
				return fmt.Errorf("%s: key %d of %d: %s", o.env, i+1, len(secrets), why)
			}
			env = append(env, unnamedKey(o.admin, i, k))
		}
		c.Server.replaceUnnamed(o.admin, env)
	}
	if err := c.Events.resolveSecrets(getenv); err != nil {
		return err
	}
	return c.Server.resolveSecrets(getenv)
}

// CheckStore runs CheckRemovedTiers for every league against the players the
// store holds: leagued refuses to start, and leaguectl config check fails,
// on a ladder that would strand players.
func (c *Config) CheckStore(ctx context.Context, store league.Store) error {
	for _, l := range c.Leagues {
		pop, err := store.Populations(ctx, l.ID)
		if err != nil {
			return fmt.Errorf("league %q: reading tier populations: %w", l.ID, err)
		}
		if err := CheckRemovedTiers(l, pop); err != nil {
			return err
		}
	}
	return nil
}

// CheckRemovedTiers refuses a league whose ladder lost a tier that still
// holds players (populations by tier id, from the store): those players
// would have no tier to play in.
func CheckRemovedTiers(l *league.League, populations map[string]int) error {
	var gone []string
	for id, n := range populations {
		if _, ok := l.Ladder.Index(id); !ok && n > 0 {
			gone = append(gone, fmt.Sprintf("%s (%s)", id, words.Count(n, "player")))
		}
	}
	if len(gone) == 0 {
		return nil
	}
	sort.Strings(gone)
	return fmt.Errorf("league %q: tiers: tiers this config lacks still hold players: %s; if they were removed from it, keep them in the ladder "+
		"(players who never come back keep their tier, so a tier that ever held players stays); if another process's newer config added them, "+
		"start this one with that config", l.ID, strings.Join(gone, ", "))
}
