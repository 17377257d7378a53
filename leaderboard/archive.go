package leaderboard

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/league-engine/league/league"
)

// Archive keeps the final standings of leaderboards' closed periods:
// postgres.Store in production, inmem.Store for the embedded default
// (storetest holds both to one contract).
type Archive interface {
	// LastArchived returns the start of the latest archived period of
	// leaderboard id's boards of kind k, zero when none is.
	LastArchived(ctx context.Context, id string, k Kind) (time.Time, error)
	// ArchivePeriod stores the standings of period p exactly once, with
	// members, how many the board held (entries may be only its top), and
	// participants, its distinct actors (-1: not counted). It reports
	// false, storing nothing, when p was archived already.
	ArchivePeriod(ctx context.Context, id string, p Period, members int, participants int64, entries []Entry) (bool, error)
	// ArchivedPage returns limit entries of archived period p from rank
	// offset+1, how many members its board held and its participants (-1:
	// not counted, or archived before counts were kept); found is false
	// (and participants -1) when p is not archived.
	ArchivedPage(ctx context.Context, id string, p Period, offset, limit int) (entries []Entry, members int, participants int64, found bool, err error)
	// ArchivedRank returns member's rank in archived period p, 0 when it is
	// not among the archived entries (or p is not archived).
	ArchivedRank(ctx context.Context, id string, p Period, member string) (int, error)
}

// ArchivePolicy says which periods of a leaderboard the scheduler archives
// when they close, and how much of each.
type ArchivePolicy struct {
	// Kinds are the periodic boards archived (default: all of the
	// leaderboard's but all_time, which never closes).
	Kinds []Kind
	// Top is how many of the first ranks are kept (0: every member).
	Top int
}

// ArchiveGrace is how long after a period's end, by the engine's idea of
// Redis's clock, the archive waits before reading the board: a write
// decided by Redis's own clock a moment earlier must have landed.
const ArchiveGrace = 2 * time.Second

// archiveChunk is how many entries a read of a closed board takes at once
// (of each shard). A variable for tests.
var archiveChunk = 10000

func (l *Leaderboard) initArchive(periodic map[Kind]bool) error {
	a := l.Archive
	if a == nil {
		return nil
	}
	if a.Top < 0 {
		return fmt.Errorf("archive.top: %d is negative (0 keeps every member)", a.Top)
	}
	if len(a.Kinds) == 0 {
		for _, k := range l.Kinds {
			if k != AllTime {
				a.Kinds = append(a.Kinds, k)
			}
		}
		if len(a.Kinds) == 0 {
			return fmt.Errorf("archive: the leaderboard has no periodic board to archive (all_time never closes)")
		}
	}
	for _, k := range a.Kinds {
		if !periodic[k] || k == AllTime {
			return fmt.Errorf("archive.periods: %s is not a periodic board of this leaderboard (all_time never closes; rolling boards are not archived)", k)
		}
	}
	slices.SortFunc(a.Kinds, func(x, y Kind) int { return slices.Index(kindOrder, x) - slices.Index(kindOrder, y) })
	a.Kinds = slices.Compact(a.Kinds)
	return nil
}

// Archived is what Engine.Archive did with one closed period.
type Archived struct {
	Period  Period
	Members int  // on the board when it closed (over every shard)
	Kept    int  // entries stored
	Saved   bool // false: another process had archived it
	// Lost reports a period whose board Redis no longer keeps (its
	// retention passed before any process archived it): nothing stored.
	Lost bool
}

// Archive stores the final standings of every closed period of
// leaderboard id that its ArchivePolicy names and the Archive does not
// hold yet, oldest first: on the first run only the last closed period of
// each kind, afterwards every period since the last archived. Each period
// is stored exactly once whatever runs beside it or stops half way (one
// transaction, Archive.ArchivePeriod). The scheduler calls it after every
// boundary; a period it missed is caught up while Redis still keeps its
// board.
func (e *Engine) Archive(ctx context.Context, id string) ([]Archived, error) {
	l, err := e.Leaderboard(id)
	if err != nil {
		return nil, err
	}
	if l.Archive == nil || e.archive == nil {
		return nil, nil
	}
	now := e.clock.Now().Add(-ArchiveGrace)
	var out []Archived
	for _, k := range l.Archive.Kinds {
		last := l.Calendar.Previous(l.Calendar.At(k, now))
		done, err := e.archive.LastArchived(ctx, id, k)
		if err != nil {
			return out, err
		}
		p := last
		if !done.IsZero() {
			p = l.Calendar.Next(l.Calendar.At(k, done))
		}
		for ; !p.Start.After(last.Start); p = l.Calendar.Next(p) {
			if !now.Before(p.End.Add(l.Retention[k])) {
				out = append(out, Archived{Period: p, Lost: true})
				continue
			}
			a, err := e.archivePeriod(ctx, l, p)
			if err != nil {
				return out, err
			}
			out = append(out, a)
		}
	}
	return out, nil
}

// archivePeriod reads the closed board of p from Redis, and its
// participant count where the leaderboard keeps one, and stores them.
func (e *Engine) archivePeriod(ctx context.Context, l *Leaderboard, p Period) (Archived, error) {
	sizes, err := e.closedSizes(ctx, l, p)
	if err != nil {
		return Archived{}, err
	}
	members := 0
	for _, n := range sizes {
		members += int(n)
	}
	participants := int64(-1)
	if slices.Contains(l.Participants, p.Kind) {
		if participants, err = e.participantCount(ctx, l, p, ""); err != nil {
			return Archived{}, err
		}
	}
	keep := members
	if l.Archive.Top > 0 {
		keep = min(keep, l.Archive.Top)
	}
	entries, err := e.closedTop(ctx, l, p, sizes, keep)
	if err != nil {
		return Archived{}, err
	}
	saved, err := e.archive.ArchivePeriod(ctx, l.ID, p, members, participants, entries)
	if err != nil {
		return Archived{}, err
	}
	return Archived{Period: p, Members: members, Kept: len(entries), Saved: saved}, nil
}

// pastRetention reports whether period p's board is past its Redis
// retention, so reads of it come from the archive (which keeps raw
// boards: a Public view reads an empty board).
func (e *Engine) pastRetention(l *Leaderboard, p Period) bool {
	return e.archive != nil && !e.public && l.Archive != nil && slices.Contains(l.Archive.Kinds, p.Kind) &&
		!e.clock.Now().Before(p.End.Add(l.Retention[p.Kind]))
}

// archivedTop is Top of a period past its retention.
func (e *Engine) archivedTop(ctx context.Context, l *Leaderboard, p Period, offset, limit int) (Board, error) {
	entries, members, participants, _, err := e.archive.ArchivedPage(ctx, l.ID, p, offset, limit)
	if err != nil {
		return Board{}, err
	}
	return Board{Period: p, Entries: entries, Size: members, Archived: true, Participants: participants}, e.names(ctx, l, entries)
}

// archivedAround is Around of a period past its retention.
func (e *Engine) archivedAround(ctx context.Context, l *Leaderboard, p Period, member string, n int) (Board, error) {
	rank, err := e.archive.ArchivedRank(ctx, l.ID, p, member)
	if err != nil {
		return Board{}, err
	}
	if rank == 0 {
		return Board{}, league.Errorf(league.NotFound, "member %q is not on the archived %s board of %s", member, p.Kind, p.ID())
	}
	first := max(rank-1-n, 0)
	return e.archivedTop(ctx, l, p, first, rank+n-first)
}
