package league

import (
	"fmt"
	"time"
)

// Join cutoff (issue #25): joins in the last JoinCutoff of a period go to
// the next one, so that a player who arrives minutes before the end does
// not land on a board they cannot climb, nor fill a slot of a board whose
// zones are all but decided. The reply says so (Placement.Upcoming) and
// when the period starts (Placement.Period.Start); players already in the
// running period stay in it (join.lua answers their placement there).

// joinTarget is the period a join at t places a player in, and the one
// before it: the period holding t or, in its last JoinCutoff, the next.
func (e *Engine) joinTarget(lv *live, t time.Time) (Period, Period) {
	p, prev := e.periodAt(lv, t)
	if lv.JoinCutoff <= 0 || t.Before(p.End.Add(-lv.JoinCutoff)) {
		return p, prev
	}
	return lv.Schedule.Following(p), p
}

// checkJoinCutoff refuses a cutoff that would leave a period of the
// schedule (among the next hundred) without half its time open to joins.
func (l *League) checkJoinCutoff() error {
	if l.JoinCutoff == 0 {
		return nil
	}
	if l.JoinCutoff < time.Second {
		return fmt.Errorf("join_cutoff: %v is shorter than 1s (0: none)", l.JoinCutoff)
	}
	p := l.Schedule.At(time.Now())
	for range 100 {
		if 2*l.JoinCutoff > p.End.Sub(p.Start) {
			return fmt.Errorf("join_cutoff: %v is more than half of the period %s (%v long): joins would be sent on most of it",
				l.JoinCutoff, p.ID(), p.End.Sub(p.Start))
		}
		p = l.Schedule.Following(p)
	}
	return nil
}
