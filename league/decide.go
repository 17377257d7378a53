package league

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/league-engine/league/tiers"
)

// Deciding a period: the one place where a period's boards become its
// players' outcomes. Settlement (package scheduler) writes what Decide
// decides; Preview shows it and writes nothing. Both go through decide, so
// a preview of an ended period and the settlement that follows it cannot
// disagree: they read the same frozen boards and run the same code.

// finalBoard is one sub-board as read: its tier (ladder index), the code
// of its boards (the tier's or a cohort's: cohort.go), number, whether it
// is the last of those boards, players ranked 1..n and their names
// (player -> name \x1f avatar).
type finalBoard struct {
	Tier     int
	Code     int
	Seq      int // the position of Code's boards in their tier's tie order (lv.seqOf)
	N        int
	Last     bool // the last of Code's boards
	TierLast bool // the last of the tier's boards
	Players  []tiers.Standing
	Names    map[string]string
}

// boardsPerTrip is how many boards one pipeline reads (~100 entries each).
const boardsPerTrip = 256

// finalBoards reads every sub-board of period p, a pipeline of
// boardsPerTrip boards per round trip, and hands each to fn in tier and
// board order. Each board's names hash rides in the same pipeline: the
// settlement keeps them (migration 0007) so that the board can be shown
// from Postgres once Redis has let it expire. Only decide reads boards this way: whoever needs a period's
// outcomes gets them from Decide, decided once.
//
// The players promotion protection may keep are marked (promotedOnBoards)
// under ladder, the rules the period is decided under.
func (e *Engine) finalBoards(ctx context.Context, lv *live, ladder *tiers.Ladder, p Period, pop Populations, fn func(finalBoard) error) error {
	start := p.Start.Unix()
	joined, err := e.joinedPerCode(ctx, lv, start, pop)
	if err != nil {
		return err
	}
	var all []finalBoard
	for idx := 0; idx < lv.Ladder.Len(); idx++ {
		from := len(all)
		for seq, code := range lv.tierCodesOf(idx) {
			boards := (joined[code] + lv.BoardSize - 1) / lv.BoardSize
			for n := 1; n <= boards; n++ {
				all = append(all, finalBoard{Tier: idx, Code: code, Seq: seq, N: n, Last: n == boards})
			}
		}
		if len(all) > from {
			all[len(all)-1].TierLast = true
		}
	}
	if len(all) == 0 {
		return nil
	}
	// The next round trip is in flight while this one's boards are
	// decided: Redis reads while this process decides (the boards of an
	// ended period are frozen).
	next := e.readBoards(ctx, lv, start, all[:min(boardsPerTrip, len(all))])
	for lo := 0; lo < len(all); lo += boardsPerTrip {
		read, err := next()
		if hi := lo + boardsPerTrip; hi < len(all) {
			next = e.readBoards(ctx, lv, start, all[hi:min(hi+boardsPerTrip, len(all))])
		}
		if err != nil {
			return err
		}
		if err := e.promotedOnBoards(ctx, lv, ladder, start, read); err != nil {
			return err
		}
		for _, b := range read {
			if err := fn(b); err != nil {
				return err
			}
		}
	}
	return nil
}

// readBoards starts reading the boards of chunk and their names in one
// pipeline, and returns the function that waits for them.
func (e *Engine) readBoards(ctx context.Context, lv *live, start int64, chunk []finalBoard) func() ([]finalBoard, error) {
	type result struct {
		read []finalBoard
		err  error
	}
	done := make(chan result, 1) // the reader never blocks, even when nobody waits
	go func() {
		pipe := e.rdb.Pipeline()
		cmds := make([]*redis.ZSliceCmd, len(chunk))
		names := make([]*redis.MapStringStringCmd, len(chunk))
		for i, b := range chunk {
			cmds[i] = pipe.ZRevRangeWithScores(ctx, lv.keys.board(start, b.Code, b.N), 0, -1)
			names[i] = pipe.HGetAll(ctx, lv.keys.names(start, b.Code, b.N))
		}
		if _, err := pipe.Exec(ctx); err != nil && err != redis.Nil {
			done <- result{err: internal("final boards", err)}
			return
		}
		read := slices.Clone(chunk) // not in all: each board's players go once fn has them
		for i := range read {
			b := &read[i]
			zs := cmds[i].Val()
			b.Names = names[i].Val()
			b.Players = make([]tiers.Standing, len(zs))
			for r, z := range zs {
				score, _ := lv.Packing().Unpack(z.Score)
				b.Players[r] = tiers.Standing{Player: z.Member.(string), Rank: r + 1, Score: score}
			}
		}
		done <- result{read: read}
	}()
	return func() ([]finalBoard, error) {
		r := <-done
		return r.read, r.err
	}
}

// joinedPerCode is how many players joined the boards of each code in the
// period starting at start: pop's tier counts when the league has no
// cohorts, else the period's counters, read once more.
func (e *Engine) joinedPerCode(ctx context.Context, lv *live, start int64, pop Populations) (map[int]int, error) {
	joined := make(map[int]int, len(pop))
	if lv.cohortCode == nil {
		for idx, n := range pop {
			joined[lv.code[idx]] = n
		}
		return joined, nil
	}
	counters, err := e.rdb.HGetAll(ctx, lv.keys.counters(start)).Result()
	if err != nil {
		return nil, internal("final boards", err)
	}
	for field, v := range counters {
		code, err1 := strconv.Atoi(field)
		n, err2 := strconv.Atoi(v)
		if err1 == nil && err2 == nil {
			joined[code] = n
		}
	}
	return joined, nil
}

// DecidedBoard is one sub-board of a period with every player's outcome
// as settlement decides it (tiers.Ladder.Settle under the rules the period
// is decided under), in rank order. A board merged with another
// (min_board_size) has its players' outcomes of the merged ranking: an
// outcome's Rank is the merged rank, Row's the rank on the board.
type DecidedBoard struct {
	ID       BoardID
	Tier     int // ladder index of ID.Tier
	Outcomes []tiers.Outcome
	seq      int // the position of its cohort's boards in the tier's tie order
	ladder   *tiers.Ladder
	names    map[string]string // player -> name \x1f avatar
}

// Row returns outcome k as the store keeps it, with the rank, zone, name
// and avatar the board showed: the rank on the player's own board (k+1),
// where a merged board (min_board_size) decided at the merged rank.
func (b DecidedBoard) Row(k int) Outcome {
	o := b.Outcomes[k]
	name, avatar, _ := strings.Cut(b.names[o.Player], profileSep)
	return Outcome{Player: o.Player, TierBefore: b.ID.Tier, TierAfter: b.ladder.Tier(o.TierAfter).ID,
		Cohort: b.ID.Cohort, Board: b.ID.N, Rank: k + 1, Score: o.Score, Move: moveOf(o), Zone: o.Zone, Name: name, Avatar: avatar}
}

// Reward returns the reward outcome k earned as the store keeps it; ok is
// false when its rank (or its score) earned none.
func (b DecidedBoard) Reward(k int) (r EarnedReward, ok bool) {
	o := b.Outcomes[k]
	if o.Rewards == nil {
		return EarnedReward{}, false
	}
	return EarnedReward{Player: o.Player, Tier: b.ID.Tier, Rank: o.Rank, Items: o.Rewards}, true
}

// Move is how settlement changes a player's tier.
type Move string

const (
	Promoted Move = "promoted"
	Demoted  Move = "demoted"
	Stayed   Move = "stayed"
)

// moveOf names an outcome's move. Up is a higher ladder index, as the
// settlement's counts (TierCount) have always read it.
func moveOf(o tiers.Outcome) Move {
	switch {
	case o.TierAfter > o.TierBefore:
		return Promoted
	case o.TierAfter < o.TierBefore:
		return Demoted
	}
	return Stayed
}

// MoveBetween names the move from tier before to tier after on the
// league's ladder; "" when either is not one of its tiers (a tier a later
// config dropped).
func (l *League) MoveBetween(before, after string) Move {
	b, ok1 := l.Ladder.Index(before)
	a, ok2 := l.Ladder.Index(after)
	if !ok1 || !ok2 {
		return ""
	}
	return moveOf(tiers.Outcome{TierBefore: b, TierAfter: a})
}

// add counts an outcome of the tier.
func (c *TierCount) add(o tiers.Outcome) {
	c.Players++
	switch moveOf(o) {
	case Promoted:
		c.Promoted++
	case Demoted:
		c.Demoted++
	}
	if o.Rewards != nil {
		c.Rewarded++
	}
}

// Decide reads every board of a closed period p (pop: its players per
// tier, as Close returned them), decides each player's outcome under the
// rules the period is decided under (PeriodLadder: this config's, unless a
// join on a replica with other rules decided first) and hands fn each
// board in tier and board order. It returns every tier's counts, lowest
// first, as the settlement records them. It writes nothing.
//
// Players an operator took off the boards (Moderate) are skipped: decided
// nowhere, they take no promotion slot and earn no reward, keep their tier,
// and are counted in their tier's Moderated.
//
// A period whose boards do not hold the players its counters count (a
// board lost, players placed under another layout) cannot be settled: a
// Conflict error, after fn saw what was read.
func (e *Engine) Decide(ctx context.Context, leagueID string, p Period, pop Populations, fn func(DecidedBoard) error) ([]TierCount, error) {
	lv, err := e.live(leagueID)
	if err != nil {
		return nil, err
	}
	return e.decide(ctx, lv, p, pop, false, fn)
}

// decide is Decide; with live, p is the current period, whose boards
// still change: a board read after the counters may hold players who
// joined since, who are decided with the rest rather than refused.
func (e *Engine) decide(ctx context.Context, lv *live, p Period, pop Populations, live bool, fn func(DecidedBoard) error) ([]TierCount, error) {
	ladder, err := e.periodLadder(ctx, lv, p.Start.Unix())
	if err != nil {
		return nil, err
	}
	// Players an operator took off the boards (moderate.go) are on none:
	// they are decided nowhere, and counted apart.
	offPer, off, err := e.moderatedCounts(ctx, lv, p.Start.Unix())
	if err != nil {
		return nil, err
	}
	counts := make([]TierCount, ladder.Len())
	for i := range counts {
		counts[i].Tier = ladder.Tier(i).ID
		counts[i].Moderated = offPer[i]
	}
	read := 0
	emit := func(b finalBoard, outcomes []tiers.Outcome) error {
		d := DecidedBoard{ID: BoardID{Tier: ladder.Tier(b.Tier).ID, Cohort: lv.cohortName(b.Code), N: b.N}, Tier: b.Tier, seq: b.Seq,
			Outcomes: outcomes, ladder: ladder, names: b.Names}
		for _, o := range d.Outcomes {
			counts[b.Tier].add(o)
		}
		read += len(b.Players)
		return fn(d)
	}
	m := merger{ladder: ladder, emit: emit}
	err = e.finalBoards(ctx, lv, ladder, p, pop, func(b finalBoard) error {
		return m.add(b)
	})
	if err != nil {
		return nil, err
	}
	if total := pop.Players(); read+off < total || read+off > total && !live {
		// Not a bug to hide behind a 500: the period's data in Redis is not
		// whole, and an operator must look at it.
		offBy := ""
		if off > 0 {
			offBy = fmt.Sprintf(" and operators took %d off them", off)
		}
		return nil, Errorf(Conflict, "league %q: read %d players from the boards of %s, but its counters say %d joined%s: "+
			"its boards are not whole (a board lost, or players placed under another layout), so it cannot be settled; nothing was written",
			lv.ID, read, p.ID(), total, offBy)
	}
	return counts, nil
}
