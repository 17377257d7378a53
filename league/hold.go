package league

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/league-engine/league/scripts"
	"github.com/redis/go-redis/v9"
)

// Held writes (League.Hold): a score write past a gain cap (max_gain, or a
// window of max_gain_per) is kept out of the ranking and listed in the
// period's held hash, <ns>:{L}:h:<start>, for an operator to approve or
// reject. Approving applies it through score.lua, in the same atomic step
// that deletes it from the list, so it is applied once however often the
// operator clicks; it is refused once the period has closed (rejecting
// still works, and the list expires with the period's retention).

// Held is a score write held for an operator.
type Held struct {
	ID     int64 // in its period, from 1
	Period Period
	Player string
	Value  int64
	// Cap is the cap it passed: max_gain, or gain-<per> of max_gain_per.
	Cap string
	At  time.Time // when it was written (Redis's clock)
}

func (k keys) held(start int64) string { return k.prefix + "h:" + strconv.FormatInt(start, 10) }

// heldPeriod is the period that period names, the current one for "".
func (e *Engine) heldPeriod(lv *live, period string) (Period, error) {
	if period == "" {
		p, _ := e.current(lv)
		return p, nil
	}
	return e.PeriodOf(lv.ID, period)
}

// HeldWrites lists the writes of a period (its id, "" for the current
// one) held for an operator, oldest first, and the period it read.
func (e *Engine) HeldWrites(ctx context.Context, leagueID, period string) (Period, []Held, error) {
	lv, err := e.live(leagueID)
	if err != nil {
		return Period{}, nil, err
	}
	p, err := e.heldPeriod(lv, period)
	if err != nil {
		return Period{}, nil, err
	}
	all, err := e.rdb.HGetAll(ctx, lv.keys.held(p.Start.Unix())).Result()
	if err != nil {
		return p, nil, internal("held writes", err)
	}
	out := make([]Held, 0, len(all))
	for field, v := range all {
		id, err := strconv.ParseInt(field, 10, 64)
		if err != nil {
			continue // 'seq'
		}
		h, ok := parseHeld(v)
		if !ok {
			return p, nil, internal("held writes", fmt.Errorf("bad held write %q", v))
		}
		h.ID, h.Period = id, p
		out = append(out, h)
	}
	slices.SortFunc(out, func(a, b Held) int { return int(a.ID - b.ID) })
	return p, out, nil
}

// parseHeld reads score.lua's '<ms>:<value>:<cap>:<player>'.
func parseHeld(v string) (Held, bool) {
	parts := strings.SplitN(v, ":", 4)
	if len(parts) != 4 {
		return Held{}, false
	}
	ms, err1 := strconv.ParseInt(parts[0], 10, 64)
	value, err2 := strconv.ParseInt(parts[1], 10, 64)
	if err1 != nil || err2 != nil {
		return Held{}, false
	}
	return Held{At: time.UnixMilli(ms).UTC(), Value: value, Cap: parts[2], Player: parts[3]}, true
}

// heldWrite reads held write id of period p, or a NotFound error.
func (e *Engine) heldWrite(ctx context.Context, lv *live, p Period, id int64) (Held, error) {
	v, err := e.rdb.HGet(ctx, lv.keys.held(p.Start.Unix()), strconv.FormatInt(id, 10)).Result()
	if err != nil {
		if errors.Is(err, redis.Nil) {
			return Held{}, lv.notHeld(p, id)
		}
		return Held{}, internal("held write", err)
	}
	h, ok := parseHeld(v)
	if !ok {
		return Held{}, internal("held write", fmt.Errorf("bad held write %q", v))
	}
	h.ID, h.Period = id, p
	return h, nil
}

func (l *League) notHeld(p Period, id int64) error {
	return Errorf(NotFound, "league %q holds no write %d in period %s: never held, or approved or rejected already", l.ID, id, p.ID())
}

// Approve applies held write id of the current period to its player's
// score, as the player wrote it but past the caps; the max score still
// holds. The write leaves the list in the same step. A write of a period
// that has ended can only be rejected.
func (e *Engine) Approve(ctx context.Context, leagueID string, id int64) (ScoreResult, error) {
	lv, err := e.live(leagueID)
	if err != nil {
		return ScoreResult{}, err
	}
	p, prev := e.current(lv)
	h, err := e.heldWrite(ctx, lv, p, id)
	if err != nil {
		return ScoreResult{}, err
	}
	k := lv.keys
	ks := []string{k.counters(p.Start.Unix()), k.record(h.Player), k.meta(), k.held(p.Start.Unix())}
	args := append(e.scoreArgv(lv, p, prev, h.Player, h.Value, "", "", "", "approve", strconv.FormatInt(id, 10)), "", 0)
	reply, err := e.run.Run(ctx, scripts.Score, false, ks, args...).Slice()
	if err != nil {
		return ScoreResult{}, writeError("approve", err)
	}
	if scripts.Status(reply[0].(int64)) == scripts.NotHeld {
		return ScoreResult{}, lv.notHeld(p, id)
	}
	res, retryAt, err := e.scoreResult(ctx, lv, p, ScoreWrite{Player: h.Player, Value: h.Value}, reply)
	if retryAt != 0 {
		// Redis's clock is past the period: its held writes wait for a
		// decision that can only be to reject them.
		return ScoreResult{}, Errorf(PeriodClosed, "period %s of league %q has ended: its held writes can only be rejected", p.ID(), lv.ID)
	}
	return res, err
}

// Reject drops held write id of a period (its id, "" for the current one)
// without applying it, and returns it.
func (e *Engine) Reject(ctx context.Context, leagueID, period string, id int64) (Held, error) {
	lv, err := e.live(leagueID)
	if err != nil {
		return Held{}, err
	}
	p, err := e.heldPeriod(lv, period)
	if err != nil {
		return Held{}, err
	}
	h, err := e.heldWrite(ctx, lv, p, id)
	if err != nil {
		return Held{}, err
	}
	n, err := e.rdb.HDel(ctx, lv.keys.held(p.Start.Unix()), strconv.FormatInt(id, 10)).Result()
	if err != nil {
		return Held{}, internal("reject", err)
	}
	if n == 0 {
		return Held{}, lv.notHeld(p, id) // an operator beside us decided it first
	}
	return h, nil
}
