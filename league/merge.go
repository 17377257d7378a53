package league

import (
	"context"
	"strconv"

	"github.com/redis/go-redis/v9"

	"github.com/league-engine/league/scripts"
	"github.com/league-engine/league/tiers"
)

// Small last boards live (tiers/merge.go has the rule). A tier with
// min_board_size decides its last board, while it holds fewer players,
// with the board before it: every reader that shows a zone shows the zone
// of that merged ranking, as settlement will decide it, and says which
// board it is merged with. Each player keeps seeing their own board and
// rank. Tiers without the rule ask Redis nothing more.

// merge is where a board stands in its tier's merge: the first other
// board it is decided with (0: alone), the other boards' players now, its
// own, and how many of the others' players are ranked before the player
// asked about. In a tier with cohorts, group lists every board of the
// merge in tie order, this one included, as (code, number) pairs: a thin
// cohort's board is decided with the shared boards' last and the other
// thin cohorts' (tiers/thin.go). Without, the other board is one of the
// same code's.
type merge struct {
	partner     int
	partnerSize int
	ownSize     int
	ahead       int
	group       []int
}

// rank is a player's rank in the merged ranking, size that ranking's size:
// their own when the board is decided alone.
func (m merge) rank(own int) int { return own + m.ahead }

func (m merge) size(own int) int {
	if m.partner == 0 {
		return own
	}
	return m.ownSize + m.partnerSize
}

// mergeFrom reads merged.lua's reply, or the part of score.lua's from the
// partner on.
func mergeFrom(v []int64) merge {
	if len(v) < 4 {
		return merge{}
	}
	m := merge{partner: int(v[0]), partnerSize: int(v[1]), ownSize: int(v[2]), ahead: int(v[3])}
	for _, x := range v[4:] {
		m.group = append(m.group, int(x))
	}
	return m
}

// mergeOf asks whether board n of the boards code names (a tier's or a
// cohort's) in the period starting at start is decided with another board
// under ladder, and, for a player of score score (nil: none), how many of
// the other boards' players rank before them. One round trip, only for a
// tier with min_board_size.
func (e *Engine) mergeOf(ctx context.Context, lv *live, ladder *tiers.Ladder, start int64, code, n int, score *int64) (merge, error) {
	min := ladder.Tier(lv.index[code]).MinBoardSize
	if min == 0 {
		return merge{}, nil
	}
	low, above := "", ""
	if score != nil {
		shift := lv.Packing().TimeBits + lv.Packing().SlotBits
		low = strconv.FormatUint(uint64(*score)<<shift, 10)
		above = strconv.FormatUint(uint64(*score+1)<<shift, 10)
	}
	reply, err := e.run.Run(ctx, scripts.Merged, true, []string{lv.keys.counters(start)},
		lv.keys.prefix, start, code, lv.BoardSize, min, n, low, above, lv.seqsOf(code)).Int64Slice()
	if err != nil {
		return merge{}, internal("merged boards", err)
	}
	return mergeFrom(reply), nil
}

// mergeInReply reads the merge score.lua appends to a ranked write's reply
// in a tier with min_board_size ({0, record, score, rank, size, partner,
// partner size, own size, ahead, and with cohorts the group}); ok is false
// when it appended none.
func mergeInReply(reply []any) (merge, bool) {
	if len(reply) < 9 || scripts.Status(reply[0].(int64)) != scripts.OK {
		return merge{}, false
	}
	v := make([]int64, len(reply)-5)
	for i := range v {
		v[i], _ = reply[5+i].(int64)
	}
	return mergeFrom(v), true
}

// mergedBoard is another board of a merge: its code and number, and
// whether it comes before the board asked about in tie order (its players
// rank first on equal scores).
type mergedBoard struct {
	code, n int
	earlier bool
}

// others lists the boards board n of code is decided with.
func (m merge) others(code, n int) []mergedBoard {
	if m.partner == 0 {
		return nil
	}
	if m.group == nil {
		return []mergedBoard{{code: code, n: m.partner, earlier: m.partner < n}}
	}
	var out []mergedBoard
	earlier := true
	for i := 0; i+1 < len(m.group); i += 2 {
		if m.group[i] == code && m.group[i+1] == n {
			earlier = false
			continue
		}
		out = append(out, mergedBoard{code: m.group[i], n: m.group[i+1], earlier: earlier})
	}
	return out
}

// board is the first other board of the merge of board n of code, for
// replies (nil: none).
func (m merge) board(lv *live, code, n int) *BoardID {
	others := m.others(code, n)
	if len(others) == 0 {
		return nil
	}
	id := lv.boardID(others[0].code, others[0].n)
	return &id
}

// mergedScores are the scores of another board of a merge, best first.
type mergedScores struct {
	scores  []int64
	earlier bool
}

// boardMerge is mergeOf for a whole board: with others, also their scores,
// to rank each entry in the merged ranking (tiers.MergedAhead).
func (e *Engine) boardMerge(ctx context.Context, lv *live, ladder *tiers.Ladder, start int64, code, n int) (merge, []mergedScores, error) {
	m, err := e.mergeOf(ctx, lv, ladder, start, code, n, nil)
	others := m.others(code, n)
	if err != nil || len(others) == 0 {
		return m, nil, err
	}
	pipe := e.rdb.Pipeline()
	cmds := make([]*redis.ZSliceCmd, len(others))
	for i, o := range others {
		cmds[i] = pipe.ZRevRangeWithScores(ctx, lv.keys.board(start, o.code, o.n), 0, -1)
	}
	if _, err := pipe.Exec(ctx); err != nil && err != redis.Nil {
		return m, nil, internal("merged boards", err)
	}
	out := make([]mergedScores, len(others))
	for i, c := range cmds {
		out[i].earlier = others[i].earlier
		for _, z := range c.Val() {
			sc, _ := lv.Packing().Unpack(z.Score)
			out[i].scores = append(out[i].scores, sc)
		}
	}
	return m, out, nil
}

// merger decides a period's boards as they are read, in tier order and,
// within a tier, in its boards' tie order (shared, then each cohort's),
// holding back the boards a merge may join: those of each sequence from
// the one before its latest board with players. At the tier's last board
// it decides the held boards as the rules say (tiers.Ladder.SettleTails: a short last
// board with the one before it, thin cohorts with the shared boards'
// last), every other board alone, as each arrives.
type merger struct {
	ladder  *tiers.Ladder
	emit    func(finalBoard, []tiers.Outcome) error
	pending []finalBoard   // of the sequence being read, in board order
	held    [][]finalBoard // of the tier being read: each sequence's pending at its end
}

// add takes the next board.
func (m *merger) add(b finalBoard) error {
	if m.ladder.Tier(b.Tier).MinBoardSize == 0 {
		return m.emit(b, m.ladder.Settle(b.Tier, b.Players))
	}
	m.pending = append(m.pending, b)
	if len(b.Players) > 0 {
		// b is the latest board with players: only the one before it may
		// be merged with it
		for len(m.pending) > 2 {
			p := m.pending[0]
			m.pending = m.pending[1:]
			if err := m.emit(p, m.ladder.Settle(p.Tier, p.Players)); err != nil {
				return err
			}
		}
	}
	if !b.Last {
		return nil
	}
	m.held, m.pending = append(m.held, m.pending), nil
	if !b.TierLast {
		return nil
	}
	held := m.held
	m.held = nil
	tails := make([][]tiers.SeqBoard, len(held))
	for k, bs := range held {
		for _, p := range bs {
			tails[k] = append(tails[k], tiers.SeqBoard{Seq: p.Seq, N: p.N, Players: p.Players})
		}
	}
	decided, _ := m.ladder.SettleTails(b.Tier, tails)
	for k, bs := range held {
		for j, p := range bs {
			if err := m.emit(p, decided[k][j]); err != nil {
				return err
			}
		}
	}
	return nil
}
