package client

import (
	"context"
	"net/url"
	"strconv"
	"time"
)

// The admin routes of leagues (admin keys only): settlement, its preview,
// held writes. Moderation is in moderation.go, a leaderboard's catalog and
// limits in catalog.go.

// Settlement is a period's settlement record.
type Settlement struct {
	League     string           `json:"league"`
	Period     string           `json:"period"`
	PeriodEnd  time.Time        `json:"period_end"`
	Status     string           `json:"status"` // started, written, applied, done
	StartedAt  time.Time        `json:"started_at"`
	FinishedAt *time.Time       `json:"finished_at"` // nil until done
	Players    int              `json:"players"`
	Tiers      []SettlementTier `json:"tiers"`
	LastError  string           `json:"last_error"`
}

// SettlementTier is a tier's counts in a settlement.
type SettlementTier struct {
	Tier      string `json:"tier"`
	Players   int    `json:"players"`
	Moderated int    `json:"moderated,omitempty"`
	Promoted  int    `json:"promoted"`
	Demoted   int    `json:"demoted"`
	Rewarded  int    `json:"rewarded"`
	Stayed    int    `json:"stayed,omitempty"` // in a preview
	After     int    `json:"after,omitempty"`  // in a preview
}

// Preview is what settling a period would do, nothing written.
type Preview struct {
	League    string         `json:"league"`
	Period    string         `json:"period"`
	PeriodEnd time.Time      `json:"period_end"`
	Final     bool           `json:"final"`   // an ended period: what its settlement writes
	Waiting   []string       `json:"waiting"` // ended periods not yet settled, oldest first
	Summary   PreviewSummary `json:"summary"`
	Rows      []PreviewRow   `json:"rows"`
	Next      *string        `json:"next"` // PreviewQuery.After of the next page; nil on the last
}

// PreviewSummary is every player of a previewed period.
type PreviewSummary struct {
	Players   int              `json:"players"`
	Moderated int              `json:"moderated"`
	Tiers     []SettlementTier `json:"tiers"`
	Moves     []struct {
		From    string `json:"from"`
		To      string `json:"to"`
		Players int    `json:"players"`
	} `json:"moves"`
	Rewarded int `json:"rewarded"`
	Rewards  []struct {
		ID      string `json:"id"`
		Qty     int64  `json:"qty"`
		Players int    `json:"players"`
	} `json:"rewards"`
}

// PreviewRow is one player in a preview.
type PreviewRow struct {
	Board    string `json:"board"`
	Rank     int    `json:"rank"`
	PlayerID string `json:"player_id"`
	Score    int64  `json:"score"`
	From     string `json:"from"`
	To       string `json:"to"`
	Move     string `json:"move"` // promoted, stayed, demoted
	Rewards  []Item `json:"rewards"`
}

// PreviewQuery selects a preview's period and page; zero values are the
// current period and the API's default page (100 rows).
type PreviewQuery struct {
	Period string
	Limit  *int // rows, 0..1000; 0: the summary only
	After  string
}

// Held is a score write held for an operator.
type Held struct {
	ID       int64     `json:"id"`
	PlayerID string    `json:"player_id"`
	Value    int64     `json:"value"`
	Cap      string    `json:"cap"`
	At       time.Time `json:"at"`
}

// HeldList is a period's held writes, oldest first.
type HeldList struct {
	League string `json:"league"`
	Period string `json:"period"`
	Held   []Held `json:"held"`
}

// Rejected is a held write dropped.
type Rejected struct {
	League   string `json:"league"`
	Period   string `json:"period"`
	Rejected Held   `json:"rejected"`
}

func adminLeague(league string) string { return "/v1/admin/leagues/" + seg(league) }

// Settle settles the period given (its id or start in Unix seconds), or the
// last one that ended when period is "". Safe to repeat: a settled period
// returns its record. It may take a while (about 7 s a million players):
// give ctx room.
func (c *Client) Settle(ctx context.Context, league, period string) (*Settlement, error) {
	if err := checkID("league", league, maxPathIDLen); err != nil {
		return nil, err
	}
	in := map[string]any{}
	if period != "" {
		in["period"] = period
	}
	var out Settlement
	return ret(&out, c.do(ctx, call{method: "POST", path: adminLeague(league) + "/settle", in: in, safe: true, out: &out}))
}

// Settlements returns a league's latest settlements, newest first; limit 0
// is the API's default (20).
func (c *Client) Settlements(ctx context.Context, league string, limit int) ([]Settlement, error) {
	if err := checkID("league", league, maxPathIDLen); err != nil {
		return nil, err
	}
	var out struct {
		Settlements []Settlement `json:"settlements"`
	}
	err := c.do(ctx, call{method: "GET", path: adminLeague(league) + "/settlements", query: limitQuery(limit), safe: true, out: &out})
	return out.Settlements, err
}

// Preview decides a period as settling it would, writing nothing.
func (c *Client) Preview(ctx context.Context, league string, q PreviewQuery) (*Preview, error) {
	if err := checkID("league", league, maxPathIDLen); err != nil {
		return nil, err
	}
	v := url.Values{}
	if q.Period != "" {
		v.Set("period", q.Period)
	}
	if q.Limit != nil {
		v.Set("limit", strconv.Itoa(*q.Limit))
	}
	if q.After != "" {
		v.Set("after", q.After)
	}
	var out Preview
	return ret(&out, c.do(ctx, call{method: "GET", path: adminLeague(league) + "/preview", query: v, safe: true, out: &out}))
}

// HeldWrites lists a period's held writes ("" the current period).
func (c *Client) HeldWrites(ctx context.Context, league, period string) (*HeldList, error) {
	if err := checkID("league", league, maxPathIDLen); err != nil {
		return nil, err
	}
	var q url.Values
	if period != "" {
		q = url.Values{"period": {period}}
	}
	var out HeldList
	return ret(&out, c.do(ctx, call{method: "GET", path: adminLeague(league) + "/held", query: q, safe: true, out: &out}))
}

// ApproveHeld applies a held write of the current period. Not retried: a
// second approval answers not_found, which would hide the first's result.
func (c *Client) ApproveHeld(ctx context.Context, league string, id int64) (*ScoreResult, error) {
	if err := checkID("league", league, maxPathIDLen); err != nil {
		return nil, err
	}
	var out ScoreResult
	return ret(&out, c.do(ctx, call{method: "POST", path: adminLeague(league) + "/held/" + strconv.FormatInt(id, 10) + "/approve", out: &out}))
}

// RejectHeld drops a held write of the period given ("" the current one).
// Not retried, as ApproveHeld.
func (c *Client) RejectHeld(ctx context.Context, league string, id int64, period string) (*Rejected, error) {
	if err := checkID("league", league, maxPathIDLen); err != nil {
		return nil, err
	}
	in := map[string]any{}
	if period != "" {
		in["period"] = period
	}
	var out Rejected
	return ret(&out, c.do(ctx, call{method: "POST", path: adminLeague(league) + "/held/" + strconv.FormatInt(id, 10) + "/reject", in: in, out: &out}))
}

// limitQuery is ?limit=n, or none for 0 (the API's default).
func limitQuery(limit int) url.Values {
	if limit == 0 {
		return nil
	}
	return url.Values{"limit": {strconv.Itoa(limit)}}
}
