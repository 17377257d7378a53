package tiers

import (
	"strings"
	"testing"
)

// protectedLadder: silver keeps the players promoted into it, gold does not.
func protectedLadder(tb testing.TB) *Ladder {
	return mustLadder(tb,
		Tier{ID: "bronze", Promote: 2000},
		Tier{ID: "silver", Promote: 2000, Demote: 2000, ProtectPromoted: true},
		Tier{ID: "gold", Demote: 2000},
	)
}

// TestProtectPromoted: in a tier that protects, a promoted player in the
// demotion ranks stays (and says so); a player not promoted there, and a
// promoted one in a tier without protection, is demoted; the other ranks
// and the zones' sizes do not change.
func TestProtectPromoted(t *testing.T) {
	l := protectedLadder(t)
	board := make([]Standing, 10) // 2 promoted, 2 demoted
	for k := range board {
		board[k] = Standing{Player: string(rune('a' + k)), Rank: k + 1, Score: int64(100 - k)}
	}
	board[0].Promoted = true // promoted players in the promotion zone still climb
	board[5].Promoted = true // and in the middle stay as anyone does
	board[9].Promoted = true // the last: kept
	tests := []struct {
		tier      int
		wantZones string // per rank: p promote, s stay, d demote
		wantAfter []int
		protected int // the rank kept by protection, 0 for none
	}{
		{1, "ppssssssds", []int{2, 2, 1, 1, 1, 1, 1, 1, 0, 1}, 10},
		{2, "ssssssssdd", []int{2, 2, 2, 2, 2, 2, 2, 2, 1, 1}, 0}, // gold does not protect
	}
	for _, tt := range tests {
		t.Run(l.Tier(tt.tier).ID, func(t *testing.T) {
			for k, o := range l.Settle(tt.tier, board) {
				if got := o.Zone.String()[:1]; got != tt.wantZones[k:k+1] {
					t.Errorf("rank %d: zone %s, want %s", o.Rank, o.Zone, tt.wantZones[k:k+1])
				}
				if o.TierAfter != tt.wantAfter[k] {
					t.Errorf("rank %d: to tier %d, want %d", o.Rank, o.TierAfter, tt.wantAfter[k])
				}
				if want := o.Rank == tt.protected; o.Protected != want {
					t.Errorf("rank %d: protected %v, want %v", o.Rank, o.Protected, want)
				}
			}
		})
	}
	// Protect alone, as the live engine asks it.
	for _, c := range []struct {
		tier     int
		z        Zone
		promoted bool
		want     Zone
	}{
		{1, Demote, true, Stay}, {1, Demote, false, Demote}, {1, Promote, true, Promote}, {1, Stay, true, Stay},
		{2, Demote, true, Demote}, {0, Stay, true, Stay},
	} {
		if got := l.Protect(c.tier, c.z, c.promoted); got != c.want {
			t.Errorf("Protect(%s, %s, promoted %v) = %s, want %s", l.Tier(c.tier).ID, c.z, c.promoted, got, c.want)
		}
	}
	if !l.Protects(1) || l.Protects(0) || l.Protects(2) {
		t.Errorf("Protects: bronze %v silver %v gold %v, want only silver", l.Protects(0), l.Protects(1), l.Protects(2))
	}
}

// TestProtectOnTheBottomTier: refused, naming the tier and the field.
func TestProtectOnTheBottomTier(t *testing.T) {
	_, err := NewLadder([]Tier{{ID: "bronze", Promote: 2000, ProtectPromoted: true}, {ID: "silver", Demote: 2000}})
	if err == nil || !strings.Contains(err.Error(), "tiers[0] (bronze).protect_promoted: on the bottom tier") {
		t.Errorf("protection on the bottom tier: got %v", err)
	}
	_, err = NewLadder([]Tier{{ID: "bronze", Promote: 2000}, {ID: "silver", ProtectPromoted: true}})
	if err == nil || !strings.Contains(err.Error(), "tiers[1] (silver).protect_promoted: on a tier that demotes nobody") {
		t.Errorf("protection on a tier that demotes nobody: got %v", err)
	}
	// The top tier may protect: players are promoted into it.
	if _, err := NewLadder([]Tier{{ID: "bronze", Promote: 2000}, {ID: "silver", Demote: 2000, ProtectPromoted: true}}); err != nil {
		t.Errorf("protection on the top tier: %v", err)
	}
}

// TestProtectRecorded: the rule is part of the recorded rules (another
// fingerprint, rebuilt by Recorded and FromRules), and rules recorded
// before it existed keep their text and fingerprint and protect nobody.
func TestProtectRecorded(t *testing.T) {
	l := protectedLadder(t)
	if !strings.Contains(l.RulesJSON(), `"id":"silver","promote":2000,"demote":2000,"protect_promoted":true`) {
		t.Errorf("rules JSON lacks protect_promoted: %s", l.RulesJSON())
	}
	plain := l.Tiers()
	plain[1].ProtectPromoted = false
	old := mustLadder(t, plain...)
	if strings.Contains(old.RulesJSON(), "protect") || old.Fingerprint() == l.Fingerprint() {
		t.Errorf("rules without protection: %s (fingerprint %s, with it %s)", old.RulesJSON(), old.Fingerprint(), l.Fingerprint())
	}
	rec, err := old.Recorded(l.RulesJSON())
	if err != nil || !rec.Protects(1) {
		t.Errorf("recorded rules with protection laid on a config without it: protects %v, %v", err == nil && rec.Protects(1), err)
	}
	rec, err = l.Recorded(old.RulesJSON())
	if err != nil || rec.Protects(1) {
		t.Errorf("rules recorded before protection laid on a config with it: protects %v, %v", err == nil && rec.Protects(1), err)
	}
	from, err := FromRules(l.RulesJSON())
	if err != nil || !from.Protects(1) || from.Fingerprint() != l.Fingerprint() {
		t.Errorf("FromRules: %v", err)
	}
}
