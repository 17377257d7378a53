package league

import (
	"context"
	"errors"
	"time"

	"github.com/league-engine/league/tiers"
)

// Archive keeps settled periods for reading after Redis's retention has
// let their boards expire: every sub-board as it stood at close, with each
// player's outcome, and the export of a whole period. postgres.Store
// implements it; the board route and leaguectl export read through it.
type Archive interface {
	// ArchivedBoard returns a sub-board of a settled period, in rank order.
	// NotFound names what is missing: a period never settled (or not yet
	// written), or a board the period did not have.
	ArchivedBoard(ctx context.Context, league string, period time.Time, id BoardID) (ArchivedBoard, error)
	// EachArchived calls fn with every player of a settled period, in tier
	// (board tier, by name), board and rank order, streaming: rows are read
	// as fn takes them, never held all at once. total is the period's
	// player count, for progress. NotFound for a period never settled.
	EachArchived(ctx context.Context, league string, period time.Time, fn func(row ArchivedRow, total int) error) error
	// ArchivedOutcomes returns up to limit players of a settled period, in
	// EachArchived's order, after the row after names (nil: from the
	// first), and the period as settled: the audit of a period's moves,
	// rewards and claims, a page at a time.
	ArchivedOutcomes(ctx context.Context, league string, period time.Time, after *PreviewCursor, limit int) (Period, []ArchivedRow, error)
	// Prune deletes settled history older than before, a batch of at most
	// batch periods' rows at a time, calling report after each period it
	// deleted (or, with dryRun, would delete). It never deletes a reward
	// not yet claimed, the outcome that shows it, a period not settled to
	// the end (status done), or a player's standing.
	Prune(ctx context.Context, q PruneQuery, report func(PruneCount) error) error
}

// ErrNotArchived is what an Archive's NotFound error wraps for a period it
// has no settlement of: never settled (or not yet written). Its text ends
// the error's: "league "weekly" period P was never settled: nothing is
// archived".
var ErrNotArchived = errors.New("nothing is archived")

// ArchivedBoard is a sub-board of a settled period as the archive keeps it.
type ArchivedBoard struct {
	League  string
	Period  Period
	ID      BoardID
	Entries []ArchivedEntry
}

// ArchivedEntry is one ranked player of an archived board: what the board
// showed at close (Entry) and what settlement decided.
type ArchivedEntry struct {
	Entry
	TierAfter string
	Rewards   []tiers.Item // nil: none earned
	// Claimed is when a join delivered the rewards; zero while they wait
	// (or when there are none).
	Claimed time.Time
}

// ArchivedRow is one player of a settled period, for export.
type ArchivedRow struct {
	Board BoardID
	ArchivedEntry
}

// PruneQuery says what history Archive.Prune deletes.
type PruneQuery struct {
	League string    // "" for every league
	Before time.Time // periods that ended before this
	Batch  int       // rows deleted per statement; default 10,000
	DryRun bool      // count only
}

// PruneCount is what pruning one period deleted (or, in a dry run, would).
type PruneCount struct {
	League   string
	Period   time.Time
	Outcomes int // rows of outcomes
	Rewards  int // rewards, claimed ones only
	Claims   int // their claim records
	// Kept are the unclaimed rewards left (with their outcomes): the
	// settlement row stays while any remain.
	Kept    int
	Settled bool // the settlement row itself went (nothing was kept)
}
