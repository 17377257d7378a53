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
	PromoteCount    int    `json:"promote_count,omitempty"`
	DemoteCount     int    `json:"demote_count,omitempty"`
	PromoteAtLeast  int    `json:"promote_at_least,omitempty"`
	DemoteAtLeast   int    `json:"demote_at_least,omitempty"`
	AtLeastFrom     int    `json:"at_least_from,omitempty"`
	JumpTop         int    `json:"jump_top,omitempty"`
	JumpBy          int    `json:"jump_tiers,omitempty"`
	ProtectPromoted bool   `json:"protect_promoted,omitempty"`
	MinPromoteScore int64  `json:"min_promote_score,omitempty"`
	MinRewardScore  int64  `json:"min_reward_score,omitempty"`
	Rewards         []Band `json:"rewards,omitempty"`
	MinBoardSize    int    `json:"min_board_size,omitempty"`
}

// RulesJSON returns the ladder's rules (ids, ratios and counts, jumps,
// protection, minimum scores and rewards, lowest tier first) as JSON, the
// same for the same rules. A field left at 0 (or false) is left out, so rules recorded before it existed
// keep their fingerprint.
func (l *Ladder) RulesJSON() string {
	rs := make([]ruleTier, len(l.tiers))
	for i, t := range l.tiers {
		rs[i] = ruleTier{ID: t.ID, Promote: t.Promote, Demote: t.Demote, PromoteCount: t.PromoteCount, DemoteCount: t.DemoteCount,
			PromoteAtLeast: t.PromoteAtLeast, DemoteAtLeast: t.DemoteAtLeast, AtLeastFrom: t.AtLeastFrom,
			JumpTop: t.JumpTop, JumpBy: t.JumpBy, ProtectPromoted: t.ProtectPromoted,
			MinPromoteScore: t.MinPromoteScore, MinRewardScore: t.MinRewardScore, Rewards: t.Rewards, MinBoardSize: t.MinBoardSize}
	}
	b, _ := json.Marshal(rs) // plain fields: cannot fail
	return string(b)
}

// Fingerprint names the ladder's rules: 16 hex digits of their SHA-256.
func (l *Ladder) Fingerprint() string { return RulesFingerprint(l.RulesJSON()) }

// RulesFingerprint is the Fingerprint of the ladder whose RulesJSON is
// rules: what a reader of recorded rules checks them against.
func RulesFingerprint(rules string) string {
	sum := sha256.Sum256([]byte(rules))
	return hex.EncodeToString(sum[:8])
}

// FromRules rebuilds a ladder from its RulesJSON alone, in the recorded
// order, for a reader that has no configured ladder the rules fit (the
// config changed since, or is not at hand): it decides as the recorded
// ladder did, with the tiers' ids as their names.
func FromRules(rules string) (*Ladder, error) {
	var rs []ruleTier
	if err := json.Unmarshal([]byte(rules), &rs); err != nil {
		return nil, fmt.Errorf("tiers: recorded rules: %w", err)
	}
	ts := make([]Tier, len(rs))
	for i, r := range rs {
		ts[i] = Tier{ID: r.ID, Name: r.ID, Promote: r.Promote, Demote: r.Demote, PromoteCount: r.PromoteCount, DemoteCount: r.DemoteCount,
			PromoteAtLeast: r.PromoteAtLeast, DemoteAtLeast: r.DemoteAtLeast, AtLeastFrom: r.AtLeastFrom,
			JumpTop: r.JumpTop, JumpBy: r.JumpBy, ProtectPromoted: r.ProtectPromoted,
			MinPromoteScore: r.MinPromoteScore, MinRewardScore: r.MinRewardScore, Rewards: r.Rewards, MinBoardSize: r.MinBoardSize}
	}
	l, err := NewLadder(ts)
	if err != nil {
		return nil, fmt.Errorf("tiers: recorded rules: %w", err)
	}
	return l, nil
}

// Recorded rebuilds the ladder whose RulesJSON is rules, aligned with l: the
// same tiers at l's indexes (so an index means the same tier in both), each
// with the recorded rules of its id and moving players as the recorded
// ladder did, to its neighbours in the recorded order: rules recorded before
// a tier was inserted between bronze and silver still promote bronze to
// silver. A tier the recorded rules lack (added since) keeps l's rules and
// neighbours. It fails when the recorded rules move players into a tier l
// lacks.
func (l *Ladder) Recorded(rules string) (*Ladder, error) {
	var rs []ruleTier
	if err := json.Unmarshal([]byte(rules), &rs); err != nil {
		return nil, fmt.Errorf("tiers: recorded rules: %w", err)
	}
	at := make(map[string]int, len(rs)) // id -> position in the recorded order
	for k, r := range rs {
		at[r.ID] = k
	}
	// neighbour returns l's index of the recorded tier at position k, -1
	// when there is none, and an error when players would move into a tier
	// l lacks.
	neighbour := func(from ruleTier, k int, moves bool) (int, error) {
		if k < 0 || k >= len(rs) {
			return -1, nil
		}
		j, ok := l.index[rs[k].ID]
		switch {
		case ok:
			return j, nil
		case !moves:
			return -1, nil
		}
		return 0, fmt.Errorf("tiers: the recorded rules move players of %q into %q, a tier this config lacks", from.ID, rs[k].ID)
	}
	ts := l.Tiers()
	up, down := append([]int(nil), l.up...), append([]int(nil), l.down...)
	for i, t := range ts {
		k, ok := at[t.ID]
		if !ok {
			continue
		}
		r := rs[k]
		ts[i].Promote, ts[i].Demote, ts[i].Rewards = r.Promote, r.Demote, r.Rewards
		ts[i].MinPromoteScore, ts[i].MinRewardScore = r.MinPromoteScore, r.MinRewardScore
		ts[i].PromoteCount, ts[i].DemoteCount = r.PromoteCount, r.DemoteCount
		ts[i].PromoteAtLeast, ts[i].DemoteAtLeast, ts[i].AtLeastFrom = r.PromoteAtLeast, r.DemoteAtLeast, r.AtLeastFrom
		ts[i].JumpTop, ts[i].JumpBy, ts[i].ProtectPromoted = r.JumpTop, r.JumpBy, r.ProtectPromoted
		ts[i].MinBoardSize = r.MinBoardSize
		var err error
		if up[i], err = neighbour(r, k+1, r.Promote > 0 || r.PromoteCount > 0); err != nil {
			return nil, err
		}
		if down[i], err = neighbour(r, k-1, r.Demote > 0 || r.DemoteCount > 0); err != nil {
			return nil, err
		}
	}
	rec, err := newLadder(ts, up, down)
	if err != nil {
		return nil, fmt.Errorf("tiers: the recorded rules do not fit the configured tiers: %w", err)
	}
	return rec, nil
}
