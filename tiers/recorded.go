package tiers

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
)

// A period's outcomes must be decided under one set of rules, whoever
// decides them: the settler, or a join that decides a player's outcome
// early from the frozen board. Replicas mid-way through a rolling config
// change may hold different ladders, so the live engine records, with each
// period, the rules its first decision used (RulesJSON, Fingerprint) and
// every later decision of that period rebuilds them (Recorded).

// ruleTier is what of a tier decides outcomes: not its display name.
type ruleTier struct {
	ID              string `json:"id"`
	Promote         Ratio  `json:"promote"`
	Demote          Ratio  `json:"demote"`
	MinPromoteScore int64  `json:"min_promote_score,omitempty"`
	Rewards         []Band `json:"rewards,omitempty"`
}

// RulesJSON returns the ladder's rules (ids, ratios, minimum scores and
// rewards, lowest tier first) as JSON, the same for the same rules.
func (l *Ladder) RulesJSON() string {
	rs := make([]ruleTier, len(l.tiers))
	for i, t := range l.tiers {
		rs[i] = ruleTier{ID: t.ID, Promote: t.Promote, Demote: t.Demote, MinPromoteScore: t.MinPromoteScore, Rewards: t.Rewards}
	}
	b, _ := json.Marshal(rs) // plain fields: cannot fail
	return string(b)
}

// Fingerprint names the ladder's rules: 16 hex digits of their SHA-256.
func (l *Ladder) Fingerprint() string {
	sum := sha256.Sum256([]byte(l.RulesJSON()))
	return hex.EncodeToString(sum[:8])
}

// Recorded rebuilds the ladder whose RulesJSON is rules, aligned with l:
// the same tiers in l's order (so tier indexes mean the same in both), each
// with the recorded rules of its id; a tier the recorded rules lack keeps
// l's rules (nobody played a tier added since). It fails when the recorded
// rules cannot be laid on l's tiers, e.g. when they promote out of what is
// l's top tier.
func (l *Ladder) Recorded(rules string) (*Ladder, error) {
	var rs []ruleTier
	if err := json.Unmarshal([]byte(rules), &rs); err != nil {
		return nil, fmt.Errorf("tiers: recorded rules: %w", err)
	}
	byID := make(map[string]ruleTier, len(rs))
	for _, r := range rs {
		byID[r.ID] = r
	}
	ts := l.Tiers()
	for i, t := range ts {
		if r, ok := byID[t.ID]; ok {
			ts[i].Promote, ts[i].Demote, ts[i].MinPromoteScore, ts[i].Rewards = r.Promote, r.Demote, r.MinPromoteScore, r.Rewards
		}
	}
	rec, err := NewLadder(ts)
	if err != nil {
		return nil, fmt.Errorf("tiers: the recorded rules do not fit the configured tiers: %w", err)
	}
	return rec, nil
}
