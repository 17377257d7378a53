package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/league-engine/league/config"
	"github.com/league-engine/league/leaderboard"
	"github.com/league-engine/league/league"
)

// builtinConfig is config.yaml's weekly league: the default configuration
// (boards of 100, join order, incr, 16384 record buckets), kept here so the
// harness measures the same thing from any directory. -config replaces it.
const builtinConfig = `
leagues:
  - id: weekly
    schedule: "CRON_TZ=UTC 0 0 * * MON"
    board_size: 100
    entry_tier: bronze
    tie_break: join_order
    score_operator: incr
    max_score: 1000000000
    retention: 14d
    idempotency_window: 10m
    tiers:
      - id: bronze
        promote: 0.2
        min_promote_score: 1
        rewards:
          - {ranks: "1", items: {gems: 50}}
          - {ranks: "2-3", items: {gems: 20}}
      - id: silver
        promote: 0.15
        demote: 0.15
        min_promote_score: 1
        rewards:
          - {ranks: "1", items: {gems: 100}}
          - {ranks: "2-3", items: {gems: 50}}
          - {ranks: "4-10", items: {gems: 10}}
      - id: gold
        promote: 0.1
        demote: 0.2
        min_promote_score: 1
        rewards:
          - {ranks: "1", items: {gems: 200, chest: 1}}
          - {ranks: "2-3", items: {gems: 100}}
          - {ranks: "4-10", items: {gems: 20}}
      - id: diamond
        demote: 0.25
        rewards:
          - {ranks: "1", items: {gems: 500, chest: 3}}
          - {ranks: "2-3", items: {gems: 250, chest: 1}}
          - {ranks: "4-10", items: {gems: 50}}
`

// loadLeagues returns fresh, initialised leagues (an engine keeps its
// leagues, so every engine of a run gets its own), checks that id is one,
// and gives it the guards -guards names.
func loadLeagues(path, id, guards string) ([]*league.League, error) {
	var cfg *config.Config
	var err error
	if path == "" {
		cfg, err = config.Parse([]byte(builtinConfig))
	} else {
		cfg, err = config.Load(path)
	}
	if err != nil {
		return nil, err
	}
	for _, l := range cfg.Leagues {
		if l.ID == id {
			if err := setGuards(l, guards); err != nil {
				return nil, fmt.Errorf("-guards %s: league %q: %w", guards, id, err)
			}
			return cfg.Leagues, nil
		}
	}
	return nil, fmt.Errorf("-league %q: the config has no such league", id)
}

// The guards on score writes -guards gives the measured league
// (league/limit.go).
const (
	guardsConfig = "config" // as the config sets them: none in the built-in league
	guardsNone   = "none"   // none: no limits, no max_gain_per, no hold
	// guardsLimits: a limit by player per minute, one by key per second
	// and max_gain_per day, so every write checks and consumes 3 counters.
	guardsLimits = "limits"
)

var guardSets = []string{guardsConfig, guardsNone, guardsLimits}

// guardMax is the limits' maximum, which no run reaches: a refusal would
// write nothing and be cheaper than a write.
const guardMax = int64(1) << 40

// setGuards replaces l's guards with those of -guards (but for config) and
// initialises it again. max_gain_per day is l's max_score, the most it may
// be, which no run reaches either.
func setGuards(l *league.League, guards string) error {
	switch guards {
	case guardsConfig:
		return nil
	case guardsNone:
		l.Limits, l.MaxGainPer = nil, nil
	case guardsLimits:
		l.Limits = []league.Limit{
			{Name: "bench-player-minute", By: []league.LimitBy{league.ByPlayer}, Per: league.PerMinute, Max: guardMax},
			{Name: "bench-key-second", By: []league.LimitBy{league.ByKey}, Per: league.PerSecond, Max: guardMax},
		}
		l.MaxGainPer = map[league.Per]int64{league.PerDay: l.MaxScore}
	default:
		return fmt.Errorf("unknown; known: %s", strings.Join(guardSets, ","))
	}
	l.Hold = false
	return l.Init()
}

// benchLeaderboardID is the leaderboard the lb workloads drive in this
// process (lib, and http to the in-process leagued).
const benchLeaderboardID = "bench"

// benchKinds are the bench leaderboard's boards: a write to it writes five.
var benchKinds = []leaderboard.Kind{leaderboard.Hour, leaderboard.Day, leaderboard.Week, leaderboard.Month, leaderboard.AllTime}

// newBenchLeaderboard returns a fresh, initialised copy of it: every kind of
// board (hour, day, week, month, all time), incr, descending, ties by member
// id, the defaults otherwise; config.yaml's kills, under its own id.
func newBenchLeaderboard() (*leaderboard.Leaderboard, error) {
	l := &leaderboard.Leaderboard{
		ID:       benchLeaderboardID,
		Kinds:    slices.Clone(benchKinds),
		Operator: leaderboard.Incr,
		Order:    leaderboard.Descending,
		TieBreak: leaderboard.ByMember,
	}
	return l, l.Init()
}
