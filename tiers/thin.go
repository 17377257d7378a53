package tiers

// Thin cohorts. A league may place a tier's players on boards of cohorts
// beside the tier's shared boards (league/cohort.go): each cohort's boards
// fill one after another, and MinBoardSize merges a cohort's short last
// board with the cohort's board before it, as it does the shared boards'.
// A cohort whose boards hold fewer than MinBoardSize players in all at
// close (one board, short) has no board before it to merge with: it is
// too thin, and falls back to the tier's shared boards. Every thin
// cohort's board is decided with the shared boards' last decision (their
// last board holding players, with the one before it when those two
// merge) as one board: one ranking, by score, then the shared boards'
// players, then each thin cohort's in tie order. With no shared players
// the thin cohorts are decided together; a group of one board is decided
// alone.

// TailBoard is a board at the end of a tier's sequence of boards: Seq is
// the sequence (0: the tier's shared boards, k: its k-th cohort, in tie
// order), N its number there, Size the players it holds.
type TailBoard struct {
	Seq, N, Size int
}

// Groups returns the boards of tier i decided together at close, each
// group in tie order, and none for a board decided alone. tails lists, per
// sequence in Seq order, its last board holding players (last) and the
// board before it (prev, when numbered last-1; nil otherwise); a sequence
// without players has neither.
func (l *Ladder) Groups(i int, tails []Tail) [][]TailBoard {
	m := l.tiers[i].MinBoardSize
	if m == 0 {
		return nil
	}
	var groups [][]TailBoard
	var fallback []TailBoard
	for _, t := range tails {
		if t.Last == nil {
			continue
		}
		merged := t.Prev != nil && t.Prev.N == t.Last.N-1 && l.MergesLast(i, t.Last.N, t.Last.Size)
		switch {
		case t.Last.Seq == 0 && merged:
			fallback = append(fallback, *t.Prev, *t.Last)
		case t.Last.Seq == 0:
			fallback = append(fallback, *t.Last)
		case t.Last.N == 1 && t.Last.Size < m:
			fallback = append(fallback, *t.Last) // thin: falls back to the shared boards
		case merged:
			groups = append(groups, []TailBoard{*t.Prev, *t.Last})
		}
	}
	if len(fallback) > 1 {
		groups = append([][]TailBoard{fallback}, groups...)
	}
	return groups
}

// Tail is a sequence's last board holding players and the one before it,
// for Groups.
type Tail struct {
	Prev, Last *TailBoard
}
