package leaderboard

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/league-engine/league/league"
)

// The refusals log: each write a rate limit refuses is recorded in a
// capped stream of its leaderboard, <ns>:lb:{L}:refusals (shard 0's hash
// tag on a sharded leaderboard, as the whole leaderboard's records are),
// newest last and trimmed to about RefusalLog entries (XADD MAXLEN ~), so
// an operator can see who is being refused and by which limit. It costs a
// write nothing unless it is refused: then one XADD more, after the
// script's refusal (a batch's refusals in one pipeline). A log that cannot
// be written is logged; the write's answer is the refusal all the same.

// RefusalLog is about how many refusals a leaderboard keeps (Redis trims
// its stream by whole nodes: a few more at times).
const RefusalLog = 1000

// refusals is the stream of the leaderboard's recent refusals.
func (k keys) refusals() string { return k.prefix + "refusals" }

// Refused is a write a rate limit refused, as the refusals log keeps it.
type Refused struct {
	ID    string    // the stream entry's id
	At    time.Time // when it was refused (the leaderboard's clock)
	Limit string    // the limit's name
	Max   int64     // its maximum for the write (with its extras)
	// Member, Actor, Channel and Terminal are the write's (empty where it
	// named none).
	Member, Actor, Channel, Terminal string
}

// logRefusals records the writes errs refused by a rate limit; other
// errors (and nil) are passed over.
func (e *Engine) logRefusals(ctx context.Context, errs ...error) {
	var rs []*Refusal
	for _, err := range errs {
		var r *Refusal
		if err != nil && errors.As(err, &r) && r.w.Member != "" {
			rs = append(rs, r)
		}
	}
	if len(rs) == 0 {
		return
	}
	pipe := e.rdb.Pipeline()
	for _, r := range rs {
		values := []any{"at", r.now.UnixMilli(), "limit", r.Limit, "max", r.Max, "member", r.w.Member}
		for _, f := range [][2]string{{"actor", r.w.Actor}, {"channel", r.w.Channel}, {"terminal", r.w.Terminal}} {
			if f[1] != "" {
				values = append(values, f[0], f[1])
			}
		}
		pipe.XAdd(ctx, &redis.XAddArgs{Stream: e.keys(e.boards[r.Leaderboard]).refusals(), MaxLen: RefusalLog, Approx: true, Values: values})
	}
	if _, err := pipe.Exec(ctx); err != nil {
		e.log.Warn("leaderboard: refused writes could not be logged for operators", "leaderboard", rs[0].Leaderboard,
			"refusals", len(rs), "err", err)
	}
}

// Refusals returns the n most recent writes a rate limit of leaderboard
// id refused, newest first (at most RefusalLog).
func (e *Engine) Refusals(ctx context.Context, id string, n int) ([]Refused, error) {
	l, err := e.Leaderboard(id)
	if err != nil {
		return nil, err
	}
	if n < 1 || n > RefusalLog {
		return nil, &league.Error{Code: league.Invalid, Field: "limit", Message: fmt.Sprintf("%d is outside 1..%d", n, RefusalLog)}
	}
	msgs, err := e.rdb.XRevRangeN(ctx, e.keys(l).refusals(), "+", "-", int64(n)).Result()
	if err != nil {
		return nil, league.RedisError("leaderboard refusals", err)
	}
	out := make([]Refused, 0, len(msgs))
	for _, m := range msgs {
		str := func(f string) string { s, _ := m.Values[f].(string); return s }
		r := Refused{ID: m.ID, Limit: str("limit"), Member: str("member"), Actor: str("actor"), Channel: str("channel"), Terminal: str("terminal")}
		r.Max, _ = strconv.ParseInt(str("max"), 10, 64)
		if ms, err := strconv.ParseInt(str("at"), 10, 64); err == nil {
			r.At = time.UnixMilli(ms).UTC()
		} else if ms, err := strconv.ParseInt(strings.SplitN(m.ID, "-", 2)[0], 10, 64); err == nil {
			r.At = time.UnixMilli(ms).UTC() // Redis's clock when it was added
		}
		out = append(out, r)
	}
	return out, nil
}
