package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/league-engine/league/league"
)

// A settlement's player events (player.promoted, .demoted, .stayed) are
// written packed, eventChunk consecutive ids to a row of event_chunks, each
// field an array (migration 0013): a million rows of events cost the
// settlement's write more than any part but the standings, and a thousand
// rows of arrays carry the same events for a third of that. Readers never
// see the difference: Events, Due, DeadLetters and Progress read a chunk's
// elements as events, by the same columns as a row of events.

// eventChunk is the most events a chunk holds: a feed page (at most 1000)
// reads one or two chunks, and a settlement of a million players writes a
// thousand.
var eventChunk = 1000

// chunkMoves are the moves as the chunks' moves array writes them.
var chunkMoves = map[league.Move]byte{league.Promoted: 'p', league.Demoted: 'd', league.Stayed: 's', "": 's'}

// copyEventChunks writes the player events of outcomes, in order, with ids
// from first on, at at.
func copyEventChunks(ctx context.Context, tx pgx.Tx, set league.Settlement, at time.Time, first int64,
	outcomes []league.Outcome, order []int32) error {
	leagueField, periodField, atField := encodeText(set.League), encodeTimestamptz(set.Period), encodeTimestamptz(at)
	chunks := (len(outcomes) + eventChunk - 1) / eventChunk
	return copyIn(ctx, tx, "event_chunks",
		[]string{"first_id", "last_id", "league", "period_start", "at", "moves", "players", "tier_before", "tier_after", "board", "rank", "score", "cohort"},
		chunks, func(b []byte, c int) []byte {
			run := order[c*eventChunk : min((c+1)*eventChunk, len(order))]
			o := func(i int) *league.Outcome { return &outcomes[run[i]] }
			from := first + int64(c*eventChunk)
			b = appendInt8(appendInt8(appendFields(b, 13), from), from+int64(len(run))-1)
			b = append(append(append(b, leagueField...), periodField...), atField...)
			n := len(run)
			b = appendArray(b, oidChar, n, false, func(b []byte, i int) []byte { return appendChar(b, chunkMoves[o(i).Move]) })
			b = appendArray(b, oidText, n, false, func(b []byte, i int) []byte { return appendText(b, o(i).Player) })
			b = appendArray(b, oidText, n, false, func(b []byte, i int) []byte { return appendText(b, o(i).TierBefore) })
			b = appendArray(b, oidText, n, false, func(b []byte, i int) []byte { return appendText(b, o(i).TierAfter) })
			b = appendArray(b, oidInt4, n, false, func(b []byte, i int) []byte { return appendInt4(b, o(i).Board) })
			b = appendArray(b, oidInt4, n, false, func(b []byte, i int) []byte { return appendInt4(b, o(i).Rank) })
			b = appendArray(b, oidInt8, n, false, func(b []byte, i int) []byte { return appendInt8(b, o(i).Score) })
			nulls := false
			for i := range n {
				nulls = nulls || o(i).Cohort == ""
			}
			return appendArray(b, oidText, n, nulls, func(b []byte, i int) []byte { return appendTextOrNull(b, o(i).Cohort) })
		})
}

// chunkEvents unpacks the chunks aliased c into rows u, n being an
// element's position (from 1), and chunkEventColumns reads u as
// eventColumns reads a row of events.
const (
	chunkEvents = `unnest(c.moves, c.players, c.tier_before, c.tier_after, c.board, c.rank, c.score, c.cohort)
		WITH ORDINALITY AS u(move, player, tier_before, tier_after, board, rank, score, cohort, n)`
	chunkEventColumns = `c.first_id + u.n - 1,
		CASE u.move WHEN 'p' THEN 'player.promoted' WHEN 'd' THEN 'player.demoted' ELSE 'player.stayed' END,
		c.league, c.period_start, u.player, c.at, u.tier_before, u.tier_after, u.board, u.rank, u.score, NULL::jsonb, u.cohort`
)

// eventsAfter reads up to $2 events with ids above $1, in id order, of the
// leagues in $3 when inLeagues: the first $2 rows of events merged with
// the first $2 elements of the chunks. Of the chunks ending past $1 it
// unpacks only as many as hold the $2 elements (through counts them), so a
// page reads one or two chunks of a settlement.
func eventsAfter(inLeagues bool) string {
	where := ``
	if inLeagues {
		where = ` AND league = ANY($3)`
	}
	return `WITH chunks AS (
			SELECT c.*, sum(c.last_id - greatest(c.first_id - 1, $1)) OVER (ORDER BY c.last_id) AS through
			FROM (SELECT * FROM event_chunks WHERE last_id > $1` + where + ` ORDER BY last_id LIMIT $2) c)
		(SELECT ` + eventColumns + ` FROM events WHERE id > $1` + where + ` ORDER BY id LIMIT $2)
		UNION ALL
		(SELECT ` + chunkEventColumns + ` FROM chunks c, ` + chunkEvents + `
			WHERE c.through - (c.last_id - greatest(c.first_id - 1, $1)) < $2 AND c.first_id + u.n - 1 > $1)
		ORDER BY 1 LIMIT $2`
}

// chunkOf selects the chunk holding the event id (an SQL expression) as
// c, k being the event's position in it: the first chunk ending at or past
// id, if it starts at or before id. (The start is checked after the LIMIT:
// as a condition of the scan it would read every later chunk when id is a
// row of events.)
func chunkOf(id string) string {
	return `(SELECT * FROM (SELECT *, ` + id + ` - first_id + 1 AS k FROM event_chunks WHERE last_id >= ` + id + ` ORDER BY last_id LIMIT 1) c
		WHERE c.first_id <= ` + id + `)`
}

// eventByID selects the event of the given id (an SQL expression, as
// d.event_id for a LATERAL join) in eventColumns: its row of events, or
// its element of a chunk.
func eventByID(id string) string {
	return `(SELECT ` + eventColumns + ` FROM events WHERE id = ` + id + `
		UNION ALL
		SELECT ` + chunkEventColumns + ` FROM ` + chunkOf(id) + ` c, ` + chunkEvents + ` WHERE u.n = c.k)`
}

// eventAt selects the time the event of the given id was written.
func eventAt(id string) string {
	return `coalesce((SELECT at FROM events WHERE id = ` + id + `), (SELECT c.at FROM ` + chunkOf(id) + ` c))`
}
