package league

import (
	"context"
	"strconv"

	"github.com/league-engine/league/scripts"
	"github.com/league-engine/league/tiers"
)

// Small last boards live (tiers/merge.go has the rule). A tier with
// min_board_size decides its last board, while it holds fewer players,
// with the board before it: every reader that shows a zone shows the zone
// of that merged ranking, as settlement will decide it, and says which
// board it is merged with. Each player keeps seeing their own board and
// rank. Tiers without the rule ask Redis nothing more.

// merge is where a board stands in its tier's merge: the board it is
// decided with (0: alone), both boards' players now, and how many of the
// partner's players are ranked before the player asked about.
type merge struct {
	partner     int
	partnerSize int
	ownSize     int
	ahead       int
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

// mergeOf asks whether board n of the boards code names (a tier's or a
// cohort's) in the period starting at start is decided with another board
// under ladder, and, for a player of score score (nil: none), how many of
// the other board's players rank before them. One round trip, only for a
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
		lv.keys.prefix, start, code, lv.BoardSize, min, n, low, above).Int64Slice()
	if err != nil {
		return merge{}, internal("merged boards", err)
	}
	if len(reply) < 4 {
		return merge{}, nil
	}
	return merge{partner: int(reply[0]), partnerSize: int(reply[1]), ownSize: int(reply[2]), ahead: int(reply[3])}, nil
}

// mergeInReply reads the merge score.lua appends to a ranked write's reply
// in a tier with min_board_size ({0, record, score, rank, size, partner,
// partner size, own size, ahead}); ok is false when it appended none.
func mergeInReply(reply []any) (merge, bool) {
	if len(reply) < 9 || scripts.Status(reply[0].(int64)) != scripts.OK {
		return merge{}, false
	}
	n := func(i int) int { v, _ := reply[i].(int64); return int(v) }
	return merge{partner: n(5), partnerSize: n(6), ownSize: n(7), ahead: n(8)}, true
}

// board is the board a merge names, for replies (nil: none): a board of
// the boards code names.
func (m merge) board(lv *live, code int) *BoardID {
	if m.partner == 0 {
		return nil
	}
	id := lv.boardID(code, m.partner)
	return &id
}

// boardMerge is mergeOf for a whole board: with a partner, also the
// partner's scores, best first, to rank each entry in the merged ranking
// (tiers.MergedAhead).
func (e *Engine) boardMerge(ctx context.Context, lv *live, ladder *tiers.Ladder, start int64, code, n int) (merge, []int64, error) {
	m, err := e.mergeOf(ctx, lv, ladder, start, code, n, nil)
	if err != nil || m.partner == 0 {
		return m, nil, err
	}
	zs, err := e.rdb.ZRevRangeWithScores(ctx, lv.keys.board(start, code, m.partner), 0, -1).Result()
	if err != nil {
		return m, nil, internal("merged boards", err)
	}
	scores := make([]int64, len(zs))
	for i, z := range zs {
		scores[i], _ = lv.Packing().Unpack(z.Score)
	}
	return m, scores, nil
}

// merger decides a period's boards as they are read, in tier and board
// order, holding back the boards a merge may join: those from the one
// before the tier's latest board with players. At the tier's last board
// it decides the last board with players with the one before it when the
// rule says so (tiers.Ladder.SettleMerged), every other board alone.
type merger struct {
	ladder  *tiers.Ladder
	emit    func(finalBoard, []tiers.Outcome) error
	pending []finalBoard // of one tier's shared boards or one cohort's, in board order
}

// add takes the next board; last says it is the last of its tier's shared
// boards or of its cohort's.
func (m *merger) add(b finalBoard, last bool) error {
	if m.ladder.Tier(b.Tier).MinBoardSize == 0 {
		return m.emit(b, m.ladder.Settle(b.Tier, b.Players))
	}
	m.pending = append(m.pending, b)
	if len(b.Players) > 0 {
		// b is the latest board with players: only the one before it may
		// be merged with it
		for len(m.pending) > 2 {
			if err := m.alone(); err != nil {
				return err
			}
		}
	}
	if !last {
		return nil
	}
	defer func() { m.pending = m.pending[:0] }()
	latest := -1
	for k, p := range m.pending {
		if len(p.Players) > 0 {
			latest = k
		}
	}
	if latest >= 1 && m.pending[latest-1].N == m.pending[latest].N-1 &&
		m.ladder.MergesLast(b.Tier, m.pending[latest].N, len(m.pending[latest].Players)) {
		prev, lastOut := m.ladder.SettleMerged(b.Tier, m.pending[latest-1].Players, m.pending[latest].Players)
		for k, p := range m.pending {
			var err error
			switch k {
			case latest - 1:
				err = m.emit(p, prev)
			case latest:
				err = m.emit(p, lastOut)
			default:
				err = m.emit(p, m.ladder.Settle(p.Tier, p.Players))
			}
			if err != nil {
				return err
			}
		}
		return nil
	}
	for len(m.pending) > 0 {
		if err := m.alone(); err != nil {
			return err
		}
	}
	return nil
}

// alone decides the first pending board on its own.
func (m *merger) alone() error {
	p := m.pending[0]
	m.pending = m.pending[1:]
	return m.emit(p, m.ladder.Settle(p.Tier, p.Players))
}
