package client

import (
	"context"
	"encoding/json"
	"net/url"
	"strconv"
	"time"
)

// Event is one event of the outbox (GET /v1/admin/events): a period
// closed, a player promoted, demoted or stayed, a reward granted or
// claimed. Data's fields depend on Type (docs/operations.md, Events out).
type Event struct {
	ID       int64           `json:"id"` // stable: dedupe on it
	Type     string          `json:"type"`
	League   string          `json:"league"`
	Period   string          `json:"period"`
	PlayerID *string         `json:"player_id"` // nil for period.closed
	At       time.Time       `json:"at"`
	Data     json.RawMessage `json:"data"`
}

// EventPage is a page of the feed; Next is the cursor of the following
// one (the After given when nothing is newer yet: poll again with it).
type EventPage struct {
	Events []Event `json:"events"`
	Next   int64   `json:"next"`
}

// Events reads the outbox after the cursor after (0: from the first event
// kept), at most limit events (0: the server's default).
func (c *Client) Events(ctx context.Context, after int64, limit int) (*EventPage, error) {
	v := url.Values{}
	if after != 0 {
		v.Set("after", strconv.FormatInt(after, 10))
	}
	if limit != 0 {
		v.Set("limit", strconv.Itoa(limit))
	}
	var out EventPage
	return ret(&out, c.do(ctx, call{method: "GET", path: "/v1/admin/events", query: v, safe: true, out: &out}))
}

// ArchivedRow is one player of a settled period as Postgres keeps it.
type ArchivedRow struct {
	Board      string     `json:"board"`
	Rank       int        `json:"rank"`
	PlayerID   string     `json:"player_id"`
	Name       string     `json:"name"`
	Score      int64      `json:"score"`
	Zone       string     `json:"zone"`
	TierBefore string     `json:"tier_before"`
	TierAfter  string     `json:"tier_after"`
	Move       string     `json:"move,omitempty"`
	Rewards    []Item     `json:"rewards"`
	ClaimedAt  *time.Time `json:"claimed_at,omitempty"`
}

// OutcomePage is a page of a settled period's outcomes; Next is empty on
// the last.
type OutcomePage struct {
	League    string        `json:"league"`
	Period    string        `json:"period"`
	PeriodEnd time.Time     `json:"period_end"`
	Rows      []ArchivedRow `json:"rows"`
	Next      string        `json:"next,omitempty"`
}

// Outcomes reads a page of a settled period's outcomes from the archive
// (GET /v1/admin/leagues/{league}/outcomes): after is a page's Next ("" for
// the first), limit 0 the server's default.
func (c *Client) Outcomes(ctx context.Context, league, period, after string, limit int) (*OutcomePage, error) {
	if err := checkID("league", league, maxPathIDLen); err != nil {
		return nil, err
	}
	v := url.Values{"period": {period}}
	if after != "" {
		v.Set("after", after)
	}
	if limit != 0 {
		v.Set("limit", strconv.Itoa(limit))
	}
	var out OutcomePage
	return ret(&out, c.do(ctx, call{method: "GET", path: adminLeague(league) + "/outcomes", query: v, safe: true, out: &out}))
}
