package storetest

import (
	"testing"
	"time"

	"github.com/league-engine/league/league"
	"github.com/league-engine/league/tiers"
)

// claimOf is the claim a join in week n+1 makes of what p earned in week n.
func claimOf(lg, player string, n int, at time.Time) league.Claim {
	return league.Claim{League: lg, Player: player, Earned: week(n), Period: week(n + 1), At: at,
		Tier: "silver", Rank: 1, Items: []tiers.Item{{ID: "gold", Qty: 300}}}
}

func testRecordClaims(t *testing.T, s league.Store) {
	outcomes, rewards := field(100, "silver", "gold", "bronze")
	settle(t, s, "l", 0, outcomes, rewards)

	at := week(1).Add(90 * time.Minute)
	first := claimOf("l", "p00000", 0, at)
	must(t, s.RecordClaims(t.Context(), nil), "RecordClaims of nothing")
	// The recorder acknowledges after storing, so it may copy a claim twice,
	// even in one batch.
	must(t, s.RecordClaims(t.Context(), []league.Claim{first, first}), "RecordClaims")
	later := first
	later.At = at.Add(time.Hour)
	must(t, s.RecordClaims(t.Context(), []league.Claim{later}), "RecordClaims again")

	p, err := s.Profile(t.Context(), "l", "p00000", 0)
	must(t, err, "Profile")
	want := league.HistoryEntry{Period: week(0), TierBefore: "silver", TierAfter: "gold", Board: 1, Rank: 1,
		Score: outcomes[0].Score, Rewards: rewards[0].Items, ClaimedAt: at}
	wantEntry(t, p.History[0], want, "Profile of a claimed reward")

	p, err = s.Profile(t.Context(), "l", "p00001", 0)
	must(t, err, "Profile")
	if !p.History[0].ClaimedAt.IsZero() || p.History[0].Rewards == nil {
		t.Errorf("Profile of an unclaimed reward: got rewards %v claimed %v, want rewards, not claimed",
			p.History[0].Rewards, p.History[0].ClaimedAt)
	}
	p, err = s.Profile(t.Context(), "l", "p00050", 0)
	must(t, err, "Profile")
	if p.History[0].Rewards != nil || !p.History[0].ClaimedAt.IsZero() {
		t.Errorf("Profile of a rank that earned nothing: got rewards %v claimed %v, want none", p.History[0].Rewards, p.History[0].ClaimedAt)
	}
}

// A join may deliver rewards computed from the frozen board before
// settlement writes them: the claim is kept and shows once they are.
func testRecordClaimsBeforeReward(t *testing.T, s league.Store) {
	outcomes, rewards := field(100, "silver", "gold", "bronze")
	begin(t, s, "l", 0)
	at := week(1).Add(time.Minute)
	must(t, s.RecordClaims(t.Context(), []league.Claim{claimOf("l", "p00000", 0, at), claimOf("l", "p00001", 0, at)}),
		"RecordClaims before WriteOutcomes")

	settle(t, s, "l", 0, outcomes, rewards)
	for _, player := range []string{"p00000", "p00001"} {
		p, err := s.Profile(t.Context(), "l", player, 1)
		must(t, err, "Profile(%s)", player)
		if !p.History[0].ClaimedAt.Equal(at) {
			t.Errorf("Profile(%s): got claimed %v, want %v", player, p.History[0].ClaimedAt, at)
		}
	}
}
