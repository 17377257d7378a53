package leaderboard

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/redis/go-redis/v9"

	"github.com/league-engine/league/league"
	"github.com/league-engine/league/scripts"
)

// Entry is a member's place on a board.
type Entry struct {
	Rank   int // 1-based
	Member string
	Score  int64
	// Name and Metadata are the member's catalog entry, on a leaderboard
	// with a catalog (empty when the member has none).
	Name     string
	Metadata json.RawMessage
}

// Board is a page of one board.
type Board struct {
	Period  Period // Kind says which board
	Entries []Entry
	Size    int // members on the board
	// Incomplete reports a rolling board not yet pre-filled: members who
	// did not write since its bucket began may be missing or short
	// (Engine.PreFill; the scheduler fills it as soon as it can).
	Incomplete bool
	// Archived reports a period past its Redis retention, read from the
	// archive (Engine.Archive).
	Archived bool
	// Participants is how many distinct actors wrote in the period
	// (HyperLogLog: 0.81% standard error), -1 where the leaderboard does
	// not count them.
	Participants int64
}

// MaxPage is the most entries one read returns.
const MaxPage = 1000

// PeriodOf returns the period of kind k named by id ("" for the current
// one): NotFound for a kind the leaderboard keeps no board of, Invalid for
// an id that starts no period of that kind, and for a period that has not
// begun.
func (e *Engine) PeriodOf(l *Leaderboard, k Kind, id string) (Period, error) {
	if !l.has(k) {
		return Period{}, league.Errorf(league.NotFound, "leaderboard %q keeps no %s board", l.ID, k)
	}
	now := e.clock.Now()
	if id == "" {
		return l.Calendar.At(k, now), nil
	}
	p, err := l.Calendar.Parse(k, id)
	if err != nil {
		return Period{}, &league.Error{Code: league.Invalid, Field: "period", Message: err.Error()}
	}
	if p.Start.After(now) {
		return Period{}, &league.Error{Code: league.Invalid, Field: "period", Message: fmt.Sprintf("%s has not begun", id)}
	}
	return p, nil
}

// Top returns limit entries of a board from rank offset+1: of period id of
// kind k ("" for the current one). A period past its retention reads as an
// empty board.
func (e *Engine) Top(ctx context.Context, id string, k Kind, period string, offset, limit int) (Board, error) {
	l, err := e.Leaderboard(id)
	if err != nil {
		return Board{}, err
	}
	if offset < 0 {
		return Board{}, &league.Error{Code: league.Invalid, Field: "offset", Message: fmt.Sprintf("%d is negative", offset)}
	}
	if limit < 1 || limit > MaxPage {
		return Board{}, &league.Error{Code: league.Invalid, Field: "limit", Message: fmt.Sprintf("%d is outside 1..%d", limit, MaxPage)}
	}
	p, err := e.PeriodOf(l, k, period)
	if err != nil {
		return Board{}, err
	}
	if e.pastRetention(l, p) {
		return e.archivedTop(ctx, l, p, offset, limit)
	}
	key, err := e.readKey(l, p)
	if err != nil {
		return Board{}, err
	}
	if e.sharded(l, p.Start) {
		b, err := e.shardedTop(ctx, l, p, offset, limit)
		if err != nil {
			return Board{}, err
		}
		return b, e.names(ctx, l, b.Entries)
	}
	pipe := e.rdb.Pipeline()
	var page *redis.ZSliceCmd
	stop := int64(offset + limit - 1)
	if l.Order == Ascending {
		page = pipe.ZRangeWithScores(ctx, key, int64(offset), stop)
	} else {
		page = pipe.ZRevRangeWithScores(ctx, key, int64(offset), stop)
	}
	size := pipe.ZCard(ctx, key)
	var marker *redis.StringCmd
	if k.Rolling() {
		marker = pipe.Get(ctx, e.keys(l).filled(p))
	}
	var participants *redis.IntCmd
	if slices.Contains(l.Participants, k) {
		participants = pipe.PFCount(ctx, e.keys(l).participants(p))
	}
	if _, err := pipe.Exec(ctx); err != nil && err != redis.Nil {
		return Board{}, league.RedisError("leaderboard read", err)
	}
	shift := math.Ldexp(1, int(l.tieBits[k]))
	b := Board{Period: p, Size: int(size.Val()), Entries: make([]Entry, len(page.Val()))}
	if marker != nil {
		b.Incomplete = e.incomplete(l, p, marker.Val() == filledMark)
	}
	b.Participants = -1
	if participants != nil {
		b.Participants = participants.Val()
	}
	for i, z := range page.Val() {
		b.Entries[i] = Entry{Rank: offset + i + 1, Member: z.Member.(string), Score: int64(math.Floor(z.Score / shift))}
	}
	return b, e.names(ctx, l, b.Entries)
}

// Around returns the window of a board around member: up to n ranks above
// it and n below, in one round trip (two on a sharded leaderboard:
// shardrank.go). A member not on the board is NotFound.
func (e *Engine) Around(ctx context.Context, id string, k Kind, period, member string, n int) (Board, error) {
	l, err := e.Leaderboard(id)
	if err != nil {
		return Board{}, err
	}
	if err := CheckMember(member); err != nil {
		return Board{}, err
	}
	if n < 0 || 2*n+1 > MaxPage {
		return Board{}, &league.Error{Code: league.Invalid, Field: "limit",
			Message: fmt.Sprintf("a window of %d above and below is outside 0..%d", n, (MaxPage-1)/2)}
	}
	p, err := e.PeriodOf(l, k, period)
	if err != nil {
		return Board{}, err
	}
	if e.pastRetention(l, p) {
		return e.archivedAround(ctx, l, p, member, n)
	}
	key, err := e.readKey(l, p)
	if err != nil {
		return Board{}, err
	}
	if e.sharded(l, p.Start) {
		b, err := e.shardedAround(ctx, l, p, member, n)
		if err != nil {
			return Board{}, err
		}
		return b, e.names(ctx, l, b.Entries)
	}
	ks, rolling := []string{key}, 0
	if k.Rolling() {
		ks, rolling = append(ks, e.keys(l).filled(p)), 1
	}
	counted := slices.Contains(l.Participants, k)
	if counted {
		ks = append(ks, e.keys(l).participants(p))
	}
	// Redis refuses PFCOUNT in EVALSHA_RO (it may write its cached
	// estimate), so a window with a participant count goes as EVALSHA.
	reply, err := e.run.Run(ctx, scripts.LBAround, !counted, ks, member, n, l.orderArg(), rolling).Slice()
	if err != nil {
		return Board{}, league.RedisError("leaderboard read", err)
	}
	if len(reply) < 4 {
		return Board{}, league.RedisError("leaderboard read", fmt.Errorf("unexpected reply %v", reply))
	}
	first, _ := reply[0].(int64)
	size, _ := reply[1].(int64)
	filled, _ := reply[2].(int64)
	participants, _ := reply[3].(int64)
	if first < 0 {
		return Board{}, league.Errorf(league.NotFound, "member %q is not on the %s board of %s", member, k, p.ID())
	}
	shift := math.Ldexp(1, int(l.tieBits[k]))
	b := Board{Period: p, Size: int(size), Incomplete: e.incomplete(l, p, filled == 1), Participants: participants}
	for i := 4; i+1 < len(reply); i += 2 {
		m, _ := reply[i].(string)
		packed, err := strconv.ParseFloat(fmt.Sprint(reply[i+1]), 64)
		if err != nil {
			return Board{}, league.RedisError("leaderboard read", err)
		}
		b.Entries = append(b.Entries, Entry{Rank: int(first) + (i-4)/2 + 1, Member: m, Score: int64(math.Floor(packed / shift))})
	}
	return b, e.names(ctx, l, b.Entries)
}

// Standing is a member on one board: where it stands in the current
// period, and where it stood in the period before.
type Standing struct {
	Period Period
	Score  int64
	Rank   int   // 0: not on the board
	Gap    int64 // to the member ranked just above; -1: none above, or not on the board
	// Previous is the period before (the all-time board: none) and the
	// member's place on its board (Rank 0: not on it, or past retention).
	Previous *Placement
	// Incomplete reports a rolling board not yet pre-filled (Board).
	Incomplete bool
	// Participants is how many distinct actors wrote for the member in
	// the period (HyperLogLog: 0.81% standard error), -1 where the
	// leaderboard does not count them.
	Participants int64
}

// Member returns member on every board of leaderboard id, in Boards
// order, in one round trip (two on a sharded leaderboard).
func (e *Engine) Member(ctx context.Context, id, member string) ([]Standing, error) {
	sts, errs, err := e.Members(ctx, id, []string{member}, nil)
	if err != nil {
		return nil, err
	}
	return sts[0], errs[0]
}

// Members returns each member on the boards of leaderboard id of the given
// kinds (nil: every board), in one round trip (two on a sharded
// leaderboard: shardrank.go): sts[i] for members[i], in
// the order of kinds (or Boards). A bad member id fails alone (errs[i]); a
// kind the leaderboard does not keep, or more than MaxBatch members, fails
// the call.
func (e *Engine) Members(ctx context.Context, id string, members []string, kinds []Kind) (sts [][]Standing, errs []error, err error) {
	l, err := e.Leaderboard(id)
	if err != nil {
		return nil, nil, err
	}
	if len(members) > MaxBatch {
		return nil, nil, &league.Error{Code: league.Invalid, Field: "members",
			Message: fmt.Sprintf("%d members; ask for at most %d at once", len(members), MaxBatch)}
	}
	if kinds == nil {
		kinds = l.boards
		if e.public {
			kinds = l.Kinds // rolling boards have no public twin
		}
	}
	var ps []Period
	now := e.clock.Now()
	for _, k := range kinds {
		if !l.has(k) {
			return nil, nil, league.Errorf(league.NotFound, "leaderboard %q keeps no %s board", l.ID, k)
		}
		p := l.Calendar.At(k, now)
		if _, err := e.readKey(l, p); err != nil {
			return nil, nil, err
		}
		ps = append(ps, p)
	}
	sts, errs = make([][]Standing, len(members)), make([]error, len(members))
	var asked []int
	for i, m := range members {
		if errs[i] = CheckMember(m); errs[i] == nil {
			asked = append(asked, i)
		}
	}
	if len(asked) == 0 {
		return sts, errs, nil
	}
	if len(e.shardsOf(l, withPrevious(l, ps)...)) > 1 {
		names := make([]string, len(asked))
		for j, i := range asked {
			names[j] = members[i]
		}
		got, err := e.shardedMembers(ctx, l, names, ps)
		if err != nil {
			return nil, nil, err
		}
		for j, i := range asked {
			sts[i] = got[j]
		}
		return sts, errs, nil
	}
	k := e.keys(l)
	rolling := 0
	for _, p := range ps {
		if p.Kind.Rolling() {
			rolling++
		}
	}
	cmds, err := e.run.Pipeline(ctx, scripts.LBMember, len(asked), func(j int) ([]string, []any) {
		member := members[asked[j]]
		ks := make([]string, 0, 2*len(ps)+len(l.Windows))
		args := []any{member, l.orderArg(), rolling}
		for _, p := range ps {
			cur, _ := e.readKey(l, p)
			prev, _ := e.readKey(l, l.Calendar.Previous(p))
			ks = append(ks, cur, prev)
			args = append(args, l.tieBits[p.Kind])
		}
		for _, p := range ps {
			if p.Kind.Rolling() {
				ks = append(ks, k.filled(p))
			}
		}
		for _, p := range ps {
			if slices.Contains(l.Participants, p.Kind) {
				ks = append(ks, k.memberParticipants(p, member))
			}
		}
		return ks, args
	})
	if err != nil {
		return nil, nil, league.RedisError("leaderboard read", err)
	}
	for j, i := range asked {
		sts[i], errs[i] = l.standings(ps, cmds[j])
	}
	return sts, errs, nil
}

// standings reads lb_member.lua's reply for the boards of ps.
func (l *Leaderboard) standings(ps []Period, cmd *redis.Cmd) ([]Standing, error) {
	reply, err := cmd.Int64Slice()
	if err != nil {
		return nil, league.RedisError("leaderboard read", err)
	}
	rolling, counted := 0, 0
	for _, p := range ps {
		if p.Kind.Rolling() {
			rolling++
		}
		if slices.Contains(l.Participants, p.Kind) {
			counted++
		}
	}
	if len(reply) != 5*len(ps)+rolling+counted {
		return nil, league.RedisError("leaderboard read", fmt.Errorf("unexpected reply %v", reply))
	}
	out := make([]Standing, len(ps))
	flag, count := 5*len(ps), 5*len(ps)+rolling
	for i, p := range ps {
		out[i].Participants = -1
		if slices.Contains(l.Participants, p.Kind) {
			out[i].Participants = reply[count]
			count++
		}
		r := reply[5*i : 5*i+5]
		out[i].Period, out[i].Score, out[i].Rank, out[i].Gap = p, r[0], int(r[1]), r[2]
		if p.Kind != AllTime {
			out[i].Previous = &Placement{Period: l.Calendar.Previous(p), Score: r[3], Rank: int(r[4])}
		}
		if p.Kind.Rolling() {
			out[i].Incomplete = reply[flag] == 0
			flag++
		}
	}
	return out, nil
}

// Public returns a view of the engine whose reads (Top, Around, Member,
// Members) read the public twins of periodic boards: the scores players
// see on a leaderboard with PublicBoards, each write counted times the
// member's multiplier. Writes are the engine's.
func (e *Engine) Public() *Engine {
	v := *e
	v.public = true
	return &v
}

// readKey is the key a read of p's board uses (shard 0's of a sharded
// leaderboard): its public twin in a Public view, which it refuses where
// there is none.
func (e *Engine) readKey(l *Leaderboard, p Period) (string, error) {
	if e.public {
		switch {
		case !l.PublicBoards:
			return "", &league.Error{Code: league.Invalid, Field: "view", Message: fmt.Sprintf("leaderboard %q has no public boards", l.ID)}
		case p.Kind.Rolling():
			return "", league.Errorf(league.NotFound, "the %s board of leaderboard %q has no public twin: rolling boards count raw values", p.Kind, l.ID)
		}
	}
	return e.boardKey(e.keys(l), p), nil
}

// boardKey is the key of p's board in the shard of k that this view reads:
// the public twin in a Public view (readKey checked that it has one).
func (e *Engine) boardKey(k keys, p Period) string {
	if e.public {
		return k.public(p)
	}
	return k.board(p)
}

// Current returns each board's current period (when it ends: the all-time
// board never does), in Kinds order, by the engine's idea of Redis's clock.
func (e *Engine) Current(id string) ([]Period, error) {
	l, err := e.Leaderboard(id)
	if err != nil {
		return nil, err
	}
	return l.periodsAt(e.clock.Now()), nil
}
