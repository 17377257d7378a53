package league

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// The audit of admin actions. Moderate leaves each action it carries out in
// the league's audit stream in Redis, in the same atomic step as the action:
// an action is never done without its record, whatever dies next. The
// stream is a queue to the store: RecordActions copies what waits there to
// an AuditLog and then deletes it from the stream. The caller of Moderate
// runs it at once; the scheduler runs it every few seconds for actions whose
// caller died first; reading the audit runs it before reading. Copies are
// keyed by the action's id, so an action copied twice (the copier died
// between the store's commit and the delete, or two copied at once) is in
// the store once.

// AuditLog keeps admin actions: postgres.Store and inmem.Store, held to one
// contract by storetest.RunAudit.
type AuditLog interface {
	// RecordActions stores actions. An action already stored (same league
	// and ID) is left as it is: recording is idempotent.
	RecordActions(ctx context.Context, actions []Action) error
	// Actions returns a page of a league's actions, newest first (by ID),
	// filtered by q.
	Actions(ctx context.Context, q AuditQuery) ([]Action, error)
}

// AuditQuery asks for a page of a league's actions.
type AuditQuery struct {
	League string
	Player string    // only this player's; "" for every player's
	Period time.Time // only those done in the period starting here; zero for all
	// Before is where the page starts: the actions older than this id (a
	// previous page's last); "" starts at the newest.
	Before string
	Limit  int // 1 to MaxAuditPage
}

// MaxAuditPage bounds a page of the audit.
const MaxAuditPage = 1000

// CheckAuditQuery validates a query as every AuditLog needs it.
func CheckAuditQuery(q AuditQuery) error {
	if q.League == "" {
		return fieldError("league", "must not be empty")
	}
	if q.Player != "" {
		if err := CheckPlayerID(q.Player); err != nil {
			return err
		}
	}
	if q.Before != "" {
		if _, _, ok := ParseActionID(q.Before); !ok {
			return fieldError("before", "%q is not an action's id (<ms>-<n>, as a page's last action has it)", q.Before)
		}
	}
	if q.Limit < 1 || q.Limit > MaxAuditPage {
		return fieldError("limit", "%d is not a number from 1 to %d", q.Limit, MaxAuditPage)
	}
	return nil
}

// actionsPerRecord is how many waiting actions one store call records.
const actionsPerRecord = 500

// RecordActions copies every action waiting in the league's audit stream
// to log, oldest first, and returns how many it copied. Safe to run at any
// time, from any number of processes.
func (e *Engine) RecordActions(ctx context.Context, leagueID string, log AuditLog) (int, error) {
	lv, err := e.live(leagueID)
	if err != nil {
		return 0, err
	}
	total := 0
	for {
		msgs, err := e.rdb.XRangeN(ctx, lv.keys.actions(), "-", "+", actionsPerRecord).Result()
		if err != nil {
			return total, internal("audit stream", err)
		}
		if len(msgs) == 0 {
			return total, nil
		}
		actions := make([]Action, 0, len(msgs))
		ids := make([]string, len(msgs))
		for i, m := range msgs {
			ids[i] = m.ID
			a, err := actionOf(lv.ID, m)
			if err != nil {
				// Not moderate.lua's: recording it would fail every time and
				// hold up the actions behind it. Logged, and dropped below.
				e.log.Error("league: dropping a malformed entry of the audit stream", "league", lv.ID, "id", m.ID, "err", err)
				continue
			}
			actions = append(actions, a)
		}
		if len(actions) > 0 {
			if err := log.RecordActions(ctx, actions); err != nil {
				return total, err
			}
		}
		if err := e.rdb.XDel(ctx, lv.keys.actions(), ids...).Err(); err != nil {
			return total, internal("audit stream", err)
		}
		total += len(actions)
		if len(msgs) < actionsPerRecord {
			return total, nil
		}
	}
}

// WaitingActions returns how many actions wait in the league's audit
// stream for the store.
func (e *Engine) WaitingActions(ctx context.Context, leagueID string) (int64, error) {
	lv, err := e.live(leagueID)
	if err != nil {
		return 0, err
	}
	n, err := e.rdb.XLen(ctx, lv.keys.actions()).Result()
	return n, internal("audit stream", err)
}

// actionOf reads an entry of the audit stream (moderate.lua's XADD).
func actionOf(leagueID string, m redis.XMessage) (Action, error) {
	f := func(name string) string { s, _ := m.Values[name].(string); return s }
	a := Action{League: leagueID, ID: m.ID, Actor: f("actor"), Reason: f("reason"), Player: f("player")}
	var err error
	if a.Action, err = ParseModAction(f("action")); err != nil {
		return a, err
	}
	at, err := strconv.ParseInt(f("at"), 10, 64)
	if err != nil {
		return a, fmt.Errorf("at %q", f("at"))
	}
	a.At = time.UnixMilli(at).UTC()
	if p := f("period"); p != "" {
		s, err := strconv.ParseInt(p, 10, 64)
		if err != nil {
			return a, fmt.Errorf("period %q", p)
		}
		a.Period = time.Unix(s, 0).UTC()
	}
	if a.Before, err = stateOf(f("state_before"), f("score_before"), f("ban_before")); err != nil {
		return a, err
	}
	if a.After, err = stateOf(f("state_after"), f("score_after"), f("ban_after")); err != nil {
		return a, err
	}
	if a.Player == "" || a.Actor == "" || a.Reason == "" {
		return a, fmt.Errorf("missing player, actor or reason")
	}
	return a, nil
}

func stateOf(state, score, ban string) (PlayerState, error) {
	st := PlayerState{Board: BoardState(state)}
	switch st.Board {
	case Ranked, Hidden, Removed, BannedBy, Absent:
	default:
		return st, fmt.Errorf("state %q", state)
	}
	if score != "" {
		n, err := strconv.ParseInt(score, 10, 64)
		if err != nil {
			return st, fmt.Errorf("score %q", score)
		}
		st.Score = n
	}
	if ban != "" {
		ms, err := strconv.ParseInt(ban, 10, 64)
		if err != nil {
			return st, fmt.Errorf("ban %q", ban)
		}
		st.BannedUntil = time.UnixMilli(ms).UTC()
	}
	return st, nil
}
