package league

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/tiers"
)

// TestScoreArgsAsBuiltInFull: a write's KEYS and ARGV, made from the
// period's scoreFixed, are those scoreArgv and the keys build for it in
// full, for plain and guarded leagues, with and without a request id and
// a rank, and again after the period changed.
func TestScoreArgsAsBuiltInFull(t *testing.T) {
	ctx := context.Background()
	ns := testsvc.Namespace(t)
	rdb, _ := testsvc.Mini(t)
	s, err := ParseSchedule("0 0 * * MON")
	testsvc.Must(t, err, "ParseSchedule")
	ladder, err := tiers.NewLadder([]tiers.Tier{{ID: "bronze", Promote: 2000}, {ID: "silver", Demote: 2000}})
	testsvc.Must(t, err, "NewLadder")
	plain := &League{ID: "plain", BoardSize: 10, Schedule: s, Ladder: ladder}
	guarded := &League{ID: "guarded", BoardSize: 10, Schedule: s, Ladder: ladder, MaxGain: 50, Hold: true, MaxAttempts: 9,
		Limits: []Limit{{By: []LimitBy{ByPlayer}, Per: PerMinute, Max: 5}}}
	for _, l := range []*League{plain, guarded} {
		testsvc.Must(t, l.Init(), "Init %s", l.ID)
	}
	// A clock that stands still: the limits' windows and the clock's
	// argument are the same for both builds of a write.
	now := time.Date(2026, 11, 18, 12, 0, 0, 0, time.UTC)
	e, err := Open(ctx, rdb, []*League{plain, guarded}, WithNamespace(ns), WithClock(func() time.Time { return now }))
	testsvc.Must(t, err, "Open")

	// full is scoreArgs as it was built before scoreFixed: every argument anew.
	full := func(lv *live, p, prev Period, w ScoreWrite) ([]string, []any) {
		k := lv.keys
		ks := []string{k.counters(p.Start.Unix()), k.record(w.Player), k.meta()}
		withID, attempts, hold, caps, noRank := "", "", "", "", ""
		if w.RequestID != "" {
			ks, withID = append(ks, k.request(w.Scope, w.RequestID)), "1"
		}
		if lv.MaxAttempts > 0 {
			ks, attempts = append(ks, k.attempts(p.Start.Unix())), fmt.Sprint(lv.MaxAttempts)
		}
		if lv.Hold {
			ks, hold, caps = append(ks, k.held(p.Start.Unix())), "hold", lv.caps
		}
		if w.NoRank {
			noRank = "1"
		}
		args := append(e.scoreArgv(lv, p, prev, w.Player, w.Value, lv.maxGainArg(), attempts, withID, hold, caps), noRank)
		if len(lv.guards) == 0 {
			return ks, append(args, 0)
		}
		return lv.limitArgs(k, p, e.now(), w, ks, args)
	}
	for _, id := range []string{"plain", "guarded"} {
		lv := e.leagues[id]
		p, prev := e.current(lv)
		next, _ := lv.periodOf(p.End.Unix())
		for _, pp := range [][2]Period{{p, prev}, {next, p}, {p, prev}} {
			for _, w := range []ScoreWrite{
				{Player: "ann", Value: 7},
				{Player: "bob", Value: 1 << 40, RequestID: "r1", Scope: "eu"},
				{Player: "cy", Value: 3, NoRank: true},
				{Player: "dee", Value: 300, RequestID: "r2", NoRank: true},
			} {
				gotK, gotA := e.scoreArgs(lv, pp[0], pp[1], w)
				wantK, wantA := full(lv, pp[0], pp[1], w)
				if fmt.Sprintf("%q %#v", gotK, gotA) != fmt.Sprintf("%q %#v", wantK, wantA) {
					t.Errorf("%s, period %s, %+v:\ngot  %q %#v\nwant %q %#v", id, pp[0].ID(), w, gotK, gotA, wantK, wantA)
				}
			}
		}
	}
}
