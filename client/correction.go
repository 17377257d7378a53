package client

import (
	"context"
	"net/url"
	"time"
)

// Correction actions: what a correction after settlement does to the
// corrected player (docs/operations.md, "Corrections after settlement").
const (
	CorrectZero   = "zero"
	CorrectRemove = "remove"
)

// CorrectionRequest is a correction's body: all four fields required.
type CorrectionRequest struct {
	Period   string `json:"period"` // the settled period's id
	PlayerID string `json:"player_id"`
	Action   string `json:"action"` // CorrectZero or CorrectRemove
	Reason   string `json:"reason"`
}

// Correction is a correction of a settled period, as recorded.
type Correction struct {
	ID        int64              `json:"id"`
	League    string             `json:"league"`
	Period    string             `json:"period"`
	PlayerID  string             `json:"player_id"`
	Action    string             `json:"action"`
	Reason    string             `json:"reason"`
	Actor     string             `json:"actor"`
	Status    string             `json:"status"` // written (Redis not yet), applied
	CreatedAt time.Time          `json:"created_at"`
	Changes   []CorrectionChange `json:"changes"`
}

// CorrectionChange is a player whose outcome or reward a correction
// changed.
type CorrectionChange struct {
	Player   string        `json:"player"`
	Tier     string        `json:"tier"`
	Board    int           `json:"board"`
	Before   CorrectedSide `json:"before"`
	After    CorrectedSide `json:"after"`
	Revoked  bool          `json:"revoked"`  // the reward Before held is taken back
	Claimed  bool          `json:"claimed"`  // with Revoked: delivered already, for the game to handle
	Granted  bool          `json:"granted"`  // the reward After holds is owed now
	Deferred bool          `json:"deferred"` // Redis could not carry it: the player plays a later period already
}

// CorrectedSide is a player's outcome before or after a correction.
type CorrectedSide struct {
	Rank      int    `json:"rank"` // 0: off the board
	Score     int64  `json:"score"`
	Zone      string `json:"zone"`
	TierAfter string `json:"tier_after"`
	Move      string `json:"move"`
	Rewards   []Item `json:"rewards"`
	// DecidedRank is the rank the outcome was decided at when not Rank
	// (a board merged with another: min_board_size).
	DecidedRank int `json:"decided_rank,omitempty"`
}

// Correct zeroes or removes a player of a settled period and re-decides
// their board, once: retried safely, the same correction again answers
// what was recorded.
func (c *Client) Correct(ctx context.Context, league string, req CorrectionRequest) (*Correction, error) {
	if err := checkID("league", league, maxPathIDLen); err != nil {
		return nil, err
	}
	var out Correction
	return ret(&out, c.do(ctx, call{method: "POST", path: adminLeague(league) + "/corrections", in: req, safe: true, out: &out}))
}

// CorrectionList is a settled period's corrections, oldest first.
type CorrectionList struct {
	League      string       `json:"league"`
	Period      string       `json:"period"`
	Corrections []Correction `json:"corrections"`
}

// Corrections lists a settled period's corrections, oldest first, with
// their changes as last recorded (Deferred and Claimed as Redis found them).
func (c *Client) Corrections(ctx context.Context, league, period string) (*CorrectionList, error) {
	if err := firstErr(checkID("league", league, maxPathIDLen), checkID("period", period, maxPathIDLen)); err != nil {
		return nil, err
	}
	var out CorrectionList
	return ret(&out, c.do(ctx, call{method: "GET", path: adminLeague(league) + "/corrections", query: url.Values{"period": {period}},
		safe: true, out: &out}))
}
