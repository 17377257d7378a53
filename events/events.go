// Package events is what leagued tells other systems: the events of the
// outbox Postgres keeps (period closed, player promoted, demoted, stayed
// or decayed, reward granted or claimed, correction applied), read through the pull feed
// (GET /v1/admin/events) or pushed to webhooks by a Deliverer.
//
// An event is written in the transaction that does what it describes
// (postgres.Store's settlement write, its claims and decays), so it is in the
// outbox exactly once. Delivery is at least once: a receiver dedupes on the
// event's id, which never changes. To one webhook, the events of one player
// go out in the order they were written (a failing one holds that player's
// later events, not other players'); after a webhook's max_attempts an
// event is dead until an operator replays it (leaguectl events dead,
// leaguectl events replay).
package events

import (
	"encoding/json"
	"strconv"
	"time"
)

// Type names what happened.
type Type string

const (
	// PeriodClosed: a period was settled. Data: PeriodClosedData.
	PeriodClosed Type = "period.closed"
	// PlayerPromoted, PlayerDemoted and PlayerStayed: a player's outcome of
	// a settled period, one per player. Data: OutcomeData.
	PlayerPromoted Type = "player.promoted"
	PlayerDemoted  Type = "player.demoted"
	PlayerStayed   Type = "player.stayed"
	// RewardGranted: settlement granted a player a reward, which their next
	// join delivers (or the game, hearing this). Data: RewardData.
	RewardGranted Type = "reward.granted"
	// RewardClaimed: a join delivered a player's reward. Data: ClaimData.
	RewardClaimed Type = "reward.claimed"
	// CorrectionApplied: an operator's correction of a settled period
	// changed a player's outcome or reward, one per player it changed.
	// Data: CorrectionData.
	CorrectionApplied Type = "correction.applied"
	// PlayerDecayed: a player who sat out the league's decay_after periods
	// joined a lower tier. Its period is the one joined. Data: DecayData.
	PlayerDecayed Type = "player.decayed"
)

// Types lists every type, in the order a settlement writes them.
var Types = []Type{PeriodClosed, PlayerPromoted, PlayerDemoted, PlayerStayed, RewardGranted, RewardClaimed, CorrectionApplied,
	PlayerDecayed}

// Known reports whether t is one of Types.
func (t Type) Known() bool {
	for _, k := range Types {
		if t == k {
			return true
		}
	}
	return false
}

// Event is one event of the outbox.
type Event struct {
	// ID is the outbox's id: ids grow in the order events were written
	// (committed), and the feed's cursor is the last one read. Stable: a
	// redelivered event has the same id, which receivers dedupe on.
	ID     int64
	Type   Type
	League string
	// Period is the start of the period settled (the period the reward
	// was earned in, for rewards).
	Period time.Time
	Player string    // "" for PeriodClosed
	At     time.Time // when it was written
	// Data is the type's fields as a JSON object (PeriodClosedData,
	// OutcomeData, RewardData, ClaimData).
	Data json.RawMessage
}

// PeriodClosedData is the data of PeriodClosed.
type PeriodClosedData struct {
	PeriodEnd string      `json:"period_end"` // RFC 3339
	Players   int         `json:"players"`
	Tiers     []TierCount `json:"tiers"` // ladder order, lowest first
}

// TierCount is a tier's part of a settlement, as the settlement recorded
// it (league.TierCount's JSON, whatever counts it has).
type TierCount struct {
	Tier      string `json:"tier"`
	Players   int    `json:"players"`
	Promoted  int    `json:"promoted"`
	Demoted   int    `json:"demoted"`
	Rewarded  int    `json:"rewarded"`
	Moderated int    `json:"moderated,omitempty"` // where the settlement counts players taken off the boards
}

// OutcomeData is the data of the player.* types.
type OutcomeData struct {
	From  string `json:"from"`  // the tier played
	To    string `json:"to"`    // the tier settlement gave
	Board string `json:"board"` // the sub-board played, e.g. "gold-3"
	Rank  int    `json:"rank"`
	Score int64  `json:"score"`
}

// Item is a reward item (tiers.Item's JSON).
type Item struct {
	ID  string `json:"id"`
	Qty int64  `json:"qty"`
}

// RewardData is the data of RewardGranted.
type RewardData struct {
	Tier  string `json:"tier"` // the tier that earned it
	Rank  int    `json:"rank"`
	Items []Item `json:"items"`
}

// ClaimData is the data of RewardClaimed.
type ClaimData struct {
	RewardData
	ClaimedPeriod string `json:"claimed_period"` // the period whose join delivered it (its id), "" if unknown
	ClaimedAt     string `json:"claimed_at"`     // RFC 3339
}

// CorrectionData is the data of CorrectionApplied: the correction (the
// player corrected, zero or remove, why) and what it changed for the
// event's player (league.CorrectionChange's JSON). A revoked reward with
// claimed true was delivered already: the game decides what to do with it.
type CorrectionData struct {
	Corrected string          `json:"corrected"` // the player zeroed or removed
	Action    string          `json:"action"`    // zero, remove
	Reason    string          `json:"reason"`
	Change    json.RawMessage `json:"change"`
}

// DecayData is the data of PlayerDecayed.
type DecayData struct {
	From   string `json:"from"`   // the tier held
	To     string `json:"to"`     // the tier joined
	Absent int    `json:"absent"` // periods sat out
}

// PeriodID is the id of the period starting at start, as the API writes
// it (league.Period.ID).
func PeriodID(start time.Time) string { return start.UTC().Format("20060102T150405Z") }

// wire is an event as JSON: the feed's items and a webhook's body.
type wire struct {
	ID     int64           `json:"id"`
	Type   Type            `json:"type"`
	League string          `json:"league"`
	Period string          `json:"period"`
	Player *string         `json:"player_id"` // null for period.closed
	At     string          `json:"at"`
	Data   json.RawMessage `json:"data"`
}

// MarshalJSON writes the event as the feed and the webhooks send it:
//
//	{"id":42,"type":"player.promoted","league":"weekly","period":"20261116T000000Z",
//	 "player_id":"alice","at":"2026-11-23T00:00:01Z",
//	 "data":{"from":"bronze","to":"silver","board":"bronze-3","rank":1,"score":700}}
func (e Event) MarshalJSON() ([]byte, error) {
	w := wire{ID: e.ID, Type: e.Type, League: e.League, Period: PeriodID(e.Period),
		At: e.At.UTC().Format(time.RFC3339), Data: e.Data}
	if e.Player != "" {
		w.Player = &e.Player
	}
	if len(w.Data) == 0 {
		w.Data = json.RawMessage(`{}`)
	}
	return json.Marshal(w)
}

// UnmarshalJSON reads what MarshalJSON writes (for receivers in Go and the
// tests).
func (e *Event) UnmarshalJSON(b []byte) error {
	var w wire
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	period, err := time.Parse("20060102T150405Z", w.Period)
	if err != nil {
		return err
	}
	at, err := time.Parse(time.RFC3339, w.At)
	if err != nil {
		return err
	}
	*e = Event{ID: w.ID, Type: w.Type, League: w.League, Period: period.UTC(), At: at.UTC(), Data: w.Data}
	if w.Player != nil {
		e.Player = *w.Player
	}
	return nil
}

// Lane is the sequence the event is delivered in order within: its
// player's events in its league, or, for an event of no player, the
// league's. League and player ids hold no spaces, so lanes never collide.
func (e Event) Lane() string {
	if e.Player == "" {
		return e.League
	}
	return e.League + " " + e.Player
}

// String names the event for logs: "42 player.promoted weekly/alice".
func (e Event) String() string {
	s := strconv.FormatInt(e.ID, 10) + " " + string(e.Type) + " " + e.League
	if e.Player != "" {
		s += "/" + e.Player
	}
	return s
}
