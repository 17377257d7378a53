package league

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"time"

	"github.com/league-engine/league/tiers"
)

// Verifying a settlement: re-deciding a settled period from what the store
// recorded, and comparing. The boards as read at close are the outcome rows
// themselves (board, rank, score of every player), and the rules are those
// the settlement recorded with them (Settlement.Rules), so nothing here
// needs Redis, and the same tiers.Ladder.Settle that decided the period
// decides it again. The store reads (Recorded), the rest is pure.

// Recorded is the store's side of verifying: a settled period read back as
// written. postgres.Store implements it.
type Recorded interface {
	// EachRecordedBoard calls fn with every board of a settled period (one
	// written or further), in tier, board and rank order, streaming, and
	// returns the rewards recorded for players with no outcome in it.
	// NotFound for a period never settled, or not yet written.
	EachRecordedBoard(ctx context.Context, league string, period time.Time, fn func(RecordedBoard) error) (stray []EarnedReward, err error)
}

// RecordedBoard is one sub-board of a settled period as the store recorded
// it.
type RecordedBoard struct {
	ID BoardID
	// Outcomes in rank order, as recorded (Move is not: the store keeps
	// none).
	Outcomes []Outcome
	// Rewards recorded for the board's players, by player.
	Rewards map[string]EarnedReward
}

// Difference is one way a recorded settlement differs from what its rules
// give: Field of Player's row (or of a tier's counts, Player "") holds
// Recorded where the rules give Expected.
type Difference struct {
	Board    BoardID // zero for a tier's counts and a reward with no outcome
	Rank     int     // as recorded
	Player   string
	Field    string // tier_after, zone, rank, reward, reward.tier, reward.rank, tier_before, or tiers[ID].players/promoted/demoted/rewarded
	Recorded string
	Expected string
}

// Verification is what re-deciding a settled period checked and found.
// Feed it every board (Board), the rewards recorded for players with no
// outcome (Stray), then the settlement's counts (Counts).
type Verification struct {
	Players  int // outcome rows read
	Boards   int
	Outcomes int // outcomes re-decided and compared
	Rewards  int // rewards compared: recorded, or given by the rules
	// Differences, in the order found: board by board, then the counts.
	Differences []Difference

	ladder *tiers.Ladder
	counts []TierCount     // re-decided, by ladder index
	held   []RecordedBoard // a tier's boards that may merge: the latest two of each sequence (Board)
}

// NewVerification starts verifying a period decided under ladder.
func NewVerification(ladder *tiers.Ladder) *Verification {
	v := &Verification{ladder: ladder, counts: make([]TierCount, ladder.Len())}
	for i := range v.counts {
		v.counts[i].Tier = ladder.Tier(i).ID
	}
	return v
}

// Verify re-decides a whole settled period: its boards, the rewards recorded
// for players with no outcome (stray) and the settlement's counts.
func Verify(ladder *tiers.Ladder, boards []RecordedBoard, stray []EarnedReward, counts []TierCount) *Verification {
	v := NewVerification(ladder)
	for _, b := range boards {
		v.Board(b)
	}
	for _, r := range stray {
		v.Stray(r)
	}
	v.Counts(counts)
	return v
}

// Board re-decides one recorded board (tiers.Ladder.Settle on its players
// ranked 1..n in the recorded order, with their recorded scores) and
// compares each player's recorded tier after, zone and reward with it. A
// tier's latest two boards wait for the next board (or Stray, or Counts):
// its last board may be decided with the one before it (min_board_size).
// A stay recorded in the demotion ranks of a tier that protects promoted
// players is read as that protection (protectedAtClose): the store keeps
// no other record of who was promoted, so this cannot refute one.
func (v *Verification) Board(b RecordedBoard) {
	v.Boards++
	v.Players += len(b.Outcomes)
	idx, ok := v.ladder.Index(b.ID.Tier)
	if !ok {
		v.diff(Difference{Board: b.ID, Field: "tier_before", Recorded: b.ID.Tier,
			Expected: "a tier of the recorded rules: cannot re-decide its " + strconv.Itoa(len(b.Outcomes)) + " players"})
		return
	}
	if len(v.held) > 0 && v.held[0].ID.Tier != b.ID.Tier {
		v.flush()
	}
	if v.ladder.Tier(idx).MinBoardSize == 0 {
		v.compare(idx, b, v.ladder.Settle(idx, v.standings(idx, b)))
		return
	}
	if n := len(v.held); n >= 2 && v.held[n-2].ID.Cohort == b.ID.Cohort {
		// only the latest two boards of a sequence may merge: the one
		// before them is decided alone (a sequence's boards come together)
		p := v.held[n-2]
		v.compare(idx, p, v.ladder.Settle(idx, v.standings(idx, p)))
		v.held = append(v.held[:n-2], v.held[n-1])
	}
	v.held = append(v.held, b)
}

// flush decides the boards held back, a tier's last two of each sequence
// (its shared boards, each cohort's), as settlement does (settleRecorded):
// a short last board with the one before it, thin cohorts with the shared
// boards' last, the rest alone. The boards recorded are those holding
// players, so each sequence's last is the one settlement saw last.
func (v *Verification) flush() {
	held := v.held
	v.held = nil
	if len(held) == 0 {
		return
	}
	idx, _ := v.ladder.Index(held[0].ID.Tier)
	cohorts := make([]string, len(held))
	boards := make([]tiers.SeqBoard, len(held))
	for k, b := range held {
		cohorts[k], boards[k] = b.ID.Cohort, tiers.SeqBoard{N: b.ID.N, Players: v.standings(idx, b)}
	}
	for k, o := range settleRecorded(v.ladder, idx, cohorts, boards) {
		v.compare(idx, held[k], o)
	}
}

// standings is a recorded board as the board read at close: its players
// ranked 1..n in the recorded order. A gap or a repeat in the recorded
// ranks is a row lost or changed since.
func (v *Verification) standings(idx int, b RecordedBoard) []tiers.Standing {
	board := make([]tiers.Standing, len(b.Outcomes))
	for k, o := range b.Outcomes {
		if o.Rank != k+1 {
			v.diff(Difference{Board: b.ID, Rank: o.Rank, Player: o.Player, Field: "rank",
				Recorded: strconv.Itoa(o.Rank), Expected: strconv.Itoa(k + 1)})
		}
		board[k] = tiers.Standing{Player: o.Player, Rank: k + 1, Score: o.Score,
			Promoted: protectedAtClose(v.ladder, idx, o.Zone)}
	}
	return board
}

// compare checks board b's recorded outcomes against those re-decided,
// want, in the board's order (their Rank is the rank they were decided
// at: the merged rank on a merged board).
func (v *Verification) compare(idx int, b RecordedBoard, want []tiers.Outcome) {
	for k, want := range want {
		o := b.Outcomes[k]
		v.Outcomes++
		v.counts[idx].add(want)
		row := Difference{Board: b.ID, Rank: o.Rank, Player: o.Player}
		if after := v.ladder.Tier(want.TierAfter).ID; o.TierAfter != after {
			v.diff(row.with("tier_after", o.TierAfter, after))
		}
		if o.Zone != want.Zone {
			v.diff(row.with("zone", o.Zone.String(), want.Zone.String()))
		}
		got, has := b.Rewards[o.Player]
		if !has && want.Rewards == nil {
			continue
		}
		v.Rewards++
		switch {
		case !has:
			v.diff(row.with("reward", "none", items(want.Rewards)))
		case want.Rewards == nil:
			v.diff(row.with("reward", items(got.Items), "none"))
		default:
			if !reflect.DeepEqual(got.Items, want.Rewards) {
				v.diff(row.with("reward", items(got.Items), items(want.Rewards)))
			}
			if got.Tier != b.ID.Tier {
				v.diff(row.with("reward.tier", got.Tier, b.ID.Tier))
			}
			if got.Rank != want.Rank {
				v.diff(row.with("reward.rank", strconv.Itoa(got.Rank), strconv.Itoa(want.Rank)))
			}
		}
	}
}

// Stray records a reward of a player with no outcome in the period: no
// rule gives it.
func (v *Verification) Stray(r EarnedReward) {
	v.flush()
	v.Rewards++
	v.diff(Difference{Player: r.Player, Rank: r.Rank, Field: "reward", Recorded: items(r.Items), Expected: "none: the player has no outcome in the period"})
}

// Counts compares the settlement's recorded counts per tier with those of
// the outcomes re-decided. Moderated players were decided nowhere, so their
// count is not compared.
func (v *Verification) Counts(recorded []TierCount) {
	v.flush()
	byTier := make(map[string]TierCount, len(recorded))
	for _, c := range recorded {
		byTier[c.Tier] = c
	}
	for _, want := range v.counts {
		got, ok := byTier[want.Tier]
		delete(byTier, want.Tier)
		if !ok && want == (TierCount{Tier: want.Tier}) {
			continue
		}
		v.countDiffs(want.Tier, got, want)
	}
	for _, c := range recorded { // tiers the rules lack, in the recorded order
		if got, ok := byTier[c.Tier]; ok {
			v.countDiffs(c.Tier, got, TierCount{Tier: c.Tier})
		}
	}
}

func (v *Verification) countDiffs(tier string, got, want TierCount) {
	for _, f := range []struct {
		name      string
		got, want int
	}{
		{"players", got.Players, want.Players}, {"promoted", got.Promoted, want.Promoted},
		{"demoted", got.Demoted, want.Demoted}, {"rewarded", got.Rewarded, want.Rewarded},
	} {
		if f.got != f.want {
			v.diff(Difference{Field: fmt.Sprintf("tiers[%s].%s", tier, f.name), Recorded: strconv.Itoa(f.got), Expected: strconv.Itoa(f.want)})
		}
	}
}

func (v *Verification) diff(d Difference) { v.Differences = append(v.Differences, d) }

func (d Difference) with(field, recorded, expected string) Difference {
	d.Field, d.Recorded, d.Expected = field, recorded, expected
	return d
}

// items prints reward items as the store keeps them.
func items(its []tiers.Item) string {
	js, _ := json.Marshal(its) // plain fields: cannot fail
	return string(js)
}

// ErrNoRules is what the error of verifying a settlement that recorded no
// rules wraps: settled before the store kept them, it cannot be verified.
var ErrNoRules = errors.New("settled before the rules were recorded with settlements: cannot verify")

// VerifyLadder returns the ladder a settlement was decided under, from the
// rules it recorded: laid on the configured ladder as the settler did
// (tiers.Ladder.Recorded), or, when there is none or they no longer fit it
// (the config changed since), rebuilt from the rules alone (tiers.FromRules,
// which decides the same). alone says which. Rules that do not match their
// fingerprint were changed since they were written, and are refused.
func VerifyLadder(st Settlement, configured *tiers.Ladder) (ladder *tiers.Ladder, alone bool, err error) {
	if st.Rules == "" {
		return nil, false, &Error{Code: Conflict, Err: ErrNoRules,
			Message: fmt.Sprintf("league %q period %s was %s", st.League, Period{Start: st.Period}.ID(), ErrNoRules)}
	}
	if fp := tiers.RulesFingerprint(st.Rules); fp != st.RulesFP {
		return nil, false, Errorf(Conflict, "league %q period %s: the recorded rules' fingerprint is %s, but %s was recorded with them: "+
			"they were changed since settlement", st.League, Period{Start: st.Period}.ID(), fp, st.RulesFP)
	}
	if configured != nil {
		if l, err := configured.Recorded(st.Rules); err == nil {
			return l, false, nil
		}
	}
	l, err := tiers.FromRules(st.Rules)
	if err != nil {
		return nil, false, Errorf(Conflict, "league %q period %s: %v", st.League, Period{Start: st.Period}.ID(), err)
	}
	return l, true, nil
}
