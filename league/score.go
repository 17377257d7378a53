package league

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"time"

	"github.com/league-engine/league/scripts"
	"github.com/league-engine/league/tiers"
)

// ScoreWrite is one score write. With a RequestID, a retry within the
// league's idempotency window returns the first write's result and changes
// nothing.
type ScoreWrite struct {
	Player    string
	Value     int64
	RequestID string
	// Scope is whose request ids these are: the same RequestID in two
	// scopes names two writes, so one caller can neither replay another's
	// result nor claim its ids first. The API sets the name of the caller's
	// key; "" is the scope of unnamed callers (CheckScope).
	Scope string
	// NoRank is for callers that do not show the player's rank: Redis
	// skips reading it and the board's size, and the result has Rank and
	// BoardSize 0 (ScoreResult.Ranked). A retry answers as the first write
	// did, whatever either asked: a rank-less first write's retry has no
	// rank, a ranked one's has its rank.
	NoRank bool
}

// ScoreResult is the player's position after a write.
type ScoreResult struct {
	Period    Period
	Tier      string
	Board     BoardID
	Score     int64
	Rank      int // 1-based on the sub-board; 0 when not read (ScoreWrite.NoRank)
	BoardSize int // 0 when the rank was not read
	// Zone is where Rank falls on the board as settlement would decide it
	// now: with MergedWith, in the ranking of both boards' players.
	// Meaningful only when Ranked.
	Zone tiers.Zone
	// MergedWith is the board of the tier this one is decided with while
	// it is its tier's short last board, or the board before it
	// (min_board_size); nil when decided alone, or not Ranked.
	MergedWith *BoardID
	// Protected reports a player of the demotion ranks whom promotion
	// protection keeps in the tier: Zone is Stay (protect.go).
	Protected bool
	// Replayed reports a retried request id: the first write's result.
	Replayed bool
	// Held is set when the write passed a gain cap of a league that holds
	// such writes (League.Hold): it is not ranked, and Score, Rank and
	// Zone are the player's standing without it, until an operator
	// approves it (Engine.Approve).
	Held *Held
}

// Ranked reports whether the result has the player's rank, board size and
// zone: false for a write made with NoRank (and for its retries).
func (r ScoreResult) Ranked() bool { return r.Rank > 0 }

// Score applies a write with the league's operator (incr, best or set). The
// player must have joined the current period; writes after the period ended
// or that would pass the league's maximum are refused and change nothing.
// One round trip to Redis.
func (e *Engine) Score(ctx context.Context, leagueID string, w ScoreWrite) (ScoreResult, error) {
	lv, err := e.live(leagueID)
	if err != nil {
		return ScoreResult{}, err
	}
	if err := lv.checkWrite(w); err != nil {
		return ScoreResult{}, err
	}
	p, prev := e.current(lv)
	for attempt := 0; attempt < 3; attempt++ {
		ks, args := e.scoreArgs(lv, p, prev, w)
		reply, err := e.run.Run(ctx, scripts.Score, false, ks, args...).Slice()
		if err != nil {
			return ScoreResult{}, writeError("score", err)
		}
		res, retryAt, err := e.scoreResult(ctx, lv, p, w, reply)
		if retryAt == 0 {
			if err == nil && res.Zone == tiers.Demote && lv.ranks != "" {
				rs, errs := []ScoreResult{res}, []error{nil}
				e.protectResults(ctx, lv, []ScoreWrite{w}, rs, errs)
				return rs[0], errs[0]
			}
			return res, err
		}
		p, prev = e.redisSaid(lv, retryAt)
	}
	return ScoreResult{}, internal("score", fmt.Errorf("period kept moving for %q", w.Player))
}

// writeError is internal for a score write's round trip. When the reply
// did not come in time, or the connection broke before it came, the write
// may have reached Redis and run, or may run yet: the caller is told to
// retry with the same request id, which applies it at most once.
func writeError(op string, err error) error {
	var ne net.Error
	unknown := errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
	if e := internal(op, err); !unknown || ErrorCode(e) != Unavailable {
		return e
	}
	what := "the write may have been applied: retry it with the same request_id"
	if op == "score batch" {
		what = "the writes may have been applied: retry the batch with the same request_ids"
	}
	return &Error{Code: Unavailable, Err: err, Message: op + ": redis did not answer, so " + what}
}

func (l *League) checkWrite(w ScoreWrite) error {
	if err := CheckPlayerID(w.Player); err != nil {
		return err
	}
	if err := CheckRequestID(w.RequestID); err != nil {
		return err
	}
	if err := CheckScope(w.Scope); err != nil {
		return err
	}
	return l.checkValue(w.Value)
}

// scoreArgs returns the KEYS and ARGV of score.lua for a write.
func (e *Engine) scoreArgs(lv *live, p, prev Period, w ScoreWrite) ([]string, []any) {
	f := e.scoreFixedOf(lv, p, prev)
	ks := make([]string, 3, 6+len(lv.guards))
	ks[0], ks[1], ks[2] = f.counters, lv.keys.record(w.Player), f.meta
	args := make([]any, len(f.argv), len(f.argv)+1+4*len(lv.guards))
	copy(args, f.argv)
	args[argNow], args[argPlayer], args[argValue] = e.clock.Arg(), w.Player, w.Value
	if w.RequestID != "" {
		ks = append(ks, lv.keys.request(w.Scope, w.RequestID))
		args[argWithID] = "1"
	}
	if f.attempts != "" {
		ks = append(ks, f.attempts)
	}
	if f.held != "" {
		ks = append(ks, f.held)
	}
	if w.NoRank {
		args[argNoRank] = "1"
	}
	if len(lv.guards) == 0 {
		args = append(args, 0)
	} else {
		ks, args = lv.limitArgs(lv.keys, p, e.now(), w, ks, args)
	}
	if f.mins != "" {
		args = append(args, f.mins)
		if lv.groups != "" {
			args = append(args, lv.groups) // cohorts: thin ones merge across codes (group_at)
		}
	}
	return ks, args
}

// The slots of score.lua's ARGV a write fills in (0-based: argNow is
// ARGV[1]); scoreArgv lays them out.
const (
	argNow    = 0
	argPlayer = 4
	argValue  = 6
	argWithID = 19
	argNoRank = 22
)

// scoreFixed is what every score write of a league sends alike in one
// period: its keys, and score.lua's ARGV[1..23] as a write without a
// request id or NoRank sends them, each boxed into an interface once
// rather than per write (an allocation each, some fifteen a write).
// scoreArgs fills in the write's own: the clock, player, value, request
// id and rank.
type scoreFixed struct {
	start, prev    int64
	epoch          string
	counters, meta string
	attempts, held string // "" when the league has no max_attempts, no hold
	argv           []any
	mins           string // score.lua's min_board_size argument (minSizes); "" when no tier has one
}

// scoreFixedOf returns lv's scoreFixed for period p, made anew when the
// period or the league's epoch changed since the last write.
func (e *Engine) scoreFixedOf(lv *live, p, prev Period) *scoreFixed {
	start := p.Start.Unix()
	if f := lv.scoreFixed.Load(); f != nil && f.start == start && f.prev == prev.Start.Unix() && f.epoch == lv.epoch {
		return f
	}
	k := lv.keys
	f := &scoreFixed{start: start, prev: prev.Start.Unix(), epoch: lv.epoch, counters: k.counters(start), meta: k.meta()}
	attempts, hold, caps := "", "", ""
	if lv.MaxAttempts > 0 {
		f.attempts, attempts = k.attempts(start), strconv.Itoa(lv.MaxAttempts)
	}
	if lv.Hold {
		f.held, hold, caps = k.held(start), "hold", lv.caps
	}
	f.argv = append(e.scoreArgv(lv, p, prev, "", 0, lv.maxGainArg(), attempts, "", hold, caps), "")
	ladder, _ := lv.ladderAt(start)
	f.mins = minSizes(lv, ladder)
	lv.scoreFixed.Store(f)
	return f
}

// minSizes is score.lua's min_board_size argument under ladder: two bytes
// (big endian) per tier or cohort code, the tier's min_board_size; "" when
// no tier has one, and score.lua then asks nothing about merges.
func minSizes(lv *live, ladder *tiers.Ladder) string {
	top, some := 0, false
	for c, i := range lv.index {
		top, some = max(top, c), some || ladder.Tier(i).MinBoardSize > 0
	}
	if !some {
		return ""
	}
	b := make([]byte, 2*(top+1))
	for c, i := range lv.index {
		m := ladder.Tier(i).MinBoardSize // at most MaxBoardSize: two bytes
		b[2*c], b[2*c+1] = byte(m>>8), byte(m)
	}
	return string(b)
}

// scoreArgv is score.lua's ARGV[1..22]; the caller appends ARGV[23], the
// rank's, and the limits. A write's come from scoreFixed, an approval's
// straight from here.
func (e *Engine) scoreArgv(lv *live, p, prev Period, player string, value int64, maxGain, attempts, withID, hold, holdArg string) []any {
	pk := lv.Packing()
	return []any{
		e.clock.Arg(), p.Start.Unix(), p.End.Unix(), lv.keys.prefix, player,
		string(lv.Operator), value, lv.MaxScore,
		lv.BoardSize, pk.SlotBits, pk.TimeBits, pk.Unit,
		(lv.IdempotencyWindow + e.expiryLag).Milliseconds(), prev.Start.Unix(), lv.epoch, lv.codes, maxGain,
		attempts, (lv.Retention + e.expiryLag).Milliseconds(), withID, hold, holdArg,
	}
}

// scoreResult interprets a score.lua reply. retryAt is Redis's clock when the
// write went to the wrong period and must be retried.
func (e *Engine) scoreResult(ctx context.Context, lv *live, p Period, w ScoreWrite, reply []any) (res ScoreResult, retryAt int64, err error) {
	switch scripts.Status(reply[0].(int64)) {
	case scripts.OK, scripts.Existing, scripts.Held:
		raw, _ := reply[1].(string)
		rec, ok := decodeRecord(raw)
		if !ok {
			return res, 0, internal("score", fmt.Errorf("bad record %q", raw))
		}
		if rec.start != p.Start.Unix() {
			// a retried request id from an earlier period
			if p, err = lv.periodOf(rec.start); err != nil {
				return res, 0, internal("score", err)
			}
		}
		idx, ok := lv.index[rec.tier]
		if !ok {
			tier, _ := e.tierID(ctx, lv, rec.tier)
			return res, 0, lv.unknownTier(w.Player, tier)
		}
		tier := lv.Ladder.Tier(idx).ID
		board, _ := placement(rec.n, lv.BoardSize)
		res = ScoreResult{
			Period: p, Tier: tier, Board: lv.boardID(rec.tier, board),
			Score: reply[2].(int64), Rank: int(reply[3].(int64)), BoardSize: int(reply[4].(int64)),
			Replayed: scripts.Status(reply[0].(int64)) == scripts.Existing,
		}
		if scripts.Status(reply[0].(int64)) == scripts.Held {
			cap, _ := reply[6].(string)
			res.Held = &Held{ID: reply[5].(int64), Period: p, Player: w.Player, Value: w.Value, Cap: cap}
			res.Replayed = reply[7].(int64) == 1
		}
		if res.Ranked() {
			ladder, _ := lv.ladderAt(p.Start.Unix())
			m, ok := mergeInReply(reply)
			if !ok { // a replay, a held write, an approval: score.lua did not ask
				if m, err = e.mergeOf(ctx, lv, ladder, p.Start.Unix(), rec.tier, board, &res.Score); err != nil {
					return res, 0, err
				}
			}
			// protectResults may keep a Demote
			res.Zone, res.MergedWith = ladder.Zone(idx, m.rank(res.Rank), m.size(res.BoardSize), res.Score), m.board(lv, rec.tier, board)
		}
		return res, 0, nil
	case scripts.WrongPeriod:
		return res, reply[1].(int64), nil
	case scripts.Lost:
		return res, 0, lv.lostError()
	case scripts.Closed:
		ended := Period{Start: time.Unix(reply[1].(int64), 0).UTC()}
		return res, 0, Errorf(PeriodClosed, "the period %s of league %q has ended for player %q; join the current period first",
			ended.ID(), lv.ID, w.Player)
	case scripts.OtherTier:
		tier, _ := e.tierID(ctx, lv, int(reply[1].(int64)))
		return res, 0, lv.unknownTier(w.Player, tier)
	case scripts.NotJoined:
		return res, 0, Errorf(NotJoined, "player %q has not joined period %s of league %q", w.Player, p.ID(), lv.ID)
	case scripts.OffBoard:
		return res, 0, lv.offBoardError(p, w.Player, reply[1])
	case scripts.Overflow:
		op, _ := reply[2].(string) // the period's operator
		return res, 0, Errorf(Overflow, "%s %d would take player %q from %d past the league's maximum score %d",
			op, w.Value, w.Player, reply[1].(int64), lv.MaxScore)
	case scripts.TooMuch:
		if c, _ := reply[3].(int64); c > 0 {
			return res, 0, lv.refusal(int(c)-1, p, e.now())
		}
		op, _ := reply[2].(string)
		return res, 0, lv.tooMuch(op, w, reply[1].(int64))
	case scripts.Limited:
		return res, 0, lv.refusal(int(reply[1].(int64))-1, p, e.now())
	case scripts.Attempts:
		r := &attemptsUsed{ends: p.End, now: e.clock.Now()}
		return res, 0, &Error{Code: RateLimited, Field: "player_id", Err: r, Message: fmt.Sprintf(
			"player %q made the league's max_attempts of %d score writes this period; the next period begins at %s; nothing was written",
			w.Player, lv.MaxAttempts, p.End.UTC().Format(time.RFC3339))}
	case scripts.Conflict:
		return res, 0, &Error{Code: Conflict, Field: "request_id",
			Message: fmt.Sprintf("%q was already used for another player within the idempotency window", w.RequestID)}
	}
	return res, 0, internal("score", fmt.Errorf("unexpected reply %v", reply))
}

// ScoreBatch applies many writes of one league in one round trip (a
// pipeline of score.lua calls). Each write succeeds or fails on its own:
// errs[i] is the error of writes[i], nil on success.
func (e *Engine) ScoreBatch(ctx context.Context, leagueID string, writes []ScoreWrite) ([]ScoreResult, []error, error) {
	lv, err := e.live(leagueID)
	if err != nil {
		return nil, nil, err
	}
	if len(writes) > MaxBatch {
		return nil, nil, fieldError("writes", "%d writes, at most %d", len(writes), MaxBatch)
	}
	results := make([]ScoreResult, len(writes))
	errs := make([]error, len(writes))
	p, prev := e.current(lv)
	pending := make([]int, 0, len(writes))
	for i, w := range writes {
		if errs[i] = lv.checkWrite(w); errs[i] == nil {
			pending = append(pending, i)
		}
	}
	for attempt := 0; len(pending) > 0 && attempt < 3; attempt++ {
		cmds, err := e.run.Pipeline(ctx, scripts.Score, len(pending), func(j int) ([]string, []any) {
			return e.scoreArgs(lv, p, prev, writes[pending[j]])
		})
		if err != nil {
			return nil, nil, writeError("score batch", err)
		}
		var again []int
		var retryAt int64
		for j, i := range pending {
			reply, err := cmds[j].Slice()
			if err != nil {
				errs[i] = writeError("score", err)
				continue
			}
			var at int64
			results[i], at, errs[i] = e.scoreResult(ctx, lv, p, writes[i], reply)
			if at != 0 {
				again, retryAt = append(again, i), at
			}
		}
		pending = again
		if retryAt != 0 {
			p, prev = e.redisSaid(lv, retryAt)
		}
	}
	for _, i := range pending {
		errs[i] = internal("score", fmt.Errorf("period kept moving"))
	}
	e.protectResults(ctx, lv, writes, results, errs)
	return results, errs, nil
}
