package client

import (
	"context"
	"net/url"
	"strconv"
	"time"
)

// Moderation actions (admin keys): what each does to boards and settlement
// is in docs/operations.md.
const (
	ActionHide     = "hide"
	ActionUnhide   = "unhide"
	ActionRemove   = "remove"
	ActionSetScore = "set-score"
	ActionBan      = "ban"
	ActionUnban    = "unban"
)

// Moderation is a moderation action's body. Reason is required; Score
// only with set-score; Duration ("90m", "12h", "7d") or Until only with
// ban; Period, when set, must be the current period (so an action meant
// for a period that has rolled over is refused).
type Moderation struct {
	Reason   string     `json:"reason"`
	Score    *int64     `json:"score,omitempty"`
	Duration string     `json:"duration,omitempty"`
	Until    *time.Time `json:"until,omitempty"`
	Period   string     `json:"period,omitempty"`
}

// PlayerModeration is a player's standing with the operators.
type PlayerModeration struct {
	State       string     `json:"state"` // ranked, hidden, removed, banned, absent
	Score       *int64     `json:"score"`
	BannedUntil *time.Time `json:"banned_until"`
}

// Moderated is what a moderation action did.
type Moderated struct {
	League   string           `json:"league"`
	Period   string           `json:"period"`
	PlayerID string           `json:"player_id"`
	Action   string           `json:"action"`
	Changed  bool             `json:"changed"` // false: the player was so already
	Before   PlayerModeration `json:"before"`
	After    PlayerModeration `json:"after"`
	ActionID *string          `json:"action_id"`
	Recorded bool             `json:"recorded"`
}

// AdminAction is an action as the audit keeps it.
type AdminAction struct {
	ID       string           `json:"id"`
	At       time.Time        `json:"at"`
	Actor    string           `json:"actor"`
	Action   string           `json:"action"`
	PlayerID string           `json:"player_id"`
	Period   *string          `json:"period"`
	Reason   string           `json:"reason"`
	Before   PlayerModeration `json:"before"`
	After    PlayerModeration `json:"after"`
}

// AuditQuery selects a page of the audit; zero values: every player and
// period, the API's default page (100), the newest.
type AuditQuery struct {
	Player string
	Period string
	Limit  int
	Before string // a page's Next
}

// AuditPage is a page of the audit, newest first.
type AuditPage struct {
	League  string        `json:"league"`
	Actions []AdminAction `json:"actions"`
	Next    *string       `json:"next"` // AuditQuery.Before of the next page
}

// Moderate does a moderation action (ActionHide, ...) to a player of the
// league's current period. Retried like a read, as doing what is done
// changes nothing, but for a ban given a Duration, which counts from each
// call.
func (c *Client) Moderate(ctx context.Context, league, playerID, action string, m Moderation) (*Moderated, error) {
	if err := firstErr(checkID("league", league, maxPathIDLen), checkPathID("player_id", playerID, MaxIDLen),
		checkID("action", action, maxPathIDLen)); err != nil {
		return nil, err
	}
	safe := !(action == ActionBan && m.Duration != "")
	var out Moderated
	return ret(&out, c.do(ctx, call{method: "POST", path: adminLeague(league) + "/players/" + seg(playerID) + "/" + seg(action),
		in: m, safe: safe, out: &out}))
}

// Audit returns a page of the league's admin actions, newest first.
func (c *Client) Audit(ctx context.Context, league string, q AuditQuery) (*AuditPage, error) {
	if err := checkID("league", league, maxPathIDLen); err != nil {
		return nil, err
	}
	v := pageQuery(q.Limit, "player", q.Player, "period", q.Period, "before", q.Before)
	var out AuditPage
	return ret(&out, c.do(ctx, call{method: "GET", path: adminLeague(league) + "/audit", query: v, safe: true, out: &out}))
}

// TrailQuery selects a page of the audit trail: Player, Period or both
// (at least one); zero Limit is the API's default page (100).
type TrailQuery struct {
	Player string
	Period string
	Limit  int
	After  string // a page's Next
}

// TrailPage is a page of the audit trail, newest first.
type TrailPage struct {
	League   string       `json:"league"`
	PlayerID *string      `json:"player_id"`
	Period   *string      `json:"period"`
	Entries  []TrailEntry `json:"entries"`
	Next     *string      `json:"next"` // TrailQuery.After of the next page
}

// TrailEntry is a line of the audit trail: Kind (settlement, reward,
// decay, claim, correction, admin), At, Period and PlayerID always, the
// rest as the kind has them (docs/http.md, "The audit trail").
type TrailEntry struct {
	Kind          string            `json:"kind"`
	At            time.Time         `json:"at"`
	Period        string            `json:"period"`
	PlayerID      string            `json:"player_id"`
	TierBefore    string            `json:"tier_before"`
	TierAfter     string            `json:"tier_after"`
	Move          string            `json:"move"`
	Board         string            `json:"board"`
	Rank          int               `json:"rank"`
	Score         *int64            `json:"score"`
	Tier          string            `json:"tier"`
	Items         []Item            `json:"items"`
	ClaimedPeriod string            `json:"claimed_period"`
	Absent        int               `json:"absent"`
	Correction    *TrailCorrection  `json:"correction"`
	Change        *CorrectionChange `json:"change"`
	Action        *AdminAction      `json:"action"`
}

// TrailCorrection is the correction of a correction entry.
type TrailCorrection struct {
	ID       int64  `json:"id"`
	PlayerID string `json:"player_id"` // the player zeroed or removed
	Action   string `json:"action"`
	Reason   string `json:"reason"`
	Actor    string `json:"actor"`
	Status   string `json:"status"`
}

// Trail returns a page of the league's audit trail: every tier move with
// its cause, every reward and claim, every admin action, of a player or a
// period, newest first.
func (c *Client) Trail(ctx context.Context, league string, q TrailQuery) (*TrailPage, error) {
	if err := checkID("league", league, maxPathIDLen); err != nil {
		return nil, err
	}
	v := pageQuery(q.Limit, "player", q.Player, "period", q.Period, "after", q.After)
	var out TrailPage
	return ret(&out, c.do(ctx, call{method: "GET", path: adminLeague(league) + "/trail", query: v, safe: true, out: &out}))
}

// pageQuery is the query of a page of the audit or its trail: the
// name/value pairs given a value, and limit when not 0 (the API's default).
func pageQuery(limit int, kv ...string) url.Values {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] != "" {
			v.Set(kv[i], kv[i+1])
		}
	}
	if limit != 0 {
		v.Set("limit", strconv.Itoa(limit))
	}
	return v
}
