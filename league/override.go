package league

import (
	"fmt"
	"slices"
	"time"

	"github.com/league-engine/league/tiers"
)

// Rule overrides: a period may be decided under other moves than the
// league's (a shortened season promotes fewer), scheduled ahead in the
// config. The override's ladder is the period's from its first decision:
// the live zones of the period, its early decisions at join, the preview
// and settlement all take it from ladderAt, and its rules are recorded in
// Redis like any ladder's (ladderFor), so a process whose config lacks the
// override still decides the period under it once recorded.

// checkOverrides refuses an override of a period the schedule does not
// start, a period given twice, or a ladder of other tiers.
func (l *League) checkOverrides() error {
	seen := map[time.Time]bool{}
	for i, o := range l.Overrides {
		if o.Ladder == nil {
			return fmt.Errorf("overrides[%d]: no rules", i)
		}
		if _, err := l.Schedule.Containing(o.Period); err != nil {
			return fmt.Errorf("overrides[%d].period: %v", i, err)
		}
		if seen[o.Period] {
			return fmt.Errorf("overrides[%d].period: %s is overridden twice", i, o.Period.UTC().Format(periodIDLayout))
		}
		seen[o.Period] = true
		if !slices.Equal(tierIDs(o.Ladder), tierIDs(l.Ladder)) {
			return fmt.Errorf("overrides[%d]: its tiers %v are not the league's %v", i, tierIDs(o.Ladder), tierIDs(l.Ladder))
		}
		for k := range o.Ladder.Len() {
			if t := o.Ladder.Tier(k); t.MinBoardSize > l.BoardSize {
				return fmt.Errorf("overrides[%d].tiers[%d] (%s).min_board_size: %d is over board_size %d", i, k, t.ID, t.MinBoardSize, l.BoardSize)
			}
		}
	}
	return nil
}

func tierIDs(ld *tiers.Ladder) []string {
	ids := make([]string, ld.Len())
	for i := range ids {
		ids[i] = ld.Tier(i).ID
	}
	return ids
}

// checkPassed refuses an override of a period that ended before the last
// one to end (which may still wait for its settlement): it can no longer
// apply, and a config that keeps it says something false.
func (l *League) checkPassed(now time.Time) error {
	last := l.Schedule.Preceding(l.Schedule.At(now))
	for i, o := range l.Overrides {
		if o.Period.Before(last.Start) {
			return fmt.Errorf("league %q: overrides[%d].period: %s has passed (periods settled since): remove it",
				l.ID, i, o.Period.UTC().Format(periodIDLayout))
		}
	}
	return nil
}

// ladderAt is the ladder the period starting at start is decided under by
// this config, and its fingerprint.
func (lv *live) ladderAt(start int64) (*tiers.Ladder, string) {
	if o, ok := lv.overrides[start]; ok {
		return o.Ladder, o.fp
	}
	return lv.Ladder, lv.rulesFP
}

type override struct {
	Ladder *tiers.Ladder
	fp     string
}
