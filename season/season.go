// Package season simulates a league's seasons on made-up players, with the
// league's own rules: placement in sub-boards by join order
// (league.BoardOf, as join.lua), ranking by score then join order, and
// outcomes and rewards by the ladder (tiers.Ladder.Settle, as settlement),
// absence decay (tiers.Ladder.AfterAbsence) and promotion protection
// (tiers.Standing.Promoted, as join.lua records it) included. Designers see where
// a ladder piles up, and how many boards run thin, before players do.
package season

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"

	"github.com/league-engine/league/league"
	"github.com/league-engine/league/tiers"
)

// Model is how the simulated players behave.
//
// Each player has a skill, drawn once from a normal distribution (mean 0,
// standard deviation 1), and an activity: the chance they play a given
// period. Activities come from three kinds of player, in the shares
// Regulars and Casuals (the rest are Rare): a regular plays 90% of
// periods, a casual 50%, a rare player 15%. A player who plays joins at a
// random moment of the period (so join order is random) and scores
// round(Scale * e^(0.6 skill + 0.4 noise)), noise drawn afresh each period
// from a standard normal; a share Idle of those who join never score (0),
// which min_promote_score and min_reward_score act on. In a league with
// cohorts, each player belongs to one, or to the shared boards, drawn once
// with equal chances, and joins with it every period.
type Model struct {
	Players  int
	Periods  int
	Seed     uint64
	Regulars float64 // share of players who play 90% of periods (default 0.4)
	Casuals  float64 // share who play 50% (default 0.4); the rest play 15%
	Idle     float64 // share of joiners who never score (default 0.05)
	Scale    float64 // the median score of a player of average skill (default 100)
}

// Defaults fills the shares and scale left at zero.
func (m *Model) Defaults() {
	if m.Regulars == 0 && m.Casuals == 0 {
		m.Regulars, m.Casuals = 0.4, 0.4
	}
	if m.Idle == 0 {
		m.Idle = 0.05
	}
	if m.Scale == 0 {
		m.Scale = 100
	}
}

func (m Model) check() error {
	switch {
	case m.Players < 1 || m.Players > 10_000_000:
		return fmt.Errorf("players: %d is outside 1..10000000", m.Players)
	case m.Periods < 1 || m.Periods > 1000:
		return fmt.Errorf("periods: %d is outside 1..1000", m.Periods)
	case m.Regulars < 0 || m.Casuals < 0 || m.Regulars+m.Casuals > 1:
		return fmt.Errorf("regulars + casuals: %v + %v is not a share of 0..1", m.Regulars, m.Casuals)
	case m.Idle < 0 || m.Idle > 1:
		return fmt.Errorf("idle: %v is outside 0..1", m.Idle)
	case m.Scale <= 0 || m.Scale > 1e12:
		return fmt.Errorf("scale: %v is outside (0, 1e12]", m.Scale)
	}
	return nil
}

// Period is what one simulated period did.
type Period struct {
	N          int     // 1-based
	Played     int     // players who joined
	Joined     []int   // of them, per tier (after decay)
	Population []int   // players per tier at the period's end (settled), lowest first
	Promoted   []int   // per tier the players promoted from it
	Demoted    []int   // per tier the players demoted from it
	Decayed    int     // players who dropped tiers for absence when they came back
	Boards     int     // sub-boards with players
	Thin       int     // of them, boards of fewer than half the board size
	Merged     int     // boards decided together (min_board_size): a short last board with the one before, thin cohorts with the shared boards
	Rewards    []int64 // per tier the reward items paid (quantities summed)
	Rewarded   int     // players rewarded
}

type player struct {
	skill    float64
	activity float64
	tier     int // the tier they play next
	absent   int // whole periods sat out since they last played
	played   bool
	last     int  // the tier of the last period they played
	promoted bool // this period's tier is above last: tiers.Standing.Promoted
	seq      int  // their cohort's boards in tie order: 0 the shared boards, then cohorts by name
}

// Run plays m.Periods periods of league l's rules on m.Players players, all
// starting in l's entry tier. The same model (seed included) gives the
// same report.
func Run(l *league.League, m Model) ([]Period, error) {
	m.Defaults()
	if err := m.check(); err != nil {
		return nil, err
	}
	ld := l.Ladder
	entry, _ := ld.Index(l.EntryTier)
	r := rand.New(rand.NewPCG(m.Seed, 0x5ea5))
	ps := make([]player, m.Players)
	for i := range ps {
		act := 0.15
		switch u := r.Float64(); {
		case u < m.Regulars:
			act = 0.9
		case u < m.Regulars+m.Casuals:
			act = 0.5
		}
		ps[i] = player{skill: r.NormFloat64(), activity: act, tier: entry}
		if len(l.Cohorts) > 0 {
			ps[i].seq = r.IntN(len(l.Cohorts) + 1)
		}
	}
	out := make([]Period, 0, m.Periods)
	order := make([]int, 0, m.Players)
	scores := make([]int64, m.Players)
	byTier := make([][][]int, ld.Len()) // tier -> sequence -> players in join order
	for t := range byTier {
		byTier[t] = make([][]int, len(l.Cohorts)+1)
	}
	for q := 1; q <= m.Periods; q++ {
		p := Period{N: q, Population: make([]int, ld.Len()), Joined: make([]int, ld.Len()), Promoted: make([]int, ld.Len()),
			Demoted: make([]int, ld.Len()), Rewards: make([]int64, ld.Len())}
		// who plays, in the order they join
		order = order[:0]
		for i := range ps {
			if r.Float64() < ps[i].activity {
				order = append(order, i)
			} else if ps[i].played {
				ps[i].absent++
			}
		}
		r.Shuffle(len(order), func(a, b int) { order[a], order[b] = order[b], order[a] })
		for t := range byTier {
			for q := range byTier[t] {
				byTier[t][q] = byTier[t][q][:0]
			}
		}
		for _, i := range order {
			pl := &ps[i]
			if pl.played {
				if t := ld.AfterAbsence(pl.tier, pl.absent, l.DecayAfter); t != pl.tier {
					pl.tier = t
					p.Decayed++
				}
			}
			pl.promoted = pl.played && pl.tier > pl.last // as join.lua records it (promotion protection)
			pl.played, pl.absent, pl.last = true, 0, pl.tier
			byTier[pl.tier][pl.seq] = append(byTier[pl.tier][pl.seq], i)
			scores[i] = 0
			if r.Float64() >= m.Idle {
				scores[i] = int64(math.Round(m.Scale * math.Exp(0.6*pl.skill+0.4*r.NormFloat64())))
			}
		}
		p.Played = len(order)
		for t, seqs := range byTier {
			for _, joined := range seqs {
				p.Joined[t] += len(joined)
			}
		}
		for t, seqs := range byTier {
			// the n-th join of a tier's (or cohort's) boards sits on board
			// BoardOf(n): boards are runs of BoardSize joins
			boards := make([][][]int, len(seqs))
			for q, joined := range seqs {
				for from := 0; from < len(joined); {
					board, _ := league.BoardOf(from+1, l.BoardSize)
					to := from
					for to < len(joined) {
						if b, _ := league.BoardOf(to+1, l.BoardSize); b != board {
							break
						}
						to++
					}
					boards[q] = append(boards[q], joined[from:to])
					from = to
				}
			}
			settleTier(ld, t, boards, scores, ps, &p, l.BoardSize)
		}
		for i := range ps {
			if ps[i].played {
				p.Population[ps[i].tier]++
			}
		}
		out = append(out, p)
	}
	return out, nil
}

// settleTier ranks each board of tier t (score, then join order: members
// are in join order), boards[q] those of its q-th sequence (its shared
// boards, then each cohort's), and applies the ladder's outcomes as
// settlement does (tiers.Ladder.SettleTails): a short last board decided
// with the board before it, thin cohorts with the shared boards' last
// (min_board_size).
func settleTier(ld *tiers.Ladder, t int, boards [][][]int, scores []int64, ps []player, p *Period, size int) {
	ranked := make([][][]int, len(boards))
	tails := make([][]tiers.SeqBoard, len(boards))
	for q, seq := range boards {
		ranked[q] = make([][]int, len(seq))
		for b, members := range seq {
			ranked[q][b] = slices.Clone(members)
			sort.SliceStable(ranked[q][b], func(x, y int) bool { return scores[ranked[q][b][x]] > scores[ranked[q][b][y]] })
			standings := make([]tiers.Standing, len(members))
			for k, i := range ranked[q][b] {
				standings[k] = tiers.Standing{Player: strconv.Itoa(i), Rank: k + 1, Score: scores[i], Promoted: ps[i].promoted}
			}
			tails[q] = append(tails[q], tiers.SeqBoard{Seq: q, N: b + 1, Players: standings})
			p.Boards++
			if 2*len(members) < size {
				p.Thin++
			}
		}
	}
	outcomes, merged := ld.SettleTails(t, tails)
	p.Merged += merged
	for q := range outcomes {
		for b := range outcomes[q] {
			for k, o := range outcomes[q][b] {
				switch o.Zone {
				case tiers.Promote:
					p.Promoted[t]++
				case tiers.Demote:
					p.Demoted[t]++
				}
				ps[ranked[q][b][k]].tier = o.TierAfter
				if len(o.Rewards) > 0 {
					p.Rewarded++
					for _, it := range o.Rewards {
						p.Rewards[t] += it.Qty
					}
				}
			}
		}
	}
}
