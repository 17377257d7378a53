package league

import (
	"cmp"
	"slices"
	"strings"

	"github.com/league-engine/league/tiers"
)

// Deciding a corrected board again (Engine.Correct's pure part): what the
// store recorded of the board, with the corrected player zeroed or
// removed, decided under the period's rules as settlement decided it.

// Redecide decides a board again with player zeroed or removed: board is
// the board's recorded outcomes, ranked 1..n. The board is ranked again by
// score, the recorded ranks breaking ties, except that the corrected
// player goes last among equal scores (a zeroed cheater takes no honest
// player's place), and settled with ladder. others are the boards of its
// tier a merge may decide with it or without it (min_board_size): the last
// two of its sequence (its tier's shared boards, or its cohort's) and, in
// a league with cohorts, of every other sequence (thin cohorts fall back
// to the shared boards: tiers/thin.go), itself left out. They are decided
// again with it as settlement decides them (tiers.Ladder.SettleTails, on
// the boards as they are after the correction). It returns every player
// whose outcome or reward differs, the corrected player always.
func Redecide(ladder *tiers.Ladder, board []RecordedOutcome, others [][]RecordedOutcome, player string, action CorrectionAction) ([]CorrectionChange, error) {
	if len(board) == 0 {
		return nil, Errorf(NotFound, "player %q has no board", player)
	}
	tier := board[0].TierBefore
	idx, ok := ladder.Index(tier)
	if !ok {
		return nil, Errorf(Unavailable, "the period was settled with tier %q, which this process's ladder lacks", tier)
	}
	for _, b := range append([][]RecordedOutcome{board}, others...) {
		for i, o := range b {
			if o.Rank != i+1 {
				// Ranks are 1..n as settled (and as each correction leaves
				// them): a gap is a board pruned in part (leaguectl prune),
				// which cannot be decided again.
				return nil, Errorf(Conflict, "board %s holds rank %d where rank %d should be: its outcomes are no longer whole (pruned?), so it cannot be decided again",
					BoardID{Tier: tier, Cohort: o.Cohort, N: o.Board}, o.Rank, i+1)
			}
		}
	}
	ranked := make([]RecordedOutcome, 0, len(board))
	var corrected *RecordedOutcome
	for i := range board {
		o := board[i]
		if o.Player == player {
			corrected = &board[i]
			if action == CorrectRemove {
				continue
			}
			o.Score = 0
		}
		ranked = append(ranked, o)
	}
	if corrected == nil {
		return nil, Errorf(NotFound, "player %q has no outcome on board %s", player, BoardID{Tier: tier, Cohort: board[0].Cohort, N: board[0].Board})
	}
	slices.SortStableFunc(ranked, func(a, b RecordedOutcome) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		if (a.Player == player) != (b.Player == player) {
			if a.Player == player {
				return 1
			}
			return -1
		}
		return cmp.Compare(a.Rank, b.Rank)
	})
	own := standingsOf(ladder, idx, ranked)
	after := map[string]redecided{}
	keep := func(outcomes []tiers.Outcome) {
		for k, o := range outcomes {
			after[o.Player] = redecided{o, k + 1}
		}
	}
	// Each sequence's boards (tie order: the shared boards, then cohorts
	// by name), the corrected one as it is now.
	all := append([][]RecordedOutcome{board}, others...)
	slices.SortStableFunc(all, func(a, b []RecordedOutcome) int {
		if len(a) == 0 || len(b) == 0 {
			return cmp.Compare(len(b), len(a))
		}
		return cmp.Or(strings.Compare(a[0].Cohort, b[0].Cohort), cmp.Compare(a[0].Board, b[0].Board))
	})
	cohorts := make([]string, 0, len(all))
	boards := make([]tiers.SeqBoard, 0, len(all))
	for _, b := range all {
		if len(b) == 0 {
			continue
		}
		players := standingsOf(ladder, idx, b)
		if b[0].Cohort == board[0].Cohort && b[0].Board == board[0].Board {
			players = own
		}
		cohorts, boards = append(cohorts, b[0].Cohort), append(boards, tiers.SeqBoard{N: b[0].Board, Players: players})
	}
	for _, o := range settleRecorded(ladder, idx, cohorts, boards) {
		keep(o)
	}
	var everyone []RecordedOutcome
	for _, b := range all {
		everyone = append(everyone, b...)
	}
	var changes []CorrectionChange
	for _, o := range everyone {
		c := CorrectionChange{Player: o.Player, Tier: tier, Cohort: o.Cohort, Board: o.Board, Before: sideOf(ladder, idx, o)}
		if n, ok := after[o.Player]; ok {
			c.After = CorrectedSide{Rank: n.rank, Score: n.Score, Zone: n.Zone.String(),
				TierAfter: ladder.Tier(n.TierAfter).ID, Move: moveOf(n.Outcome), Rewards: n.Rewards}
			if n.Outcome.Rank != n.rank {
				c.After.DecidedRank = n.Outcome.Rank
			}
		} else { // removed: off the board, keeps the tier played, earns nothing
			c.After = CorrectedSide{TierAfter: tier, Move: Stayed}
		}
		sameReward := slices.Equal(c.Before.Rewards, c.After.Rewards)
		if !sameReward {
			c.Revoked = c.Before.Rewards != nil
			c.Claimed = c.Revoked && o.Claimed
			c.Granted = c.After.Rewards != nil
		}
		if o.Player == player || !sameReward || c.Before.Rank != c.After.Rank || c.Before.Score != c.After.Score ||
			c.Before.TierAfter != c.After.TierAfter || c.Before.Zone != c.After.Zone ||
			c.After.Rewards != nil && c.Before.RewardRank() != c.After.RewardRank() {
			changes = append(changes, c)
		}
	}
	return changes, nil
}

// redecided is an outcome decided again, with the player's rank on their
// own board (the outcome's is the merged one on a merged board).
type redecided struct {
	tiers.Outcome
	rank int
}

// standingsOf ranks outcomes of tier idx 1..n in their order. A player
// promotion protection kept at settlement stays kept; the store knows of
// no other promoted player (protect.go).
func standingsOf(ladder *tiers.Ladder, idx int, os []RecordedOutcome) []tiers.Standing {
	out := make([]tiers.Standing, len(os))
	for k, o := range os {
		out[k] = tiers.Standing{Player: o.Player, Rank: k + 1, Score: o.Score, Promoted: protectedAtClose(ladder, idx, o.Zone)}
	}
	return out
}

// sideOf is a recorded outcome as a correction shows it; its move is
// read from the ladder (idx: the tier played), as settlement named it.
func sideOf(ladder *tiers.Ladder, idx int, o RecordedOutcome) CorrectedSide {
	s := CorrectedSide{Rank: o.Rank, Score: o.Score, Zone: o.Zone.String(), TierAfter: o.TierAfter, Move: Stayed}
	if a, ok := ladder.Index(o.TierAfter); ok {
		s.Move = moveOf(tiers.Outcome{TierBefore: idx, TierAfter: a})
	}
	if o.Reward != nil {
		s.Rewards = o.Reward.Items
		if o.Reward.Rank != o.Rank {
			s.DecidedRank = o.Reward.Rank
		}
	}
	return s
}

// settleRecorded decides boards of tier idx read back from the store, in
// (cohort, number) order with the shared boards first, as settlement
// decided them (tiers.Ladder.SettleTails): cohorts[k] is board k's cohort,
// and each board's Seq is set from it. It returns each board's outcomes,
// in the order given. Verify and corrections both decide this way.
func settleRecorded(ladder *tiers.Ladder, idx int, cohorts []string, boards []tiers.SeqBoard) [][]tiers.Outcome {
	var tails [][]tiers.SeqBoard
	seq := -1
	for k, b := range boards {
		if k == 0 || cohorts[k] != cohorts[k-1] {
			seq++
			if seq == 0 && cohorts[k] != "" {
				seq = 1 // no shared boards: the cohorts' are 1, 2, ...
			}
			tails = append(tails, nil)
		}
		b.Seq = seq
		tails[len(tails)-1] = append(tails[len(tails)-1], b)
	}
	decided, _ := ladder.SettleTails(idx, tails)
	out := make([][]tiers.Outcome, 0, len(boards))
	for _, d := range decided {
		out = append(out, d...)
	}
	return out
}
