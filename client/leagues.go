package client

import (
	"context"
	"net/url"
	"time"
)

// JoinRequest joins a player to the current period of a league.
type JoinRequest struct {
	PlayerID string `json:"player_id"`
	Name     string `json:"name"`             // display name, 1-32 bytes of UTF-8
	Avatar   string `json:"avatar,omitempty"` // up to 31 bytes; empty: none
	// Cohort places the player on their tier's boards of one of the
	// league's cohorts (its config's cohorts); empty: the shared boards.
	Cohort string `json:"cohort,omitempty"`
}

// Placement is where a join placed the player.
type Placement struct {
	League    string    `json:"league"`
	Period    string    `json:"period"` // e.g. 20261116T000000Z
	PeriodEnd time.Time `json:"period_end"`
	Tier      string    `json:"tier"`
	Board     string    `json:"board"` // <tier>-<number>, or <tier>.<cohort>-<number>
	Slot      int       `json:"slot"`  // 1-based join order on the board
	Rejoined  bool      `json:"rejoined"`
	// Upcoming: the league's join_cutoff placed the player in the next
	// period, which starts at PeriodStart; score writes count from then.
	Upcoming    bool      `json:"upcoming,omitempty"`
	PeriodStart time.Time `json:"period_start,omitzero"`
	// Rewards of earlier periods this join delivered; a retried join
	// returns them again: credit them once, by league, player and period.
	Rewards []Reward `json:"rewards"`
}

// Reward is what a rank earned in a settled period.
type Reward struct {
	Period string `json:"period"`
	Tier   string `json:"tier"`
	Rank   int    `json:"rank"`
	Items  []Item `json:"items"`
}

// Item is a quantity of a reward item.
type Item struct {
	ID  string `json:"id"`
	Qty int64  `json:"qty"`
}

// ScoreWrite is one score write. A write without a request id is given one
// by the client, so that it can be retried safely.
type ScoreWrite struct {
	PlayerID  string `json:"player_id"`
	Value     int64  `json:"value"`
	RequestID string `json:"request_id,omitempty"`
	// NoRank asks for no rank (?rank=false), for games that do not show
	// it: the result has no Rank, BoardSize or Zone, and the service's
	// Redis does less work. A retry answers as the first write did. In a
	// batch it is sent when every write of the call sets it.
	NoRank bool `json:"-"`
}

// ScoreResult is the player's position after a write.
type ScoreResult struct {
	League    string `json:"league"`
	Period    string `json:"period"`
	Tier      string `json:"tier"`
	Board     string `json:"board"`
	Score     int64  `json:"score"`
	Rank      int    `json:"rank"`       // 0 when the write asked for none (ScoreWrite.NoRank)
	BoardSize int    `json:"board_size"` // 0 likewise
	Zone      string `json:"zone"`       // promote, stay or demote; "" likewise
	// MergedWith is set while the board is decided with another of its
	// tier (min_board_size): Zone is that merged ranking's.
	MergedWith string `json:"merged_with,omitempty"`
	// Protected: promotion protection (the tier's protect_promoted) keeps
	// the player, ranked in the demotion zone, in the tier; Zone is stay.
	Protected bool     `json:"protected,omitempty"`
	Held      *HeldRef `json:"held,omitempty"`
	Replayed  bool     `json:"replayed"` // a retried request id: the first write's result
	// RequestID is the id the write was sent with (the caller's, or the
	// one the client made). To retry a write yourself after the client gave
	// up, give it a RequestID of your own and send it again with it.
	RequestID string `json:"-"`
}

// HeldRef names a write the league held for an operator (202): not ranked
// until approved.
type HeldRef struct {
	ID  int64  `json:"id"`
	Cap string `json:"cap"` // max_gain or gain-<window>
}

// BatchResult is one write's result in a batch: Err, or the result.
type BatchResult struct {
	PlayerID string `json:"player_id"`
	ScoreResult
	Err error `json:"-"` // an *Error of the write alone
}

// Standing is where a player stands in the current period. Until they
// join, Joined is false, Tier the tier a join would place them in, Board
// and Zone nil.
type Standing struct {
	League     string    `json:"league"`
	PlayerID   string    `json:"player_id"`
	Period     string    `json:"period"`
	PeriodEnd  time.Time `json:"period_end"`
	Joined     bool      `json:"joined"`
	Tier       string    `json:"tier"`
	Board      *string   `json:"board"`
	Rank       int       `json:"rank"`
	Score      int64     `json:"score"`
	BoardSize  int       `json:"board_size"`
	Gap        int64     `json:"gap"` // to draw level with the player above
	Zone       *string   `json:"zone"`
	MergedWith string    `json:"merged_with,omitempty"` // as ScoreResult's
	Protected  bool      `json:"protected,omitempty"`   // kept in the tier by promotion protection: Zone is stay
	Moderation string    `json:"moderation,omitempty"`  // hidden, removed or banned; empty when ranked
}

// StandingResult is one player's standing in a Standings call: Err, or
// the standing.
type StandingResult struct {
	Standing
	Err error `json:"-"`
}

// Player is a standing with pending rewards and settled history.
type Player struct {
	Standing
	PendingRewards []Reward `json:"pending_rewards"`
	// History is nil, and HistoryUnavailable true, when the service could
	// not read its store.
	History            []HistoryEntry `json:"history"`
	HistoryUnavailable bool           `json:"history_unavailable,omitempty"`
}

// HistoryEntry is a settled period of a player.
type HistoryEntry struct {
	Period     string     `json:"period"`
	TierBefore string     `json:"tier_before"`
	TierAfter  string     `json:"tier_after"`
	Board      string     `json:"board"`
	Rank       int        `json:"rank"`
	Score      int64      `json:"score"`
	Rewards    []Item     `json:"rewards"`
	ClaimedAt  *time.Time `json:"claimed_at"`
}

// Board is a sub-board, ranked.
type Board struct {
	League    string    `json:"league"`
	Period    string    `json:"period"`
	PeriodEnd time.Time `json:"period_end"`
	Board     string    `json:"board"`
	Tier      string    `json:"tier"`
	Entries   []Entry   `json:"entries"`
	// Source says where the board was read: "live" (Redis) or "archive"
	// (Postgres, after the league's retention dropped it from Redis).
	Source string `json:"source"`
	// MergedWith is set while the board is decided with another of its
	// tier (min_board_size): the entries' zones are that merged ranking's.
	MergedWith string `json:"merged_with,omitempty"`
}

// Entry is a player on a board.
type Entry struct {
	Rank     int    `json:"rank"`
	PlayerID string `json:"player_id"`
	Name     string `json:"name"`
	Avatar   string `json:"avatar"`
	Score    int64  `json:"score"`
	Zone     string `json:"zone"`
	// Protected: kept in the tier by promotion protection; Zone is stay.
	Protected bool `json:"protected,omitempty"`
}

// League is a league's configuration and current period.
type League struct {
	ID            string         `json:"id"`
	BoardSize     int            `json:"board_size"`
	Schedule      string         `json:"schedule"`
	TieBreak      string         `json:"tie_break"`
	ScoreOperator string         `json:"score_operator"`
	MaxScore      int64          `json:"max_score"`
	EntryTier     string         `json:"entry_tier"`
	Tiers         []Tier         `json:"tiers"` // lowest first
	CurrentPeriod Period         `json:"current_period"`
	Populations   map[string]int `json:"populations"` // players who joined each tier this period
	// Cohorts are those a join may name; CohortPopulations the players of
	// each tier's cohorts' boards this period (tier -> cohort -> players).
	Cohorts           []string                  `json:"cohorts,omitempty"`
	CohortPopulations map[string]map[string]int `json:"cohort_populations,omitempty"`
}

// Tier is a rung of a league's ladder.
type Tier struct {
	ID              string       `json:"id"`
	Name            string       `json:"name"`
	Promote         float64      `json:"promote"`
	Demote          float64      `json:"demote"`
	PromoteCount    int          `json:"promote_count,omitempty"`
	DemoteCount     int          `json:"demote_count,omitempty"`
	PromoteAtLeast  int          `json:"promote_at_least,omitempty"`
	DemoteAtLeast   int          `json:"demote_at_least,omitempty"`
	AtLeastFrom     int          `json:"at_least_from,omitempty"`
	JumpTop         int          `json:"jump_top,omitempty"`
	JumpTiers       int          `json:"jump_tiers,omitempty"`
	ProtectPromoted bool         `json:"protect_promoted,omitempty"`
	MinPromoteScore int64        `json:"min_promote_score"`
	MinRewardScore  int64        `json:"min_reward_score"`
	Rewards         []RewardBand `json:"rewards"`
}

// RewardBand is the items ranks From..To earn.
type RewardBand struct {
	From  int    `json:"from"`
	To    int    `json:"to"`
	Items []Item `json:"items"`
}

// Period is a league period.
type Period struct {
	ID    string    `json:"id"`
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
}

func leaguePath(league string) string { return "/v1/leagues/" + seg(league) }

// Join joins the player to the league's current period, or returns their
// placement when they joined it already. Retried: a join is safe to repeat.
func (c *Client) Join(ctx context.Context, league string, req JoinRequest) (*Placement, error) {
	if err := firstErr(checkID("league", league, maxPathIDLen), checkPathID("player_id", req.PlayerID, MaxIDLen)); err != nil {
		return nil, err
	}
	var out Placement
	return ret(&out, c.do(ctx, call{method: "POST", path: leaguePath(league) + "/join", in: req, safe: true, out: &out}))
}

// Score writes a score. The write is sent with its request id (one made by
// the client when it has none), so it is retried safely and applied once.
func (c *Client) Score(ctx context.Context, league string, w ScoreWrite) (*ScoreResult, error) {
	if w.RequestID == "" {
		w.RequestID = NewRequestID()
	}
	if err := firstErr(checkID("league", league, maxPathIDLen), checkPathID("player_id", w.PlayerID, MaxIDLen),
		checkID("request_id", w.RequestID, MaxIDLen)); err != nil {
		return nil, err
	}
	out := ScoreResult{}
	out.RequestID = w.RequestID
	return ret(&out, c.do(ctx, call{method: "POST", path: leaguePath(league) + "/scores", query: rankQuery(w.NoRank),
		in: w, rid: w.RequestID, safe: true, out: &out}))
}

// rankQuery is the query of a score write that asks for no rank.
func rankQuery(noRank bool) url.Values {
	if !noRank {
		return nil
	}
	return url.Values{"rank": {"false"}}
}

// ScoreBatch writes up to MaxBatch scores in one call (ScoreMany splits
// more). Each write without a request id is given one, so the batch is
// retried safely; results are in the order of the writes, each with its
// request id, and a write refused alone has Err set. The batch asks for no
// rank when every write sets NoRank.
func (c *Client) ScoreBatch(ctx context.Context, league string, writes []ScoreWrite) ([]BatchResult, error) {
	if err := firstErr(checkID("league", league, maxPathIDLen), checkBatch("writes", len(writes))); err != nil {
		return nil, err
	}
	ws := make([]ScoreWrite, len(writes))
	noRank := len(writes) > 0
	for i, w := range writes {
		if w.RequestID == "" {
			w.RequestID = NewRequestID()
		}
		ws[i] = w
		noRank = noRank && w.NoRank
	}
	var out struct {
		Results []struct {
			BatchResult
			Error *errorObject `json:"error"`
		} `json:"results"`
	}
	if err := c.do(ctx, call{method: "POST", path: leaguePath(league) + "/scores/batch", query: rankQuery(noRank),
		in: map[string]any{"writes": ws}, safe: true, out: &out}); err != nil {
		return nil, err
	}
	res := make([]BatchResult, len(out.Results))
	for i, r := range out.Results {
		res[i] = r.BatchResult
		if r.Error != nil {
			res[i].Err = r.Error.err()
		}
		if i < len(ws) {
			res[i].RequestID = ws[i].RequestID
		}
	}
	return res, nil
}

// Player returns a player's standing, pending rewards and settled history.
func (c *Client) Player(ctx context.Context, league, playerID string) (*Player, error) {
	if err := firstErr(checkID("league", league, maxPathIDLen), checkPathID("player_id", playerID, MaxIDLen)); err != nil {
		return nil, err
	}
	var out Player
	return ret(&out, c.do(ctx, call{method: "GET", path: leaguePath(league) + "/players/" + seg(playerID), safe: true, out: &out}))
}

// Standings returns up to MaxBatch players' standings in one call, in
// order; a player id the API refuses has Err set.
func (c *Client) Standings(ctx context.Context, league string, playerIDs []string) ([]StandingResult, error) {
	if err := firstErr(checkID("league", league, maxPathIDLen), checkBatch("player_ids", len(playerIDs))); err != nil {
		return nil, err
	}
	var out struct {
		Standings []struct {
			Standing
			Error *errorObject `json:"error"`
		} `json:"standings"`
	}
	if err := c.do(ctx, call{method: "POST", path: leaguePath(league) + "/standings",
		in: map[string]any{"player_ids": nonNil(playerIDs)}, safe: true, out: &out}); err != nil {
		return nil, err
	}
	res := make([]StandingResult, len(out.Standings))
	for i, s := range out.Standings {
		res[i].Standing = s.Standing
		if s.Error != nil {
			res[i].Err = s.Error.err()
		}
	}
	return res, nil
}

// Board returns a sub-board (e.g. "gold-3"), ranked, of the period given
// (its id, or its start in Unix seconds), or of the current one when
// period is "".
func (c *Client) Board(ctx context.Context, league, board, period string) (*Board, error) {
	if err := firstErr(checkID("league", league, maxPathIDLen), checkPathID("board", board, MaxIDLen)); err != nil {
		return nil, err
	}
	var q url.Values
	if period != "" {
		q = url.Values{"period": {period}}
	}
	var out Board
	return ret(&out, c.do(ctx, call{method: "GET", path: leaguePath(league) + "/boards/" + seg(board), query: q, safe: true, out: &out}))
}

// Leagues returns the leagues the key may call, sorted by id.
func (c *Client) Leagues(ctx context.Context) ([]League, error) {
	var out struct {
		Leagues []League `json:"leagues"`
	}
	err := c.do(ctx, call{method: "GET", path: "/v1/leagues", safe: true, out: &out})
	return out.Leagues, err
}

// League returns one league.
func (c *Client) League(ctx context.Context, id string) (*League, error) {
	if err := checkID("league", id, maxPathIDLen); err != nil {
		return nil, err
	}
	var out League
	return ret(&out, c.do(ctx, call{method: "GET", path: leaguePath(id), safe: true, out: &out}))
}

// nonNil sends an empty list as [] rather than null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// ret is v, or nil when err is not.
func ret[T any](v *T, err error) (*T, error) {
	if err != nil {
		return nil, err
	}
	return v, nil
}
