package console_test

import (
	"fmt"
	"math/rand/v2"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/league-engine/league/console"
	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/league"
	"github.com/league-engine/league/tiers"
)

// demoWeeks is how many weeks the demo league has settled.
const demoWeeks = 6

// newDemo is the fixture of a league with a past: "weekly", three tiers
// (bronze, silver, gold) of boards of 20, ranks 1-3 rewarded, that
// settled demoWeeks weeks, more players joining each, before the current
// one (2026-11-16), where most have scored and two writes are held. The
// same seed every time, so the pages, and their screenshots, are too.
func newDemo(t *testing.T) *fixture {
	t.Helper()
	gems := func(n int64) []tiers.Item { return []tiers.Item{{ID: "gems", Qty: n}} }
	rw := []tiers.Band{{From: 1, To: 1, Items: gems(500)}, {From: 2, To: 3, Items: gems(200)}}
	ladder, err := tiers.NewLadder([]tiers.Tier{
		{ID: "bronze", Name: "Bronze", Promote: 2500, MinPromoteScore: 1, Rewards: rw},
		{ID: "silver", Name: "Silver", Promote: 2000, Demote: 2000, Rewards: rw},
		{ID: "gold", Name: "Gold", Demote: 2500, Rewards: rw},
	})
	testsvc.Must(t, err, "NewLadder")
	sched, err := league.ParseSchedule("0 0 * * MON")
	testsvc.Must(t, err, "ParseSchedule")
	l := &league.League{ID: "weekly", BoardSize: 20, Schedule: sched, Ladder: ladder, MaxScore: 10_000_000, MaxGain: 50_000, Hold: true}
	f := newFixtureOf(t, bothKeys, httptest.NewServer, l, func(*console.Config) {})

	settler := f.sched
	rng := rand.New(rand.NewPCG(23, 2026))
	first := monday.AddDate(0, 0, -7*demoWeeks)
	players := 0
	for week := 0; week <= demoWeeks; week++ {
		f.clock.Set(first.AddDate(0, 0, 7*week).Add(time.Hour))
		if week > 0 {
			_, err := settler.SettleNow(f.ctx, "weekly", time.Time{})
			testsvc.Must(t, err, "settling week %d", week)
		}
		players += 24 + rng.IntN(16)
		for i := range players {
			id := fmt.Sprintf("p%03d", i)
			_, err := f.engine.Join(f.ctx, "weekly", league.JoinRequest{Player: id, Name: demoName(i), Avatar: fmt.Sprintf("a%d", i%12)})
			testsvc.Must(t, err, "Join %s", id)
			if rng.IntN(10) < 8 {
				_, err := f.engine.Score(f.ctx, "weekly", league.ScoreWrite{Player: id, Value: int64(rng.IntN(42_000))})
				testsvc.Must(t, err, "Score %s", id)
			}
		}
	}
	_, err = settler.RecordClaims(f.ctx, "weekly") // as leagued's recorder does within seconds
	testsvc.Must(t, err, "RecordClaims")
	for _, p := range []string{"p003", "p011"} {
		res, err := f.engine.Score(f.ctx, "weekly", league.ScoreWrite{Player: p, Value: 1_250_000})
		testsvc.Must(t, err, "Score %s", p)
		if res.Held == nil {
			t.Fatalf("a write of 1,250,000 by %s was not held", p)
		}
	}
	return f
}

var demoNames = []string{"Ada", "Bao", "Chioma", "Dmitri", "Elif", "Farah", "Goran", "Hana", "Ines", "Jun", "Kofi", "Lena",
	"Mateo", "Nadia", "Omar", "Priya", "Quinn", "Rosa", "Sven", "Tariq", "Uma", "Viktor", "Wen", "Ximena", "Yusuf", "Zara"}

// demoName is player i's display name.
func demoName(i int) string {
	return fmt.Sprintf("%s %c.", demoNames[i%len(demoNames)], 'A'+rune(i/len(demoNames)%26))
}
