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
func MergeBoards(prev, last []Standing) []Standing {
	out := make([]Standing, 0, len(prev)+len(last))
	i, j := 0, 0
	for i < len(prev) || j < len(last) {
		if j == len(last) || i < len(prev) && prev[i].Score >= last[j].Score {
			out = append(out, prev[i])
			i++
		} else {
			out = append(out, last[j])
			j++
		}
		out[len(out)-1].Rank = len(out)
	}
	return out
}

// SettleMerged decides a tier's board before last (prev) and its last board
// (last) as one board (MergeBoards), and returns each board's outcomes in
// its own rank order. An outcome's Rank is the merged ranking's: the rank
// its zone, move and rewards were decided at.
func (l *Ladder) SettleMerged(i int, prev, last []Standing) (prevOut, lastOut []Outcome) {
	decided := l.Settle(i, MergeBoards(prev, last))
	onLast := make(map[string]bool, len(last))
	for _, s := range last {
		onLast[s.Player] = true
	}
	prevOut, lastOut = make([]Outcome, 0, len(prev)), make([]Outcome, 0, len(last))
	for _, o := range decided {
		if onLast[o.Player] {
			lastOut = append(lastOut, o)
		} else {
			prevOut = append(prevOut, o)
		}
	}
	return prevOut, lastOut
}
