package league

import (
	"context"
	"encoding/json"
	"strconv"
	"time"

	"github.com/league-engine/league/scripts"
	"github.com/league-engine/league/tiers"
)

// Corrections after settlement: an operator zeroes or removes a player of
// a period already settled (a cheater found late). The player's board is
// decided again from what Postgres recorded of it (the outcome rows: rank,
// score per player), with the player's score zeroed or the player gone, under
// the rules the period was decided under; the difference to the recorded
// outcomes is written in one store transaction keyed by the correction
// (league, period, player, action), so a retry or a second process finds it
// done. Then the new tiers and rewards are made visible in Redis to players
// who have not joined since, a step recorded in the correction's status:
// a run killed between the two resumes at the second.
//
// Only the corrected player's board changes: boards are decided one by one.

// CorrectionAction is what a correction does to the corrected player.
type CorrectionAction string

const (
	// CorrectZero sets the player's score to 0: they stay on the board, ranked
	// again with 0.
	CorrectZero CorrectionAction = "zero"
	// CorrectRemove takes the player off the board, as moderation during the
	// period would have: decided nowhere, they keep their tier and earn
	// nothing, and the board has one player fewer.
	CorrectRemove CorrectionAction = "remove"
)

// CorrectionStatus is a step of a correction.
type CorrectionStatus string

const (
	// CorrectionWritten: outcomes, standings, rewards, counts and events are
	// in the store; Redis may not show the new tiers and rewards yet.
	CorrectionWritten CorrectionStatus = "written"
	// CorrectionApplied: Redis shows them too (where it could: Deferred).
	CorrectionApplied CorrectionStatus = "applied"
)

// CorrectionRequest is an operator's correction of a settled period.
type CorrectionRequest struct {
	League string
	Period time.Time // start
	Player string
	Action CorrectionAction
	Reason string
	Actor  string // the admin key's name, leaguectl's user
}

// Correction is a correction as recorded.
type Correction struct {
	CorrectionRequest
	ID        int64 // the store's
	Status    CorrectionStatus
	Changes   []CorrectionChange
	CreatedAt time.Time
	AppliedAt time.Time // zero until CorrectionApplied
}

// CorrectionChange is one player whose outcome or reward a correction
// changed.
type CorrectionChange struct {
	Player string        `json:"player"`
	Tier   string        `json:"tier"`             // the tier played (the board's)
	Cohort string        `json:"cohort,omitempty"` // the board's cohort, if any (cohort.go)
	Board  int           `json:"board"`
	Before CorrectedSide `json:"before"`
	After  CorrectedSide `json:"after"`
	// Revoked: the reward Before held is taken back. Claimed: it had been
	// delivered already (by a join, as Postgres or Redis knew it), so it
	// stays delivered, recorded revoked for the game to handle.
	Revoked bool `json:"revoked,omitempty"`
	Claimed bool `json:"claimed,omitempty"`
	// Granted: the reward After holds is owed now.
	Granted bool `json:"granted,omitempty"`
	// Deferred: Redis could not carry the change to the player (they joined a
	// later period already, or a later reward waits for them): the store
	// holds it, and the game hears it through the correction.applied event.
	Deferred bool `json:"deferred,omitempty"`
}

// CorrectedSide is a player's outcome before or after a correction.
type CorrectedSide struct {
	Rank      int          `json:"rank"` // 0: off the board (removed)
	Score     int64        `json:"score"`
	Zone      string       `json:"zone,omitempty"`
	TierAfter string       `json:"tier_after"`
	Move      Move         `json:"move"`
	Rewards   []tiers.Item `json:"rewards,omitempty"`
	// DecidedRank is the rank the outcome was decided at when not Rank: on
	// a board merged with another (min_board_size), the merged rank, which
	// its reward records.
	DecidedRank int `json:"decided_rank,omitempty"`
}

// Reranked reports a reward kept as it was but earned at another rank
// now (within its band): its record changes, not what it pays.
func (c CorrectionChange) Reranked() bool {
	return !c.Revoked && !c.Granted && c.After.Rewards != nil && c.Before.RewardRank() != c.After.RewardRank()
}

// RewardRank is the rank a reward of this outcome records.
func (s CorrectedSide) RewardRank() int {
	if s.DecidedRank != 0 {
		return s.DecidedRank
	}
	return s.Rank
}

// RecordedOutcome is a player's outcome as the store recorded it, with
// the reward it earned (nil: none) and whether a join delivered it.
type RecordedOutcome struct {
	Outcome
	Reward  *EarnedReward
	Claimed bool
}

// CorrectionStore keeps corrections (postgres.Store).
type CorrectionStore interface {
	// Settlement returns the recorded settlement of a period, or NotFound.
	Settlement(ctx context.Context, league string, period time.Time) (Settlement, error)
	// WriteCorrection records c unless its key (league, period, player,
	// action) is recorded already, in one transaction: it reads the board
	// the player played in the period (NotFound when the player has no
	// outcome there), passes its recorded outcomes (rank order) to decide
	// with those of the boards of its tier a merge may decide with it or
	// without it (its tier's or cohort's last two boards; with cohorts,
	// every cohort's and the shared boards'), itself left out,
	// and writes the changes decide returns (outcomes, standings, rewards
	// and revocations, the settlement's counts, events) with c in
	// CorrectionWritten, or CorrectionApplied when nothing needs Redis.
	// fresh is false when c was recorded before: the recorded one is
	// returned and nothing is written.
	WriteCorrection(ctx context.Context, c Correction, decide func(board []RecordedOutcome, others [][]RecordedOutcome) ([]CorrectionChange, error)) (got Correction, fresh bool, err error)
	// CorrectionApplied moves a written correction to CorrectionApplied,
	// with its changes as Redis carried them (Claimed, Deferred).
	CorrectionApplied(ctx context.Context, c Correction) error
	// PendingCorrections returns a league's corrections still
	// CorrectionWritten, oldest first: those whose run died after the
	// commit.
	PendingCorrections(ctx context.Context, league string) ([]Correction, error)
	// Corrections returns a league's corrections of a period, oldest
	// first, with their changes as last recorded.
	Corrections(ctx context.Context, league string, period time.Time) ([]Correction, error)
}

// ResumeCorrections finishes the league's corrections whose run died
// between the store's commit and Redis (the scheduler calls it every few
// seconds), and returns how many it finished. Running one again is what
// resuming is: the store finds it recorded and Redis's step is safe to
// repeat.
func (e *Engine) ResumeCorrections(ctx context.Context, store CorrectionStore, leagueID string) (int, error) {
	pending, err := store.PendingCorrections(ctx, leagueID)
	if err != nil {
		return 0, err
	}
	for i, c := range pending {
		if _, err := e.Correct(ctx, store, c.CorrectionRequest); err != nil {
			return i, err
		}
	}
	return len(pending), nil
}

// Correct runs (or resumes) a correction of a settled period: refused with
// a Conflict while the period runs or its settlement is not done, NotFound
// for a period never settled or a player without an outcome in it.
func (e *Engine) Correct(ctx context.Context, store CorrectionStore, req CorrectionRequest) (Correction, error) {
	lv, err := e.live(req.League)
	if err != nil {
		return Correction{}, err
	}
	switch {
	case req.Player == "":
		return Correction{}, fieldError("player_id", "must not be empty")
	case req.Action != CorrectZero && req.Action != CorrectRemove:
		return Correction{}, fieldError("action", "%q is not %s or %s", req.Action, CorrectZero, CorrectRemove)
	case req.Actor == "":
		return Correction{}, fieldError("actor", "must not be empty")
	case req.Period.IsZero():
		return Correction{}, fieldError("period", "must be given: the settled period to correct")
	}
	if err := checkText("reason", req.Reason, MaxReasonLen, true); err != nil {
		return Correction{}, err
	}
	p, err := lv.Schedule.Containing(req.Period)
	if err != nil {
		return Correction{}, Errorf(NotFound, "league %q has no period %s", lv.ID, Period{Start: req.Period}.ID())
	}
	if p.End.After(e.now()) {
		return Correction{}, Errorf(Conflict, "league %q period %s is still running (it ends %s): moderate it instead, or correct it once settled",
			lv.ID, p.ID(), p.End.Format(time.RFC3339))
	}
	set, err := store.Settlement(ctx, lv.ID, p.Start)
	if ErrorCode(err) == NotFound {
		return Correction{}, Errorf(NotFound, "league %q period %s was never settled: there is nothing to correct", lv.ID, p.ID())
	}
	if err != nil {
		return Correction{}, err
	}
	if set.Status != StatusDone {
		return Correction{}, Errorf(Conflict, "the settlement of league %q period %s is %s, not done: correct it once settled",
			lv.ID, p.ID(), set.Status)
	}
	ladder, err := e.correctionLadder(ctx, lv, set)
	if err != nil {
		return Correction{}, err
	}
	req.League, req.Period = lv.ID, p.Start
	c, _, err := store.WriteCorrection(ctx, Correction{CorrectionRequest: req, Status: CorrectionWritten},
		func(board []RecordedOutcome, others [][]RecordedOutcome) ([]CorrectionChange, error) {
			return Redecide(ladder, board, others, req.Player, req.Action)
		})
	if err != nil {
		return Correction{}, err
	}
	if c.Status == CorrectionApplied {
		return c, nil
	}
	if err := e.correctionStep("apply"); err != nil {
		return c, err
	}
	if err := e.applyCorrection(ctx, lv, p, c.Changes); err != nil {
		return c, err
	}
	if err := e.correctionStep("applied"); err != nil {
		return c, err
	}
	if err := store.CorrectionApplied(ctx, c); err != nil {
		return c, err
	}
	c.Status = CorrectionApplied
	return c, nil
}

// correctionLadder is the ladder a correction re-decides a settled period
// under: the rules its settlement recorded in the store (as verify reads
// them), which no config change since can alter; for a period settled
// before the store kept them, the rules Redis recorded for it, or the
// configured ones once Redis's retention has dropped the period.
func (e *Engine) correctionLadder(ctx context.Context, lv *live, set Settlement) (*tiers.Ladder, error) {
	if set.Rules == "" {
		return e.periodLadder(ctx, lv, set.Period.Unix())
	}
	ladder, _, err := VerifyLadder(set, lv.Ladder)
	return ladder, err
}

// WithCorrectionFault makes a correction end at a step after the store's
// commit when fn returns an error, as a crash there would ("apply": before
// Redis, "applied": before recording that Redis has it): tests use it to
// check that a run after it finishes the correction once.
func WithCorrectionFault(fn func(step string) error) Option {
	return func(e *Engine) { e.correctionFault = fn }
}

func (e *Engine) correctionStep(step string) error {
	if e.correctionFault == nil {
		return nil
	}
	return e.correctionFault(step)
}

// applyCorrection makes a written correction's new tiers and rewards
// visible to joins (correct.lua, one call: a board's players), and marks
// in changes what Redis could not carry (Deferred) and rewards a join had
// delivered already (Claimed). Safe to repeat.
func (e *Engine) applyCorrection(ctx context.Context, lv *live, p Period, changes []CorrectionChange) error {
	var todo []int
	for i, c := range changes {
		if c.Before.TierAfter != c.After.TierAfter || c.Revoked || c.Granted || c.Reranked() {
			todo = append(todo, i)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	ks := []string{lv.keys.meta()}
	args := []any{p.Start.Unix(), lv.epoch}
	for _, i := range todo {
		c := &changes[i]
		ks = append(ks, lv.keys.record(c.Player), lv.keys.reward(c.Player))
		next, reward := "", ""
		if c.Before.TierAfter != c.After.TierAfter {
			idx, ok := lv.Ladder.Index(c.After.TierAfter)
			if !ok {
				return Errorf(Unavailable, "league %q: a correction moves %q to tier %q, which this process's config lacks", lv.ID, c.Player, c.After.TierAfter)
			}
			next = strconv.Itoa(lv.code[idx])
		}
		switch {
		case c.Granted || c.Reranked():
			js, _ := json.Marshal(Reward{Tier: c.Tier, Rank: c.After.RewardRank(), Items: c.After.Rewards})
			reward = string(js)
		case c.Revoked:
			reward = "-"
		}
		args = append(args, c.Player, next, reward)
	}
	reply, err := e.run.RunAlone(ctx, scripts.Correct, ks, args...).Result()
	if err != nil {
		return internal("apply correction", err)
	}
	flags, ok := reply.([]any)
	if !ok {
		return lv.lostError() // -1: the league's epoch changed
	}
	for j, i := range todo {
		f, _ := flags[j].(int64)
		c := &changes[i]
		if f&1 != 0 || f&4 != 0 {
			c.Deferred = true
		}
		if f&2 != 0 && c.Revoked {
			c.Claimed = true
		}
	}
	return nil
}
