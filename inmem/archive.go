package inmem

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/league-engine/league/league"
)

// The archive in memory: the settled rows postgres/archive.go reads, read
// here from the entries WriteOutcomes keeps; the same contract
// (storetest.RunLeagueArchive), for as long as the process lives.

var _ league.Archive = (*Store)(nil)

// archived returns a settled period's settlement and rows, in the archive's
// order (ladder, board, rank). s.mu must be held.
func (s *Store) archived(lg string, period time.Time) (*league.Settlement, []league.ArchivedRow, error) {
	st, ok := s.settlements[keyOf(lg, period)]
	pid := league.Period{Start: period}.ID()
	switch {
	case !ok:
		return nil, nil, &league.Error{Code: league.NotFound, Err: league.ErrNotArchived,
			Message: "league \"" + lg + "\" period " + pid + " was never settled"}
	case st.Status == league.StatusStarted:
		return nil, nil, &league.Error{Code: league.NotFound, Err: league.ErrNotArchived,
			Message: "league \"" + lg + "\" period " + pid + " is being settled, its outcomes not written yet"}
	}
	ladder := map[string]int{}
	for i, t := range st.Tiers {
		ladder[t.Tier] = i + 1
	}
	var rows []league.ArchivedRow
	for player, es := range s.outcomes[lg] {
		for _, e := range es {
			if !e.Period.Equal(period.UTC()) {
				continue
			}
			r := league.ArchivedRow{Board: league.BoardID{Tier: e.TierBefore, Cohort: e.Cohort, N: e.Board}, ArchivedEntry: league.ArchivedEntry{
				Entry:     league.Entry{Rank: e.Rank, Player: player, Name: e.name, Avatar: e.avatar, Score: e.Score, Zone: e.zone},
				TierAfter: e.TierAfter,
			}}
			if e.rewarded {
				r.Rewards = slices.Clone(e.Rewards)
				if c, ok := s.claims[claimKey{lg, player, period.Unix()}]; ok {
					r.Claimed = c.At.UTC()
				}
			}
			rows = append(rows, r)
		}
	}
	slices.SortFunc(rows, func(a, b league.ArchivedRow) int {
		return cmp.Or(cmp.Compare(ladder[a.Board.Tier], ladder[b.Board.Tier]), cmp.Compare(a.Board.Tier, b.Board.Tier),
			cmp.Compare(a.Board.Cohort, b.Board.Cohort), cmp.Compare(a.Board.N, b.Board.N), cmp.Compare(a.Rank, b.Rank))
	})
	return st, rows, nil
}

// ArchivedBoard returns a board of a settled period.
func (s *Store) ArchivedBoard(_ context.Context, lg string, period time.Time, id league.BoardID) (league.ArchivedBoard, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, rows, err := s.archived(lg, period)
	if err != nil {
		return league.ArchivedBoard{}, err
	}
	b := league.ArchivedBoard{League: lg, Period: league.Period{Start: st.Period, End: st.PeriodEnd}, ID: id}
	for _, r := range rows {
		if r.Board == id {
			b.Entries = append(b.Entries, r.ArchivedEntry)
		}
	}
	if len(b.Entries) == 0 {
		return league.ArchivedBoard{}, league.Errorf(league.NotFound, "league %q had no board %s in the settled period %s",
			lg, id, league.Period{Start: period}.ID())
	}
	return b, nil
}

// EachArchived calls fn with every row of a settled period.
func (s *Store) EachArchived(_ context.Context, lg string, period time.Time, fn func(league.ArchivedRow, int) error) error {
	s.mu.Lock()
	_, rows, err := s.archived(lg, period)
	s.mu.Unlock()
	if err != nil {
		return err
	}
	for _, r := range rows {
		if err := fn(r, len(rows)); err != nil {
			return err
		}
	}
	return nil
}

// ArchivedOutcomes returns a page of a settled period's rows.
func (s *Store) ArchivedOutcomes(_ context.Context, lg string, period time.Time, after *league.PreviewCursor, limit int) (league.Period, []league.ArchivedRow, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, rows, err := s.archived(lg, period)
	if err != nil {
		return league.Period{}, nil, err
	}
	if after != nil {
		ladder := map[string]int{}
		for i, t := range st.Tiers {
			ladder[t.Tier] = i + 1
		}
		at := func(r league.ArchivedRow) int {
			return cmp.Or(cmp.Compare(ladder[r.Board.Tier], ladder[after.Board.Tier]), cmp.Compare(r.Board.Tier, after.Board.Tier),
				cmp.Compare(r.Board.Cohort, after.Board.Cohort), cmp.Compare(r.Board.N, after.Board.N), cmp.Compare(r.Rank, after.Rank))
		}
		i := 0
		for i < len(rows) && at(rows[i]) <= 0 {
			i++
		}
		rows = rows[i:]
	}
	if limit >= 0 && len(rows) > limit {
		rows = rows[:limit]
	}
	return league.Period{Start: st.Period, End: st.PeriodEnd}, rows, nil
}

// Prune deletes settled history as postgres.Store.Prune does.
func (s *Store) Prune(_ context.Context, q league.PruneQuery, report func(league.PruneCount) error) error {
	if q.Before.IsZero() {
		return &league.Error{Code: league.Invalid, Field: "before", Message: "must not be zero"}
	}
	s.mu.Lock()
	var periods []*league.Settlement
	for _, st := range s.settlements {
		if (q.League == "" || st.League == q.League) && st.Status == league.StatusDone && st.PeriodEnd.Before(q.Before) {
			periods = append(periods, st)
		}
	}
	slices.SortFunc(periods, func(a, b *league.Settlement) int {
		return cmp.Or(a.Period.Compare(b.Period), cmp.Compare(a.League, b.League))
	})
	var counts []league.PruneCount
	for _, st := range periods {
		if c := s.prunePeriod(st, q.DryRun); c.Outcomes+c.Rewards+c.Claims > 0 || c.Settled {
			counts = append(counts, c)
		}
	}
	s.mu.Unlock()
	for _, c := range counts {
		if err := report(c); err != nil {
			return err
		}
	}
	return nil
}

// prunePeriod prunes (or counts) one period: claimed rewards and their
// claims, outcomes but those of unclaimed rewards and each player's latest,
// and the settlement once nothing of it is left. s.mu must be held.
func (s *Store) prunePeriod(st *league.Settlement, dryRun bool) league.PruneCount {
	lg, period := st.League, st.Period.UTC()
	c := league.PruneCount{League: lg, Period: period}
	claimed := map[string]bool{}
	for k := range s.claims {
		if k.league == lg && k.period == period.Unix() {
			claimed[k.player] = true
			c.Claims++
		}
	}
	left := 0
	for player, es := range s.outcomes[lg] {
		if len(es) == 0 {
			continue
		}
		latest := slices.MaxFunc(es, func(a, b entry) int { return a.Period.Compare(b.Period) }).Period
		kept := make([]entry, 0, len(es))
		for _, e := range es {
			switch {
			case !e.Period.Equal(period):
				kept = append(kept, e)
				continue
			case e.rewarded && !claimed[player]:
				c.Kept++
				left++
				kept = append(kept, e)
				continue
			case e.rewarded:
				c.Rewards++
				e.rewarded, e.Rewards = false, nil
			}
			if e.Period.Equal(latest) {
				left++
				kept = append(kept, e)
				continue
			}
			c.Outcomes++
		}
		if !dryRun {
			s.outcomes[lg][player] = kept
		}
	}
	c.Settled = left == 0
	if !dryRun {
		for player := range claimed {
			delete(s.claims, claimKey{lg, player, period.Unix()})
		}
		if c.Settled {
			delete(s.settlements, keyOf(lg, period))
		}
	}
	return c
}
