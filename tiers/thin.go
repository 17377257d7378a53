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

// SeqBoard is a board of one of a tier's sequences: Seq as in TailBoard,
// its number there and its players ranked 1..n.
type SeqBoard struct {
	Seq, N  int
	Players []Standing
}

// SettleTails decides the boards held at the end of tier i's sequences, as
// settlement does: tails[k] is the k-th sequence's in board order, from
// the board before its latest with players. The boards the ladder decides
// together (Groups) are decided so (SettleGroup), the rest alone; it
// returns each board's outcomes in its own rank order, as tails lists
// them, and how many groups of boards it decided together.
func (l *Ladder) SettleTails(i int, tails [][]SeqBoard) (out [][][]Outcome, merged int) {
	out = make([][][]Outcome, len(tails))
	where := map[[2]int][2]int{} // (seq, n) -> its place in tails
	ts := make([]Tail, len(tails))
	for k, held := range tails {
		out[k] = make([][]Outcome, len(held))
		latest := -1
		for j, b := range held {
			where[[2]int{b.Seq, b.N}] = [2]int{k, j}
			if len(b.Players) > 0 {
				latest = j
			}
		}
		if latest < 0 {
			continue
		}
		last := held[latest]
		ts[k].Last = &TailBoard{Seq: last.Seq, N: last.N, Size: len(last.Players)}
		if latest >= 1 && held[latest-1].N == last.N-1 {
			p := held[latest-1]
			ts[k].Prev = &TailBoard{Seq: p.Seq, N: p.N, Size: len(p.Players)}
		}
	}
	decided := map[[2]int]bool{}
	groups := l.Groups(i, ts)
	for _, g := range groups {
		boards := make([][]Standing, len(g))
		for k, tb := range g {
			at := where[[2]int{tb.Seq, tb.N}]
			boards[k] = tails[at[0]][at[1]].Players
		}
		for k, o := range l.SettleGroup(i, boards) {
			at := where[[2]int{g[k].Seq, g[k].N}]
			out[at[0]][at[1]], decided[at] = o, true
		}
	}
	for k, held := range tails {
		for j, b := range held {
			if !decided[[2]int{k, j}] {
				out[k][j] = l.Settle(i, b.Players)
			}
		}
	}
	return out, len(groups)
}
