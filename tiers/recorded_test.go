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
	// Players move as the recorded ladder moved them, past the tier
	// inserted since; silver's own players move as l's do.
	for _, m := range []struct {
		from int
		z    Zone
		to   int
	}{{0, Promote, 2}, {2, Demote, 0}, {1, Promote, 2}, {1, Demote, 0}} {
		if got := rec.Next(m.from, m.z, 1); got != m.to {
			t.Errorf("recorded before silver: %s from %s goes to %s, want %s",
				m.z, rec.Tier(m.from).ID, rec.Tier(got).ID, rec.Tier(m.to).ID)
		}
	}
	// The other way round: rules recorded by a process that has silver,
	// laid on one that lacks it, would promote bronze into a tier it lacks.
	short := mustLadder(t, Tier{ID: "bronze", Promote: 1000}, Tier{ID: "gold", Demote: 1000})
	if _, err := short.Recorded(l.RulesJSON()); err == nil || !strings.Contains(err.Error(), `into "silver", a tier this config lacks`) {
		t.Errorf("rules moving players into a tier this config lacks: %v", err)
	}
	// Unless nobody moves into it: a tier removed empty, with no ratio
	// leading into it, is no obstacle.
	quiet := l.Tiers()
	quiet[0].Promote, quiet[2].Demote = 0, 0
	if rec, err := short.Recorded(mustLadder(t, quiet...).RulesJSON()); err != nil || rec.Next(0, Promote, 1) != 0 {
		t.Errorf("rules moving nobody into the missing tier: %v", err)
	}
	// Recorded with a tier above gold that the config dropped: gold would
	// promote into nothing.
	taller := mustLadder(t, Tier{ID: "bronze"}, Tier{ID: "gold", Promote: 1000}, Tier{ID: "master"})
	if _, err := l.Recorded(taller.RulesJSON()); err == nil || !strings.Contains(err.Error(), `into "master", a tier this config lacks`) {
		t.Errorf("rules promoting out of the top tier: %v", err)
	}
	// Tiers reordered since: moves follow the recorded order.
	reordered := mustLadder(t, Tier{ID: "gold", Promote: 1000}, Tier{ID: "bronze", Promote: 1000, Demote: 1000}, Tier{ID: "silver", Demote: 1000})
	rec, err = l.Recorded(reordered.RulesJSON())
	if err != nil {
		t.Fatal(err)
	}
	if rec.Next(2, Promote, 1) != 0 || rec.Next(0, Promote, 1) != 1 || rec.Next(0, Demote, 1) != 2 || rec.Next(1, Demote, 1) != 0 {
		t.Errorf("reordered rules: gold promotes to %d, bronze promotes to %d and demotes to %d, silver demotes to %d",
			rec.Next(2, Promote, 1), rec.Next(0, Promote, 1), rec.Next(0, Demote, 1), rec.Next(1, Demote, 1))
	}
	if _, err := l.Recorded("{"); err == nil {
		t.Errorf("broken JSON accepted")
	}
}

// TestFromRules rebuilds a ladder from its recorded rules alone: the same
// rules (fingerprint), deciding the same boards, and refuses rules that are
// no ladder.
func TestFromRules(t *testing.T) {
	l := threeTiers(t)
	rec, err := FromRules(l.RulesJSON())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := rec.Fingerprint(), l.Fingerprint(); got != want || RulesFingerprint(l.RulesJSON()) != want {
		t.Errorf("fingerprint: got %s, want %s", got, want)
	}
	board := make([]Standing, 20)
	for k := range board {
		board[k] = Standing{Player: string(rune('a' + k)), Rank: k + 1, Score: int64(100 - k)}
	}
	for i := range l.Len() {
		if got, want := rec.Settle(i, board), l.Settle(i, board); !reflect.DeepEqual(got, want) {
			t.Errorf("tier %d: got %+v, want %+v", i, got, want)
		}
	}
	for _, bad := range []string{"{", "[]", `[{"id":"a","promote":10000}]`} {
		if _, err := FromRules(bad); err == nil {
			t.Errorf("FromRules(%s): no error", bad)
		}
	}
}
