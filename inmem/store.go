// Package inmem is a league.Store in process memory: settlement results of
// a leagued run without DATABASE_URL. Nothing survives a restart. It keeps
// the same contract as postgres.Store (storetest holds both to it), so the
// embedded default behaves like production, only forgetful.
package inmem

import (
	"context"
	"sort"
	"sync"
	"time"

	"github.com/league-engine/league/league"
	"github.com/league-engine/league/tiers"
)

// Store is an in-memory league.Store, safe for concurrent use.
type Store struct {
	mu          sync.Mutex
	locks       map[key]bool
	settlements map[key]*league.Settlement
	outcomes    map[string]map[string][]entry // league -> player -> entries by period
	standings   map[string]map[string]standing
	claims      map[claimKey]league.Claim
	archives    map[archiveKey]archivedPeriod // leaderboard.go
	actions     map[actionKey]league.Action   // audit.go
	decays      map[claimKey]league.Decay     // by league, player and period joined
}

type key struct {
	league string
	period int64
}

type claimKey struct {
	league, player string
	period         int64
}

type standing struct {
	tier string
	last time.Time
}

// entry is one settled period of a player, with its reward if any, and
// what the board showed (archive.go).
type entry struct {
	league.HistoryEntry
	rewarded     bool
	zone         tiers.Zone
	name, avatar string
}

// New returns an empty Store.
func New() *Store {
	return &Store{
		locks:       map[key]bool{},
		settlements: map[key]*league.Settlement{},
		outcomes:    map[string]map[string][]entry{},
		standings:   map[string]map[string]standing{},
		claims:      map[claimKey]league.Claim{},
		archives:    map[archiveKey]archivedPeriod{},
		actions:     map[actionKey]league.Action{},
		decays:      map[claimKey]league.Decay{},
	}
}

var _ league.Store = (*Store)(nil)

func keyOf(lg string, period time.Time) key { return key{lg, period.Unix()} }

// Lock takes the lease on settling a period within this process.
func (s *Store) Lock(_ context.Context, lg string, period time.Time) (func(), bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := keyOf(lg, period)
	if s.locks[k] {
		return nil, false, nil
	}
	s.locks[k] = true
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			delete(s.locks, k)
			s.mu.Unlock()
		})
	}, true, nil
}

// BeginSettlement records a settlement unless one exists, and returns it.
func (s *Store) BeginSettlement(_ context.Context, st league.Settlement) (league.Settlement, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := keyOf(st.League, st.Period)
	if cur, ok := s.settlements[k]; ok {
		return copySettlement(cur), nil
	}
	st.Status = league.StatusStarted
	st.Period, st.PeriodEnd = st.Period.UTC(), st.PeriodEnd.UTC()
	if st.StartedAt.IsZero() {
		st.StartedAt = time.Now()
	}
	st.StartedAt = st.StartedAt.UTC()
	st.Tiers = append([]league.TierCount(nil), st.Tiers...)
	st.Rules, st.RulesFP = "", "" // WriteOutcomes records them, as Postgres does
	s.settlements[k] = &st
	return copySettlement(&st), nil
}

func copySettlement(s *league.Settlement) league.Settlement {
	c := *s
	c.Tiers = append([]league.TierCount(nil), s.Tiers...)
	return c
}

// Settlement returns the recorded settlement of a period.
func (s *Store) Settlement(_ context.Context, lg string, period time.Time) (league.Settlement, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cur, ok := s.settlements[keyOf(lg, period)]
	if !ok {
		return league.Settlement{}, league.Errorf(league.NotFound, "no settlement of league %q period %s", lg, period.UTC().Format(time.RFC3339))
	}
	return copySettlement(cur), nil
}

// Settlements returns a league's most recent settlements, newest first.
func (s *Store) Settlements(_ context.Context, lg string, limit int) ([]league.Settlement, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []league.Settlement
	for k, st := range s.settlements {
		if k.league == lg {
			out = append(out, copySettlement(st))
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Period.After(out[j].Period) })
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// WriteOutcomes stores a period's results and moves it to StatusWritten.
func (s *Store) WriteOutcomes(_ context.Context, st league.Settlement, outcomes []league.Outcome, rewards []league.EarnedReward) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	cur, ok := s.settlements[keyOf(st.League, st.Period)]
	if !ok {
		return league.Errorf(league.Conflict, "league %q has no settlement begun for the period starting %s", st.League, st.Period.UTC().Format(time.RFC3339))
	}
	if cur.Status != league.StatusStarted {
		return league.StepConflict(st.League, st.Period, cur.Status, league.StatusStarted)
	}
	won := make(map[string]league.EarnedReward, len(rewards))
	for _, r := range rewards {
		if _, dup := won[r.Player]; dup {
			return &league.Error{Code: league.Invalid, Field: "rewards", Message: "player " + r.Player + " appears twice"}
		}
		won[r.Player] = r
	}
	seen := make(map[string]bool, len(outcomes))
	for _, o := range outcomes {
		if seen[o.Player] {
			return &league.Error{Code: league.Invalid, Field: "outcomes", Message: "player " + o.Player + " appears twice"}
		}
		seen[o.Player] = true
	}
	period := st.Period.UTC()
	byPlayer := s.outcomes[st.League]
	if byPlayer == nil {
		byPlayer = map[string][]entry{}
		s.outcomes[st.League] = byPlayer
	}
	stand := s.standings[st.League]
	if stand == nil {
		stand = map[string]standing{}
		s.standings[st.League] = stand
	}
	for _, o := range outcomes {
		e := entry{HistoryEntry: league.HistoryEntry{
			Period: period, TierBefore: o.TierBefore, TierAfter: o.TierAfter, Cohort: o.Cohort, Board: o.Board, Rank: o.Rank, Score: o.Score,
		}, zone: o.Zone, name: o.Name, avatar: o.Avatar}
		if r, ok := won[o.Player]; ok {
			e.Rewards, e.rewarded = r.Items, true
		}
		byPlayer[o.Player] = append(byPlayer[o.Player], e)
		if cur := stand[o.Player]; cur.last.Before(period) {
			stand[o.Player] = standing{tier: o.TierAfter, last: period}
		}
	}
	cur.Status = league.StatusWritten
	cur.Players = st.Players
	cur.Tiers = append([]league.TierCount(nil), st.Tiers...)
	cur.Rules, cur.RulesFP = st.Rules, st.RulesFP
	return nil
}

// Advance moves a settlement from one status to the next.
func (s *Store) Advance(_ context.Context, lg string, period time.Time, from, to league.SettlementStatus) error {
	if err := league.CheckStep(from, to); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	cur, ok := s.settlements[keyOf(lg, period)]
	if !ok {
		return league.Errorf(league.NotFound, "no settlement of league %q period %s", lg, period.UTC().Format(time.RFC3339))
	}
	if cur.Status != from {
		return league.StepConflict(lg, period, cur.Status, from)
	}
	cur.Status = to
	if to == league.StatusDone {
		cur.FinishedAt, cur.LastError = time.Now().UTC(), ""
	}
	return nil
}

// Fail records the last error of a settlement attempt.
func (s *Store) Fail(_ context.Context, lg string, period time.Time, msg string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	cur, ok := s.settlements[keyOf(lg, period)]
	if !ok {
		return league.Errorf(league.NotFound, "no settlement of league %q period %s", lg, period.UTC().Format(time.RFC3339))
	}
	if cur.Status != league.StatusDone {
		cur.LastError = msg
	}
	return nil
}

// RecordClaims records reward deliveries, each once.
func (s *Store) RecordClaims(_ context.Context, claims []league.Claim) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range claims {
		k := claimKey{c.League, c.Player, c.Earned.Unix()}
		if _, dup := s.claims[k]; !dup {
			s.claims[k] = c
		}
	}
	return nil
}

// RecordDecays records absence decays, each once.
func (s *Store) RecordDecays(_ context.Context, decays []league.Decay) error {
	if err := league.CheckDecays(decays); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, d := range decays {
		k := claimKey{d.League, d.Player, d.Period.Unix()}
		if _, dup := s.decays[k]; !dup {
			d.Period, d.At = d.Period.UTC(), d.At.UTC()
			s.decays[k] = d
		}
	}
	return nil
}

// Profile returns a player's tier and recent history, newest first.
func (s *Store) Profile(_ context.Context, lg, player string, limit int) (league.Profile, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.standings[lg][player]
	if !ok {
		return league.Profile{}, league.Errorf(league.NotFound, "no settled period of player %q in league %q", player, lg)
	}
	p := league.Profile{League: lg, Player: player, Tier: st.tier, LastPeriod: st.last}
	for _, e := range s.outcomes[lg][player] {
		h := e.HistoryEntry
		if c, ok := s.claims[claimKey{lg, player, h.Period.Unix()}]; ok && e.rewarded {
			h.ClaimedAt = c.At
		}
		p.History = append(p.History, h)
	}
	sort.Slice(p.History, func(i, j int) bool { return p.History[i].Period.After(p.History[j].Period) })
	if limit > 0 && len(p.History) > limit {
		p.History = p.History[:limit]
	}
	return p, nil
}

// EachSettledPlayer calls fn for every standing of the league, with the player's
// newest outcome and its reward if no join claimed it.
func (s *Store) EachSettledPlayer(_ context.Context, lg string, fn func(league.SettledPlayer) error) error {
	s.mu.Lock()
	var all []league.SettledPlayer
	for player, st := range s.standings[lg] {
		var last *entry
		for i, e := range s.outcomes[lg][player] {
			if last == nil || e.Period.After(last.Period) {
				last = &s.outcomes[lg][player][i]
			}
		}
		if last == nil {
			continue
		}
		out := league.SettledPlayer{Player: player, Tier: st.tier, LastPeriod: last.Period, LastTier: last.TierBefore, LastBoard: last.Board}
		if _, claimed := s.claims[claimKey{lg, player, last.Period.Unix()}]; last.rewarded && !claimed {
			out.Reward = &league.Reward{Earned: last.Period, Tier: last.TierBefore, Rank: last.Rank,
				Items: append([]tiers.Item(nil), last.Rewards...)}
		}
		all = append(all, out)
	}
	s.mu.Unlock()
	for _, st := range all {
		if err := fn(st); err != nil {
			return err
		}
	}
	return nil
}

// Populations returns how many players each tier holds.
func (s *Store) Populations(_ context.Context, lg string) (map[string]int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]int{}
	for _, st := range s.standings[lg] {
		out[st.tier]++
	}
	return out, nil
}

// Ping always succeeds.
func (s *Store) Ping(context.Context) error { return nil }
