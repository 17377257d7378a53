package tiers

// Small last boards. A tier's boards fill one after another, so only its
// last board can close short of players: 3 players after 103 joins, where
// a 20% zone promotes nobody. With MinBoardSize, a last board of fewer
// players at close is decided with the board before it, as one board: one
// ranking of both boards' players, by score, the earlier board's player
// first on equal scores (all its players joined before any of the last
// board's), and the zones, moves and rewards of that ranking. Each player
// still sees their own board, with their own rank on it; their zone is the
// merged ranking's. A tier's only board is never merged: there is no board
// before it.

// MergesLast reports whether tier i's last board, holding last players
// when the tier has boards boards, is decided with the board before it.
func (l *Ladder) MergesLast(i, boards, last int) bool {
	m := l.tiers[i].MinBoardSize
	return m > 0 && boards > 1 && last < m
}

// MergedAhead counts the players of partner (their scores) ranked before a
// player of score s of the other board in the merged ranking: those scoring
// more, and, when the partner is the earlier board, those scoring the
// same. The player's merged rank is their own rank plus that.
func MergedAhead(partner []int64, s int64, partnerEarlier bool) int {
	n := 0
	for _, p := range partner {
		if p > s || p == s && partnerEarlier {
			n++
		}
	}
	return n
}

// MergeBoards ranks the players of a tier's board before last (prev) and
// of its last board (last), each ranked 1..n on its own board, as one
// board: by score, prev's player first on equal scores, ranks 1..n.
func MergeBoards(prev, last []Standing) []Standing { return MergeGroup([][]Standing{prev, last}) }

// MergeGroup ranks the players of boards decided together, each ranked
// 1..n on its own board, as one board: by score, on equal scores the
// player of the board listed first, then the better rank; ranks 1..n.
func MergeGroup(boards [][]Standing) []Standing {
	total := 0
	for _, b := range boards {
		total += len(b)
	}
	out := make([]Standing, 0, total)
	at := make([]int, len(boards))
	for len(out) < total {
		best := -1
		for k, b := range boards {
			if at[k] < len(b) && (best < 0 || b[at[k]].Score > boards[best][at[best]].Score) {
				best = k
			}
		}
		out = append(out, boards[best][at[best]])
		out[len(out)-1].Rank = len(out)
		at[best]++
	}
	return out
}

// SettleMerged decides a tier's board before last (prev) and its last board
// (last) as one board (MergeBoards), and returns each board's outcomes in
// its own rank order. An outcome's Rank is the merged ranking's: the rank
// its zone, move and rewards were decided at.
func (l *Ladder) SettleMerged(i int, prev, last []Standing) (prevOut, lastOut []Outcome) {
	out := l.SettleGroup(i, [][]Standing{prev, last})
	return out[0], out[1]
}

// SettleGroup decides boards of tier i as one board (MergeGroup) and
// returns each board's outcomes in its own rank order, Rank the merged
// ranking's.
func (l *Ladder) SettleGroup(i int, boards [][]Standing) [][]Outcome {
	decided := l.Settle(i, MergeGroup(boards))
	on := make(map[string]int, len(decided))
	out := make([][]Outcome, len(boards))
	for k, b := range boards {
		for _, s := range b {
			on[s.Player] = k
		}
		out[k] = make([]Outcome, 0, len(b))
	}
	for _, o := range decided {
		k := on[o.Player]
		out[k] = append(out[k], o)
	}
	return out
}
