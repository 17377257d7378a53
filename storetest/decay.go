package storetest

import (
	"reflect"
	"testing"
	"time"

	"github.com/league-engine/league/league"
)

// trailOf reads every trail entry of a player in s, which must be a
// league.TrailLog too.
func trailOf(t *testing.T, s league.Store, lg, player string) []league.TrailEntry {
	t.Helper()
	tl, ok := s.(league.TrailLog)
	if !ok {
		t.Fatalf("%T is not a league.TrailLog", s)
	}
	page, err := tl.Trail(t.Context(), league.TrailQuery{League: lg, Player: player, Limit: league.MaxAuditPage})
	must(t, err, "Trail")
	return page.Entries
}

func testRecordDecays(t *testing.T, s league.Store) {
	at := week(3).Add(time.Hour)
	d := league.Decay{League: "l", Player: "p1", Period: week(3), From: "gold", To: "silver", Absent: 2, At: at}
	must(t, s.RecordDecays(t.Context(), nil), "RecordDecays of nothing")
	// The recorder acknowledges after storing, so it may copy a decay
	// twice, even in one batch; the first copy stands.
	must(t, s.RecordDecays(t.Context(), []league.Decay{d, d}), "RecordDecays")
	again := d
	again.To, again.At = "bronze", at.Add(time.Hour)
	must(t, s.RecordDecays(t.Context(), []league.Decay{again}), "RecordDecays again")
	other := d
	other.League = "m"
	must(t, s.RecordDecays(t.Context(), []league.Decay{other}), "RecordDecays, another league")

	want := []league.TrailEntry{{Kind: league.TrailDecay, At: at, Period: week(3), Player: "p1", TierBefore: "gold", TierAfter: "silver",
		Move: league.Demoted, Absent: 2, Seq: week(3).Unix()}}
	if got := trailOf(t, s, "l", "p1"); !reflect.DeepEqual(got, want) {
		t.Fatalf("the trail of a decay recorded three times:\n got %+v\nwant %+v", got, want)
	}
}

func testRecordDecaysBadInput(t *testing.T, s league.Store) {
	good := league.Decay{League: "l", Player: "p1", Period: week(3), From: "gold", To: "silver", Absent: 1, At: week(3)}
	for name, bad := range map[string]func(*league.Decay){
		"no league":  func(d *league.Decay) { d.League = "" },
		"no player":  func(d *league.Decay) { d.Player = "" },
		"no tier":    func(d *league.Decay) { d.To = "" },
		"no period":  func(d *league.Decay) { d.Period = time.Time{} },
		"no absence": func(d *league.Decay) { d.Absent = 0 },
	} {
		d := good
		bad(&d)
		// the good one first: a refused batch writes none of it
		if err := s.RecordDecays(t.Context(), []league.Decay{good, d}); league.ErrorCode(err) != league.Invalid {
			t.Errorf("%s: %v, want Invalid", name, err)
		}
	}
	if got := trailOf(t, s, "l", "p1"); len(got) != 0 {
		t.Fatalf("refused batches left %+v", got)
	}
}
