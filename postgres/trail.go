package postgres

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/league-engine/league/league"
	"github.com/league-engine/league/tiers"
)

var _ league.TrailLog = (*Store)(nil)

// Trail reads a page of a league's audit trail from the tables that keep
// what it lists: each kind's newest limit+1 past the cursor, by an index
// of its table (by player, or by period), merged in Go.
//
// A period's outcomes and rewards, a million rows, all happened at the
// period's end: past the first page they are paged by player alone, on
// their primary keys, not by a filter over the whole period.
func (s *Store) Trail(ctx context.Context, q league.TrailQuery) (league.TrailPage, error) {
	after, err := league.CheckTrailQuery(q)
	if err != nil {
		return league.TrailPage{}, err
	}
	r := trailReader{ctx: ctx, s: s, q: q, after: after, n: q.Limit + 1}
	for _, read := range []func() error{r.settled, r.decays, r.claims, r.corrections, r.actions} {
		if err := read(); err != nil {
			return league.TrailPage{}, storeError("read the trail", err)
		}
	}
	return league.TrailPageOf(r.entries, after, q.Limit), nil
}

// trailReader gathers a page's candidates, kind by kind.
type trailReader struct {
	ctx     context.Context
	s       *Store
	q       league.TrailQuery
	after   league.TrailCursor
	n       int // rows per kind: a page and one more, to know whether more follow
	entries []league.TrailEntry
}

// sqlWhere builds a WHERE clause and its arguments ($1 on).
type sqlWhere struct {
	conds []string
	args  []any
}

func (w *sqlWhere) arg(v any) string {
	w.args = append(w.args, v)
	return "$" + strconv.Itoa(len(w.args))
}

func (w *sqlWhere) and(cond string) { w.conds = append(w.conds, cond) }

func (w *sqlWhere) String() string { return " WHERE " + strings.Join(w.conds, " AND ") }

// filter is what every kind's query asks: the league, the player and the
// period, in the columns of table alias t (player: the player's expression).
func (r *trailReader) filter(t, player string) *sqlWhere {
	w := &sqlWhere{}
	w.and(t + ".league = " + w.arg(r.q.League))
	if r.q.Player != "" {
		w.and(player + " = " + w.arg(r.q.Player))
	}
	if !r.q.Period.IsZero() {
		w.and(t + ".period_start = " + w.arg(r.q.Period))
	}
	return w
}

// keyset adds the cursor's condition on a kind's (at, seq, player)
// expressions. Newest first: an entry follows the cursor when its key (at,
// kind, seq, player) is less. At the cursor's instant, a kind listed after
// the cursor's (lower Order) follows it whole; one listed before it
// precedes it whole.
func (r *trailReader) keyset(w *sqlWhere, kind league.TrailKind, at, seq, player string) {
	c := r.after
	if c.At.IsZero() {
		return
	}
	switch k := cmp.Compare(kind.Order(), c.Kind.Order()); {
	case k < 0:
		w.and(at + " <= " + w.arg(c.At))
	case k > 0:
		w.and(at + " < " + w.arg(c.At))
	default:
		w.and("(" + at + ", " + seq + ", " + player + ") < (" + w.arg(c.At) + ", " + w.arg(c.Seq) + ", " + w.arg(c.Player) + ")")
	}
}

// order is every kind's ORDER BY and LIMIT: newest first, as the trail.
func (r *trailReader) order(at, seq, player string) string {
	return " ORDER BY " + at + " DESC, " + seq + " DESC, " + player + " DESC LIMIT " + strconv.Itoa(r.n)
}

// startOf is a period's start as a kind's seq, for table alias t.
func startOf(t string) string { return "extract(epoch FROM " + t + ".period_start)::bigint" }

// settled reads outcomes and rewards: both happened at the period's end.
func (r *trailReader) settled() error {
	err := r.settledKind(league.TrailSettlement, `SELECT o.player, o.period_start, s.period_end, o.tier_before, o.tier_after,
			o.board, o.rank, o.score, coalesce(o.cohort, ''), NULL::jsonb
		FROM outcomes o JOIN settlements s USING (league, period_start)`)
	if err != nil {
		return err
	}
	return r.settledKind(league.TrailReward, `SELECT o.player, o.period_start, s.period_end, '', '', 0, o.rank, 0::bigint, o.tier, o.items
		FROM rewards o JOIN settlements s USING (league, period_start)`)
}

// settledKind reads outcomes or rewards, the table aliased o: the ninth
// column is an outcome's cohort, a reward's tier.
func (r *trailReader) settledKind(kind league.TrailKind, sel string) error {
	w := r.filter("o", "o.player")
	if r.q.Period.IsZero() {
		r.keyset(w, kind, "s.period_end", startOf("o"), "o.player")
	} else if c := r.after; !c.At.IsZero() {
		// By period: every row has the period's end and start as at and
		// seq, so the cursor leaves all of them, none, or those of a
		// lower player id, in the primary key's order.
		var end time.Time
		err := r.s.pool.QueryRow(r.ctx, `SELECT period_end FROM settlements WHERE league = $1 AND period_start = $2`,
			r.q.League, r.q.Period).Scan(&end)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		key := league.TrailCursor{At: end.Truncate(time.Microsecond), Kind: kind, Seq: r.q.Period.Unix(), Player: c.Player}
		switch k := key.Compare(c); {
		case k == 0:
			w.and("o.player < " + w.arg(c.Player))
		case k < 0:
			return nil // every row precedes the cursor
		}
	}
	order := r.order("s.period_end", startOf("o"), "o.player")
	if !r.q.Period.IsZero() {
		// one period: at and seq are the same on every row, so the order is
		// the player's, which the primary key gives without a sort
		order = " ORDER BY o.player DESC LIMIT " + strconv.Itoa(r.n)
	}
	rows, _ := r.s.pool.Query(r.ctx, sel+w.String()+order, w.args...)
	var (
		e            league.TrailEntry
		items        []byte
		tierOrCohort string
	)
	_, err := pgx.ForEachRow(rows, []any{&e.Player, &e.Period, &e.At, &e.TierBefore, &e.TierAfter, &e.Board, &e.Rank, &e.Score, &tierOrCohort, &items},
		func() error {
			var err error
			e.Kind, e.Seq = kind, e.Period.Unix()
			if kind == league.TrailSettlement {
				e.Cohort = tierOrCohort
			} else {
				e.Tier = tierOrCohort
			}
			if e.Items, err = itemsOf(items); err != nil {
				return err
			}
			r.entries = append(r.entries, e)
			return nil
		})
	return err
}

// decays reads the tier moves absence decay made.
func (r *trailReader) decays() error {
	w := r.filter("d", "d.player")
	r.keyset(w, league.TrailDecay, "d.at", startOf("d"), "d.player")
	rows, _ := r.s.pool.Query(r.ctx, `SELECT d.player, d.period_start, d.at, d.tier_before, d.tier_after, d.absent FROM decays d`+
		w.String()+r.order("d.at", startOf("d"), "d.player"), w.args...)
	var e league.TrailEntry
	_, err := pgx.ForEachRow(rows, []any{&e.Player, &e.Period, &e.At, &e.TierBefore, &e.TierAfter, &e.Absent}, func() error {
		e.Kind, e.Seq, e.Move = league.TrailDecay, e.Period.Unix(), league.Demoted
		r.entries = append(r.entries, e)
		return nil
	})
	return err
}

// claims reads reward deliveries, with the reward's items where its row
// is still there (a correction may have revoked it since).
func (r *trailReader) claims() error {
	w := r.filter("c", "c.player")
	r.keyset(w, league.TrailClaim, "c.claimed_at", startOf("c"), "c.player")
	rows, _ := r.s.pool.Query(r.ctx, `SELECT c.player, c.period_start, c.claimed_at, c.claimed_period,
			coalesce(w.tier, ''), coalesce(w.rank, 0), w.items
		FROM reward_claims c LEFT JOIN rewards w USING (league, period_start, player)`+
		w.String()+r.order("c.claimed_at", startOf("c"), "c.player"), w.args...)
	var (
		e     league.TrailEntry
		in    *time.Time
		items []byte
	)
	_, err := pgx.ForEachRow(rows, []any{&e.Player, &e.Period, &e.At, &in, &e.Tier, &e.Rank, &items}, func() error {
		var err error
		e.Kind, e.Seq, e.ClaimedIn = league.TrailClaim, e.Period.Unix(), time.Time{}
		if in != nil {
			e.ClaimedIn = in.UTC()
		}
		if e.Items, err = itemsOf(items); err != nil {
			return err
		}
		r.entries = append(r.entries, e)
		return nil
	})
	return err
}

// corrections reads corrections, one entry per player each changed.
func (r *trailReader) corrections() error {
	w := r.filter("c", "ch->>'player'")
	r.keyset(w, league.TrailCorrection, "c.created_at", "c.id", "ch->>'player'")
	rows, _ := r.s.pool.Query(r.ctx, `SELECT ch->>'player', c.period_start, c.created_at, c.id, c.player, c.action, c.reason, c.actor,
			c.status, ch
		FROM corrections c CROSS JOIN LATERAL jsonb_array_elements(c.changes) ch`+
		w.String()+r.order("c.created_at", "c.id", "ch->>'player'"), w.args...)
	var (
		e      league.TrailEntry
		c      league.Correction
		change []byte
	)
	_, err := pgx.ForEachRow(rows, []any{&e.Player, &e.Period, &e.At, &e.Seq, &c.Player, &c.Action, &c.Reason, &c.Actor, &c.Status, &change},
		func() error {
			var ch league.CorrectionChange
			if err := json.Unmarshal(change, &ch); err != nil {
				return err
			}
			cc := c
			cc.League, cc.Period, cc.ID = r.q.League, e.Period.UTC(), e.Seq
			e.Kind, e.Correction, e.Change = league.TrailCorrection, &cc, &ch
			e.TierBefore, e.TierAfter, e.Move = ch.Before.TierAfter, ch.After.TierAfter, ch.After.Move
			r.entries = append(r.entries, e)
			return nil
		})
	return err
}

// actionSeq orders actions of one instant by their stream id.
const actionSeq = "(a.id_ms * 1000000 + a.id_seq)"

// actions reads admin actions.
func (r *trailReader) actions() error {
	w := r.filter("a", "a.player")
	r.keyset(w, league.TrailAdmin, "a.at", actionSeq, "a.player")
	rows, _ := r.s.pool.Query(r.ctx, `SELECT `+actionColumns+` FROM admin_actions a`+
		w.String()+r.order("a.at", actionSeq, "a.player"), w.args...)
	actions, err := pgx.CollectRows(rows, scanAction)
	for _, a := range actions {
		ms, seq, _ := league.ParseActionID(a.ID)
		r.entries = append(r.entries, league.TrailEntry{Kind: league.TrailAdmin, At: a.At, Period: a.Period, Player: a.Player,
			Action: &a, Seq: ms*1_000_000 + seq})
	}
	return err
}

// itemsOf decodes a reward's items (jsonb); nil for none (NULL).
func itemsOf(js []byte) ([]tiers.Item, error) {
	if js == nil {
		return nil, nil
	}
	var items []tiers.Item
	return items, json.Unmarshal(js, &items)
}
