// Package tiers holds the tier ladder of a league and the pure rules that act
// on it: which ranks of a sub-board promote, stay or demote, which ranks earn
// which rewards, and how absence decays a tier. Nothing here does I/O, so the
// live engine (zones of a running board) and settlement (final outcomes) call
// the very same functions and can never disagree.
package tiers

import (
	"fmt"
	"sort"
	"strings"
)

// Ratio is a share of a sub-board in basis points (1/10,000). Integer basis
// points make the promoted and demoted counts exact: 100 players at 0.29 is
// 29 players, not 28 because 100*0.29 is 28.999999999999996 in float64.
type Ratio int

// RatioScale is the denominator of a Ratio.
const RatioScale = 10000

// Of returns how many of n players the ratio covers, rounded down. Rounding
// down means a ratio is a ceiling: a board never promotes or demotes more
// players than its ratio allows, and a board too small for one whole player
// moves nobody.
func (r Ratio) Of(n int) int {
	if n <= 0 || r <= 0 {
		return 0
	}
	return n * int(r) / RatioScale
}

// MaxQty is the largest reward quantity: 2^53-1, the largest whole number
// a double holds exactly.
const MaxQty = 1<<53 - 1

// Item is one reward item: an id the game understands and a quantity.
type Item struct {
	ID  string `json:"id"`
	Qty int64  `json:"qty"`
}

// ItemsText writes items as people read them: "100 gems, 1 chest"; ""
// for none.
func ItemsText(items []Item) string {
	parts := make([]string, len(items))
	for i, it := range items {
		parts[i] = fmt.Sprintf("%d %s", it.Qty, it.ID)
	}
	return strings.Join(parts, ", ")
}

// Band rewards every rank in [From, To] (1-based, inclusive) with Items.
type Band struct {
	From, To int
	Items    []Item
}

// Tier is one rung of the ladder.
type Tier struct {
	ID   string
	Name string
	// Promote and Demote are the shares of each sub-board that move up and
	// down at settlement.
	Promote, Demote Ratio
	// PromoteCount and DemoteCount, instead of a share, move that many
	// players of each sub-board (the top 10, the bottom 5); Counts says
	// what a board too small for both does.
	PromoteCount, DemoteCount int
	// PromoteAtLeast and DemoteAtLeast raise a share's count to at least
	// that many on a board of AtLeastFrom players or more ("20%, at least
	// 1 when the board has 5 or more"; AtLeastFrom 0: any board).
	PromoteAtLeast, DemoteAtLeast, AtLeastFrom int
	// JumpTop and JumpBy: the first JumpTop ranks of a board's promotion
	// zone rise JumpBy tiers (2 or more) instead of one.
	JumpTop, JumpBy int
	// ProtectPromoted keeps a player promoted into the tier from demotion
	// in their first period there: in the demotion ranks they stay
	// (Ladder.Protect). The ranks of the zones do not change: nobody
	// above is demoted in their place.
	ProtectPromoted bool
	// MinPromoteScore is the score a player needs to climb: a player in the
	// promotion zone below it stays.
	MinPromoteScore int64
	// MinRewardScore is the score a player needs to earn their rank's
	// rewards: without it a late joiner alone on a board, who never
	// scored, would take rank 1's.
	MinRewardScore int64
	// Rewards by rank within a sub-board, sorted by From, never overlapping.
	Rewards []Band
	// MinBoardSize: the tier's last board, when it holds fewer players at
	// close, is decided with the board before it (merge.go); 0: never.
	MinBoardSize int
}

// Ladder is the ordered list of tiers, lowest first.
type Ladder struct {
	tiers []Tier
	index map[string]int
	// up and down are where a tier's promoted and demoted players go (-1:
	// nowhere): the next tier in the list, except in a ladder rebuilt from
	// rules recorded in another order (Recorded).
	up, down []int
}

// NewLadder checks the tiers and returns the ladder, lowest tier first. A
// Promote on the top tier or a Demote on the bottom one is refused: there is
// nowhere to go, and silently settling nobody would hide a config mistake
// (a tier added at the top with its neighbour's ratios left unset, say).
// So is ProtectPromoted on the bottom tier: nobody is promoted into it, and
// it demotes nobody.
func NewLadder(ts []Tier) (*Ladder, error) {
	if len(ts) > 0 && ts[0].ProtectPromoted {
		return nil, fmt.Errorf("tiers[0] (%s).protect_promoted: on the bottom tier, which nobody is promoted into "+
			"and which demotes nobody (tiers are lowest first)", ts[0].ID)
	}
	up, down := make([]int, len(ts)), make([]int, len(ts))
	for i := range ts {
		up[i], down[i] = i+1, i-1
	}
	if len(up) > 0 {
		up[len(up)-1] = -1
	}
	return newLadder(ts, up, down)
}

// newLadder is NewLadder with the moves given: up[i] and down[i] are where
// tier i promotes and demotes to, -1 for nowhere.
func newLadder(ts []Tier, up, down []int) (*Ladder, error) {
	if len(ts) == 0 {
		return nil, fmt.Errorf("tiers: at least one tier is required")
	}
	if len(ts) > MaxTiers {
		return nil, fmt.Errorf("tiers: %d tiers, at most %d", len(ts), MaxTiers)
	}
	l := &Ladder{tiers: make([]Tier, len(ts)), index: make(map[string]int, len(ts)), up: up, down: down}
	for i, t := range ts {
		if _, dup := l.index[t.ID]; dup {
			return nil, fmt.Errorf("tiers[%d].id: %q appears twice", i, t.ID)
		}
		if err := t.check(); err != nil {
			return nil, fmt.Errorf("tiers[%d] (%s).%w", i, t.ID, err)
		}
		if up[i] < 0 && t.promotes() {
			return nil, fmt.Errorf("tiers[%d] (%s).promote: %s on the top tier, which has no tier above it (tiers are lowest first)", i, t.ID, t.promoteRule())
		}
		if t.JumpTop > 0 {
			to := i
			for k := 0; k < t.JumpBy && to >= 0; k++ {
				to = up[to]
			}
			if to < 0 {
				return nil, fmt.Errorf("tiers[%d] (%s).jump_tiers: %d tiers up from %s is past the top tier", i, t.ID, t.JumpBy, t.ID)
			}
		}
		if down[i] < 0 && t.demotes() {
			return nil, fmt.Errorf("tiers[%d] (%s).demote: %s on the bottom tier, which has no tier below it (tiers are lowest first)", i, t.ID, t.demoteRule())
		}
		t.Rewards = append([]Band(nil), t.Rewards...)
		sort.Slice(t.Rewards, func(a, b int) bool { return t.Rewards[a].From < t.Rewards[b].From })
		for j := 1; j < len(t.Rewards); j++ {
			if t.Rewards[j].From <= t.Rewards[j-1].To {
				return nil, fmt.Errorf("tiers[%d] (%s).rewards: ranks %d-%d and %d-%d overlap", i, t.ID,
					t.Rewards[j-1].From, t.Rewards[j-1].To, t.Rewards[j].From, t.Rewards[j].To)
			}
		}
		l.tiers[i] = t
		l.index[t.ID] = i
	}
	return l, nil
}

// MaxTiers bounds the ladder; the live engine stores a tier in one byte.
const MaxTiers = 64

// MaxMoveCount bounds a count of players moved (league.MaxBoardSize).
const MaxMoveCount = 10000

func (t Tier) promotes() bool { return t.Promote > 0 || t.PromoteCount > 0 }
func (t Tier) demotes() bool  { return t.Demote > 0 || t.DemoteCount > 0 }

// promoteRule and demoteRule print the rule, for messages.
func (t Tier) promoteRule() string {
	return moveRule(t.Promote, t.PromoteCount, t.PromoteAtLeast, t.AtLeastFrom)
}
func (t Tier) demoteRule() string {
	return moveRule(t.Demote, t.DemoteCount, t.DemoteAtLeast, t.AtLeastFrom)
}

func moveRule(r Ratio, count, atLeast, from int) string {
	switch {
	case count > 0:
		return fmt.Sprintf("%d players", count)
	case atLeast > 0:
		return fmt.Sprintf("%s, at least %d from %d players", r, atLeast, max(from, 1))
	}
	return r.String()
}

func (t Tier) check() error {
	switch {
	case t.ID == "":
		return fmt.Errorf("id: must not be empty")
	case t.Promote < 0 || t.Promote > RatioScale:
		return fmt.Errorf("promote: %s is outside 0..1", t.Promote)
	case t.Demote < 0 || t.Demote > RatioScale:
		return fmt.Errorf("demote: %s is outside 0..1", t.Demote)
	case t.Promote+t.Demote > RatioScale:
		return fmt.Errorf("promote+demote: %s + %s is more than 1", t.Promote, t.Demote)
	case t.PromoteCount < 0 || t.PromoteCount > MaxMoveCount:
		return fmt.Errorf("promote_count: %d is outside 0..%d", t.PromoteCount, MaxMoveCount)
	case t.DemoteCount < 0 || t.DemoteCount > MaxMoveCount:
		return fmt.Errorf("demote_count: %d is outside 0..%d", t.DemoteCount, MaxMoveCount)
	case t.PromoteCount > 0 && (t.Promote > 0 || t.PromoteAtLeast > 0):
		return fmt.Errorf("promote_count: %d with a promote share (%s, at least %d): give one or the other", t.PromoteCount, t.Promote, t.PromoteAtLeast)
	case t.DemoteCount > 0 && (t.Demote > 0 || t.DemoteAtLeast > 0):
		return fmt.Errorf("demote_count: %d with a demote share (%s, at least %d): give one or the other", t.DemoteCount, t.Demote, t.DemoteAtLeast)
	case t.PromoteAtLeast < 0 || t.PromoteAtLeast > MaxMoveCount:
		return fmt.Errorf("promote_at_least: %d is outside 0..%d", t.PromoteAtLeast, MaxMoveCount)
	case t.DemoteAtLeast < 0 || t.DemoteAtLeast > MaxMoveCount:
		return fmt.Errorf("demote_at_least: %d is outside 0..%d", t.DemoteAtLeast, MaxMoveCount)
	case t.PromoteAtLeast > 0 && t.Promote == 0:
		return fmt.Errorf("promote_at_least: %d without a promote share: use promote_count", t.PromoteAtLeast)
	case t.DemoteAtLeast > 0 && t.Demote == 0:
		return fmt.Errorf("demote_at_least: %d without a demote share: use demote_count", t.DemoteAtLeast)
	case t.JumpTop < 0 || t.JumpTop > MaxMoveCount:
		return fmt.Errorf("jump_top: %d is outside 0..%d", t.JumpTop, MaxMoveCount)
	case t.JumpTop > 0 && !t.promotes():
		return fmt.Errorf("jump_top: %d on a tier that promotes nobody", t.JumpTop)
	case t.JumpTop > 0 && t.JumpBy < 2:
		return fmt.Errorf("jump_tiers: %d with jump_top %d: a jump rises 2 tiers or more (1 is a promotion)", t.JumpBy, t.JumpTop)
	case t.ProtectPromoted && !t.demotes():
		return fmt.Errorf("protect_promoted: on a tier that demotes nobody (no demote share or count)")
	case t.JumpTop == 0 && t.JumpBy != 0:
		return fmt.Errorf("jump_tiers: %d without jump_top", t.JumpBy)
	case t.AtLeastFrom < 0 || t.AtLeastFrom > MaxMoveCount:
		return fmt.Errorf("at_least_from: %d is outside 0..%d", t.AtLeastFrom, MaxMoveCount)
	case t.AtLeastFrom > 0 && t.PromoteAtLeast == 0 && t.DemoteAtLeast == 0:
		return fmt.Errorf("at_least_from: %d without promote_at_least or demote_at_least", t.AtLeastFrom)
	case t.PromoteAtLeast+t.DemoteAtLeast > max(t.AtLeastFrom, 1) && t.PromoteAtLeast > 0 && t.DemoteAtLeast > 0:
		// on the smallest board the minimums apply to, they would overlap
		return fmt.Errorf("promote_at_least+demote_at_least: %d + %d is more than the %d players of the smallest board they apply to (at_least_from)",
			t.PromoteAtLeast, t.DemoteAtLeast, max(t.AtLeastFrom, 1))
	case t.MinPromoteScore < 0:
		return fmt.Errorf("min_promote_score: %d is negative", t.MinPromoteScore)
	case t.MinRewardScore < 0:
		return fmt.Errorf("min_reward_score: %d is negative", t.MinRewardScore)
	case t.MinBoardSize < 0 || t.MinBoardSize > MaxMoveCount:
		return fmt.Errorf("min_board_size: %d is outside 0..%d", t.MinBoardSize, MaxMoveCount)
	}
	for j, b := range t.Rewards {
		if b.From < 1 || b.To < b.From {
			return fmt.Errorf("rewards[%d]: ranks %d-%d are not a range of ranks from 1", j, b.From, b.To)
		}
		if len(b.Items) == 0 {
			return fmt.Errorf("rewards[%d].items: must not be empty", j)
		}
		for _, it := range b.Items {
			if it.ID == "" || it.Qty <= 0 {
				return fmt.Errorf("rewards[%d].items: %q x %d needs an id and a positive quantity", j, it.ID, it.Qty)
			}
			if it.Qty > MaxQty {
				return fmt.Errorf("rewards[%d].items: %q x %d is over %d: clients that read JSON numbers as doubles "+
					"(JavaScript, most game engines) would get another number", j, it.ID, it.Qty, MaxQty)
			}
		}
	}
	return nil
}

// String prints a ratio as a decimal: 2000 is "0.2".
func (r Ratio) String() string {
	s := fmt.Sprintf("%d.%04d", int(r)/RatioScale, abs(int(r))%RatioScale)
	for s[len(s)-1] == '0' && s[len(s)-2] != '.' {
		s = s[:len(s)-1]
	}
	if r < 0 && int(r)/RatioScale == 0 {
		s = "-" + s
	}
	return s
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// Len is the number of tiers.
func (l *Ladder) Len() int { return len(l.tiers) }

// Tier returns the tier at index i (0 is the lowest).
func (l *Ladder) Tier(i int) Tier { return l.tiers[i] }

// Tiers returns a copy of the tiers, lowest first.
func (l *Ladder) Tiers() []Tier { return append([]Tier(nil), l.tiers...) }

// Index returns the position of the tier with this id.
func (l *Ladder) Index(id string) (int, bool) {
	i, ok := l.index[id]
	return i, ok
}

// Top is the index of the highest tier.
func (l *Ladder) Top() int { return len(l.tiers) - 1 }

// RatioOf converts a decimal share such as 0.2 to a Ratio. Shares need at
// most four decimals; anything finer would be silently rounded, so it is an
// error instead.
func RatioOf(f float64) (Ratio, error) {
	if f != f || f < 0 || f > 1 {
		return 0, fmt.Errorf("%v is outside 0..1", f)
	}
	bp := int(f*RatioScale + 0.5)
	if d := float64(bp)/RatioScale - f; d > 1e-9 || d < -1e-9 {
		return 0, fmt.Errorf("%v has more than four decimals", f)
	}
	return Ratio(bp), nil
}
