package postgres

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/league-engine/league/league"
)

var _ league.AuditLog = (*Store)(nil)

// RecordActions stores admin actions in one statement; one stored already
// (same league and id) stays as it was, so the audit stream's copier may
// copy an action twice.
func (s *Store) RecordActions(ctx context.Context, actions []league.Action) error {
	if len(actions) == 0 {
		return nil
	}
	n := len(actions)
	var (
		leagues, actors, kinds, players, reasons = make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		statesBefore, statesAfter                = make([]string, n), make([]string, n)
		ms, seq                                  = make([]int64, n), make([]int64, n)
		at                                       = make([]time.Time, n)
		periods, bannedBefore, bannedAfter       = make([]*time.Time, n), make([]*time.Time, n), make([]*time.Time, n)
		scoresBefore, scoresAfter                = make([]*int64, n), make([]*int64, n)
	)
	score := func(st league.PlayerState) *int64 {
		if st.Board == league.Absent || st.Board == "" {
			return nil
		}
		v := st.Score
		return &v
	}
	for i, a := range actions {
		what := func(f string) string { return fmt.Sprintf("actions[%d].%s", i, f) }
		idMS, idSeq, ok := league.ParseActionID(a.ID)
		switch {
		case a.League == "":
			return invalid(what("league"), "must not be empty")
		case !ok:
			return invalid(what("id"), "%q is not an action id", a.ID)
		case a.Player == "" || a.Actor == "" || a.Reason == "":
			return invalid(what("player"), "player, actor and reason must not be empty")
		case a.At.IsZero():
			return invalid(what("at"), "must not be zero")
		}
		leagues[i], actors[i], kinds[i], players[i], reasons[i] = a.League, a.Actor, string(a.Action), a.Player, a.Reason
		statesBefore[i], statesAfter[i] = string(a.Before.Board), string(a.After.Board)
		ms[i], seq[i], at[i] = idMS, idSeq, a.At
		periods[i], bannedBefore[i], bannedAfter[i] = nullTime(a.Period), nullTime(a.Before.BannedUntil), nullTime(a.After.BannedUntil)
		scoresBefore[i], scoresAfter[i] = score(a.Before), score(a.After)
	}
	_, err := s.pool.Exec(ctx, `INSERT INTO admin_actions (league, id_ms, id_seq, at, actor, action, player, period_start, reason,
			state_before, state_after, score_before, score_after, banned_until_before, banned_until_after)
		SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::timestamptz[], $5::text[], $6::text[], $7::text[],
			$8::timestamptz[], $9::text[], $10::text[], $11::text[], $12::bigint[], $13::bigint[], $14::timestamptz[], $15::timestamptz[])
		ON CONFLICT (league, id_ms, id_seq) DO NOTHING`,
		leagues, ms, seq, at, actors, kinds, players, periods, reasons, statesBefore, statesAfter,
		scoresBefore, scoresAfter, bannedBefore, bannedAfter)
	return storeError("record actions", err)
}

// Actions returns a page of a league's actions, newest first, through the
// index of the filter asked for (by player, by period) or the primary key.
func (s *Store) Actions(ctx context.Context, q league.AuditQuery) ([]league.Action, error) {
	if err := league.CheckAuditQuery(q); err != nil {
		return nil, err
	}
	where := []string{"league = $1"}
	args := []any{q.League}
	if q.Player != "" {
		args = append(args, q.Player)
		where = append(where, "player = $"+strconv.Itoa(len(args)))
	}
	if !q.Period.IsZero() {
		args = append(args, q.Period)
		where = append(where, "period_start = $"+strconv.Itoa(len(args)))
	}
	if q.Before != "" {
		ms, seq, _ := league.ParseActionID(q.Before)
		args = append(args, ms, seq)
		where = append(where, fmt.Sprintf("(id_ms, id_seq) < ($%d, $%d)", len(args)-1, len(args)))
	}
	args = append(args, q.Limit)
	rows, _ := s.pool.Query(ctx, `SELECT `+actionColumns+` FROM admin_actions a WHERE `+strings.Join(where, " AND ")+`
		ORDER BY id_ms DESC, id_seq DESC LIMIT $`+strconv.Itoa(len(args)), args...)
	out, err := pgx.CollectRows(rows, scanAction)
	if err != nil {
		return nil, storeError("actions", err)
	}
	if out == nil {
		out = []league.Action{}
	}
	return out, nil
}

// actionColumns are the columns scanAction reads, of admin_actions a.
const actionColumns = `a.league, a.id_ms, a.id_seq, a.at, a.actor, a.action, a.player, a.period_start, a.reason,
	a.state_before, a.state_after, a.score_before, a.score_after, a.banned_until_before, a.banned_until_after`

// scanAction reads a row of actionColumns.
func scanAction(r pgx.CollectableRow) (league.Action, error) {
	var (
		a                         league.Action
		ms, seq                   int64
		kind, before, after       string
		period, banBefore, banAft *time.Time
		scoreBefore, scoreAfter   *int64
	)
	err := r.Scan(&a.League, &ms, &seq, &a.At, &a.Actor, &kind, &a.Player, &period, &a.Reason,
		&before, &after, &scoreBefore, &scoreAfter, &banBefore, &banAft)
	a.ID = strconv.FormatInt(ms, 10) + "-" + strconv.FormatInt(seq, 10)
	a.At, a.Action, a.Period = a.At.UTC(), league.ModAction(kind), utc(period)
	a.Before = league.PlayerState{Board: league.BoardState(before), BannedUntil: utc(banBefore)}
	a.After = league.PlayerState{Board: league.BoardState(after), BannedUntil: utc(banAft)}
	if scoreBefore != nil {
		a.Before.Score = *scoreBefore
	}
	if scoreAfter != nil {
		a.After.Score = *scoreAfter
	}
	return a, err
}
