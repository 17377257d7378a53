package scheduler

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/league-engine/league/league"
	"github.com/league-engine/league/tiers"
)

// The settle pipeline. Each period's settlement is a state machine recorded
// in the Store (started -> written -> applied -> done); every step is safe to
// run again, so a process killed at any point leaves work the next run (here
// or on another replica) completes:
//
//	started  close the period in Redis (boards freeze), read every board,
//	         decide outcomes with tiers.Ladder.Settle, write outcomes, rewards
//	         and standings in one Store transaction          -> written
//	written  read the frozen boards again if this run did not, apply new tiers
//	         and rewards to Redis, mark the period settled   -> applied
//	applied  set the period's keys to expire after retention -> done
//	done     drop the period from those Redis lists as waiting for settlement
//
// The lease (Store.Lock) keeps two replicas from settling one period at once;
// if its holder dies, the lease dies with its connection. Not always its
// work: a holder whose lock connection Postgres dropped works on unaware,
// and a dead holder's statement in flight may still commit. Every step is
// guarded by the status it moves from, so the second to arrive is refused
// (league.ErrOvertaken) and nothing is done twice.

// ErrBusy means another process holds the lease on the period.
var ErrBusy = league.Errorf(league.Conflict, "another process is settling this period")

// Step names, for faults, logs and metrics.
const (
	StepClose = "close"
	StepRead  = "read"
	StepWrite = "write"
	StepApply = "apply"
	StepMark  = "mark"
	StepDone  = "done"
)

// result is what reading and deciding a period produced.
type result struct {
	rows    []league.Outcome
	rewards []league.EarnedReward
	moves   []tiers.Outcome // players who move or earn rewards: what Redis needs
	counts  []league.TierCount
	// rules (and their fingerprint) the period was decided under, kept with
	// the outcomes so that leaguectl settlement verify needs only Postgres
	rules, rulesFP string
}

// settle runs (or resumes) the settlement of period p of league l.
func (s *Scheduler) settle(ctx context.Context, l *league.League, p league.Period) (league.Settlement, error) {
	release, ok, err := s.store.Lock(ctx, l.ID, p.Start)
	if err != nil {
		return league.Settlement{}, err
	}
	if !ok {
		return league.Settlement{}, ErrBusy
	}
	defer release()
	defer s.status.leased(l.ID, p)()

	begun := time.Now()
	st, err := s.store.BeginSettlement(ctx, league.Settlement{
		League: l.ID, Period: p.Start, PeriodEnd: p.End, StartedAt: begun.UTC(),
	})
	if err != nil {
		return st, err
	}
	if st.Status == league.StatusDone {
		// A run may have reached done and died before forgetting the period.
		return st, s.engine.Forget(ctx, l.ID, p)
	}
	s.log.Info("settling", "league", l.ID, "period", p.ID(), "status", st.Status)

	pop, err := s.engine.Close(ctx, l.ID, p)
	if err != nil {
		return st, err
	}
	if err := s.fault(StepClose); err != nil {
		return st, err
	}
	s.progress(Progress{League: l.ID, Period: p, Step: StepClose, Total: pop.Players()})

	var res *result
	if st.Status == league.StatusStarted {
		if res, err = s.decide(ctx, l, p, pop); err != nil {
			return st, err
		}
		st.Players, st.Tiers, st.Rules, st.RulesFP = pop.Players(), res.counts, res.rules, res.rulesFP
		if err := s.fault(StepWrite); err != nil {
			return st, err
		}
		if err := s.store.WriteOutcomes(ctx, st, res.rows, res.rewards); err != nil {
			return st, fmt.Errorf("write outcomes: %w", err)
		}
		st.Status = league.StatusWritten
		s.progress(Progress{League: l.ID, Period: p, Step: StepWrite, Done: len(res.rows), Total: len(res.rows)})
	}
	if err := s.stopping(StepWrite); err != nil {
		return st, err
	}

	if st.Status == league.StatusWritten {
		if res == nil { // resumed: the boards are frozen, so deciding again gives the same outcomes
			if res, err = s.decide(ctx, l, p, pop); err != nil {
				return st, err
			}
		}
		if err := s.fault(StepApply); err != nil {
			return st, err
		}
		if err := s.engine.Apply(ctx, l.ID, p, res.moves); err != nil {
			return st, err
		}
		if err := s.fault(StepMark); err != nil {
			return st, err
		}
		if err := s.engine.MarkSettled(ctx, l.ID, p); err != nil {
			return st, err
		}
		if err := s.store.Advance(ctx, l.ID, p.Start, league.StatusWritten, league.StatusApplied); err != nil {
			return st, err
		}
		st.Status = league.StatusApplied
		s.progress(Progress{League: l.ID, Period: p, Step: StepApply, Done: len(res.moves), Total: len(res.moves)})
	}

	if st.Status == league.StatusApplied {
		if err := s.fault(StepDone); err != nil {
			return st, err
		}
		if err := s.engine.Expire(ctx, l.ID, p, pop); err != nil {
			return st, err
		}
		if err := s.store.Advance(ctx, l.ID, p.Start, league.StatusApplied, league.StatusDone); err != nil {
			return st, err
		}
	}
	if err := s.engine.Forget(ctx, l.ID, p); err != nil {
		return st, err
	}
	st, err = s.store.Settlement(ctx, l.ID, p.Start)
	if err == nil {
		s.status.settled(l.ID, p)
		s.metrics.settled(l.ID, st.Players, time.Since(begun))
		s.log.Info("settled", "league", l.ID, "period", p.ID(), "players", st.Players, "took", time.Since(begun).Round(time.Millisecond))
	}
	return st, err
}

// decide reads every frozen board of the period and decides each player's
// outcome (league.Engine.Decide, which previews decide with too), keeping
// what the store and Redis need.
func (s *Scheduler) decide(ctx context.Context, l *league.League, p league.Period, pop league.Populations) (*result, error) {
	total := pop.Players()
	res := &result{rows: make([]league.Outcome, 0, total)}
	counts, err := s.engine.Decide(ctx, l.ID, p, pop, func(b league.DecidedBoard) error {
		for k, o := range b.Outcomes {
			res.rows = append(res.rows, b.Row(k))
			if r, ok := b.Reward(k); ok {
				res.rewards = append(res.rewards, r)
			}
			if o.TierAfter != o.TierBefore || o.Rewards != nil {
				res.moves = append(res.moves, o)
			}
		}
		if len(res.rows)%100000 < len(b.Outcomes) {
			s.progress(Progress{League: l.ID, Period: p, Step: StepRead, Done: len(res.rows), Total: total})
		}
		return s.fault(StepRead)
	})
	if err != nil {
		return nil, err
	}
	res.counts = counts
	// Recorded by Close before the boards were read, so Decide used these.
	if res.rules, res.rulesFP, err = s.engine.PeriodRules(ctx, l.ID, p); err != nil {
		return nil, err
	}
	return res, nil
}

// stopping ends a settlement at a safe point (between steps) once Stop was
// called; the next run resumes from the recorded status.
func (s *Scheduler) stopping(step string) error {
	select {
	case <-s.quit:
		return fmt.Errorf("stopped after %s: %w", step, errStopped)
	default:
		return nil
	}
}

var errStopped = errors.New("scheduler stopping")
