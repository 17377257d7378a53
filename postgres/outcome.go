package postgres

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/league-engine/league/league"
	"github.com/league-engine/league/tiers"
)

// WriteOutcomes stores a period's outcomes and rewards, moves the standings
// they change, marks the settlement written and writes its events to the
// outbox (period.closed, a player.* event per outcome, packed in chunks,
// and reward.granted per reward; events.go). The status check makes it
// the only write of the period, so its events are written exactly once.
//
// It is the bulk of a settlement, a million players in one call, so rows
// travel by binary COPY (copy.go) in the order of the primary keys, and
// standings are merged from a temporary table in one statement (or, at a
// league's first settlement, copied straight in). The outcomes and
// rewards go in a side transaction on a second connection (beside.go)
// while the main one moves the standings and writes the events: two of
// Postgres's cores instead of one. The side commits just before the
// main transaction; a crash between the two leaves the outcomes and rewards
// committed with the settlement still started, and the retry, finding them,
// writes only the rest.
func (s *Store) WriteOutcomes(ctx context.Context, set league.Settlement, outcomes []league.Outcome, rewards []league.EarnedReward) error {
	if err := checkWrite(set, outcomes, rewards); err != nil {
		return err
	}
	items := make([][]byte, len(rewards))
	for i, r := range rewards {
		js, err := json.Marshal(r.Items)
		if err != nil {
			return storeError("write outcomes", err)
		}
		items[i] = js
	}
	outcomePlayer := func(i int) string { return outcomes[i].Player }
	rewardPlayer := func(i int) string { return rewards[i].Player }
	order, rewardOrder := byPlayer(len(outcomes), outcomePlayer), byPlayer(len(rewards), rewardPlayer)
	if err := checkTwice("outcomes", order, outcomePlayer); err != nil {
		return err
	}
	if err := checkTwice("rewards", rewardOrder, rewardPlayer); err != nil {
		return err
	}
	conn, sideConn, release, err := s.writeConns(ctx)
	if err != nil {
		return storeError("write outcomes", err)
	}
	defer release()

	err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		newer, err := lockForWrite(ctx, tx, set)
		if err != nil {
			return err
		}
		var written bool
		if len(outcomes) > 0 {
			// A side committed by an attempt that crashed before its main
			// transaction did: the outcomes and rewards are all there (one
			// transaction).
			err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT FROM outcomes WHERE league = $1 AND period_start = $2)`,
				set.League, set.Period).Scan(&written)
			if err != nil {
				return err
			}
		}
		side := &sideTx{} // nothing apart
		if !written {
			side, err = beside(ctx, tx, sideConn, func(tx pgx.Tx) error {
				return copyOutcomes(ctx, tx, set, outcomes, order, rewards, rewardOrder, items)
			})
			if err != nil {
				return err
			}
		}
		defer side.abandon()
		if err := moveStandings(ctx, tx, set, outcomes, order, newer); err != nil {
			return err
		}
		tiers := set.Tiers
		if tiers == nil {
			tiers = []league.TierCount{}
		}
		// The rules (migration 0008): one value per period, in the update
		// the write makes anyway.
		_, err = tx.Exec(ctx, `UPDATE settlements SET status = 'written', players = $3, tiers = $4,
				rules = nullif($5, ''), rules_fingerprint = nullif($6, '')
			WHERE league = $1 AND period_start = $2`, set.League, set.Period, set.Players, tiers, set.Rules, set.RulesFP)
		if err != nil {
			return err
		}
		if err := writeSettlementEvents(ctx, tx, set, outcomes, order, rewards, rewardOrder, items); err != nil {
			return err
		}
		return side.commit()
	})
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == uniqueViolation {
		// Duplicates in the input are refused above, so another writer
		// wrote these rows meanwhile: its write stands, and a retry finds
		// the settlement written.
		return &league.Error{Code: league.Conflict, Field: pe.TableName,
			Message: "written meanwhile by another writer: " + pe.Detail, Err: err}
	}
	return storeError("write outcomes", err)
}

// copyOutcomes writes the outcome and reward rows.
func copyOutcomes(ctx context.Context, tx pgx.Tx, set league.Settlement, outcomes []league.Outcome, order []int32,
	rewards []league.EarnedReward, rewardOrder []int32, items [][]byte) error {
	leagueField, periodField := encodeText(set.League), encodeTimestamptz(set.Period)
	// zone, name and avatar (migration 0007) are what the board showed,
	// for reading it back once Redis has let it expire (archive.go).
	err := copyIn(ctx, tx, "outcomes",
		[]string{"league", "period_start", "player", "tier_before", "tier_after", "board", "rank", "score", "zone", "name", "avatar", "cohort"},
		len(outcomes), func(b []byte, i int) []byte {
			o := &outcomes[order[i]]
			b = appendFields(b, 12)
			b = append(append(b, leagueField...), periodField...)
			b = appendText(appendText(appendText(b, o.Player), o.TierBefore), o.TierAfter)
			b = appendInt8(appendInt4(appendInt4(b, o.Board), o.Rank), o.Score)
			b = appendTextOrNull(appendTextOrNull(append(b, zoneFields[o.Zone]...), o.Name), o.Avatar)
			return appendTextOrNull(b, o.Cohort) // migration 0012: NULL for a tier's shared boards
		})
	if err != nil {
		return err
	}
	return copyIn(ctx, tx, "rewards", []string{"league", "period_start", "player", "tier", "rank", "items"},
		len(rewards), func(b []byte, i int) []byte {
			r := &rewards[rewardOrder[i]]
			b = appendFields(b, 6)
			b = append(append(b, leagueField...), periodField...)
			b = appendInt4(appendText(appendText(b, r.Player), r.Tier), r.Rank)
			return appendJSONB(b, items[rewardOrder[i]])
		})
}

// checkTwice refuses a player found twice, order being the rows sorted by
// player: the primary keys would refuse it too, but only after seconds of
// writing, and in the side transaction's words.
func checkTwice(field string, order []int32, player func(i int) string) error {
	for k := 1; k < len(order); k++ {
		if p := player(int(order[k])); p == player(int(order[k-1])) {
			return invalid(field, "player %q appears twice (%s[%d] and [%d])", p, field, order[k-1], order[k])
		}
	}
	return nil
}

// lockForWrite takes the league's write lock and the settlement's row, and
// refuses unless the settlement is started. newer reports whether a later
// period of the league is written already (a catch-up).
//
// The league lock makes writes of one league take turns: standings are
// merged, not upserted, so two merges inserting the same new player would
// collide, and the catch-up check must see every write that came before.
// The row lock makes a second writer of the period wait, then find the
// settlement written and give up: a period is never written twice.
func lockForWrite(ctx context.Context, tx pgx.Tx, set league.Settlement) (newer bool, err error) {
	// Memory for the standings merge: a million players hash in ~100 MB.
	if _, err := tx.Exec(ctx, `SET LOCAL work_mem = '256MB'`); err != nil {
		return false, err
	}
	_, err = tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended(coalesce(current_schema(), '') || '/write/' || $1::text, 0))`,
		set.League)
	if err != nil {
		return false, err
	}
	var status string
	err = tx.QueryRow(ctx, `SELECT status, EXISTS (SELECT FROM settlements n
			WHERE n.league = s.league AND n.period_start > s.period_start AND n.status <> 'started')
		FROM settlements s WHERE league = $1 AND period_start = $2 FOR UPDATE OF s`,
		set.League, set.Period).Scan(&status, &newer)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, league.Errorf(league.Conflict, "league %q has no settlement begun for the period starting %s",
			set.League, set.Period.UTC().Format(time.RFC3339))
	}
	if err != nil {
		return false, err
	}
	if status != string(league.StatusStarted) {
		return false, league.StepConflict(set.League, set.Period, league.SettlementStatus(status), league.StatusStarted)
	}
	return newer, nil
}

// moveStandings gives new players a standing and moves those whose tier
// changed. Players whose tier stays are not touched: that is most of them,
// and rewriting their rows would double the cost of the write.
//
// In a catch-up (a later period is written already), the tier of a player
// who played a later period stays that period's; only their first period
// moves back.
func moveStandings(ctx context.Context, tx pgx.Tx, set league.Settlement, outcomes []league.Outcome, order []int32, newer bool) error {
	if len(outcomes) == 0 {
		return nil
	}
	// A league's first settlement: every player is new, and their
	// standings go straight in by COPY, a fifth cheaper than the merge
	// (2.6 s against 3.3 s for a million, psql). Nothing else inserts
	// standings, and the league's write lock is held: none can appear
	// before the commit.
	var first bool
	var now time.Time
	err := tx.QueryRow(ctx, `SELECT NOT EXISTS (SELECT FROM standings WHERE league = $1), now()`, set.League).Scan(&first, &now)
	if err != nil {
		return err
	}
	if first {
		leagueField, periodField, nowField := encodeText(set.League), encodeTimestamptz(set.Period), encodeTimestamptz(now)
		return copyIn(ctx, tx, "standings", []string{"league", "player", "tier", "tier_since", "first_period", "updated_at"},
			len(outcomes), func(b []byte, i int) []byte {
				o := &outcomes[order[i]]
				b = append(appendFields(b, 6), leagueField...)
				b = appendText(appendText(b, o.Player), o.TierAfter)
				return append(append(append(b, periodField...), periodField...), nowField...)
			})
	}
	_, err = tx.Exec(ctx, `CREATE TEMPORARY TABLE settled_standings (player text COLLATE "C", tier text) ON COMMIT DROP`)
	if err != nil {
		return err
	}
	err = copyIn(ctx, tx, "settled_standings", []string{"player", "tier"}, len(outcomes), func(b []byte, i int) []byte {
		o := &outcomes[order[i]]
		return appendText(appendText(appendFields(b, 2), o.Player), o.TierAfter)
	})
	if err != nil {
		return err
	}
	// Only a catch-up can meet a standing set by a later period, so only a
	// catch-up pays for looking the players' later outcomes up.
	later := ``
	if newer {
		later = `AND NOT EXISTS (SELECT FROM settlements n JOIN outcomes o
				ON o.league = n.league AND o.period_start = n.period_start AND o.player = s.player
			WHERE n.league = $1 AND n.period_start > $2 AND n.status <> 'started')`
	}
	_, err = tx.Exec(ctx, `MERGE INTO standings s
		USING settled_standings t ON s.league = $1 AND s.player = t.player
		WHEN MATCHED AND s.tier <> t.tier AND s.tier_since < $2 `+later+` THEN
			UPDATE SET tier = t.tier, tier_since = $2, first_period = least(s.first_period, $2), updated_at = now()
		WHEN MATCHED AND s.first_period > $2 THEN
			UPDATE SET first_period = $2, updated_at = now()
		WHEN NOT MATCHED THEN
			INSERT (league, player, tier, tier_since, first_period, updated_at) VALUES ($1, t.player, t.tier, $2, $2, now())`,
		set.League, set.Period)
	return err
}

// checkWrite refuses what the schema would refuse less clearly, or not at
// all: empty ids, and numbers that do not fit its integer columns.
func checkWrite(set league.Settlement, outcomes []league.Outcome, rewards []league.EarnedReward) error {
	switch {
	case set.League == "":
		return invalid("league", "must not be empty")
	case set.Period.IsZero():
		return invalid("period", "must not be zero")
	}
	for i := range outcomes {
		o := &outcomes[i]
		if o.Player == "" || o.TierBefore == "" || o.TierAfter == "" || !isInt32(o.Board) || !isInt32(o.Rank) {
			return invalid(fmt.Sprintf("outcomes[%d]", i), "%+v needs a player, both tiers, and a board and rank within int32", *o)
		}
		if _, ok := eventType(o); !ok {
			return invalid(fmt.Sprintf("outcomes[%d].move", i), "%q does not go from %s to %s: a move between two tiers is %s or %s, and %s (or empty) keeps the tier",
				o.Move, o.TierBefore, o.TierAfter, league.Promoted, league.Demoted, league.Stayed)
		}
	}
	for i := range rewards {
		r := &rewards[i]
		if r.Player == "" || r.Tier == "" || !isInt32(r.Rank) || len(r.Items) == 0 {
			return invalid(fmt.Sprintf("rewards[%d]", i), "%+v needs a player, a tier, a rank within int32 and items", *r)
		}
	}
	return nil
}

func isInt32(n int) bool { return n >= math.MinInt32 && n <= math.MaxInt32 }

// byPlayer returns the indexes 0..n-1 in the order of the players' ids,
// which is the order of the primary keys within a period. Rows arriving in
// that order fill each B-tree page once; in the order of the boards every
// row lands on another page, and a million rows took five times as long.
//
// The sort compares the ids' first eight bytes as one integer and reads the
// strings only on a tie: a third of the time of comparing strings.
func byPlayer(n int, player func(i int) string) []int32 {
	type key struct {
		prefix uint64
		i      int32
	}
	keys := make([]key, n)
	for i := range keys {
		keys[i] = key{prefix8(player(i)), int32(i)}
	}
	slices.SortFunc(keys, func(a, b key) int {
		if c := cmp.Compare(a.prefix, b.prefix); c != 0 {
			return c
		}
		return strings.Compare(player(int(a.i)), player(int(b.i)))
	})
	order := make([]int32, n)
	for i, k := range keys {
		order[i] = k.i
	}
	return order
}

// prefix8 is the first eight bytes of s, zero padded, as a big-endian
// integer: integers compare as the bytes do.
func prefix8(s string) uint64 {
	var p uint64
	for j := range 8 {
		p <<= 8
		if j < len(s) {
			p |= uint64(s[j])
		}
	}
	return p
}

// zoneFields are the zones' text, encoded once.
var zoneFields = [...][]byte{
	tiers.Stay: encodeText(tiers.Stay.String()), tiers.Promote: encodeText(tiers.Promote.String()),
	tiers.Demote: encodeText(tiers.Demote.String()),
}

// encodeText and encodeTimestamptz encode a value every row repeats once.
func encodeText(s string) []byte           { return appendText(nil, s) }
func encodeTimestamptz(t time.Time) []byte { return appendTimestamptz(nil, t) }
