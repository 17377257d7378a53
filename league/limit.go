package league

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/league-engine/league/internal/calendar"
	"github.com/league-engine/league/internal/ratelimit"
)

// Guards on score writes (issue 21): rate limits by player and by the
// game server's key, and caps on what a player may gain in a window, as
// leaderboards have (leaderboard/limit.go). score.lua checks every one
// before it writes and consumes every one in the same atomic step, with
// common.lua's limits helpers, so a refused write consumes nothing, a
// retried request id consumes nothing more, and racing writers are counted
// exactly.

// LimitBy is what a league's limit counts writes by.
type LimitBy string

const (
	ByPlayer LimitBy = "player" // the player written
	ByKey    LimitBy = "key"    // the name of the game server's API key (ScoreWrite.Scope)
)

// Per is a limit's window: a span of the league's clock (the schedule's
// zone; weeks from Monday), or the league's period.
type Per string

const (
	PerSecond Per = "second"
	PerMinute Per = "minute"
	PerHour   Per = "hour"
	PerDay    Per = "day"
	PerWeek   Per = "week"
	PerMonth  Per = "month"
	PerPeriod Per = "period" // the league's period: until settlement
)

var pers = []Per{PerSecond, PerMinute, PerHour, PerDay, PerWeek, PerMonth, PerPeriod}

// Limit caps the score writes that share the values of its dimensions
// within one window: at most Max.
type Limit struct {
	// Name keys the limit's counters: renaming a limit starts it afresh,
	// while changing its Max applies to the counters already running.
	Name string
	By   []LimitBy
	Per  Per
	Max  int64
}

// guard is a limit as score.lua checks it: a write limit, or a gain
// limit of MaxGainPer, which counts the score a player gains.
type guard struct {
	Limit
	gain bool
}

// initGuards checks Limits, MaxGainPer and Hold, and derives the guards.
func (l *League) initGuards() error {
	l.guards = nil
	named := map[string]bool{}
	for i, lim := range l.Limits {
		field := fmt.Sprintf("limits[%d]", i)
		name, err := ratelimit.Name(lim.Name, lim.By, string(lim.Per))
		if err != nil || strings.HasPrefix(name, "gain-") {
			return fmt.Errorf("%s.name: %q is not 1-32 characters of a-z, 0-9, _ and -, not starting with gain- (max_gain_per's)", field, name)
		}
		lim.Name, l.Limits[i].Name = name, name
		if named[lim.Name] {
			return fmt.Errorf("%s.name: %q is the name of another limit (name them apart)", field, lim.Name)
		}
		named[lim.Name] = true
		if len(lim.By) == 0 {
			return fmt.Errorf("%s.by: at least one of player, key", field)
		}
		for j, d := range lim.By {
			if d != ByPlayer && d != ByKey {
				return fmt.Errorf("%s.by: %q is not player or key", field, d)
			}
			if slices.Contains(lim.By[:j], d) {
				return fmt.Errorf("%s.by: %s is listed twice", field, d)
			}
		}
		if !slices.Contains(pers, lim.Per) {
			return fmt.Errorf("%s.per: %q is not second, minute, hour, day, week, month or period", field, lim.Per)
		}
		if lim.Max < 0 {
			return fmt.Errorf("%s.max: %d is negative", field, lim.Max)
		}
		l.guards = append(l.guards, guard{Limit: lim})
	}
	for _, per := range pers {
		most, ok := l.MaxGainPer[per]
		if !ok {
			continue
		}
		if most < 1 || most > l.MaxScore {
			return fmt.Errorf("max_gain_per.%s: %d is outside 1..max_score (%d)", per, most, l.MaxScore)
		}
		l.guards = append(l.guards, guard{Limit: Limit{Name: "gain-" + string(per), By: []LimitBy{ByPlayer}, Per: per, Max: most}, gain: true})
	}
	for per := range l.MaxGainPer {
		if !slices.Contains(pers, per) {
			return fmt.Errorf("max_gain_per: %q is not second, minute, hour, day, week, month or period", per)
		}
	}
	if l.Hold && l.MaxGain == 0 && len(l.MaxGainPer) == 0 {
		return fmt.Errorf("hold: holds writes past max_gain or max_gain_per, and the league sets neither")
	}
	names := []string{"max_gain"}
	for _, g := range l.guards {
		names = append(names, g.Name)
	}
	l.caps = strings.Join(names, " ")
	return nil
}

// window returns the bounds of per's window holding t, in period p.
func (l *League) window(per Per, p Period, t time.Time) (start, end time.Time) {
	if per == PerPeriod {
		return p.Start, p.End
	}
	return l.calendar().Span(calendar.Unit(per), t)
}

// calendar is the league's clock: the schedule's zone, weeks from Monday.
func (l *League) calendar() calendar.Calendar {
	c := calendar.Calendar{Loc: time.UTC, WeekStart: time.Monday}
	if s, ok := l.Schedule.sched.(*cron.SpecSchedule); ok && s.Location != nil {
		c.Loc = s.Location
	}
	return c
}

// limitCounter is the key of a guard's counter for a write in the window
// starting at start: the values of its dimensions joined by spaces, which
// no id holds; an unnamed caller's key is "_", which no key name is.
func (k keys) limitCounter(g guard, w ScoreWrite, start time.Time) string {
	var b strings.Builder
	b.WriteString(k.prefix + "rl:" + g.Name + ":" + strconv.FormatInt(start.UnixMilli(), 10))
	for _, d := range g.By {
		b.WriteByte(' ')
		switch {
		case d == ByPlayer:
			b.WriteString(w.Player)
		case w.Scope == "":
			b.WriteString("_")
		default:
			b.WriteString(w.Scope)
		}
	}
	return b.String()
}

// limitArgs appends to a score write's keys and arguments the counters of
// the league's guards (score.lua's ARGV[24] on).
func (l *League) limitArgs(k keys, p Period, now time.Time, w ScoreWrite, ks []string, args []any) ([]string, []any) {
	args = append(args, len(l.guards))
	for _, g := range l.guards {
		start, end := l.window(g.Per, p, now)
		ks = append(ks, k.limitCounter(g, w, start))
		measure := "write"
		if g.gain {
			measure = "gain"
		}
		args = append(args, g.Max, start.UnixMilli(), end.UnixMilli(), measure)
	}
	return ks, args
}

// Refusal is why a guard refused a score write (the cause of its
// RateLimited error): the API answers Retry-After until the window frees.
type Refusal struct {
	League string
	Limit  string // the limit's name; gain-<per> for max_gain_per
	Per    Per
	Max    int64
	Gain   bool // the limit counts score gained, not writes
	Frees  time.Time
	now    time.Time
}

func (r *Refusal) Error() string {
	what := "writes"
	if r.Gain {
		what = "points gained"
	}
	return fmt.Sprintf("limit %q of league %q allows %d %s a %s: reached; it frees at %s",
		r.Limit, r.League, r.Max, what, r.Per, r.Frees.UTC().Format(time.RFC3339Nano))
}

// RetryAfter is how long until the window frees.
func (r *Refusal) RetryAfter() time.Duration { return max(r.Frees.Sub(r.now), time.Millisecond) }

// refusal is the error of a write refused by guard i (0-based) in
// period p at now.
func (l *League) refusal(i int, p Period, now time.Time) error {
	g := l.guards[i]
	_, end := l.window(g.Per, p, now)
	r := &Refusal{League: l.ID, Limit: g.Name, Per: g.Per, Max: g.Max, Gain: g.gain, Frees: end, now: now}
	field := "player_id"
	if !slices.Contains(g.By, ByPlayer) {
		field = "key"
	}
	return &Error{Code: RateLimited, Field: field, Err: r, Message: r.Error() + "; nothing was written"}
}

// Counter is a guard's count for a player or a key in its current window.
type Counter struct {
	Limit      Limit
	Gain       bool // counts points gained (max_gain_per), not writes
	Start, End time.Time
	Used       int64
}

// Counters returns the current count of each guard of league leagueID
// that counts by what w names (Player, Scope as the key; "" leaves one
// out): what leaguectl limits shows an operator.
func (e *Engine) Counters(ctx context.Context, leagueID string, w ScoreWrite) ([]Counter, error) {
	lv, err := e.live(leagueID)
	if err != nil {
		return nil, err
	}
	if w.Player != "" {
		if err := CheckPlayerID(w.Player); err != nil {
			return nil, err
		}
	}
	if w.Scope != "_" { // "_": the callers without a key
		if err := CheckScope(w.Scope); err != nil {
			return nil, err
		}
	}
	now := e.now()
	p, _ := e.current(lv)
	var out []Counter
	var ks []string
	for _, g := range lv.guards {
		named := true
		for _, d := range g.By {
			named = named && (d == ByPlayer && w.Player != "" || d == ByKey && w.Scope != "")
		}
		if !named {
			continue
		}
		start, end := lv.window(g.Per, p, now)
		out = append(out, Counter{Limit: g.Limit, Gain: g.gain, Start: start, End: end})
		ks = append(ks, lv.keys.limitCounter(g, w, start))
	}
	if len(ks) == 0 {
		return nil, nil
	}
	used, err := ratelimit.Counts(ctx, e.rdb, ks)
	if err != nil {
		return nil, internal("counters", err)
	}
	for i := range out {
		out[i].Used = used[i]
	}
	return out, nil
}
