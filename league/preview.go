package league

import (
	"container/heap"
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/league-engine/league/internal/excerpt"
	"github.com/league-engine/league/tiers"
)

// A preview is what settling a period would decide, decided by the code
// settlement runs (decide) from the boards as they are, with nothing
// written anywhere. Of an ended period it is what its settlement will
// write: the boards are frozen once the period ends. Of the current period
// it is a forecast, as if the period ended now: its boards still change,
// and a period cannot be closed early (joins and writes decide the period
// by the clock, so an early close would refuse every player until the
// boundary).

// PreviewRequest asks for a preview and a page of its rows.
type PreviewRequest struct {
	// Period is the period's id; "" is the current period. Any period not
	// settled yet may be previewed: the current one, or an ended one
	// waiting for settlement.
	Period string
	// After is where the page starts: after this row (PreviewCursor's
	// text, a previous page's Next); "" starts at the first row.
	After string
	// Limit is how many rows the page holds, 0 to MaxPreviewRows; 0 asks
	// for the summary only.
	Limit int
}

// MaxPreviewRows bounds a page of a preview's rows.
const MaxPreviewRows = 1000

// Preview is a period's settlement as decided now.
type Preview struct {
	League string
	Period Period
	// Final: the period has ended and its boards are frozen, so this is
	// what its settlement writes. Not final: the current period, decided as
	// if it ended now.
	Final   bool
	Summary PreviewSummary
	// Rows is the page asked for, in tier (lowest first), board and rank
	// order: the order settlement reads them in.
	Rows []PreviewRow
	// Next is where the next page starts (PreviewRequest.After); nil when
	// this page holds the last row.
	Next *PreviewCursor
	// Waiting are the league's ended periods waiting for settlement,
	// oldest first: what settling now settles. The scheduler settles each
	// at its boundary, so there are none unless it is behind (down, or
	// failing: see its last error).
	Waiting []Period
}

// PreviewSummary adds up every player of a preview, whatever the page.
type PreviewSummary struct {
	Players int // decided: on the boards
	// Moderated are the players an operator took off the boards
	// (Engine.Moderate): skipped by the settlement, they keep their tier.
	Moderated int
	// Tiers are every tier's counts, lowest first: the settlement's own
	// (Settlement.Tiers), with who stays and the tier's size after.
	Tiers []TierPreview
	// Moves counts the players moving from each tier to another, in ladder
	// order of From, then To.
	Moves []TierMove
	// Rewarded is how many players earn a reward; Rewards adds up the
	// items they earn, by item id.
	Rewarded int
	Rewards  []ItemTotal
}

// TierPreview is a tier's part of a preview.
type TierPreview struct {
	TierCount
	Stayed int // in the tier before and after
	// After is the players in the tier after settlement: those who stay,
	// those who move in, and those taken off its boards (who keep it).
	After int
}

// TierMove is how many players move from one tier to another.
type TierMove struct {
	From, To string
	Players  int
}

// ItemTotal is one reward item added up over every player who earns it.
// Qty stops at tiers.MaxQty (2^53-1, what a client reading JSON numbers as
// doubles keeps exact) rather than grow past it.
type ItemTotal struct {
	ID      string
	Qty     int64
	Players int
}

// PreviewRow is one player's outcome in a preview.
type PreviewRow struct {
	Board    BoardID
	Rank     int
	Player   string
	Score    int64
	From, To string // tier ids
	Move     Move
	Rewards  []tiers.Item // nil: none
}

// PreviewCursor is a row's place in a preview: its board and rank. Its
// text is "<board>:<rank>", e.g. "gold-3:17". A cursor names a place
// rather than a count of rows, so the pages of the current period, whose
// boards change between two requests, stay in order on the boards that
// did not change.
type PreviewCursor struct {
	Board BoardID
	Rank  int
}

func (c PreviewCursor) String() string { return c.Board.String() + ":" + strconv.Itoa(c.Rank) }

// ParsePreviewCursor parses a cursor's text; errors name the field
// "after".
func ParsePreviewCursor(s string) (PreviewCursor, error) {
	board, rank, ok := strings.Cut(s, ":")
	n, err := strconv.Atoi(rank)
	if !ok || err != nil || n < 1 || rank[0] < '1' || rank[0] > '9' {
		return PreviewCursor{}, fieldError("after", "%q is not a row of a preview: a board and a rank, e.g. gold-3:17, as a page's next gives it", excerpt.Of(s))
	}
	id, err := ParseBoardID(board)
	if err != nil {
		return PreviewCursor{}, fieldError("after", "%q is not a row of a preview: %s", excerpt.Of(s), ErrorMessage(err))
	}
	return PreviewCursor{Board: id, Rank: n}, nil
}

// Preview decides a period as settling it would, and returns the summary
// and a page of rows. It reads the period's counters and boards and writes
// nothing, in Redis or anywhere else. A period that has not started is
// Invalid (field "period"), a settled one a Conflict, an ended one Redis
// holds no boards of (nobody joined it, or Redis lost it) NotFound.
func (e *Engine) Preview(ctx context.Context, leagueID string, req PreviewRequest) (Preview, error) {
	lv, err := e.live(leagueID)
	if err != nil {
		return Preview{}, err
	}
	if req.Limit < 0 || req.Limit > MaxPreviewRows {
		return Preview{}, fieldError("limit", "%d is not a number of rows from 0 (the summary only) to %d", req.Limit, MaxPreviewRows)
	}
	after := cursorKey{tier: -1}
	if req.After != "" {
		c, err := ParsePreviewCursor(req.After)
		if err != nil {
			return Preview{}, err
		}
		idx, known := lv.Ladder.Index(c.Board.Tier)
		if !known {
			return Preview{}, fieldError("after", "%q names tier %q, which league %q does not have", excerpt.Of(req.After), c.Board.Tier, lv.ID)
		}
		code, err := lv.boardCode(c.Board)
		if err != nil {
			return Preview{}, fieldError("after", "%q names cohort %q, which league %q does not have", excerpt.Of(req.After), c.Board.Cohort, lv.ID)
		}
		after = cursorKey{tier: idx, cohort: lv.seqOf(code), board: c.Board.N, rank: c.Rank}
	}
	cur, _ := e.current(lv)
	p := cur
	if req.Period != "" {
		if p, err = e.PeriodOf(lv.ID, req.Period); err != nil {
			return Preview{}, err
		}
	}
	if p.Start.After(cur.Start) {
		return Preview{}, fieldError("period", "%s has not started: preview the current period (%s) or an ended one waiting for settlement", p.ID(), cur.ID())
	}
	pop, err := e.previewed(ctx, lv, p, p != cur)
	if err != nil {
		return Preview{}, err
	}
	out := Preview{League: lv.ID, Period: p, Final: p != cur}
	moves := map[[2]int]int{}
	items := map[string]*ItemTotal{}
	// Boards are decided in tier order, but a tier's boards a merge may
	// join come once the tier is read (merger): the page is the Limit
	// rows after the cursor lowest in cursor order, kept in a heap.
	page := &rowHeap{}
	more := false
	counts, err := e.decide(ctx, lv, p, pop, !out.Final, func(b DecidedBoard) error {
		for k, o := range b.Outcomes {
			if o.TierAfter != o.TierBefore {
				moves[[2]int{o.TierBefore, o.TierAfter}]++
			}
			for j, it := range o.Rewards {
				t := items[it.ID]
				if t == nil {
					t = &ItemTotal{ID: it.ID}
					items[it.ID] = t
				}
				t.Qty = addSat(t.Qty, it.Qty)
				if !slices.ContainsFunc(o.Rewards[:j], func(x tiers.Item) bool { return x.ID == it.ID }) {
					t.Players++ // once, should a band list an item twice
				}
			}
			at := cursorKey{tier: b.Tier, cohort: b.seq, board: b.ID.N, rank: k + 1} // the rank on the board
			if !after.before(at) {
				continue
			}
			if page.Len() == req.Limit {
				more = true // a row past the page: the page is not the last
				if req.Limit == 0 || !at.before(page.rows[0].key) {
					continue
				}
				heap.Pop(page)
			}
			row := b.Row(k)
			heap.Push(page, keyedRow{key: at, row: PreviewRow{Board: b.ID, Rank: row.Rank, Player: o.Player, Score: o.Score,
				From: row.TierBefore, To: row.TierAfter, Move: moveOf(o), Rewards: o.Rewards}})
		}
		return nil
	})
	if err != nil {
		return Preview{}, err
	}
	if out.Waiting, err = e.Unsettled(ctx, lv.ID); err != nil {
		return Preview{}, err
	}
	slices.SortFunc(page.rows, func(a, b keyedRow) int {
		if a.key.before(b.key) {
			return -1
		}
		return 1
	})
	for _, r := range page.rows {
		out.Rows = append(out.Rows, r.row)
	}
	if more && len(page.rows) > 0 {
		last := page.rows[len(page.rows)-1]
		out.Next = &PreviewCursor{Board: last.row.Board, Rank: last.key.rank}
	}
	out.Summary = summarize(lv, counts, moves, items)
	return out, nil
}

// previewed checks that period p can be previewed and returns its players
// per tier: one round trip for its counters, whether it waits for
// settlement, the last period settled and the league's epoch.
func (e *Engine) previewed(ctx context.Context, lv *live, p Period, ended bool) (Populations, error) {
	start := p.Start.Unix()
	pipe := e.rdb.Pipeline()
	counters := pipe.HGetAll(ctx, lv.keys.counters(start))
	waiting := pipe.ZScore(ctx, lv.keys.periods(), strconv.FormatInt(start, 10))
	meta := pipe.HMGet(ctx, lv.keys.meta(), "epoch", "settled")
	if _, err := pipe.Exec(ctx); err != nil && err != redis.Nil {
		return nil, internal("preview", err)
	}
	m := meta.Val()
	if epoch, _ := m[0].(string); epoch != lv.epoch {
		return nil, lv.lostError() // the counters are keyed by tier codes a restore may have reassigned
	}
	settledAt, _ := m[1].(string)
	if settled, _ := strconv.ParseInt(settledAt, 10, 64); settled >= start {
		return nil, Errorf(Conflict, "period %s of league %q is settled: its outcomes are in the settlement's record, not to preview", p.ID(), lv.ID)
	}
	if ended && waiting.Err() == redis.Nil {
		return nil, Errorf(NotFound, "Redis holds no boards of period %s of league %q (nobody joined it, or Redis lost it): there is nothing to preview", p.ID(), lv.ID)
	}
	return e.populations(ctx, lv, p, counters.Val())
}

// cursorKey is a row's place in decide's order: tier index, board, rank.
type cursorKey struct{ tier, cohort, board, rank int } // cohort: the boards' tie order (lv.seqOf)

// before reports whether k comes before o; the zero-tier key {-1} comes
// before every row.
func (k cursorKey) before(o cursorKey) bool {
	if k.tier != o.tier {
		return k.tier < o.tier
	}
	if k.cohort != o.cohort {
		return k.cohort < o.cohort
	}
	if k.board != o.board {
		return k.board < o.board
	}
	return k.rank < o.rank
}

// keyedRow is a preview row with its place in cursor order.
type keyedRow struct {
	key cursorKey
	row PreviewRow
}

// rowHeap keeps the rows of a page, the last in cursor order on top.
type rowHeap struct{ rows []keyedRow }

func (h *rowHeap) Len() int           { return len(h.rows) }
func (h *rowHeap) Less(i, j int) bool { return h.rows[j].key.before(h.rows[i].key) }
func (h *rowHeap) Swap(i, j int)      { h.rows[i], h.rows[j] = h.rows[j], h.rows[i] }
func (h *rowHeap) Push(x any)         { h.rows = append(h.rows, x.(keyedRow)) }
func (h *rowHeap) Pop() any {
	x := h.rows[len(h.rows)-1]
	h.rows = h.rows[:len(h.rows)-1]
	return x
}

// summarize adds the moves and the rewards to the settlement's counts.
func summarize(lv *live, counts []TierCount, moves map[[2]int]int, items map[string]*ItemTotal) PreviewSummary {
	s := PreviewSummary{Tiers: make([]TierPreview, len(counts))}
	for i, c := range counts {
		s.Players += c.Players
		s.Moderated += c.Moderated
		s.Rewarded += c.Rewarded
		s.Tiers[i] = TierPreview{TierCount: c, Stayed: c.Players - c.Promoted - c.Demoted}
		s.Tiers[i].After += s.Tiers[i].Stayed + c.Moderated
	}
	for ft, n := range moves {
		s.Moves = append(s.Moves, TierMove{From: lv.Ladder.Tier(ft[0]).ID, To: lv.Ladder.Tier(ft[1]).ID, Players: n})
		s.Tiers[ft[1]].After += n
	}
	index := func(id string) int { i, _ := lv.Ladder.Index(id); return i }
	slices.SortFunc(s.Moves, func(a, b TierMove) int {
		if d := index(a.From) - index(b.From); d != 0 {
			return d
		}
		return index(a.To) - index(b.To)
	})
	for _, t := range items {
		s.Rewards = append(s.Rewards, *t)
	}
	slices.SortFunc(s.Rewards, func(a, b ItemTotal) int { return strings.Compare(a.ID, b.ID) })
	return s
}

// addSat adds two quantities of at most tiers.MaxQty, stopping there.
func addSat(a, b int64) int64 {
	if a > tiers.MaxQty-b {
		return tiers.MaxQty
	}
	return a + b
}
