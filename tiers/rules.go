package tiers

// Zone is where a rank falls on a sub-board under its tier's ratios.
type Zone int

const (
	Stay Zone = iota
	Promote
	Demote
)

func (z Zone) String() string {
	switch z {
	case Promote:
		return "promote"
	case Demote:
		return "demote"
	default:
		return "stay"
	}
}

// Counts returns how many players of a sub-board of n players in tier i are
// promoted and demoted. A share is a ratio of n rounded down (see
// Ratio.Of), raised to its minimum (PromoteAtLeast) on a board of
// AtLeastFrom players or more; a count (PromoteCount) moves that many, or
// the whole board when smaller. A board too small for both moves its
// promotions first and demotes only from the players left: the top 10 and
// bottom 5 of a board of 12 are 10 promoted and 2 demoted. The top tier
// never promotes and the bottom tier never demotes, so a one-tier ladder
// moves nobody.
func (l *Ladder) Counts(i, n int) (promote, demote int) {
	if n <= 0 {
		return 0, 0
	}
	t := l.tiers[i]
	if l.up[i] >= 0 {
		promote = moves(t.Promote, t.PromoteCount, t.PromoteAtLeast, t.AtLeastFrom, n)
	}
	if l.down[i] >= 0 {
		demote = min(moves(t.Demote, t.DemoteCount, t.DemoteAtLeast, t.AtLeastFrom, n), n-promote)
	}
	return promote, demote
}

// moves is how many of n players one rule moves.
func moves(r Ratio, count, atLeast, from, n int) int {
	if count > 0 {
		return min(count, n)
	}
	m := r.Of(n)
	if atLeast > 0 && n >= max(from, 1) {
		m = max(m, min(atLeast, n))
	}
	return m
}

// Zone returns the zone of the 1-based rank on a sub-board of n players in
// tier i whose score is score. A player in the promotion ranks whose score is
// below the tier's MinPromoteScore stays: a player who never scored does not
// climb. Ranks are already unique (the engine breaks ties), so the zone of a
// rank is the zone of the player holding it.
func (l *Ladder) Zone(i, rank, n int, score int64) Zone {
	p, d := l.Counts(i, n)
	switch {
	case rank <= p && score >= l.tiers[i].MinPromoteScore:
		return Promote
	case rank > n-d:
		return Demote
	default:
		return Stay
	}
}

// Protects reports whether tier i keeps the players promoted into it from
// demotion (Tier.ProtectPromoted): only then does whether a player in its
// demotion ranks was promoted matter, and only then need the engine ask.
func (l *Ladder) Protects(i int) bool { return l.tiers[i].ProtectPromoted && l.down[i] >= 0 }

// Protect returns zone z of a player in tier i after promotion protection:
// Stay for a Demote of a player promoted into a tier that Protects, z
// otherwise. promoted is whether the player's previous period played
// promoted them into tier i.
func (l *Ladder) Protect(i int, z Zone, promoted bool) Zone {
	if z == Demote && promoted && l.Protects(i) {
		return Stay
	}
	return z
}

// Next returns the tier index a player of rank moves to from tier i given
// their zone: the tier above or below, in the order of the rules (see
// Recorded), or JumpBy tiers above for the first JumpTop ranks promoted.
func (l *Ladder) Next(i int, z Zone, rank int) int {
	switch {
	case z == Promote && l.up[i] >= 0:
		to := l.up[i]
		if t := l.tiers[i]; rank <= t.JumpTop {
			for k := 1; k < t.JumpBy; k++ { // NewLadder checked the tiers are there
				to = l.up[to]
			}
		}
		return to
	case z == Demote && l.down[i] >= 0:
		return l.down[i]
	default:
		return i
	}
}

// Rewards returns the items that rank earns in tier i with this score, or
// nil: nothing below the tier's MinRewardScore.
func (l *Ladder) Rewards(i, rank int, score int64) []Item {
	if score < l.tiers[i].MinRewardScore {
		return nil
	}
	for _, b := range l.tiers[i].Rewards {
		if rank >= b.From && rank <= b.To {
			return b.Items
		}
	}
	return nil
}

// AfterAbsence returns the tier of a player who left tier i and then sat out
// absent whole periods: one tier lower for every decayAfter absent periods,
// never below the bottom. decayAfter 0 turns decay off.
func (l *Ladder) AfterAbsence(i, absent, decayAfter int) int {
	if decayAfter <= 0 || absent < decayAfter {
		return i
	}
	i -= absent / decayAfter
	if i < 0 {
		return 0
	}
	return i
}

// Standing is one player's final place on a sub-board, the input of Settle.
type Standing struct {
	Player string
	Rank   int // 1-based, unique on the board
	Score  int64
	// Promoted reports that the player's previous period played promoted
	// them into this tier (a jump too): a tier that Protects keeps them.
	Promoted bool
}

// Outcome is what a settlement decides for one player.
type Outcome struct {
	Player     string
	Rank       int
	Score      int64
	Zone       Zone
	TierBefore int
	TierAfter  int
	Rewards    []Item // nil when the rank earns nothing
	// Protected reports a player of the demotion ranks kept in the tier
	// by promotion protection (Protect): their Zone is Stay.
	Protected bool
}

// Settle decides the outcome of every player of one sub-board of tier i.
// board must hold the board's players ranked 1..n; Settle is the settlement
// form of Zone, Protect, Next and Rewards, and uses nothing else.
func (l *Ladder) Settle(i int, board []Standing) []Outcome {
	n := len(board)
	out := make([]Outcome, n)
	for k, s := range board {
		ranked := l.Zone(i, s.Rank, n, s.Score)
		z := l.Protect(i, ranked, s.Promoted)
		out[k] = Outcome{
			Player: s.Player, Rank: s.Rank, Score: s.Score, Zone: z, Protected: z != ranked,
			TierBefore: i, TierAfter: l.Next(i, z, s.Rank), Rewards: l.Rewards(i, s.Rank, s.Score),
		}
	}
	return out
}
