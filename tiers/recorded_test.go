package tiers

import (
	"reflect"
	"strings"
	"testing"
)

func TestRecordedRulesRoundTrip(t *testing.T) {
	l := threeTiers(t)
	renamed := l.Tiers()
	renamed[0].Name = "Bronze League"
	if got := mustLadder(t, renamed...); got.Fingerprint() != l.Fingerprint() {
		t.Errorf("a display name changed the fingerprint")
	}
	edited := l.Tiers()
	edited[0].Promote = 5000
	edited[0].Rewards = []Band{{From: 2, To: 10, Items: []Item{{"gems", 5}}}}
	other := mustLadder(t, edited...)
	if other.Fingerprint() == l.Fingerprint() {
		t.Fatalf("other ratios and rewards, the same fingerprint")
	}
	// l rebuilds other's rules from their JSON, tier for tier.
	rec, err := l.Recorded(other.RulesJSON())
	if err != nil {
		t.Fatal(err)
	}
	if rec.Fingerprint() != other.Fingerprint() || !reflect.DeepEqual(rec.Tiers(), other.Tiers()) {
		t.Errorf("recorded %+v, want %+v", rec.Tiers(), other.Tiers())
	}
}

func TestRecordedOnOtherTiers(t *testing.T) {
	l := threeTiers(t)
	// Recorded before silver existed: bronze and gold take the recorded
	// rules, silver keeps its own.
	old := mustLadder(t, Tier{ID: "bronze", Promote: 1000}, Tier{ID: "gold", Demote: 1000})
	rec, err := l.Recorded(old.RulesJSON())
	if err != nil {
		t.Fatal(err)
	}
	if rec.Tier(0).Promote != 1000 || rec.Tier(1).Promote != 1500 || rec.Tier(2).Demote != 1000 || rec.Len() != 3 {
		t.Errorf("recorded on three tiers: %+v", rec.Tiers())
	}
	// Recorded with a tier above gold that the config dropped: gold would
	// promote into nothing.
	taller := mustLadder(t, Tier{ID: "bronze"}, Tier{ID: "gold", Promote: 1000}, Tier{ID: "master"})
	if _, err := l.Recorded(taller.RulesJSON()); err == nil || !strings.Contains(err.Error(), "top tier") {
		t.Errorf("rules promoting out of the top tier: %v", err)
	}
	if _, err := l.Recorded("{"); err == nil {
		t.Errorf("broken JSON accepted")
	}
}
