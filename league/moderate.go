package league

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/league-engine/league/internal/excerpt"
	"github.com/league-engine/league/scripts"
)

// Moderation: an operator's actions on a player during a period, each done
// in one atomic step (scripts/moderate.lua) that also leaves its record in
// the league's audit stream, <ns>:{L}:y, for the store (RecordActions).
//
//   - hide takes the player off their board of the current period; their
//     entry is kept (for analysis) and unhide puts it back as it was;
//   - remove takes them off it for the rest of the period, for good;
//   - set-score sets their score (0 zeroes it), keeping their tie break;
//   - ban refuses their joins until it ends (Banned, with the end) and takes
//     them off the current period's board while they play it; unban lifts
//     the ban and puts them back.
//
// A player off the board is in no board read, no one else's rank or board
// size, and no settlement: the board re-ranks at once, and its zones and
// rewards are decided without them, so they neither take a promotion slot
// nor earn a reward, and they keep their tier. Their own score writes are
// refused (Moderated) and their standing says why. Only the running period
// can be moderated: an ended period's boards are frozen for settlement.

// BoardState is where a player stands with the operators in a period.
type BoardState string

const (
	Ranked   BoardState = "ranked"  // on their board
	Hidden   BoardState = "hidden"  // taken off it by hide
	Removed  BoardState = "removed" // taken off it by remove, for the rest of the period
	BannedBy BoardState = "banned"  // taken off it by a ban
	Absent   BoardState = "absent"  // not in the period
)

// ModAction is an operator's action on a player.
type ModAction string

const (
	Hide     ModAction = "hide"
	Unhide   ModAction = "unhide"
	Remove   ModAction = "remove"
	SetScore ModAction = "set-score"
	Ban      ModAction = "ban"
	Unban    ModAction = "unban"
)

// ModActions are the actions, in the order the docs list them.
var ModActions = []ModAction{Hide, Unhide, Remove, SetScore, Ban, Unban}

// ParseModAction returns the action named s, or an Invalid error naming
// field "action".
func ParseModAction(s string) (ModAction, error) {
	for _, a := range ModActions {
		if string(a) == s {
			return a, nil
		}
	}
	return "", fieldError("action", "%q is not an action: hide, unhide, remove, set-score, ban or unban", excerpt.Of(s))
}

// Limits of a moderation.
const (
	MaxReasonLen = 500
	MaxActorLen  = 64
	// MaxBan is the longest ban: a hundred years stands for "for ever".
	MaxBan = 36500 * 24 * time.Hour
)

// Moderation is an operator's action, for Engine.Moderate.
type Moderation struct {
	Player string
	Action ModAction
	// Actor is who acts, as the audit records it: the admin key's name,
	// leaguectl's user. Required.
	Actor string
	// Reason is why, as the audit records it. Required.
	Reason string
	// Score is set-score's new score, 0 to the league's max_score.
	Score int64
	// For (how long from now) or Until (when it ends) is a ban's length:
	// one of the two, at most MaxBan.
	For   time.Duration
	Until time.Time
	// Period is the period the operator means (its id), "" for the current
	// one: an operator acting on the page of a period that has just ended
	// is refused rather than acting in the next.
	Period string
}

// PlayerState is a player's standing with the operators: where they are
// in the current period and whether they are banned.
type PlayerState struct {
	Board BoardState
	// Score is their score in the period: on the board, or kept while
	// they are off it. 0 when Absent.
	Score int64
	// BannedUntil is when their ban ends; zero when they are not banned.
	BannedUntil time.Time
}

// ModResult is what Moderate did.
type ModResult struct {
	League string
	Period Period // the period acted in: the current one
	Player string
	Action ModAction
	// Changed is false when the player was so already: nothing was
	// written and nothing is recorded.
	Changed       bool
	Before, After PlayerState
	// Record is the action as the audit keeps it, when Changed.
	Record *Action
}

// Action is one admin action as the audit keeps it (AuditLog).
type Action struct {
	League string
	// ID is the action's id in the league's audit stream in Redis,
	// "<ms>-<n>": unique in the league, and in the order the actions were
	// done. The store keeps each id once.
	ID     string
	At     time.Time // Redis's clock (the engine's, WithClock) when it was done
	Actor  string
	Reason string
	Action ModAction
	Player string
	// Period is the start of the period acted in; zero for a ban or unban
	// of a player not in the current period.
	Period        time.Time
	Before, After PlayerState
}

// ParseActionID splits an action id "<ms>-<n>" into its two numbers (the
// order the store sorts by); ok is false for anything else.
func ParseActionID(id string) (ms, n int64, ok bool) {
	a, b, found := strings.Cut(id, "-")
	ms, err1 := strconv.ParseInt(a, 10, 64)
	n, err2 := strconv.ParseInt(b, 10, 64)
	if !found || err1 != nil || err2 != nil || ms < 0 || n < 0 || strconv.FormatInt(ms, 10) != a || strconv.FormatInt(n, 10) != b {
		return 0, 0, false
	}
	return ms, n, true
}

// check validates a moderation before anything is sent to Redis.
func (l *League) checkModeration(m Moderation, now time.Time) error {
	if err := CheckPlayerID(m.Player); err != nil {
		return err
	}
	if _, err := ParseModAction(string(m.Action)); err != nil {
		return err
	}
	if err := checkText("actor", m.Actor, MaxActorLen, true); err != nil {
		return err
	}
	if err := checkText("reason", m.Reason, MaxReasonLen, true); err != nil {
		return err
	}
	if m.Action == SetScore {
		if m.Score < 0 || m.Score > l.MaxScore {
			return fieldError("score", "%d is not a score from 0 to the league's max_score %d", m.Score, l.MaxScore)
		}
	} else if m.Score != 0 {
		return fieldError("score", "only set-score takes a score")
	}
	if m.Action != Ban {
		if m.For != 0 || !m.Until.IsZero() {
			return fieldError("duration", "only ban takes a duration or an end")
		}
		return nil
	}
	switch {
	case m.For != 0 && !m.Until.IsZero():
		return fieldError("duration", "give a duration or an end (until), not both")
	case m.For == 0 && m.Until.IsZero():
		return fieldError("duration", "required: how long the ban lasts, e.g. 12h or 7d (or until, when it ends)")
	case m.For < 0 || (m.For > 0 && m.For < time.Second):
		return fieldError("duration", "%v is not a duration of at least a second", m.For)
	case m.For > MaxBan:
		return fieldError("duration", "%v is longer than the longest ban, %dd", m.For, int(MaxBan/(24*time.Hour)))
	case !m.Until.IsZero() && !m.Until.After(now):
		return fieldError("until", "%s is not in the future", m.Until.UTC().Format(time.RFC3339))
	case !m.Until.IsZero() && m.Until.Sub(now) > MaxBan:
		return fieldError("until", "%s is further than the longest ban, %dd from now", m.Until.UTC().Format(time.RFC3339), int(MaxBan/(24*time.Hour)))
	}
	return nil
}

// ParseBanDuration reads a ban's length: a Go duration (90m, 12h) or whole
// days (7d), from a second to MaxBan; errors name field.
func ParseBanDuration(field, s string) (time.Duration, error) {
	var d time.Duration
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.ParseInt(days, 10, 64)
		if err != nil || n < 1 {
			return 0, fieldError(field, "%q is not a duration like 90m, 12h or 7d", excerpt.Of(s))
		}
		if n > int64(MaxBan/(24*time.Hour)) {
			return 0, fieldError(field, "%s is longer than the longest ban, %dd", excerpt.Of(s), int(MaxBan/(24*time.Hour)))
		}
		d = time.Duration(n) * 24 * time.Hour
	} else {
		var err error
		if d, err = time.ParseDuration(s); err != nil {
			return 0, fieldError(field, "%q is not a duration like 90m, 12h or 7d", excerpt.Of(s))
		}
	}
	if d < time.Second {
		return 0, fieldError(field, "%s is not a duration of at least a second", excerpt.Of(s))
	}
	if d > MaxBan {
		return 0, fieldError(field, "%s is longer than the longest ban, %dd", excerpt.Of(s), int(MaxBan/(24*time.Hour)))
	}
	return d, nil
}

// Moderate carries out an operator's action on a player of the league (see
// the top of this file) in one atomic step, which also leaves its record in
// the league's audit stream; RecordActions copies it to the store. An
// action that finds the player so already changes and records nothing
// (Changed false), so a retry is harmless; a ban given a duration is
// counted from each call, so its retry moves the end (and is recorded).
//
// Errors: Invalid input, an unknown league, or a player who never joined it
// (NotFound); a player not in the current period, or a Period that is not
// the current one (PeriodClosed: an ended period's boards are frozen for
// settlement); an action their state refuses (Conflict: a removed player
// stays removed; a player a ban took off comes back with unban). Nothing is
// written on any error.
func (e *Engine) Moderate(ctx context.Context, leagueID string, m Moderation) (ModResult, error) {
	lv, err := e.live(leagueID)
	if err != nil {
		return ModResult{}, err
	}
	if err := lv.checkModeration(m, e.now()); err != nil {
		return ModResult{}, err
	}
	p, _ := e.current(lv)
	if m.Period != "" {
		asked, err := e.PeriodOf(lv.ID, m.Period)
		if err != nil {
			return ModResult{}, err
		}
		if err := lv.checkModPeriod(asked, p); err != nil {
			return ModResult{}, err
		}
	}
	pk := lv.Packing()
	for attempt := 0; attempt < 3; attempt++ {
		start := p.Start.Unix()
		k := lv.keys
		until, length := "", ""
		if !m.Until.IsZero() {
			until = strconv.FormatInt(m.Until.UnixMilli(), 10)
		} else if m.For > 0 {
			length = strconv.FormatInt(m.For.Milliseconds(), 10)
		}
		reply, err := e.run.RunAlone(ctx, scripts.Moderate,
			[]string{k.counters(start), k.record(m.Player), k.meta(), k.moderated(start), k.bans(), k.actions()},
			e.clock.Arg(), start, p.End.Unix(), k.prefix, m.Player, string(m.Action), lv.epoch,
			lv.BoardSize, uint64(1)<<(pk.TimeBits+pk.SlotBits), m.Score, until, length, m.Actor, m.Reason).Slice()
		if err != nil {
			return ModResult{}, internal("moderate", err)
		}
		switch scripts.Status(reply[0].(int64)) {
		case scripts.OK:
			return e.moderated(lv, p, m, reply)
		case scripts.WrongPeriod:
			next, _ := e.redisSaid(lv, reply[1].(int64))
			if m.Period != "" {
				if err := lv.checkModPeriod(p, next); err != nil {
					return ModResult{}, err
				}
			}
			p = next
		case scripts.Closed:
			return ModResult{}, Errorf(PeriodClosed, "period %s of league %q has ended and is closed for settlement: its boards can no longer be moderated", p.ID(), lv.ID)
		case scripts.NotJoined:
			last := Period{Start: time.Unix(reply[1].(int64), 0).UTC()}
			return ModResult{}, Errorf(PeriodClosed, "player %q is not in the current period %s of league %q: they last played period %s, "+
				"which has ended (its boards are frozen for settlement); only a ban or unban acts on them now", m.Player, p.ID(), lv.ID, last.ID())
		case scripts.NoPlayer:
			return ModResult{}, Errorf(NotFound, "player %q has never joined league %q", m.Player, lv.ID)
		case scripts.BadState:
			return ModResult{}, lv.badState(m, p, BoardState(reply[1].(string)))
		case scripts.BadEnd:
			return ModResult{}, fieldError("until", "%s is not after Redis's clock (%s)", m.Until.UTC().Format(time.RFC3339),
				time.UnixMilli(reply[1].(int64)).UTC().Format(time.RFC3339))
		case scripts.BoardLost:
			return ModResult{}, internal("moderate", fmt.Errorf("player %q joined period %s but is on no board of it", m.Player, p.ID()))
		case scripts.Lost:
			return ModResult{}, lv.lostError()
		default:
			return ModResult{}, internal("moderate", fmt.Errorf("unexpected reply %v", reply))
		}
	}
	return ModResult{}, internal("moderate", fmt.Errorf("period kept moving for %q", m.Player))
}

// checkModPeriod refuses a moderation meant for period asked when the
// current one is cur.
func (lv *live) checkModPeriod(asked, cur Period) error {
	switch {
	case asked.Start.Before(cur.Start):
		return Errorf(PeriodClosed, "period %s of league %q has ended: its boards are frozen for settlement and can no longer be moderated "+
			"(the current period is %s)", asked.ID(), lv.ID, cur.ID())
	case asked.Start.After(cur.Start):
		return fieldError("period", "%s has not started: moderation acts in the current period, %s", asked.ID(), cur.ID())
	}
	return nil
}

// badState is the error of an action the player's state refuses.
func (lv *live) badState(m Moderation, p Period, st BoardState) error {
	why := ""
	switch {
	case st == Removed:
		why = "a removed player stays off the board for the rest of the period"
	case st == BannedBy && m.Action == Unhide:
		why = "a ban took them off the board: unban puts them back"
	}
	return Errorf(Conflict, "player %q is %s in period %s of league %q: %s cannot apply (%s); nothing was changed",
		m.Player, st, p.ID(), lv.ID, m.Action, why)
}

// moderated builds the result of an OK reply {0, changed, state before,
// state after, score before, score after, ban before, ban after, id, now,
// period}.
func (e *Engine) moderated(lv *live, p Period, m Moderation, reply []any) (ModResult, error) {
	str := func(i int) string { s, _ := reply[i].(string); return s }
	before, err1 := stateOf(str(2), str(4), str(6))
	after, err2 := stateOf(str(3), str(5), str(7))
	now, err3 := strconv.ParseInt(str(9), 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return ModResult{}, internal("moderate", fmt.Errorf("bad reply %v", reply))
	}
	res := ModResult{League: lv.ID, Period: p, Player: m.Player, Action: m.Action, Changed: reply[1].(int64) == 1,
		Before: before, After: after}
	if res.Changed {
		a := &Action{League: lv.ID, ID: str(8), At: time.UnixMilli(now).UTC(), Actor: m.Actor, Reason: m.Reason,
			Action: m.Action, Player: m.Player, Before: before, After: after}
		if str(10) != "" {
			a.Period = p.Start
		}
		res.Record = a
	}
	return res, nil
}

// banned is the error of a join refused by a ban that ends at ends.
func (lv *live) banned(player string, ends, now time.Time) error {
	return &Error{Code: Banned, Field: "player_id", Err: &banEnds{ends: ends, now: now}, Message: fmt.Sprintf(
		"player %q is banned from league %q until %s; nothing was written", player, lv.ID, ends.UTC().Format(time.RFC3339))}
}

// banEnds is the cause of a join refused by a ban: the API answers
// Retry-After until it ends.
type banEnds struct{ ends, now time.Time }

func (b *banEnds) Error() string { return "banned until " + b.ends.UTC().Format(time.RFC3339) }

// RetryAfter is the time left in the ban.
func (b *banEnds) RetryAfter() time.Duration { return max(b.ends.Sub(b.now), time.Second) }

// Ends is when the ban ends.
func (b *banEnds) Ends() time.Time { return b.ends }

// offBoardError is the error of a score write by a player an operator took
// off their board (score.lua's {22, entry}).
func (lv *live) offBoardError(p Period, player string, entry any) error {
	if s, _ := entry.(string); s == "" {
		// neither on the board nor taken off it: Redis lost the board
		return internal("score", fmt.Errorf("player %q joined period %s but is on no board of it", player, p.ID()))
	}
	m, ok := parseModerated(entry)
	if !ok {
		return internal("score", fmt.Errorf("bad moderation entry %v", entry))
	}
	return &Error{Code: Moderated, Field: "player_id", Message: fmt.Sprintf(
		"player %q is %s in period %s of league %q: an operator took them off their board, so their writes count nowhere; nothing was written",
		player, m.state, p.ID(), lv.ID)}
}

// moderatedEntry is a player's entry in a period's moderation hash:
// "<state>:<tier code>:<packed score>".
type moderatedEntry struct {
	state  BoardState
	tier   int
	packed float64
}

var stateOfLetter = map[byte]BoardState{'h': Hidden, 'r': Removed, 'b': BannedBy}

// parseModerated parses an entry of the moderation hash (a Redis reply).
func parseModerated(v any) (moderatedEntry, bool) {
	s, _ := v.(string)
	parts := strings.SplitN(s, ":", 3)
	if len(parts) != 3 || len(parts[0]) != 1 {
		return moderatedEntry{}, false
	}
	st, ok := stateOfLetter[parts[0][0]]
	tier, err1 := strconv.Atoi(parts[1])
	packed, err2 := strconv.ParseFloat(parts[2], 64)
	if !ok || err1 != nil || err2 != nil {
		return moderatedEntry{}, false
	}
	return moderatedEntry{state: st, tier: tier, packed: packed}, true
}

// PlayerModeration returns where the player stands with the operators now:
// in the current period (returned) and their ban. A player who never
// joined the league is NotFound.
func (e *Engine) PlayerModeration(ctx context.Context, leagueID, player string) (PlayerState, Period, error) {
	lv, err := e.live(leagueID)
	if err != nil {
		return PlayerState{}, Period{}, err
	}
	if err := CheckPlayerID(player); err != nil {
		return PlayerState{}, Period{}, err
	}
	p, _ := e.current(lv)
	start := p.Start.Unix()
	pipe := e.rdb.Pipeline()
	rec := pipe.HGet(ctx, lv.keys.record(player), player)
	ban := pipe.HGet(ctx, lv.keys.bans(), player)
	mod := pipe.HGet(ctx, lv.keys.moderated(start), player)
	epoch := pipe.HGet(ctx, lv.keys.meta(), "epoch")
	if _, err := pipe.Exec(ctx); err != nil && err != redis.Nil {
		return PlayerState{}, p, internal("player moderation", err)
	}
	if epoch.Val() != lv.epoch {
		return PlayerState{}, p, lv.lostError()
	}
	if rec.Err() == redis.Nil {
		return PlayerState{}, p, Errorf(NotFound, "player %q has never joined league %q", player, lv.ID)
	}
	st := PlayerState{Board: Absent}
	if ms, err := strconv.ParseInt(ban.Val(), 10, 64); err == nil && ms > e.now().UnixMilli() {
		st.BannedUntil = time.UnixMilli(ms).UTC()
	}
	r, ok := decodeRecord(rec.Val())
	if !ok {
		return st, p, internal("player moderation", fmt.Errorf("bad record %q", rec.Val()))
	}
	if r.start != start {
		return st, p, nil
	}
	if mod.Err() == nil {
		entry, ok := parseModerated(mod.Val())
		if !ok {
			return st, p, internal("player moderation", fmt.Errorf("bad moderation entry %q", mod.Val()))
		}
		st.Board = entry.state
		st.Score, _ = lv.Packing().Unpack(entry.packed)
		return st, p, nil
	}
	board, _ := placement(r.n, lv.BoardSize)
	packed, err := e.rdb.ZScore(ctx, lv.keys.board(start, r.tier, board), player).Result()
	if err == redis.Nil {
		return st, p, internal("player moderation", fmt.Errorf("player %q joined period %s but is on no board of it", player, p.ID()))
	}
	if err != nil {
		return st, p, internal("player moderation", err)
	}
	st.Board = Ranked
	st.Score, _ = lv.Packing().Unpack(packed)
	return st, p, nil
}

// OffBoard is a player an operator took off a period's board.
type OffBoard struct {
	Player string
	State  BoardState
	Board  BoardID
	Score  int64 // kept for them
}

// OffBoards lists the players operators took off the boards of a period
// (its id, "" for the current one), by player id: what settlement skips.
// Their entries are kept for analysis until the period's keys expire.
func (e *Engine) OffBoards(ctx context.Context, leagueID, period string) (Period, []OffBoard, error) {
	lv, err := e.live(leagueID)
	if err != nil {
		return Period{}, nil, err
	}
	p, err := e.heldPeriod(lv, period)
	if err != nil {
		return Period{}, nil, err
	}
	all, err := e.rdb.HGetAll(ctx, lv.keys.moderated(p.Start.Unix())).Result()
	if err != nil {
		return p, nil, internal("off boards", err)
	}
	out := make([]OffBoard, 0, len(all))
	for player, v := range all {
		entry, ok := parseModerated(v)
		if !ok {
			return p, nil, internal("off boards", fmt.Errorf("bad moderation entry %q", v))
		}
		o := OffBoard{Player: player, State: entry.state}
		o.Score, _ = lv.Packing().Unpack(entry.packed)
		if idx, known := lv.index[entry.tier]; known {
			o.Board.Tier, o.Board.Cohort = lv.Ladder.Tier(idx).ID, lv.cohortName(entry.tier)
		} else {
			o.Board.Tier, _ = e.tierID(ctx, lv, entry.tier)
		}
		out = append(out, o)
	}
	// The board number needs the player's record: one pipeline.
	if len(out) > 0 {
		pipe := e.rdb.Pipeline()
		cmds := make([]*redis.StringCmd, len(out))
		for i, o := range out {
			cmds[i] = pipe.HGet(ctx, lv.keys.record(o.Player), o.Player)
		}
		if _, err := pipe.Exec(ctx); err != nil && err != redis.Nil {
			return p, nil, internal("off boards", err)
		}
		for i, c := range cmds {
			if r, ok := decodeRecord(c.Val()); ok && r.start == p.Start.Unix() {
				out[i].Board.N, _ = placement(r.n, lv.BoardSize)
			}
		}
	}
	slices.SortFunc(out, func(a, b OffBoard) int { return strings.Compare(a.Player, b.Player) })
	return p, out, nil
}

// moderatedCounts returns how many players operators took off period
// start's boards, per ladder index, and in all (tiers this config lacks
// included).
func (e *Engine) moderatedCounts(ctx context.Context, lv *live, start int64) (map[int]int, int, error) {
	all, err := e.rdb.HGetAll(ctx, lv.keys.moderated(start)).Result()
	if err != nil {
		return nil, 0, internal("moderated players", err)
	}
	per := map[int]int{}
	for _, v := range all {
		entry, ok := parseModerated(v)
		if !ok {
			return nil, 0, internal("moderated players", fmt.Errorf("bad moderation entry %q", v))
		}
		if idx, known := lv.index[entry.tier]; known {
			per[idx]++
		}
	}
	return per, len(all), nil
}
