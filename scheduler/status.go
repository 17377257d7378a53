package scheduler

import (
	"errors"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/league-engine/league/league"
)

// Status is what this process's scheduler does and last failed at, per
// league, for operators (the console's health page). It is this replica's
// view: a lease another replica holds shows there, and in the store's
// settlement records (their status and last error), not here.
type Status struct {
	League string
	// Settling is the period this process holds the lease on settling
	// (zero: none), taken at Since.
	Settling league.Period
	Since    time.Time
	// LastSettled is the last period this process settled to the end,
	// finished at SettledAt (zero: none since it started).
	LastSettled league.Period
	SettledAt   time.Time
	// LastError is the last failed settlement attempt's error (a race lost
	// to another replica and a period not ended by Redis's clock are not
	// failures), at ErrorAt; the reward-claim recorder's failures too.
	LastError string
	ErrorAt   time.Time
}

// statuses keeps each league's Status.
type statuses struct {
	mu sync.Mutex
	by map[string]*Status
}

func (s *statuses) get(id string) *Status {
	if s.by == nil {
		s.by = map[string]*Status{}
	}
	st, ok := s.by[id]
	if !ok {
		st = &Status{League: id}
		s.by[id] = st
	}
	return st
}

// leased records that this process took the lease on p; the returned func
// records its release.
func (s *statuses) leased(id string, p league.Period) func() {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.get(id)
	st.Settling, st.Since = p, time.Now()
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if st.Settling == p {
			st.Settling, st.Since = league.Period{}, time.Time{}
		}
	}
}

func (s *statuses) settled(id string, p league.Period) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.get(id)
	st.LastSettled, st.SettledAt = p, time.Now()
}

func (s *statuses) failed(id, what string, err error) {
	if err == nil || errors.Is(err, errStopped) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.get(id)
	st.LastError, st.ErrorAt = what+": "+err.Error(), time.Now()
}

// Status returns each league's status, by league id.
func (s *Scheduler) Status() []Status {
	s.status.mu.Lock()
	defer s.status.mu.Unlock()
	out := make([]Status, 0, len(s.leagues))
	for id := range s.leagues {
		out = append(out, *s.status.get(id))
	}
	slices.SortFunc(out, func(a, b Status) int { return strings.Compare(a.League, b.League) })
	return out
}
