package client

import (
	"context"
	"net/url"
	"time"
)

// The admin routes of a leaderboard (admin keys): its catalog and limits.

// CatalogEntry is a member's catalog entry, whole.
type CatalogEntry struct {
	Leaderboard  string         `json:"leaderboard,omitempty"` // in CatalogEntry's reply only
	Member       string         `json:"member"`
	Name         string         `json:"name,omitempty"`
	Metadata     map[string]any `json:"metadata,omitempty"`
	InitialScore int64          `json:"initial_score,omitempty"`
	Multiplier   int64          `json:"multiplier,omitempty"` // 1..1,000,000; 0 sends none (1)
}

// Imported is a catalog import's result.
type Imported struct {
	Leaderboard string `json:"leaderboard"`
	Entries     int    `json:"entries"`
	Changed     int    `json:"changed"` // 0 when the same import runs again
}

// CatalogPage is a page of a catalog.
type CatalogPage struct {
	Leaderboard string         `json:"leaderboard"`
	Entries     []CatalogEntry `json:"entries"`
	Next        *string        `json:"next"` // the cursor of the next page; nil after the last
}

// MultiplierSet is a multiplier set, with the one before.
type MultiplierSet struct {
	Leaderboard string `json:"leaderboard"`
	Member      string `json:"member"`
	Multiplier  int64  `json:"multiplier"`
	Previous    int64  `json:"previous"`
}

// Limits are a leaderboard's rate limits and the writes they refused
// lately, newest first.
type Limits struct {
	Leaderboard string `json:"leaderboard"`
	Limits      []struct {
		Name         string                      `json:"name"`
		By           []string                    `json:"by"`
		Per          string                      `json:"per"`
		Max          int64                       `json:"max"`
		Extra        map[string]map[string]int64 `json:"extra"`
		AcrossShards bool                        `json:"across_shards"`
	} `json:"limits"`
	Refusals []struct {
		At       time.Time `json:"at"`
		Limit    string    `json:"limit"`
		Max      int64     `json:"max"`
		Member   string    `json:"member"`
		Actor    string    `json:"actor,omitempty"`
		Channel  string    `json:"channel,omitempty"`
		Terminal string    `json:"terminal,omitempty"`
	} `json:"refusals"`
}

func adminLB(id string) string { return "/v1/admin/leaderboards/" + seg(id) }

// ImportCatalog imports catalog entries, all or nothing: a refused import's
// *Error lists every entry refused in Problems. An entry is set whole (a
// field left out is cleared); importing the same entries again changes
// nothing, so the call is retried.
func (c *Client) ImportCatalog(ctx context.Context, leaderboard string, entries []CatalogEntry) (*Imported, error) {
	if err := checkID("leaderboard", leaderboard, maxPathIDLen); err != nil {
		return nil, err
	}
	if len(entries) > MaxCatalog {
		return nil, invalid("entries", "more than %d entries; import at most %d a call", MaxCatalog, MaxCatalog)
	}
	var out Imported
	return ret(&out, c.do(ctx, call{method: "POST", path: adminLB(leaderboard) + "/catalog",
		in: map[string]any{"entries": nonNil(entries)}, safe: true, out: &out}))
}

// ImportCatalogCSV imports a CSV file whose first row names the columns
// (member, name, initial_score, multiplier, and others as metadata).
func (c *Client) ImportCatalogCSV(ctx context.Context, leaderboard string, csv []byte) (*Imported, error) {
	if err := checkID("leaderboard", leaderboard, maxPathIDLen); err != nil {
		return nil, err
	}
	var out Imported
	return ret(&out, c.do(ctx, call{method: "POST", path: adminLB(leaderboard) + "/catalog",
		raw: csv, ctype: "text/csv", safe: true, out: &out}))
}

// Catalog returns a page of the catalog from cursor ("" the first page);
// limit 0 is the API's default (100).
func (c *Client) Catalog(ctx context.Context, leaderboard, cursor string, limit int) (*CatalogPage, error) {
	if err := checkID("leaderboard", leaderboard, maxPathIDLen); err != nil {
		return nil, err
	}
	v := limitQuery(limit)
	if cursor != "" {
		if v == nil {
			v = url.Values{}
		}
		v.Set("cursor", cursor)
	}
	var out CatalogPage
	return ret(&out, c.do(ctx, call{method: "GET", path: adminLB(leaderboard) + "/catalog", query: v, safe: true, out: &out}))
}

// CatalogEntry returns one member's entry (not_found when it has none).
func (c *Client) CatalogEntry(ctx context.Context, leaderboard, member string) (*CatalogEntry, error) {
	if err := firstErr(checkID("leaderboard", leaderboard, maxPathIDLen), checkPathID("member", member, MaxIDLen)); err != nil {
		return nil, err
	}
	var out CatalogEntry
	return ret(&out, c.do(ctx, call{method: "GET", path: adminLB(leaderboard) + "/catalog/" + seg(member), safe: true, out: &out}))
}

// SetMultiplier sets a member's multiplier on the public boards
// (1..1,000,000), keeping the rest of its entry.
func (c *Client) SetMultiplier(ctx context.Context, leaderboard, member string, multiplier int64) (*MultiplierSet, error) {
	if err := firstErr(checkID("leaderboard", leaderboard, maxPathIDLen), checkPathID("member", member, MaxIDLen)); err != nil {
		return nil, err
	}
	var out MultiplierSet
	return ret(&out, c.do(ctx, call{method: "PUT", path: adminLB(leaderboard) + "/catalog/" + seg(member) + "/multiplier",
		in: map[string]int64{"multiplier": multiplier}, safe: true, out: &out}))
}

// Limits returns the leaderboard's rate limits and its last refusals
// (limit 0: the API's default, 50).
func (c *Client) Limits(ctx context.Context, leaderboard string, limit int) (*Limits, error) {
	if err := checkID("leaderboard", leaderboard, maxPathIDLen); err != nil {
		return nil, err
	}
	var out Limits
	return ret(&out, c.do(ctx, call{method: "GET", path: adminLB(leaderboard) + "/limits", query: limitQuery(limit), safe: true, out: &out}))
}
