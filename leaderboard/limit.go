package leaderboard

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/league-engine/league/internal/calendar"
	"github.com/league-engine/league/internal/ratelimit"
	"github.com/league-engine/league/league"
)

// Rate limits (seed 003): a leaderboard may cap its writes along
// dimensions (who writes, the member written, the traffic's channel and
// terminal, and combinations of them) over fixed windows of its calendar.
// The write script checks every limit before it writes anything, and
// consumes every one in the same atomic step as the boards: a refused
// write changes and consumes nothing, a retried one (same request id)
// consumes nothing more, and concurrent writers are counted exactly.

// Dimension is what a limit counts by.
type Dimension string

const (
	OfActor    Dimension = "actor"    // who wrote (Write.Actor): a voter, a player
	OfMember   Dimension = "member"   // the member written: the candidate
	OfChannel  Dimension = "channel"  // the traffic's source (Write.Channel): a partner
	OfTerminal Dimension = "terminal" // the device kind (Write.Terminal): pc, mobile
)

var dimensions = []Dimension{OfActor, OfMember, OfChannel, OfTerminal}

// Per is a limit's window: a fixed span of the leaderboard's calendar
// (second and minute by the clock), or the leaderboard's whole life.
type Per string

const (
	PerSecond Per = "second"
	PerMinute Per = "minute"
	PerHour   Per = "hour"
	PerDay    Per = "day"
	PerWeek   Per = "week"
	PerMonth  Per = "month"
	PerEver   Per = "ever" // never frees: "one vote per user, ever"
)

var pers = []Per{PerSecond, PerMinute, PerHour, PerDay, PerWeek, PerMonth, PerEver}

// Limit caps the writes that share the values of its dimensions within one
// window: at most Max, plus Extra for writes from a given channel or
// terminal ("traffic from partner X gets 5 more a day").
type Limit struct {
	// Name keys the limit's counters: renaming a limit starts it afresh,
	// while changing its Max applies to the counters already running.
	Name  string
	By    []Dimension
	Per   Per
	Max   int64
	Extra map[Dimension]map[string]int64 // channel or terminal value -> more allowed
}

// MaxDimension is the longest actor, channel or terminal value.
const MaxDimension = 64

// initLimits checks the limits and the allowed channels and terminals.
func (l *Leaderboard) initLimits() error {
	names := map[string]bool{}
	for i, lim := range l.Limits {
		field := fmt.Sprintf("limits[%d]", i)
		name, err := ratelimit.Name(lim.Name, lim.By, string(lim.Per))
		if err != nil {
			return fmt.Errorf("%s.name: %v", field, err)
		}
		lim.Name, l.Limits[i].Name = name, name
		if names[lim.Name] {
			return fmt.Errorf("%s.name: %q is the name of another limit (name them apart)", field, lim.Name)
		}
		names[lim.Name] = true
		if len(lim.By) == 0 {
			return fmt.Errorf("%s.by: at least one of actor, member, channel, terminal", field)
		}
		seen := map[Dimension]bool{}
		for _, d := range lim.By {
			if !slices.Contains(dimensions, d) {
				return fmt.Errorf("%s.by: %q is not actor, member, channel or terminal", field, d)
			}
			if seen[d] {
				return fmt.Errorf("%s.by: %s is listed twice", field, d)
			}
			seen[d] = true
		}
		if !slices.Contains(pers, lim.Per) {
			return fmt.Errorf("%s.per: %q is not second, minute, hour, day, week, month or ever", field, lim.Per)
		}
		if lim.Max < 0 {
			return fmt.Errorf("%s.max: %d is negative", field, lim.Max)
		}
		for d, more := range lim.Extra {
			if d != OfChannel && d != OfTerminal {
				return fmt.Errorf("%s.extra: %q: extra allowances go by channel or terminal", field, d)
			}
			for v, n := range more {
				if err := league.CheckID(field+".extra."+string(d), v, MaxDimension); err != nil {
					return err
				}
				if n < 0 {
					return fmt.Errorf("%s.extra.%s.%s: %d is negative", field, d, v, n)
				}
			}
		}
	}
	for _, set := range []struct {
		field  string
		values []string
	}{{"channels", l.Channels}, {"terminals", l.Terminals}} {
		for _, v := range set.values {
			if err := league.CheckID(set.field, v, MaxDimension); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkDimensions validates a write's actor, channel and terminal, and
// that it names every dimension a limit counts by.
func (l *Leaderboard) checkDimensions(w Write) error {
	for _, d := range []struct {
		field, v string
		allowed  []string
	}{{"actor", w.Actor, nil}, {"channel", w.Channel, l.Channels}, {"terminal", w.Terminal, l.Terminals}} {
		if d.v == "" {
			continue
		}
		if err := league.CheckID(d.field, d.v, MaxDimension); err != nil {
			return err
		}
		if d.allowed != nil && !slices.Contains(d.allowed, d.v) {
			return &league.Error{Code: league.Invalid, Field: d.field,
				Message: fmt.Sprintf("%q is not one of the leaderboard's %ss: %s", d.v, d.field, strings.Join(d.allowed, ", "))}
		}
	}
	if len(l.Participants) > 0 && w.Actor == "" {
		return &league.Error{Code: league.Invalid, Field: "actor",
			Message: "required: the leaderboard counts its participants by actor"}
	}
	for _, lim := range l.Limits {
		for _, d := range lim.By {
			if d != OfMember && dimension(w, d) == "" {
				return &league.Error{Code: league.Invalid, Field: string(d),
					Message: fmt.Sprintf("required: the leaderboard's limit %q counts writes by %s", lim.Name, d)}
			}
		}
	}
	return nil
}

func dimension(w Write, d Dimension) string {
	switch d {
	case OfActor:
		return w.Actor
	case OfMember:
		return w.Member
	case OfChannel:
		return w.Channel
	}
	return w.Terminal
}

// window returns the bounds of lim's window holding t: [start, end), zero
// end for PerEver.
func (l *Leaderboard) window(lim Limit, t time.Time) (start, end time.Time) {
	if lim.Per == PerEver {
		return time.Time{}, time.Time{}
	}
	return calendar.Calendar(l.Calendar).Span(calendar.Unit(lim.Per), t)
}

// limitCounter is the key of lim's counter for w in the window starting
// at start: the values of its dimensions joined by spaces, which no id
// holds.
func (k keys) limitCounter(lim Limit, w Write, start time.Time) string {
	window := "ever"
	if !start.IsZero() {
		window = strconv.FormatInt(start.UnixMilli(), 10)
	}
	return k.prefix + "rl:" + lim.Name + ":" + window + " " + limitValues(lim, w)
}

// limitValues are the values of lim's dimensions in w, joined by spaces.
func limitValues(lim Limit, w Write) string {
	var b strings.Builder
	for i, d := range lim.By {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(dimension(w, d))
	}
	return b.String()
}

// allowance is lim's maximum for w: Max and the extras of its channel and
// terminal.
func (lim Limit) allowance(w Write) int64 {
	return lim.Max + lim.Extra[OfChannel][w.Channel] + lim.Extra[OfTerminal][w.Terminal]
}

// Refusal is why a rate limit refused a write (the cause of its
// league.RateLimited error).
type Refusal struct {
	Leaderboard string
	Limit       string
	Per         Per
	Max         int64
	// Frees is when the limit's window ends (zero for PerEver: never).
	Frees time.Time
	now   time.Time
	w     Write // the write refused, for the refusals log (refusals.go)
}

func (r *Refusal) Error() string {
	if r.Per == PerEver {
		return fmt.Sprintf("limit %q of leaderboard %q allows %d, ever: reached", r.Limit, r.Leaderboard, r.Max)
	}
	return fmt.Sprintf("limit %q of leaderboard %q allows %d a %s: reached; it frees at %s", r.Limit, r.Leaderboard, r.Max, r.Per,
		r.Frees.UTC().Format(time.RFC3339Nano))
}

// RetryAfter is how long until the window frees (0: never).
func (r *Refusal) RetryAfter() time.Duration {
	if r.Frees.IsZero() {
		return 0
	}
	return max(r.Frees.Sub(r.now), time.Millisecond)
}

// Counter is a rate limit's count for some dimension values in the
// current window.
type Counter struct {
	Limit      Limit
	Start, End time.Time // the window (zero for PerEver)
	Used, Max  int64
}

// Counters returns the current count of each limit of leaderboard id that
// counts by dimensions w names (Actor, Member, Channel, Terminal; the
// others left empty): what leaguectl limits shows an operator.
func (e *Engine) Counters(ctx context.Context, id string, w Write) ([]Counter, error) {
	l, err := e.Leaderboard(id)
	if err != nil {
		return nil, err
	}
	now := e.clock.Now()
	var out []Counter
	byShard := map[int][]int{} // positions in out
	var keys []string
	for _, lim := range l.Limits {
		named := true
		for _, d := range lim.By {
			named = named && dimension(w, d) != ""
		}
		if !named {
			continue
		}
		start, end := l.window(lim, now)
		// in the member's shard, or, for a limit across a sharded
		// leaderboard, in its values' (reserve.go)
		s := limitShard(lim, w, l.Shards)
		byShard[s] = append(byShard[s], len(out))
		keys = append(keys, e.shards(l)[s].limitCounter(lim, w, start))
		out = append(out, Counter{Limit: lim, Start: start, End: end, Max: lim.allowance(w)})
	}
	// one MGET a shard (a slot)
	for _, at := range byShard {
		ks := make([]string, len(at))
		for n, i := range at {
			ks[n] = keys[i]
		}
		used, err := ratelimit.Counts(ctx, e.rdb, ks)
		if err != nil {
			return nil, league.RedisError("leaderboard counters", err)
		}
		for n, i := range at {
			out[i].Used = used[n]
		}
	}
	return out, nil
}
