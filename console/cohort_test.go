package console_test

import (
	"fmt"
	"net/http/httptest"
	"testing"

	"github.com/league-engine/league/console"
	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/league"
	"github.com/league-engine/league/tiers"
)

// TestCohortBoards: a league with cohorts lists each tier's shared boards
// and each cohort's, and a cohort's board links to the boards before and
// after it among that cohort's.
func TestCohortBoards(t *testing.T) {
	ladder, err := tiers.NewLadder([]tiers.Tier{{ID: "bronze", Name: "Bronze", Promote: 2000}, {ID: "silver", Name: "Silver", Demote: 2000}})
	testsvc.Must(t, err, "NewLadder")
	sched, err := league.ParseSchedule("0 0 * * MON")
	testsvc.Must(t, err, "ParseSchedule")
	l := &league.League{ID: "weekly", BoardSize: 10, Schedule: sched, Ladder: ladder, Cohorts: []string{"core"}}
	f := newFixtureOf(t, bothKeys, httptest.NewServer, l, func(*console.Config) {})
	cookie := f.signin(adminKey)
	for i := range 15 {
		c := "core"
		if i >= 12 {
			c = ""
		}
		_, err := f.engine.Join(f.ctx, "weekly", league.JoinRequest{Player: fmt.Sprintf("p%02d", i), Name: "n", Cohort: c})
		testsvc.Must(t, err, "Join")
	}
	rep := f.get("/console/leagues/weekly", cookie)
	wants(t, "the league page", rep.body, `<a href="/console/leagues/weekly/boards/bronze-1">bronze-1</a>`,
		`<span class="cohort">cohort core:</span>`, `<a href="/console/leagues/weekly/boards/bronze.core-2">bronze.core-2</a>`)
	wants(t, "board bronze.core-1", f.get("/console/leagues/weekly/boards/bronze.core-1", cookie).body,
		`href="/console/leagues/weekly/boards/bronze.core-2" rel="next"`)
	wants(t, "board bronze.core-2", f.get("/console/leagues/weekly/boards/bronze.core-2", cookie).body,
		`href="/console/leagues/weekly/boards/bronze.core-1" rel="prev"`, `p10`)
}
