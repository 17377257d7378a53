package client

import (
	"context"
	"net/url"
	"strconv"
	"time"
)

// Leaderboard is a leaderboard's configuration and its boards' current
// periods.
type Leaderboard struct {
	ID            string              `json:"id"`
	Periods       []string            `json:"periods"` // hour, day, week, month, all_time
	Rolling       []string            `json:"rolling"` // 7d, 24h
	TimeZone      string              `json:"time_zone"`
	WeekStart     string              `json:"week_start"`
	ScoreOperator string              `json:"score_operator"` // incr, decr, best or set
	Order         string              `json:"order"`          // descending or ascending
	TieBreak      string              `json:"tie_break"`
	MaxScore      int64               `json:"max_score"`
	Current       []LeaderboardPeriod `json:"current"`
	Shards        int                 `json:"shards"`
	ShardSwitch   *ShardSwitch        `json:"shard_switch,omitempty"`
	Queue         *QueueState         `json:"queue,omitempty"` // a queued leaderboard's queue
}

// ShardSwitch is the last change of a leaderboard's shard count.
type ShardSwitch struct {
	From int       `json:"from"`
	To   int       `json:"to"`
	At   time.Time `json:"at"`
}

// QueueState is a queued leaderboard's bound and the writes waiting now.
type QueueState struct {
	MaxLag int   `json:"max_lag"`
	Behind int64 `json:"behind"`
}

// LeaderboardPeriod is a board's kind and period.
type LeaderboardPeriod struct {
	Kind        string     `json:"kind"`   // hour ... all_time, or a rolling 7d, 24h
	Period      string     `json:"period"` // its start in UTC, or "all"
	PeriodStart *time.Time `json:"period_start"`
	PeriodEnd   *time.Time `json:"period_end"`
	WindowStart *time.Time `json:"window_start,omitempty"` // rolling boards only
}

// LeaderboardWrite is one write to every board of a leaderboard. A write
// without a request id is given one by the client.
type LeaderboardWrite struct {
	Member    string `json:"member"`
	Value     int64  `json:"value"`
	RequestID string `json:"request_id,omitempty"`
	Actor     string `json:"actor,omitempty"`    // who wrote; rate limits count by it
	Channel   string `json:"channel,omitempty"`  // the traffic's source
	Terminal  string `json:"terminal,omitempty"` // the device kind
}

// LeaderboardsWrite is a write naming its leaderboard, in WriteMany.
type LeaderboardsWrite struct {
	Leaderboard string `json:"leaderboard"`
	LeaderboardWrite
}

// LeaderboardPlacement is a member's score and rank on one board.
type LeaderboardPlacement struct {
	LeaderboardPeriod
	Score int64 `json:"score"`
	Rank  int   `json:"rank"` // 0 in a write's reply on a sharded leaderboard
}

// Queued is a write accepted into a queued leaderboard's queue.
type Queued struct {
	ID     string `json:"id"`     // its stream entry's id
	Behind int64  `json:"behind"` // writes waiting in its shard's queue, itself included
}

// LeaderboardWritten is a write's result: the member on every board, or,
// on a queued leaderboard (202), its place in the queue (Queued) with no
// boards.
type LeaderboardWritten struct {
	Leaderboard string                 `json:"leaderboard"`
	Member      string                 `json:"member"`
	Boards      []LeaderboardPlacement `json:"boards"`
	Public      []LeaderboardPlacement `json:"public,omitempty"` // the public twins, in the same order
	Replayed    bool                   `json:"replayed"`
	Queued      *Queued                `json:"queued,omitempty"`
	// RequestID is the id the write was sent with (not sent by the API).
	RequestID string `json:"-"`
	// Err is a batch's write refused alone (an *Error); nil otherwise.
	Err error `json:"-"`
}

// LeaderboardBoard is a page of a board, or the window around a member.
type LeaderboardBoard struct {
	LeaderboardPeriod
	Leaderboard  string       `json:"leaderboard"`
	Size         int          `json:"size"`
	Incomplete   bool         `json:"incomplete"`
	Behind       int64        `json:"behind,omitempty"`
	Participants *int64       `json:"participants,omitempty"`
	Archived     bool         `json:"archived,omitempty"`
	Entries      []BoardEntry `json:"entries"`
}

// BoardEntry is a member on a leaderboard's board.
type BoardEntry struct {
	Rank     int            `json:"rank"`
	Member   string         `json:"member"`
	Score    int64          `json:"score"`
	Name     string         `json:"name,omitempty"`
	Metadata map[string]any `json:"metadata,omitempty"`
}

// LeaderboardStanding is a member on one board, with the period before.
type LeaderboardStanding struct {
	LeaderboardPeriod
	Participants *int64                `json:"participants,omitempty"`
	Incomplete   bool                  `json:"incomplete"`
	Score        int64                 `json:"score"`
	Rank         int                   `json:"rank"` // 0: not on the board
	Gap          *int64                `json:"gap"`  // to the member above
	Previous     *LeaderboardPlacement `json:"previous"`
}

// MemberStandings is a member on every board asked for; Err is set for a
// member refused alone in a Members call.
type MemberStandings struct {
	Leaderboard string                `json:"leaderboard,omitempty"`
	Member      string                `json:"member"`
	Boards      []LeaderboardStanding `json:"boards"`
	Err         error                 `json:"-"`
}

// BoardQuery selects a page of a board. Zero values are the API's
// defaults: the current period, offset 0, 100 entries (10 ranks each side
// around a member), the leaderboard's default view.
type BoardQuery struct {
	Period string // a period id of the board's kind, or its start in Unix seconds
	Offset int    // ranks to skip; not with Around
	Limit  int    // 1..1000; with Around, the ranks each side (0..499)
	View   string // public or raw
}

func lbPath(id string) string { return "/v1/leaderboards/" + seg(id) }

// Leaderboards returns the leaderboards the key may call, sorted by id.
func (c *Client) Leaderboards(ctx context.Context) ([]Leaderboard, error) {
	var out struct {
		Leaderboards []Leaderboard `json:"leaderboards"`
	}
	err := c.do(ctx, call{method: "GET", path: "/v1/leaderboards", safe: true, out: &out})
	return out.Leaderboards, err
}

// Leaderboard returns one leaderboard.
func (c *Client) Leaderboard(ctx context.Context, id string) (*Leaderboard, error) {
	if err := checkID("leaderboard", id, maxPathIDLen); err != nil {
		return nil, err
	}
	var out Leaderboard
	return ret(&out, c.do(ctx, call{method: "GET", path: lbPath(id), safe: true, out: &out}))
}

// Write writes to every board of the leaderboard in one atomic step, with
// its request id (made by the client when it has none), so it is retried
// safely. On a queued leaderboard the reply is its place in the queue
// (Queued), the write applied within moments.
func (c *Client) Write(ctx context.Context, leaderboard string, w LeaderboardWrite) (*LeaderboardWritten, error) {
	if w.RequestID == "" {
		w.RequestID = NewRequestID()
	}
	if err := firstErr(checkID("leaderboard", leaderboard, maxPathIDLen), checkID("member", w.Member, MaxIDLen),
		checkID("request_id", w.RequestID, MaxIDLen)); err != nil {
		return nil, err
	}
	out := LeaderboardWritten{RequestID: w.RequestID}
	return ret(&out, c.do(ctx, call{method: "POST", path: lbPath(leaderboard) + "/scores", in: w, rid: w.RequestID, safe: true, out: &out}))
}

// WriteBatch sends up to MaxBatch writes to one leaderboard in one call
// (WriteMany splits more), each with a request id; results are in order,
// a write refused alone with Err set.
func (c *Client) WriteBatch(ctx context.Context, leaderboard string, writes []LeaderboardWrite) ([]LeaderboardWritten, error) {
	if err := firstErr(checkID("leaderboard", leaderboard, maxPathIDLen), checkBatch("writes", len(writes))); err != nil {
		return nil, err
	}
	ws := make([]LeaderboardWrite, len(writes))
	ids := make([]string, len(writes))
	for i, w := range writes {
		if w.RequestID == "" {
			w.RequestID = NewRequestID()
		}
		ws[i], ids[i] = w, w.RequestID
	}
	return c.lbBatch(ctx, lbPath(leaderboard)+"/scores/batch", ws, ids)
}

// WriteAcross sends up to MaxBatch writes, each naming its leaderboard, in
// one call (WriteMany splits more); results are in order, a write refused
// alone with Err set. A write naming a leaderboard the key may not call,
// or an unknown one, fails the whole call, before anything is written.
func (c *Client) WriteAcross(ctx context.Context, writes []LeaderboardsWrite) ([]LeaderboardWritten, error) {
	if err := checkBatch("writes", len(writes)); err != nil {
		return nil, err
	}
	ws := make([]LeaderboardsWrite, len(writes))
	ids := make([]string, len(writes))
	for i, w := range writes {
		if w.RequestID == "" {
			w.RequestID = NewRequestID()
		}
		ws[i], ids[i] = w, w.RequestID
	}
	return c.lbBatch(ctx, "/v1/leaderboards/scores/batch", ws, ids)
}

func (c *Client) lbBatch(ctx context.Context, path string, writes any, ids []string) ([]LeaderboardWritten, error) {
	var out struct {
		Leaderboard string `json:"leaderboard"`
		Results     []struct {
			LeaderboardWritten
			Error *errorObject `json:"error"`
		} `json:"results"`
	}
	if err := c.do(ctx, call{method: "POST", path: path, in: map[string]any{"writes": writes}, safe: true, out: &out}); err != nil {
		return nil, err
	}
	res := make([]LeaderboardWritten, len(out.Results))
	for i, r := range out.Results {
		res[i] = r.LeaderboardWritten
		if res[i].Leaderboard == "" {
			res[i].Leaderboard = out.Leaderboard
		}
		if r.Error != nil {
			res[i].Err = r.Error.err()
		}
		if i < len(ids) {
			res[i].RequestID = ids[i]
		}
	}
	return res, nil
}

// Top returns a page of a board (kind: hour, day, week, month, all_time,
// or a rolling 7d, 24h) from its top.
func (c *Client) Top(ctx context.Context, leaderboard, kind string, q BoardQuery) (*LeaderboardBoard, error) {
	return c.board(ctx, leaderboard, kind, "", q)
}

// Around returns the window of a board around a member: q.Limit ranks
// above and below it (not_found when the member is not on the board).
func (c *Client) Around(ctx context.Context, leaderboard, kind, member string, q BoardQuery) (*LeaderboardBoard, error) {
	if err := checkID("around", member, MaxIDLen); err != nil {
		return nil, err
	}
	return c.board(ctx, leaderboard, kind, member, q)
}

func (c *Client) board(ctx context.Context, leaderboard, kind, around string, q BoardQuery) (*LeaderboardBoard, error) {
	if err := firstErr(checkID("leaderboard", leaderboard, maxPathIDLen), checkID("kind", kind, maxPathIDLen)); err != nil {
		return nil, err
	}
	v := url.Values{}
	if q.Period != "" {
		v.Set("period", q.Period)
	}
	if q.Offset > 0 {
		v.Set("offset", strconv.Itoa(q.Offset))
	}
	if q.Limit > 0 {
		v.Set("limit", strconv.Itoa(q.Limit))
	}
	if q.View != "" {
		v.Set("view", q.View)
	}
	if around != "" {
		v.Set("around", around)
	}
	var out LeaderboardBoard
	return ret(&out, c.do(ctx, call{method: "GET", path: lbPath(leaderboard) + "/boards/" + seg(kind), query: v, safe: true, out: &out}))
}

// Member returns a member on every board of the leaderboard, with the
// period before; view is public, raw, or "" for the leaderboard's default.
func (c *Client) Member(ctx context.Context, leaderboard, member, view string) (*MemberStandings, error) {
	if err := firstErr(checkID("leaderboard", leaderboard, maxPathIDLen), checkPathID("member", member, MaxIDLen)); err != nil {
		return nil, err
	}
	var q url.Values
	if view != "" {
		q = url.Values{"view": {view}}
	}
	var out MemberStandings
	return ret(&out, c.do(ctx, call{method: "GET", path: lbPath(leaderboard) + "/members/" + seg(member), query: q, safe: true, out: &out}))
}

// Members returns up to MaxBatch members on the boards asked for (every
// board when boards is nil), in order; a member refused alone has Err set.
func (c *Client) Members(ctx context.Context, leaderboard string, members, boards []string, view string) ([]MemberStandings, error) {
	if err := firstErr(checkID("leaderboard", leaderboard, maxPathIDLen), checkBatch("members", len(members)), checkBatch("boards", len(boards))); err != nil {
		return nil, err
	}
	in := map[string]any{"members": nonNil(members)}
	if boards != nil {
		in["boards"] = boards
	}
	if view != "" {
		in["view"] = view
	}
	var out struct {
		Leaderboard string `json:"leaderboard"`
		Members     []struct {
			MemberStandings
			Error *errorObject `json:"error"`
		} `json:"members"`
	}
	if err := c.do(ctx, call{method: "POST", path: lbPath(leaderboard) + "/members", in: in, safe: true, out: &out}); err != nil {
		return nil, err
	}
	res := make([]MemberStandings, len(out.Members))
	for i, m := range out.Members {
		res[i] = m.MemberStandings
		res[i].Leaderboard = out.Leaderboard
		if m.Error != nil {
			res[i].Err = m.Error.err()
		}
	}
	return res, nil
}
