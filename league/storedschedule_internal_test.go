package league

import (
	"context"
	"strings"
	"testing"

	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/tiers"
)

// TestRerecordScheduleLosesToAnotherProcess: two processes start at once on
// a league an older version recorded without a zone; the one that records
// its zone first wins, and the other must then match it.
func TestRerecordScheduleLosesToAnotherProcess(t *testing.T) {
	for _, b := range testsvc.Backends {
		t.Run(b.Name, func(t *testing.T) {
			ctx := context.Background()
			ns := testsvc.Namespace(t)
			rdb := b.New(t, ns)
			s, err := ParseSchedule("CRON_TZ=Europe/London 0 0 * * *")
			testsvc.Must(t, err, "ParseSchedule")
			ladder, err := tiers.NewLadder([]tiers.Tier{{ID: "bronze"}, {ID: "silver", Demote: 2000}})
			testsvc.Must(t, err, "NewLadder")
			l := &League{ID: "daily", BoardSize: 10, Schedule: s, Ladder: ladder}
			testsvc.Must(t, l.Init(), "Init")
			e, err := Open(ctx, rdb, []*League{l}, WithNamespace(ns))
			testsvc.Must(t, err, "Open")
			lv := e.leagues["daily"]
			meta := lv.keys.meta()

			// was still there: replaced by the config's, with its zone
			testsvc.Must(t, rdb.HSet(ctx, meta, "schedule", "0 0 * * *").Err(), "HSET")
			testsvc.Must(t, e.rerecordSchedule(ctx, lv, "0 0 * * *"), "rerecord")
			if got := rdb.HGet(ctx, meta, "schedule").Val(); got != "CRON_TZ=Europe/London 0 0 * * *" {
				t.Fatalf("recorded %q", got)
			}
			// another process recorded UTC first: refused, its record kept
			testsvc.Must(t, rdb.HSet(ctx, meta, "schedule", "CRON_TZ=UTC 0 0 * * *").Err(), "HSET")
			if err := e.rerecordSchedule(ctx, lv, "0 0 * * *"); err == nil || !strings.Contains(err.Error(), "schedule changed") {
				t.Fatalf("rerecord after another process recorded UTC: %v, want refused", err)
			}
			if got := rdb.HGet(ctx, meta, "schedule").Val(); got != "CRON_TZ=UTC 0 0 * * *" {
				t.Fatalf("the other process's record replaced by %q", got)
			}
		})
	}
}

// TestHostZone: the hint names the host's zone as the tz database spells
// it, whichever way TZ gives it, and nothing for UTC or a file outside it.
func TestHostZone(t *testing.T) {
	for tz, want := range map[string]string{
		"Asia/Kolkata":                      "Asia/Kolkata",
		":Asia/Kolkata":                     "Asia/Kolkata",
		"/usr/share/zoneinfo/Asia/Kolkata":  "Asia/Kolkata",
		":/usr/share/zoneinfo/Asia/Kolkata": "Asia/Kolkata",
		"UTC":                               "",
		"/etc/my-zone":                      "",
	} {
		t.Setenv("TZ", tz)
		if got := hostZone(); got != want {
			t.Errorf("TZ=%s: hostZone() = %q, want %q", tz, got, want)
		}
	}
}
