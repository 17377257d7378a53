package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/league-engine/league/events"
	"github.com/league-engine/league/league"
)

// The outbox (migration 0006): every event is written in the transaction
// that does what it describes, and its id must grow in commit order (the
// feed's cursor relies on it). lockOutbox gives that: every writer takes
// it just before inserting its events, as its last lock before COMMIT, so
// transactions take ids one at a time and each commits, becoming visible,
// before the next takes any (Postgres makes a commit visible before it
// releases the transaction's locks). Taken last, it never waits while
// holding it for another lock: no deadlock with the settlement's own.
func lockOutbox(ctx context.Context, tx pgx.Tx) error {
	_, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended(coalesce(current_schema(), '') || '/events', 0))`)
	return err
}

var _ events.Store = (*Store)(nil)

// eventType is the type of an outcome's event, and false when its move
// contradicts its tiers.
func eventType(o *league.Outcome) (events.Type, bool) {
	same := o.TierBefore == o.TierAfter
	switch o.Move {
	case league.Promoted:
		return events.PlayerPromoted, !same
	case league.Demoted:
		return events.PlayerDemoted, !same
	case league.Stayed, "":
		return events.PlayerStayed, same
	}
	return "", false
}

// writeSettlementEvents writes a settlement's events, after the rest of
// its write: period.closed from the settlement row just updated, then one
// player event per outcome, packed in chunks (eventchunks.go), and one
// reward.granted per reward, each in the players' order. A player's
// outcome comes before their reward. items are the rewards' items as
// JSON, by index.
//
// The ids are taken from the sequence at once (nextval, then setval past
// them) and sent with the rows, as is the time: a default per row
// (nextval, now()) cost a tenth more of the events' write.
func writeSettlementEvents(ctx context.Context, tx pgx.Tx, set league.Settlement, outcomes []league.Outcome, order []int32,
	rewards []league.EarnedReward, rewardOrder []int32, items [][]byte) error {
	if err := lockOutbox(ctx, tx); err != nil {
		return err
	}
	// period.closed, and the ids of the rest: last is the last of them,
	// now the transaction's time (every event's at).
	var last int64
	var now time.Time
	err := tx.QueryRow(ctx, `WITH closed AS (
			INSERT INTO events (type, league, period_start, data)
			SELECT 'period.closed', league, period_start, jsonb_build_object(
				'period_end', to_char(period_end AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
				'players', players, 'tiers', tiers)
			FROM settlements WHERE league = $1 AND period_start = $2
			RETURNING id)
		SELECT CASE WHEN $3 > 0 THEN setval('events_id_seq', (SELECT id FROM closed) + $3) ELSE (SELECT id FROM closed) END, now()`,
		set.League, set.Period, len(outcomes)+len(rewards)).Scan(&last, &now)
	if err != nil {
		return err
	}
	first := last - int64(len(outcomes)+len(rewards)) + 1 // the first player event's id
	if err := copyEventChunks(ctx, tx, set, now, first, outcomes, order); err != nil {
		return err
	}
	next := first + int64(len(outcomes)) - 1 // the id before the first reward's
	leagueField, periodField, atField := encodeText(set.League), encodeTimestamptz(set.Period), encodeTimestamptz(now)
	granted := encodeText(string(events.RewardGranted))
	var data []byte
	return copyIn(ctx, tx, "events", []string{"id", "type", "league", "period_start", "player", "at", "data"},
		len(rewards), func(b []byte, i int) []byte {
			r := &rewards[rewardOrder[i]]
			next++
			b = appendInt8(appendFields(b, 7), next)
			b = append(append(append(b, granted...), leagueField...), periodField...)
			b = append(appendText(b, r.Player), atField...)
			data = rewardData(data[:0], r.Tier, r.Rank, items[rewardOrder[i]])
			return appendJSONB(b, data)
		})
}

// rewardData appends RewardData's JSON with items as given.
func rewardData(b []byte, tier string, rank int, items []byte) []byte {
	js, _ := json.Marshal(tier) // a string always marshals
	b = append(append(append(b, `{"tier":`...), js...), `,"rank":`...)
	b = fmt.Appendf(b, "%d", rank)
	return append(append(append(b, `,"items":`...), items...), '}')
}

// claimEvents writes the reward.claimed events of the claims at idx (at:
// when each was claimed), in the claims' transaction, after their rows, in
// the claims' order.
func claimEvents(ctx context.Context, tx pgx.Tx, claims []league.Claim, at []time.Time, idx []int) error {
	if len(idx) == 0 {
		return nil
	}
	slices.Sort(idx)
	if err := lockOutbox(ctx, tx); err != nil {
		return err
	}
	var (
		leagues = make([]string, len(idx))
		earned  = make([]time.Time, len(idx))
		players = make([]string, len(idx))
		data    = make([]string, len(idx))
	)
	for j, i := range idx {
		c := &claims[i]
		d := events.ClaimData{RewardData: events.RewardData{Tier: c.Tier, Rank: c.Rank, Items: []events.Item{}},
			ClaimedAt: at[i].UTC().Format(time.RFC3339)}
		if !c.Period.IsZero() {
			d.ClaimedPeriod = events.PeriodID(c.Period)
		}
		for _, it := range c.Items {
			d.Items = append(d.Items, events.Item{ID: it.ID, Qty: it.Qty})
		}
		js, err := json.Marshal(d)
		if err != nil {
			return err
		}
		leagues[j], earned[j], players[j], data[j] = c.League, c.Earned, c.Player, string(js)
	}
	_, err := tx.Exec(ctx, `INSERT INTO events (type, league, period_start, player, data)
		SELECT 'reward.claimed', league, earned, player, data
		FROM unnest($1::text[], $2::timestamptz[], $3::text[], $4::jsonb[]) WITH ORDINALITY AS c(league, earned, player, data, n)
		ORDER BY n`, leagues, earned, players, data)
	return err
}

// eventColumns are what scanEvent reads, of a row of events (or of an
// event of a chunk: eventchunks.go).
const (
	eventColumns    = `id, type, league, period_start, player, at, tier_before, tier_after, board, rank, score, data, cohort`
	eventColumnsOfE = `e.id, e.type, e.league, e.period_start, e.player, e.at, e.tier_before, e.tier_after, e.board, e.rank, e.score, e.data, e.cohort`
)

// Events returns up to limit events with ids above after, in id order; of
// the given leagues only, or of every one for nil: the pull feed, and what
// the deliverer reads.
func (s *Store) Events(ctx context.Context, after int64, limit int, leagues []string) ([]events.Event, error) {
	args := []any{after, limit}
	if leagues != nil {
		args = append(args, leagues)
	}
	rows, _ := s.pool.Query(ctx, eventsAfter(leagues != nil), args...)
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (events.Event, error) { return scanEvent(r) })
	return out, storeError("events", err)
}

// scanEvent reads eventColumns, building the data of player.* events from
// their columns.
func scanEvent(row pgx.Row, more ...any) (events.Event, error) {
	var (
		e                 events.Event
		typ               string
		player, before    *string
		after             *string
		board, rank       *int
		score             *int64
		data              []byte
		cohort            *string
		period, writtenAt time.Time
	)
	dest := append([]any{&e.ID, &typ, &e.League, &period, &player, &writtenAt, &before, &after, &board, &rank, &score, &data, &cohort}, more...)
	if err := row.Scan(dest...); err != nil {
		return e, err
	}
	e.Type, e.Period, e.At = events.Type(typ), period.UTC(), writtenAt.UTC()
	if player != nil {
		e.Player = *player
	}
	if before != nil && after != nil && board != nil && rank != nil && score != nil {
		id := league.BoardID{Tier: *before, N: *board}
		if cohort != nil {
			id.Cohort = *cohort // the board of a cohort (league/cohort.go)
		}
		js, err := json.Marshal(events.OutcomeData{From: *before, To: *after, Board: id.String(), Rank: *rank, Score: *score})
		if err != nil {
			return e, err
		}
		e.Data = js
	} else if data != nil {
		e.Data = data
	}
	return e, nil
}

// deliveryLockKey is the advisory lock of delivering to the webhooks, per
// schema as the other locks.
const deliveryLockKey = `hashtextextended(coalesce(current_schema(), '') || '/events/deliver', 0)`

// LockDelivery takes the lease on delivering: a session-level advisory
// lock on a connection of its own, as Lock's, which the holder's death
// ends with its session.
func (s *Store) LockDelivery(ctx context.Context) (events.Lease, bool, error) {
	conn, err := pgx.ConnectConfig(ctx, s.pool.Config().ConnConfig)
	if err != nil {
		return nil, false, storeError("lock delivery", err)
	}
	var ok bool
	if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock(`+deliveryLockKey+`)`).Scan(&ok); err != nil || !ok {
		conn.Close(context.WithoutCancel(ctx))
		return nil, false, storeError("lock delivery", err)
	}
	return &deliveryLease{conn: conn}, true, nil
}

type deliveryLease struct {
	mu   sync.Mutex
	conn *pgx.Conn
}

func (l *deliveryLease) Check(ctx context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.conn == nil {
		return errors.New("released")
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	_, err := l.conn.Exec(ctx, `SELECT 1`)
	return storeError("check delivery lease", err)
}

func (l *deliveryLease) Release() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.conn == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	l.conn.Exec(ctx, `SELECT pg_advisory_unlock(`+deliveryLockKey+`)`) // first: see Lock
	l.conn.Close(ctx)
	l.conn = nil
}

// StartWebhook returns the webhook's progress, recording a webhook first
// seen at the outbox's end: it takes the events written from now on. (No
// event can commit below that end later: see lockOutbox.)
func (s *Store) StartWebhook(ctx context.Context, webhook string) (int64, error) {
	var scanned int64
	err := s.pool.QueryRow(ctx, `WITH added AS (
			INSERT INTO event_webhooks (webhook, scanned_to)
			SELECT $1, coalesce(greatest((SELECT max(id) FROM events), (SELECT max(last_id) FROM event_chunks)), 0)
			ON CONFLICT (webhook) DO NOTHING
			RETURNING scanned_to)
		SELECT scanned_to FROM added UNION ALL SELECT scanned_to FROM event_webhooks WHERE webhook = $1`, webhook).Scan(&scanned)
	return scanned, storeError("start webhook", err)
}

// LanesWaiting returns those of lanes with events of the webhook waiting.
func (s *Store) LanesWaiting(ctx context.Context, webhook string, lanes []string) (map[string]bool, error) {
	out := map[string]bool{}
	if len(lanes) == 0 {
		return out, nil
	}
	rows, _ := s.pool.Query(ctx, `SELECT DISTINCT lane FROM event_deliveries WHERE webhook = $1 AND lane = ANY($2)`, webhook, lanes)
	got, err := pgx.CollectRows(rows, pgx.RowTo[string])
	for _, l := range got {
		out[l] = true
	}
	return out, storeError("lanes waiting", err)
}

// Scanned moves the webhook's progress from from to to and records the
// waiting events, in one transaction.
func (s *Store) Scanned(ctx context.Context, webhook string, from, to int64, waiting []events.Waiting) error {
	var (
		ids      = make([]int64, len(waiting))
		lanes    = make([]string, len(waiting))
		states   = make([]string, len(waiting))
		attempts = make([]int32, len(waiting))
		next     = make([]time.Time, len(waiting))
		msgs     = make([]string, len(waiting))
	)
	for i, w := range waiting {
		ids[i], lanes[i], states[i], attempts[i], msgs[i] = w.EventID, w.Lane, string(w.State), int32(w.Attempts), w.LastError
		next[i] = w.NextAt
		if next[i].IsZero() {
			next[i] = time.Now()
		}
	}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE event_webhooks SET scanned_to = $3, updated_at = now() WHERE webhook = $1 AND scanned_to = $2`,
			webhook, from, to)
		if err != nil {
			return err
		}
		if tag.RowsAffected() != 1 {
			return league.Errorf(league.Conflict, "webhook %q: delivery progress is no longer at event %d: another deliverer moved it", webhook, from)
		}
		if len(waiting) == 0 {
			return nil
		}
		_, err = tx.Exec(ctx, `INSERT INTO event_deliveries (webhook, event_id, lane, state, attempts, next_at, last_error)
			SELECT $1, id, lane, state, attempts, next_at, msg
			FROM unnest($2::bigint[], $3::text[], $4::text[], $5::int[], $6::timestamptz[], $7::text[]) AS w(id, lane, state, attempts, next_at, msg)
			ON CONFLICT (webhook, event_id) DO NOTHING`,
			webhook, ids, lanes, states, attempts, next, msgs)
		return err
	})
	return storeError("record delivery progress", err)
}

// Due returns up to limit heads due for a retry, the longest due first.
func (s *Store) Due(ctx context.Context, webhook string, limit int) ([]events.Pending, error) {
	rows, _ := s.pool.Query(ctx, `SELECT `+eventColumnsOfE+`, d.attempts
		FROM event_deliveries d CROSS JOIN LATERAL `+eventByID("d.event_id")+` e
		WHERE d.webhook = $1 AND d.state = 'retry' AND d.next_at <= $3
		ORDER BY d.next_at, d.event_id LIMIT $2`, webhook, limit, time.Now())
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (events.Pending, error) {
		var p events.Pending
		var err error
		p.Event, err = scanEvent(r, &p.Attempts)
		return p, err
	})
	return out, storeError("due events", err)
}

// Delivered removes a delivered head and makes the next event of its lane
// the head, due now.
func (s *Store) Delivered(ctx context.Context, webhook string, id int64) error {
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var lane string
		err := tx.QueryRow(ctx, `DELETE FROM event_deliveries WHERE webhook = $1 AND event_id = $2 RETURNING lane`, webhook, id).Scan(&lane)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil // replayed or delivered by another deliverer meanwhile
		}
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE event_deliveries SET state = 'retry', attempts = 0, next_at = $3, updated_at = now()
			WHERE webhook = $1 AND event_id = (SELECT min(event_id) FROM event_deliveries WHERE webhook = $1 AND lane = $2)
				AND state = 'held'`, webhook, lane, time.Now())
		return err
	})
	return storeError("record a delivery", err)
}

// Failed records a failed delivery of a head.
func (s *Store) Failed(ctx context.Context, webhook string, id int64, attempts int, next time.Time, dead bool, msg string) error {
	state := events.Retry
	if dead {
		state = events.Dead
	}
	_, err := s.pool.Exec(ctx, `UPDATE event_deliveries SET attempts = $3, next_at = $4, state = $5, last_error = $6, updated_at = now()
		WHERE webhook = $1 AND event_id = $2`, webhook, id, attempts, next, string(state), msg)
	return storeError("record a failed delivery", err)
}

// DeadLetters lists dead events, oldest first.
func (s *Store) DeadLetters(ctx context.Context, webhook string, limit int) ([]events.DeadLetter, error) {
	rows, _ := s.pool.Query(ctx, `SELECT `+eventColumnsOfE+`, d.webhook, d.attempts, d.last_error, d.updated_at,
			(SELECT count(*) FROM event_deliveries h WHERE h.webhook = d.webhook AND h.lane = d.lane AND h.event_id > d.event_id)
		FROM event_deliveries d CROSS JOIN LATERAL `+eventByID("d.event_id")+` e
		WHERE d.state = 'dead' AND ($1 = '' OR d.webhook = $1)
		ORDER BY d.event_id, d.webhook LIMIT $2`, webhook, limitOrAll(limit))
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (events.DeadLetter, error) {
		var dl events.DeadLetter
		var err error
		dl.Event, err = scanEvent(r, &dl.Webhook, &dl.Attempts, &dl.LastError, &dl.Since, &dl.Holding)
		dl.Since = dl.Since.UTC()
		return dl, err
	})
	return out, storeError("dead events", err)
}

// Replay makes dead events due at once (-infinity sorts before every due
// time), their attempts back at 0.
func (s *Store) Replay(ctx context.Context, webhook string, id int64) (int, error) {
	tag, err := s.pool.Exec(ctx, `UPDATE event_deliveries SET state = 'retry', attempts = 0, next_at = '-infinity', updated_at = now()
		WHERE state = 'dead' AND ($1 = '' OR webhook = $1) AND ($2 = 0 OR event_id = $2)`, webhook, id)
	if err != nil {
		return 0, storeError("replay", err)
	}
	return int(tag.RowsAffected()), nil
}

// Progress returns how delivery to the webhook stands.
func (s *Store) Progress(ctx context.Context, webhook string) (events.Progress, error) {
	p := events.Progress{Webhook: webhook}
	err := s.pool.QueryRow(ctx, `SELECT scanned_to FROM event_webhooks WHERE webhook = $1`, webhook).Scan(&p.ScannedTo)
	if errors.Is(err, pgx.ErrNoRows) {
		return p, nil
	}
	if err != nil {
		return p, storeError("delivery progress", err)
	}
	p.Known = true
	var oldest *time.Time
	err = s.pool.QueryRow(ctx, `SELECT
			count(*) FILTER (WHERE state = 'retry'), count(*) FILTER (WHERE state = 'held'), count(*) FILTER (WHERE state = 'dead'),
			least(
				(SELECT min(`+eventAt("r.event_id")+`) FROM event_deliveries r WHERE r.webhook = $1 AND r.state = 'retry'),
				(SELECT e.at FROM events e WHERE e.id > $2 ORDER BY e.id LIMIT 1),
				(SELECT c.at FROM event_chunks c WHERE c.last_id > $2 ORDER BY c.last_id LIMIT 1))
		FROM event_deliveries WHERE webhook = $1`, webhook, p.ScannedTo).Scan(&p.Retrying, &p.Held, &p.Dead, &oldest)
	p.Oldest = utc(oldest)
	return p, storeError("delivery progress", err)
}
