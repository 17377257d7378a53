package inmem

import (
	"context"
	"time"

	"github.com/league-engine/league/leaderboard"
)

var _ leaderboard.Archive = (*Store)(nil)

// archiveKey names an archived period.
type archiveKey struct {
	leaderboard string
	kind        leaderboard.Kind
	start       int64
}

type archivedPeriod struct {
	members      int
	participants int64 // -1: not counted
	entries      []leaderboard.Entry
}

// LastArchived implements leaderboard.Archive.
func (s *Store) LastArchived(_ context.Context, id string, k leaderboard.Kind) (time.Time, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var last int64
	found := false
	for key := range s.archives {
		if key.leaderboard == id && key.kind == k && (!found || key.start > last) {
			last, found = key.start, true
		}
	}
	if !found {
		return time.Time{}, nil
	}
	return time.Unix(last, 0).UTC(), nil
}

// ArchivePeriod implements leaderboard.Archive.
func (s *Store) ArchivePeriod(_ context.Context, id string, p leaderboard.Period, members int, participants int64, entries []leaderboard.Entry) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := archiveKey{id, p.Kind, p.Start.Unix()}
	if _, done := s.archives[key]; done {
		return false, nil
	}
	s.archives[key] = archivedPeriod{members: members, participants: max(participants, -1), entries: append([]leaderboard.Entry(nil), entries...)}
	return true, nil
}

// ArchivedPage implements leaderboard.Archive.
func (s *Store) ArchivedPage(_ context.Context, id string, p leaderboard.Period, offset, limit int) ([]leaderboard.Entry, int, int64, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.archives[archiveKey{id, p.Kind, p.Start.Unix()}]
	if !ok {
		return []leaderboard.Entry{}, 0, -1, false, nil
	}
	from, to := min(offset, len(a.entries)), min(offset+limit, len(a.entries))
	return append([]leaderboard.Entry{}, a.entries[from:to]...), a.members, a.participants, true, nil
}

// ArchivedRank implements leaderboard.Archive.
func (s *Store) ArchivedRank(_ context.Context, id string, p leaderboard.Period, member string) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range s.archives[archiveKey{id, p.Kind, p.Start.Unix()}].entries {
		if e.Member == member {
			return e.Rank, nil
		}
	}
	return 0, nil
}
