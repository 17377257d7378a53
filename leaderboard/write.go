package leaderboard

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/league-engine/league/league"
	"github.com/league-engine/league/scripts"
)

// Write is one write to a leaderboard: every board of it at once. With a
// RequestID, a retry within the idempotency window returns the first
// write's result and changes nothing.
type Write struct {
	Member    string
	Value     int64 // >= 0; the operator decides what it does
	RequestID string
	// Scope is whose request ids these are (the API key's name): ids of
	// two scopes never meet (league.ScoreWrite.Scope).
	Scope string
	// Actor, Channel and Terminal say who wrote and from where (a voter,
	// a partner, a device kind): rate limits count by them (limit.go).
	Actor, Channel, Terminal string
}

// Placement is a member's score and rank on one board.
type Placement struct {
	Period Period // Kind says which board
	Score  int64
	Rank   int // 1-based; 0 in a write's result on a sharded leaderboard (the write sees one shard)
}

// WriteResult is the member's place on every board after a write, in the
// leaderboard's Kinds order.
type WriteResult struct {
	Boards []Placement
	// Public is the member's place on each public twin of a periodic
	// board (Leaderboard.PublicBoards), in Kinds order; nil without them.
	Public []Placement
	// Replayed reports a retried request id: the first write's result.
	Replayed bool
}

// MaxBatch is how many writes one WriteBatch takes.
const MaxBatch = league.MaxBatch

// Write applies w to every board of leaderboard id in one atomic script and
// one round trip: all of them or, refused, none.
func (e *Engine) Write(ctx context.Context, id string, w Write) (WriteResult, error) {
	l, err := e.Leaderboard(id)
	if err != nil {
		return WriteResult{}, err
	}
	if err := l.checkWrite(w); err != nil {
		return WriteResult{}, err
	}
	var res WriteResult
	if len(l.shared) > 0 {
		res, err = e.writeShared(ctx, l, w)
	} else {
		res, _, err = e.write(ctx, l, w)
	}
	if err != nil {
		e.logRefusals(ctx, err)
	}
	return res, err
}

// write runs w's lb_write.lua, again when Redis's clock or a rolling
// board asks. refused reports an error Redis answered: nothing was
// written (otherwise the write may have landed).
func (e *Engine) write(ctx context.Context, l *Leaderboard, w Write) (res WriteResult, refused bool, err error) {
	now := e.clock.Now()
	if e.switched(l) {
		found, results, errs, err := e.retriesAcross(ctx, []retry{{l, w, now}})
		if err != nil {
			return WriteResult{}, false, err
		}
		if found != nil && found[0] {
			return results[0], errs[0] != nil, errs[0]
		}
	}
	seed := false
	for attempt := 0; attempt < 4; attempt++ {
		ps := l.periodsAt(now)
		ks, args := e.writeArgs(l, now, ps, w, seed, nil)
		reply, err := e.run.Run(ctx, scripts.LBWrite, false, ks, args...).Slice()
		if err != nil {
			return WriteResult{}, false, writeError(err)
		}
		res, redisNow, err := l.writeResult(now, ps, e.sharded(l, now), w, reply)
		if errors.Is(err, errNeedSeed) {
			seed = true
			continue
		}
		if redisNow.IsZero() {
			return res, err != nil, err
		}
		e.clock.Learn(redisNow)
		now = redisNow
	}
	return WriteResult{}, true, league.RedisError("leaderboard write", errors.New("the period kept moving"))
}

// WriteBatch applies up to MaxBatch writes to leaderboard id in one round
// trip, each atomic on its own: a write refused (errs[i]) changes nothing,
// and the others still apply. err is the batch's own failure (Redis
// unreachable), when nothing is known of any write.
func (e *Engine) WriteBatch(ctx context.Context, id string, writes []Write) (results []WriteResult, errs []error, err error) {
	if _, err := e.Leaderboard(id); err != nil {
		return nil, nil, err
	}
	many := make([]BoardWrite, len(writes))
	for i, w := range writes {
		many[i] = BoardWrite{Leaderboard: id, Write: w}
	}
	return e.WriteMany(ctx, many)
}

// BoardWrite is a write to the leaderboard it names.
type BoardWrite struct {
	Leaderboard string
	Write
}

// WriteMany applies up to MaxBatch writes, each to the leaderboard it
// names, in one round trip (on Redis Cluster, one per node holding them),
// as WriteBatch: each atomic on its own, a write to an unknown leaderboard
// refused (NotFound) like any other bad write.
func (e *Engine) WriteMany(ctx context.Context, writes []BoardWrite) (results []WriteResult, errs []error, err error) {
	if len(writes) > MaxBatch {
		return nil, nil, &league.Error{Code: league.Invalid, Field: "writes",
			Message: fmt.Sprintf("%d writes; send at most %d a batch", len(writes), MaxBatch)}
	}
	results, errs = make([]WriteResult, len(writes)), make([]error, len(writes))
	boards := make([]*Leaderboard, len(writes))
	var pending []int
	for i, w := range writes {
		if boards[i], errs[i] = e.Leaderboard(w.Leaderboard); errs[i] == nil {
			if errs[i] = boards[i].checkWrite(w.Write); errs[i] == nil {
				pending = append(pending, i)
			}
		}
	}
	// writes of sharded leaderboards with limits across shards take them
	// first (reserve.go), all in one round trip
	var ts []*taking
	var took []int // the write of each taking
	for _, i := range pending {
		if len(boards[i].shared) > 0 {
			ts, took = append(ts, newTaking(boards[i], writes[i].Write)), append(took, i)
		}
	}
	if len(ts) > 0 {
		terrs, err := e.take(ctx, ts)
		if err != nil {
			return nil, nil, err
		}
		for j, i := range took {
			errs[i] = terrs[j]
		}
		pending = slices.DeleteFunc(pending, func(i int) bool { return errs[i] != nil })
		if e.afterTake != nil {
			e.afterTake()
		}
	}
	refused := make([]bool, len(writes))
	now := e.clock.Now()
	var rs []retry // the writes to leaderboards that switched shard counts
	var switched []int
	for _, i := range pending {
		if e.switched(boards[i]) {
			rs, switched = append(rs, retry{boards[i], writes[i].Write, now}), append(switched, i)
		}
	}
	found, replayed, rerrs, err := e.retriesAcross(ctx, rs)
	if err != nil {
		return nil, nil, err
	}
	if found != nil {
		replay := make([]bool, len(writes))
		for j, i := range switched {
			if found[j] {
				results[i], errs[i], refused[i], replay[i] = replayed[j], rerrs[j], rerrs[j] != nil, true
			}
		}
		pending = slices.DeleteFunc(pending, func(i int) bool { return replay[i] })
	}
	seed := make([]bool, len(writes))
	for attempt := 0; attempt < 4 && len(pending) > 0; attempt++ {
		periods := map[*Leaderboard][]Period{} // each leaderboard's at now
		ps := make([][]Period, len(pending))
		cmds, err := e.run.Pipeline(ctx, scripts.LBWrite, len(pending), func(j int) ([]string, []any) {
			i := pending[j]
			l := boards[i]
			if periods[l] == nil {
				periods[l] = l.periodsAt(now)
			}
			ps[j] = periods[l]
			return e.writeArgs(l, now, ps[j], writes[i].Write, seed[i], nil)
		})
		if err != nil {
			return nil, nil, writeError(err)
		}
		var again []int
		var later time.Time
		for j, i := range pending {
			reply, err := cmds[j].Slice()
			if err != nil {
				errs[i] = writeError(err)
				continue
			}
			var redisNow time.Time
			results[i], redisNow, errs[i] = boards[i].writeResult(now, ps[j], e.sharded(boards[i], now), writes[i].Write, reply)
			if errors.Is(errs[i], errNeedSeed) {
				seed[i], errs[i] = true, nil
				again = append(again, i)
			} else if !redisNow.IsZero() {
				again, later = append(again, i), redisNow
			} else {
				refused[i] = errs[i] != nil
			}
		}
		pending = again
		if !later.IsZero() {
			e.clock.Learn(later)
			now = later
		}
	}
	for _, i := range pending {
		errs[i], refused[i] = league.RedisError("leaderboard write", errors.New("the period kept moving")), true
	}
	if len(ts) > 0 {
		rs, es, ref := make([]WriteResult, len(ts)), make([]error, len(ts)), make([]bool, len(ts))
		for j, i := range took {
			rs[j], es[j], ref[j] = results[i], errs[i], refused[i]
		}
		e.settle(ctx, ts, rs, es, ref)
	}
	e.logRefusals(ctx, errs...)
	return results, errs, nil
}

// writeError is the error of a write whose round trip failed: when Redis
// did not answer, the write may have been applied.
func writeError(err error) error {
	e := league.RedisError("leaderboard write", err)
	if league.ErrorCode(e) != league.Unavailable {
		return e
	}
	return &league.Error{Code: league.Unavailable, Err: err,
		Message: "leaderboard write: redis did not answer, so the write may have been applied: retry it with the same request_id"}
}

func (l *Leaderboard) checkWrite(w Write) error {
	if err := CheckMember(w.Member); err != nil {
		return err
	}
	if err := league.CheckRequestID(w.RequestID); err != nil {
		return err
	}
	if err := league.CheckScope(w.Scope); err != nil {
		return err
	}
	if err := l.checkDimensions(w); err != nil {
		return err
	}
	switch {
	case w.Value < 0:
		return &league.Error{Code: league.Invalid, Field: "value",
			Message: fmt.Sprintf("%d is negative; values are integers from 0 (a decr leaderboard subtracts them)", w.Value)}
	case w.Value > l.MaxScore:
		return &league.Error{Code: league.Overflow, Message: fmt.Sprintf("value %d is over the leaderboard's maximum score %d", w.Value, l.MaxScore)}
	}
	return nil
}

// periodsAt returns the period of each board at t, in Boards order.
func (l *Leaderboard) periodsAt(t time.Time) []Period {
	ps := make([]Period, len(l.boards))
	for i, k := range l.boards {
		ps[i] = l.Calendar.At(k, t)
	}
	return ps
}

// writeArgs returns lb_write.lua's KEYS and ARGV for w on the boards of ps;
// seed adds the buckets each rolling board sums, for a board not yet
// filled; q, for a queued write, the entry that leaves its stream with it.
func (e *Engine) writeArgs(l *Leaderboard, now time.Time, ps []Period, w Write, seed bool, q *entry) ([]string, []any) {
	k := e.memberKeysAt(l, w.Member, now)
	periodic, rolling := ps[:len(l.Kinds)], ps[len(l.Kinds):]
	boards, public := periodic, 0
	if l.PublicBoards { // the public twins follow the raw boards
		boards, public = append(slices.Clone(periodic), periodic...), len(periodic)+1
	}
	ks := make([]string, 0, len(boards)+5*len(rolling)+2)
	args := make([]any, 0, 12+6*(len(boards)+len(rolling)))
	nowArg := e.clock.Arg()
	if q != nil {
		nowArg = strconv.FormatInt(q.at.UnixMilli(), 10) // the boards of when it was written
	}
	args = append(args, nowArg, len(boards), w.Member, string(l.Operator), w.Value, l.MaxScore, l.orderArg(),
		(l.IdempotencyWindow + e.expiryLag).Milliseconds(), len(rolling), flag(seed), flag(w.RequestID != ""), public)
	for i, p := range boards {
		if public > 0 && i+1 >= public {
			ks = append(ks, k.public(p))
		} else {
			ks = append(ks, k.board(p))
		}
		start, end, checked, retention := p.Start, p.End, 1, ""
		if p.Kind == AllTime {
			start, end, checked = AllTimeFrom, AllTimeUntil, 0
		} else {
			retention = strconv.FormatInt((l.Retention[p.Kind] + e.expiryLag).Milliseconds(), 10)
		}
		args = append(args, start.Unix(), end.Unix(), checked, l.tieBits[p.Kind], l.TieResolution.Milliseconds(), retention)
	}
	if public > 0 {
		ks = append(ks, k.multipliers())
	}
	var bucketWritten Kind
	for _, p := range rolling {
		win := p.Kind.window()
		next := l.Calendar.Next(p)
		oldest := l.oldestBucket(p)
		bucket := l.Calendar.At(win.Unit, p.Start)
		ks = append(ks, k.bucket(bucket), k.board(p), k.board(next), k.bucket(oldest), k.filled(p))
		bucketRetention := ""
		if bucketWritten != win.Unit { // Windows are sorted by unit: the first of each writes the bucket
			bucketWritten = win.Unit
			bucketRetention = strconv.FormatInt((l.buckets[win.Unit] + e.expiryLag).Milliseconds(), 10)
		}
		args = append(args, p.Start.Unix(), p.End.Unix(), next.End.Unix(),
			(l.Retention[p.Kind] + e.expiryLag).Milliseconds(), bucketRetention, win.N-1)
		if seed {
			for _, b := range l.Calendar.Buckets(p)[:win.N-1] {
				ks = append(ks, k.bucket(b))
			}
		}
	}
	carries := 0
	for _, p := range boards {
		if l.CarryOver[p.Kind] > 0 {
			carries++
		}
	}
	args = append(args, carries)
	for i, p := range boards {
		if share := l.CarryOver[p.Kind]; share > 0 {
			next := l.Calendar.Next(p)
			if public > 0 && i+1 >= public {
				ks = append(ks, k.public(next))
			} else {
				ks = append(ks, k.board(next))
			}
			args = append(args, i+1, share, next.Start.Unix(), next.End.Unix())
		}
	}
	args = append(args, len(l.inWrite))
	for _, i := range l.inWrite {
		lim := l.Limits[i]
		start, end := l.window(lim, now)
		ks = append(ks, k.limitCounter(lim, w, start))
		endArg := ""
		if !end.IsZero() {
			endArg = strconv.FormatInt(end.UnixMilli(), 10)
		}
		args = append(args, lim.allowance(w), start.UnixMilli(), endArg, "write")
	}
	args = append(args, len(l.Participants), w.Actor)
	for _, p := range periodic {
		if slices.Contains(l.Participants, p.Kind) {
			ks = append(ks, k.participants(p), k.memberParticipants(p, w.Member))
			end, retention := p.End.Unix(), ""
			if p.Kind == AllTime {
				end = 0
			} else {
				retention = strconv.FormatInt((l.Retention[p.Kind] + e.expiryLag).Milliseconds(), 10)
			}
			args = append(args, end, retention)
		}
	}
	if q != nil {
		ks = append(ks, k.queue())
		args = append(args, q.id, queueGroup)
	} else {
		args = append(args, "", "")
	}
	if w.RequestID != "" {
		ks = append(ks, k.request(w.Scope, w.RequestID))
	}
	return ks, args
}

// refusal is the error of limit i (of l.Limits) refusing w at now; end is
// when its window ends, in ms (-1: never).
func (l *Leaderboard) refusal(now time.Time, w Write, i int, end int64) error {
	lim := l.Limits[i]
	r := &Refusal{Leaderboard: l.ID, Limit: lim.Name, Per: lim.Per, Max: lim.allowance(w), now: now, w: w}
	if end >= 0 {
		r.Frees = time.UnixMilli(end)
	}
	return &league.Error{Code: league.RateLimited, Message: r.Error() + "; nothing was written", Err: r}
}

func flag(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

func (l *Leaderboard) orderArg() string {
	if l.Order == Ascending {
		return "asc"
	}
	return "desc"
}

// errNeedSeed means a rolling board the member is not on is not filled
// yet: send the write again with the buckets the board sums.
var errNeedSeed = errors.New("leaderboard: a rolling board needs its buckets")

// writeResult reads lb_write.lua's reply. A non-zero redisNow means the
// periods were not those at Redis's clock: compute them at redisNow and
// send the write again.
// sharded says the boards of ps are split over shards.
func (l *Leaderboard) writeResult(now time.Time, ps []Period, sharded bool, w Write, reply []any) (res WriteResult, redisNow time.Time, err error) {
	status, _ := reply[0].(int64)
	switch scripts.Status(status) {
	case scripts.OK, scripts.Existing:
		res.Replayed = scripts.Status(status) == scripts.Existing
		at, _ := reply[1].(int64)
		if res.Replayed {
			// The first write's periods, which a retry after a boundary
			// no longer shares.
			ps = l.periodsAt(time.UnixMilli(at))
		}
		place := func(j int, p Period) Placement {
			score, _ := reply[2+2*j].(int64)
			rank, _ := reply[3+2*j].(int64)
			if sharded {
				// the script saw one shard: its rank there is not the
				// member's; ranking needs every shard (Member reads it)
				rank = 0
			}
			return Placement{Period: p, Score: score, Rank: int(rank)}
		}
		// the reply's order: raw periodic boards, their public twins, rolling boards
		res.Boards = make([]Placement, len(ps))
		twins := 0
		if l.PublicBoards {
			twins = len(l.Kinds)
			res.Public = make([]Placement, twins)
		}
		for i, p := range ps {
			j := i
			if i >= len(l.Kinds) {
				j += twins
			} else if twins > 0 {
				res.Public[i] = place(i+twins, p)
			}
			res.Boards[i] = place(j, p)
		}
		return res, time.Time{}, nil
	case scripts.WrongPeriod:
		ms, _ := reply[1].(int64)
		return res, time.UnixMilli(ms), nil
	case scripts.Overflow:
		i, _ := reply[1].(int64)
		current, _ := reply[2].(int64)
		// the script counts the raw periodic boards, their public twins,
		// then the rolling boards; ps holds no twins
		j, board := int(i)-1, ""
		if k := len(l.Kinds); l.PublicBoards && j >= k {
			if j -= k; j < k {
				board = "public "
			}
		}
		board += string(ps[j].Kind)
		return res, time.Time{}, &league.Error{Code: league.Overflow, Message: fmt.Sprintf(
			"the %s would take %q's score on the %s board from %d past the maximum score %d; nothing was written",
			l.Operator, w.Member, board, current, l.MaxScore)}
	case scripts.NeedSeed:
		return res, time.Time{}, errNeedSeed
	case scripts.Limited:
		i, _ := reply[1].(int64)
		end, _ := reply[2].(int64)
		return res, time.Time{}, l.refusal(now, w, l.inWrite[i-1], end)
	case scripts.Conflict:
		return res, time.Time{}, conflictError(w)
	}
	return res, time.Time{}, league.RedisError("leaderboard write", fmt.Errorf("unexpected reply %v", reply))
}
