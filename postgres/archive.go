package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/league-engine/league/league"
	"github.com/league-engine/league/tiers"
)

// The archive: settled periods read back from outcomes and rewards once
// Redis has let their boards expire. Settlement keeps each player's board,
// rank, score and what the board showed (zone, name, avatar: migration
// 0007) in the rows it writes anyway; nothing here is written at any other
// time.

var _ league.Archive = (*Store)(nil)

// archivedSettlement returns the settlement of a period the archive can
// show: written or further (its outcomes are all there). A period never
// settled, or still being written, is NotFound and says which.
func (s *Store) archivedSettlement(ctx context.Context, leagueID string, period time.Time) (league.Settlement, error) {
	st, err := s.Settlement(ctx, leagueID, period)
	if league.ErrorCode(err) == league.NotFound {
		return st, &league.Error{Code: league.NotFound, Err: league.ErrNotArchived,
			Message: fmt.Sprintf("league %q period %s was never settled", leagueID, periodID(period))}
	}
	if err != nil {
		return st, err
	}
	if st.Status == league.StatusStarted {
		return st, &league.Error{Code: league.NotFound, Err: league.ErrNotArchived,
			Message: fmt.Sprintf("league %q period %s is being settled, its outcomes not written yet", leagueID, periodID(period))}
	}
	return st, nil
}

const archivedColumns = `o.rank, o.player, coalesce(o.name, ''), coalesce(o.avatar, ''), o.score, coalesce(o.zone, ''), o.tier_after, r.items, c.claimed_at`

const archivedFrom = ` FROM outcomes o
	LEFT JOIN rewards r ON r.league = o.league AND r.period_start = o.period_start AND r.player = o.player
	LEFT JOIN reward_claims c ON r.player IS NOT NULL AND c.league = o.league AND c.period_start = o.period_start AND c.player = o.player`

// archivedOrder is the order of a period's rows: the ladder's order ($3,
// the tiers as the settlement recorded them), then cohort (the shared
// boards first), board and rank.
const archivedOrder = `coalesce(array_position($3::text[], o.tier_before), 0), o.tier_before, coalesce(o.cohort, '') COLLATE "C", o.board, o.rank`

// ArchivedBoard reads a board of a settled period from the period's
// outcomes. No index leads with the board (settlement would pay for it on
// every row), so the read scans the period's rows by the primary key's
// prefix: 83 ms at a million players (BenchmarkArchivedBoard).
func (s *Store) ArchivedBoard(ctx context.Context, leagueID string, period time.Time, id league.BoardID) (league.ArchivedBoard, error) {
	st, err := s.archivedSettlement(ctx, leagueID, period)
	if err != nil {
		return league.ArchivedBoard{}, err
	}
	rows, _ := s.pool.Query(ctx, `SELECT `+archivedColumns+archivedFrom+`
		WHERE o.league = $1 AND o.period_start = $2 AND o.tier_before = $3 AND o.board = $4
			AND coalesce(o.cohort, '') = $5
		ORDER BY o.rank`, leagueID, period, id.Tier, id.N, id.Cohort)
	var (
		entries []league.ArchivedEntry
		sc      archivedScan
	)
	_, err = pgx.ForEachRow(rows, sc.dest(), func() error {
		entries = append(entries, sc.entry())
		return nil
	})
	if err != nil {
		return league.ArchivedBoard{}, storeError("archived board", err)
	}
	if len(entries) == 0 {
		return league.ArchivedBoard{}, league.Errorf(league.NotFound, "league %q had no board %s in the settled period %s",
			leagueID, id, periodID(period))
	}
	return league.ArchivedBoard{League: leagueID, Period: league.Period{Start: st.Period, End: st.PeriodEnd}, ID: id, Entries: entries}, nil
}

// archiveFetch is how many rows EachArchived fetches from its cursor at a
// time: what the export holds in memory, whatever the period's size.
const archiveFetch = 2000

// EachArchived streams a settled period's players through a cursor, in the
// ladder order the settlement recorded its tiers in, then board and rank.
// One read-only transaction (repeatable read) holds the cursor, so the
// count and the rows agree even while a prune runs.
func (s *Store) EachArchived(ctx context.Context, leagueID string, period time.Time, fn func(league.ArchivedRow, int) error) error {
	st, err := s.archivedSettlement(ctx, leagueID, period)
	if err != nil {
		return err
	}
	ladder := ladderOf(st)
	var fnErr error
	err = pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		var total int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM outcomes WHERE league = $1 AND period_start = $2`,
			leagueID, period).Scan(&total); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `DECLARE archived NO SCROLL CURSOR FOR SELECT o.tier_before, coalesce(o.cohort, ''), o.board, `+archivedColumns+archivedFrom+`
			WHERE o.league = $1 AND o.period_start = $2
			ORDER BY `+archivedOrder, leagueID, period, ladder)
		if err != nil {
			return err
		}
		var (
			board league.BoardID
			sc    archivedScan
		)
		dest := append([]any{&board.Tier, &board.Cohort, &board.N}, sc.dest()...)
		for {
			rows, _ := tx.Query(ctx, fmt.Sprintf(`FETCH %d FROM archived`, archiveFetch))
			n := 0
			_, err := pgx.ForEachRow(rows, dest, func() error {
				n++
				fnErr = fn(league.ArchivedRow{Board: board, ArchivedEntry: sc.entry()}, total)
				return fnErr
			})
			if err != nil || n < archiveFetch {
				return err
			}
		}
	})
	if fnErr != nil {
		return fnErr
	}
	return storeError("export", err)
}

// ArchivedOutcomes reads a page of a settled period's rows: by the period's
// key, as EachArchived, and after the cursor's row in the same order.
func (s *Store) ArchivedOutcomes(ctx context.Context, leagueID string, period time.Time, after *league.PreviewCursor, limit int) (league.Period, []league.ArchivedRow, error) {
	st, err := s.archivedSettlement(ctx, leagueID, period)
	if err != nil {
		return league.Period{}, nil, err
	}
	p := league.Period{Start: st.Period, End: st.PeriodEnd}
	ladder := ladderOf(st)
	var (
		where = ``
		args  = []any{leagueID, period, ladder, limit}
	)
	if after != nil {
		where = ` AND (` + archivedOrder + `) > (coalesce(array_position($3::text[], $5::text), 0), $5::text, $8::text COLLATE "C", $6, $7)`
		args = append(args, after.Board.Tier, after.Board.N, after.Rank, after.Board.Cohort)
	}
	rows, _ := s.pool.Query(ctx, `SELECT o.tier_before, coalesce(o.cohort, ''), o.board, `+archivedColumns+archivedFrom+`
		WHERE o.league = $1 AND o.period_start = $2`+where+`
		ORDER BY `+archivedOrder+` LIMIT $4`, args...)
	var (
		out   []league.ArchivedRow
		board league.BoardID
		sc    archivedScan
	)
	_, err = pgx.ForEachRow(rows, append([]any{&board.Tier, &board.Cohort, &board.N}, sc.dest()...), func() error {
		out = append(out, league.ArchivedRow{Board: board, ArchivedEntry: sc.entry()})
		return nil
	})
	return p, out, storeError("archived outcomes", err)
}

// ladderOf is the settlement's tiers, in the ladder's order.
func ladderOf(st league.Settlement) []string {
	ladder := make([]string, len(st.Tiers))
	for i, t := range st.Tiers {
		ladder[i] = t.Tier
	}
	return ladder
}

// archivedScan is a row of archivedColumns as scanned.
type archivedScan struct {
	e       league.ArchivedEntry
	zone    string
	claimed *time.Time
}

func (sc *archivedScan) dest() []any {
	e := &sc.e
	return []any{&e.Rank, &e.Player, &e.Name, &e.Avatar, &e.Score, &sc.zone, &e.TierAfter, &e.Rewards, &sc.claimed}
}

// entry is the row scanned last. Rewards is nil for a row without any
// (the scan leaves the last row's otherwise).
func (sc *archivedScan) entry() league.ArchivedEntry {
	e := sc.e
	e.Zone, e.Claimed = zoneOf(sc.zone), utc(sc.claimed)
	sc.e.Rewards = nil
	return e
}

// periodID names a period as league.Period.ID does.
func periodID(t time.Time) string { return league.Period{Start: t}.ID() }

// zoneOf reads a zone as settlement wrote it; outcomes settled before
// migration 0007 have none and read as stay.
func zoneOf(s string) tiers.Zone {
	switch s {
	case "promote":
		return tiers.Promote
	case "demote":
		return tiers.Demote
	}
	return tiers.Stay
}
