package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/league-engine/league/leaderboard"
	"github.com/league-engine/league/league"
)

// httpTarget calls the API of a leagued: the product as game servers see it.
type httpTarget struct {
	client *http.Client // nil: the wire client (wire.go)
	base   string       // <url>/v1/leagues/<league>, or <url>/v1/leaderboards/<leaderboard>
	apiKey string
	host   string // for the wire client: the host:port and path of base
	prefix string
	// leaderboard is the same leagued's routes of the leaderboard the lb
	// workloads drive (base <url>/v1/leaderboards/<leaderboard>); a worker's
	// connection serves both.
	leaderboard *httpTarget
	// rolling is the routes of lbroll's leaderboard (rolling.go), which
	// only the in-process leagued serves; nil elsewhere.
	rolling *httpTarget
}

// newHTTPClient keeps one idle connection per request in flight, so every
// request reuses a kept-alive connection rather than dialling.
func newHTTPClient(inFlight int) *http.Client {
	return &http.Client{
		Transport: &http.Transport{
			Proxy:               nil, // loopback; never through $HTTP_PROXY
			MaxIdleConns:        inFlight + 16,
			MaxIdleConnsPerHost: inFlight + 16,
			IdleConnTimeout:     time.Minute,
			DisableCompression:  true,
			ForceAttemptHTTP2:   false,
		},
	}
}

// newHTTPTarget drives league leagueID and leaderboard leaderboardID of the
// leagued at baseURL.
func newHTTPTarget(client *http.Client, baseURL, leagueID, leaderboardID, apiKey string) (*httpTarget, error) {
	t, err := newHTTPRoutes(client, baseURL, "/v1/leagues/"+url.PathEscape(leagueID), apiKey)
	if err != nil {
		return nil, err
	}
	t.leaderboard, err = newHTTPRoutes(client, baseURL, "/v1/leaderboards/"+url.PathEscape(leaderboardID), apiKey)
	return t, err
}

// newHTTPRoutes is a target whose paths start at baseURL + path.
func newHTTPRoutes(client *http.Client, baseURL, path, apiKey string) (*httpTarget, error) {
	t := &httpTarget{client: client, base: baseURL + path, apiKey: apiKey}
	u, err := url.Parse(t.base)
	if err != nil {
		return nil, fmt.Errorf("HTTP target %q: %w", baseURL, err)
	}
	t.host, t.prefix = u.Host, u.EscapedPath()
	return t, nil
}

// do sends a request and reads the reply into w.resp; any status but 200
// is an error carrying the start of the reply.
func (t *httpTarget) do(ctx context.Context, w *worker, method, path string, body []byte) error {
	if t.client == nil {
		status, err := t.wire(ctx, w, method, path, body)
		if err == errClosed {
			err = nil
		}
		if err == nil && status != http.StatusOK {
			return fmt.Errorf("HTTP %d: %s", status, clip(w.resp.Bytes(), 300))
		}
		return err
	}
	var rd io.Reader = http.NoBody
	if body != nil {
		rd = bytes.NewReader(body) // sets ContentLength
	}
	req, err := http.NewRequestWithContext(ctx, method, t.base+path, rd)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if t.apiKey != "" {
		req.Header.Set("X-API-Key", t.apiKey)
	}
	resp, err := t.client.Do(req)
	if err != nil {
		return err
	}
	w.resp.Reset()
	_, err = w.resp.ReadFrom(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("HTTP %d: %s", resp.StatusCode, clip(w.resp.Bytes(), 300))
	}
	return err
}

// The bodies are built by appending. Ids, names and request ids are ASCII
// letters and digits (players.go), for which Go quoting is JSON quoting.

func (t *httpTarget) join(ctx context.Context, w *worker, player, name string) error {
	b := append(w.body[:0], `{"player_id":`...)
	b = strconv.AppendQuote(b, player)
	b = append(b, `,"name":`...)
	b = strconv.AppendQuote(b, name)
	w.body = append(b, '}')
	return t.do(ctx, w, http.MethodPost, "/join", w.body)
}

func appendWrite(b []byte, s league.ScoreWrite) []byte {
	b = append(b, `{"player_id":`...)
	b = strconv.AppendQuote(b, s.Player)
	b = append(b, `,"value":`...)
	b = strconv.AppendInt(b, s.Value, 10)
	if s.RequestID != "" {
		b = append(b, `,"request_id":`...)
		b = strconv.AppendQuote(b, s.RequestID)
	}
	return append(b, '}')
}

func (t *httpTarget) score(ctx context.Context, w *worker, s league.ScoreWrite) error {
	w.body = appendWrite(w.body[:0], s)
	if s.NoRank {
		return t.do(ctx, w, http.MethodPost, "/scores?rank=false", w.body)
	}
	return t.do(ctx, w, http.MethodPost, "/scores", w.body)
}

var errorKey = []byte(`"error":{`)

func (t *httpTarget) scoreBatch(ctx context.Context, w *worker, writes []league.ScoreWrite) (int, error) {
	b := append(w.body[:0], `{"writes":[`...)
	for i, s := range writes {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendWrite(b, s)
	}
	w.body = append(b, "]}"...)
	if err := t.do(ctx, w, http.MethodPost, "/scores/batch", w.body); err != nil {
		return len(writes), err
	}
	// A refused write is {"player_id":..,"error":{...}} in its place.
	if failed := bytes.Count(w.resp.Bytes(), errorKey); failed > 0 {
		i := bytes.Index(w.resp.Bytes(), errorKey)
		return failed, fmt.Errorf("%d of %d writes failed, e.g. %s", failed, len(writes), clip(w.resp.Bytes()[i:], 200))
	}
	return 0, nil
}

// standing asks POST .../standings for one player: the route that is
// exactly Engine.Standing (GET .../players/{id} adds rewards and history;
// that is the "player" workload).
func (t *httpTarget) standing(ctx context.Context, w *worker, player string) error {
	b := append(w.body[:0], `{"player_ids":[`...)
	b = strconv.AppendQuote(b, player)
	w.body = append(b, "]}"...)
	if err := t.do(ctx, w, http.MethodPost, "/standings", w.body); err != nil {
		return err
	}
	if i := bytes.Index(w.resp.Bytes(), errorKey); i >= 0 {
		return fmt.Errorf("standing: %s", clip(w.resp.Bytes()[i:], 200))
	}
	return nil
}

func (t *httpTarget) board(ctx context.Context, w *worker, id league.BoardID) error {
	return t.do(ctx, w, http.MethodGet, "/boards/"+id.String(), nil)
}

// player reads GET .../players/{id}: the standing, pending rewards and the
// settled history from the store.
func (t *httpTarget) player(ctx context.Context, w *worker, player string) error {
	return t.do(ctx, w, http.MethodGet, "/players/"+player, nil)
}

// lbWrite posts one write to every board of the leaderboard.
func (t *httpTarget) lbWrite(ctx context.Context, w *worker, s leaderboard.Write) error {
	return t.leaderboard.postScore(ctx, w, s)
}

var errNoRollingRoute = errors.New("lbroll runs through http only to the in-process leagued (a leagued at -http has no leaderboard " + rollLeaderboardID + ")")

// lbRollWrite posts one write to every board of lbroll's leaderboard.
func (t *httpTarget) lbRollWrite(ctx context.Context, w *worker, s leaderboard.Write) error {
	if t.rolling == nil {
		return errNoRollingRoute
	}
	return t.rolling.postScore(ctx, w, s)
}

// postScore posts one leaderboard write to t's /scores.
func (t *httpTarget) postScore(ctx context.Context, w *worker, s leaderboard.Write) error {
	b := append(w.body[:0], `{"member":`...)
	b = strconv.AppendQuote(b, s.Member)
	b = append(b, `,"value":`...)
	b = strconv.AppendInt(b, s.Value, 10)
	if s.RequestID != "" {
		b = append(b, `,"request_id":`...)
		b = strconv.AppendQuote(b, s.RequestID)
	}
	w.body = append(b, '}')
	return t.do(ctx, w, http.MethodPost, "/scores", w.body)
}

// lbTop reads the first limit entries of the current day board and
// returns the board's size, from the reply's "size".
func (t *httpTarget) lbTop(ctx context.Context, w *worker, limit int) (int, error) {
	if err := t.leaderboard.do(ctx, w, http.MethodGet, "/boards/day?limit="+strconv.Itoa(limit), nil); err != nil {
		return 0, err
	}
	return boardSize(w.resp.Bytes())
}

var sizeKey = []byte(`"size":`)

// boardSize reads the "size" of a page of a leaderboard's board. It comes
// before the entries (api/leaderboards.go's lbBoardJSON), and no member id
// can hold the key: a quote inside a JSON string is escaped.
func boardSize(reply []byte) (int, error) {
	i := bytes.Index(reply, sizeKey)
	if i < 0 {
		return 0, fmt.Errorf("board reply without size: %s", clip(reply, 200))
	}
	digits := reply[i+len(sizeKey):]
	n := 0
	for n < len(digits) && digits[n] >= '0' && digits[n] <= '9' {
		n++
	}
	size, err := strconv.Atoi(string(digits[:n]))
	if err != nil {
		return 0, fmt.Errorf("board reply with a bad size: %s", clip(reply[i:], 200))
	}
	return size, nil
}

// lbMember reads a member on every board of the leaderboard.
func (t *httpTarget) lbMember(ctx context.Context, w *worker, member string) error {
	return t.leaderboard.do(ctx, w, http.MethodGet, "/members/"+member, nil)
}

// leagueSummary is the part of GET .../leagues/{league} the harness needs.
type leagueSummary struct {
	BoardSize   int            `json:"board_size"`
	EntryTier   string         `json:"entry_tier"`
	Populations map[string]int `json:"populations"`
}

func (t *httpTarget) summary(ctx context.Context) (leagueSummary, error) {
	var s leagueSummary
	w := &worker{}
	defer w.close()
	if err := t.do(ctx, w, http.MethodGet, "", nil); err != nil {
		return s, err
	}
	return s, json.Unmarshal(w.resp.Bytes(), &s)
}

// leaderboardSummary is the part of GET .../leaderboards/{leaderboard} the
// harness shows.
type leaderboardSummary struct {
	Periods       []string `json:"periods"`
	ScoreOperator string   `json:"score_operator"`
	Order         string   `json:"order"`
	TieBreak      string   `json:"tie_break"`
}

func (t *httpTarget) leaderboardSummary(ctx context.Context) (leaderboardSummary, error) {
	var s leaderboardSummary
	w := &worker{}
	defer w.close()
	if err := t.leaderboard.do(ctx, w, http.MethodGet, "", nil); err != nil {
		return s, err
	}
	return s, json.Unmarshal(w.resp.Bytes(), &s)
}

// clip returns the start of b as a string, for error messages.
func clip(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "..."
	}
	return string(b)
}
