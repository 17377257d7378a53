package inmem

import (
	"cmp"
	"context"
	"slices"
	"strconv"

	"github.com/league-engine/league/league"
)

var _ league.AuditLog = (*Store)(nil)

// actionKey names a recorded action: its league and id.
type actionKey struct{ league, id string }

// RecordActions implements league.AuditLog: an action recorded already
// stays as it was.
func (s *Store) RecordActions(_ context.Context, actions []league.Action) error {
	for i, a := range actions {
		if err := checkAction(i, a); err != nil {
			return err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, a := range actions {
		k := actionKey{a.League, a.ID}
		if _, ok := s.actions[k]; !ok {
			a.At, a.Period = a.At.UTC(), a.Period.UTC()
			s.actions[k] = a
		}
	}
	return nil
}

// checkAction refuses what postgres.Store's columns refuse.
func checkAction(i int, a league.Action) error {
	what := func(f string) string { return "actions[" + strconv.Itoa(i) + "]." + f }
	switch _, _, ok := league.ParseActionID(a.ID); {
	case a.League == "":
		return league.Errorf(league.Invalid, "%s: must not be empty", what("league"))
	case !ok:
		return league.Errorf(league.Invalid, "%s: %q is not an action id", what("id"), a.ID)
	case a.Player == "" || a.Actor == "" || a.Reason == "":
		return league.Errorf(league.Invalid, "%s: player, actor and reason must not be empty", what("player"))
	case a.At.IsZero():
		return league.Errorf(league.Invalid, "%s: must not be zero", what("at"))
	}
	return nil
}

// Actions implements league.AuditLog.
func (s *Store) Actions(_ context.Context, q league.AuditQuery) ([]league.Action, error) {
	if err := league.CheckAuditQuery(q); err != nil {
		return nil, err
	}
	var beforeMS, beforeN int64
	if q.Before != "" {
		beforeMS, beforeN, _ = league.ParseActionID(q.Before)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []league.Action{}
	for k, a := range s.actions {
		if k.league != q.League || (q.Player != "" && a.Player != q.Player) || (!q.Period.IsZero() && !a.Period.Equal(q.Period)) {
			continue
		}
		if q.Before != "" {
			ms, n, _ := league.ParseActionID(a.ID)
			if ms > beforeMS || ms == beforeMS && n >= beforeN {
				continue
			}
		}
		out = append(out, a)
	}
	slices.SortFunc(out, func(a, b league.Action) int {
		ams, an, _ := league.ParseActionID(a.ID)
		bms, bn, _ := league.ParseActionID(b.ID)
		if c := cmp.Compare(bms, ams); c != 0 {
			return c
		}
		return cmp.Compare(bn, an)
	})
	if len(out) > q.Limit {
		out = out[:q.Limit]
	}
	return out, nil
}
