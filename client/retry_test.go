package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/league-engine/league/client"
)

// flaky is a server that answers the first fail requests with status (and
// retryAfter when set), then 200 with reply; it keeps every body it got.
type flaky struct {
	fail       int
	status     int
	retryAfter string
	reply      string
	hijack     bool // fail by closing the connection, without a reply

	mu     sync.Mutex
	bodies []string
	rids   []string // X-Request-Id of each request
	calls  atomic.Int32
}

func (f *flaky) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.bodies = append(f.bodies, string(b))
	f.rids = append(f.rids, r.Header.Get("X-Request-Id"))
	f.mu.Unlock()
	if int(f.calls.Add(1)) <= f.fail {
		if f.hijack {
			c, _, _ := w.(http.Hijacker).Hijack()
			c.Close()
			return
		}
		if f.retryAfter != "" {
			w.Header().Set("Retry-After", f.retryAfter)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(f.status)
		code := map[int]string{400: "invalid", 409: "conflict", 429: "rate_limited", 503: "unavailable"}[f.status]
		if code == "" {
			io.WriteString(w, "<html>bad gateway</html>") // a proxy's page
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"error": map[string]string{"code": code, "message": "writes[2].value: refused on purpose"}})
		return
	}
	io.WriteString(w, f.reply)
}

func serve(t *testing.T, f *flaky) *client.Client {
	t.Helper()
	ts := httptest.NewServer(f)
	t.Cleanup(ts.Close)
	return client.New(ts.URL, "k", client.WithBackoff(time.Millisecond, 5*time.Millisecond))
}

const scoreReply = `{"league":"weekly","period":"20261116T000000Z","tier":"bronze","board":"bronze-1","score":5,"rank":1,"board_size":1,"zone":"stay","replayed":false}`

func TestRetries(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name      string
		f         *flaky
		wantCalls int
		wantCode  string // "" success
	}{
		{"503 twice, then 200", &flaky{fail: 2, status: 503}, 3, ""},
		{"502 from a proxy", &flaky{fail: 1, status: 502}, 2, ""},
		{"504 from a proxy", &flaky{fail: 1, status: 504}, 2, ""},
		{"connection closed", &flaky{fail: 2, hijack: true}, 3, ""},
		{"429 with Retry-After", &flaky{fail: 1, status: 429, retryAfter: "0"}, 2, ""},
		{"503 past the attempts", &flaky{fail: 10, status: 503}, 4, "unavailable"},
		{"400 never retried", &flaky{fail: 10, status: 400}, 1, "invalid"},
		{"409 never retried", &flaky{fail: 10, status: 409}, 1, "conflict"},
		{"429 without Retry-After (a limit of ever)", &flaky{fail: 10, status: 429}, 1, "rate_limited"},
		{"429 past the longest wait", &flaky{fail: 10, status: 429, retryAfter: "3600"}, 1, "rate_limited"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.f.reply = scoreReply
			c := serve(t, tc.f)
			r, err := c.Score(ctx, "weekly", client.ScoreWrite{PlayerID: "ada", Value: 5})
			if got := int(tc.f.calls.Load()); got != tc.wantCalls {
				t.Errorf("got %d calls, want %d", got, tc.wantCalls)
			}
			if tc.wantCode == "" {
				if err != nil || r.Score != 5 {
					t.Fatalf("got %+v, %v; want score 5", r, err)
				}
				return
			}
			var e *client.Error
			if !errors.As(err, &e) || e.Code != tc.wantCode {
				t.Fatalf("got %v, want code %s", err, tc.wantCode)
			}
		})
	}
}

// A write is retried with the request id it was first sent with: the
// caller's, or the one the client made.
func TestRetryKeepsRequestID(t *testing.T) {
	ctx := context.Background()
	ids := func(f *flaky, field string) []string {
		var out []string
		for _, b := range f.bodies {
			var v map[string]any
			if err := json.Unmarshal([]byte(b), &v); err != nil {
				t.Fatalf("body %q: %v", b, err)
			}
			if ws, ok := v["writes"].([]any); ok {
				for _, w := range ws {
					out = append(out, w.(map[string]any)[field].(string))
				}
				continue
			}
			out = append(out, v[field].(string))
		}
		return out
	}
	same := func(t *testing.T, got []string, n int) {
		t.Helper()
		if len(got) != n || got[0] == "" {
			t.Fatalf("got request ids %q, want %d", got, n)
		}
		for _, id := range got {
			if id != got[0] {
				t.Fatalf("got request ids %q, want one id sent every time", got)
			}
		}
	}
	t.Run("made by the client", func(t *testing.T) {
		f := &flaky{fail: 2, status: 503, reply: scoreReply}
		r, err := serve(t, f).Score(ctx, "weekly", client.ScoreWrite{PlayerID: "ada", Value: 5})
		if err != nil {
			t.Fatal(err)
		}
		got := ids(f, "request_id")
		same(t, got, 3)
		if len(got[0]) != 32 || r.RequestID != got[0] {
			t.Errorf("got id %q, result's %q; want 32 hex digits, the same", got[0], r.RequestID)
		}
		for _, h := range f.rids {
			if h != got[0] {
				t.Errorf("got X-Request-Id %q, want the write's request id %q, naming it in the service's logs", h, got[0])
			}
		}
	})
	t.Run("the caller's", func(t *testing.T) {
		f := &flaky{fail: 1, status: 503, reply: scoreReply}
		if _, err := serve(t, f).Score(ctx, "weekly", client.ScoreWrite{PlayerID: "ada", Value: 5, RequestID: "mine-1"}); err != nil {
			t.Fatal(err)
		}
		if got := ids(f, "request_id"); len(got) != 2 || got[0] != "mine-1" || got[1] != "mine-1" {
			t.Fatalf("got %q, want mine-1 twice", got)
		}
	})
	t.Run("leaderboard write", func(t *testing.T) {
		f := &flaky{fail: 1, hijack: true, reply: `{"leaderboard":"kills","member":"m","boards":[],"replayed":false}`}
		if _, err := serve(t, f).Write(ctx, "kills", client.LeaderboardWrite{Member: "m", Value: 1}); err != nil {
			t.Fatal(err)
		}
		same(t, ids(f, "request_id"), 2)
	})
	t.Run("batch", func(t *testing.T) {
		f := &flaky{fail: 1, status: 503, reply: `{"results":[{"player_id":"a","league":"weekly","period":"p","tier":"t","board":"t-1","score":1,"rank":1,"board_size":1,"zone":"stay","replayed":false}]}`}
		res, err := serve(t, f).ScoreBatch(ctx, "weekly", []client.ScoreWrite{{PlayerID: "a", Value: 1}})
		if err != nil {
			t.Fatal(err)
		}
		got := ids(f, "request_id")
		same(t, got, 2)
		if res[0].RequestID != got[0] {
			t.Errorf("got result's id %q, want %q", res[0].RequestID, got[0])
		}
	})
}

// A call that is not safe to repeat (approving a held write) is sent once.
func TestNoRetryOfUnsafeCall(t *testing.T) {
	f := &flaky{fail: 10, status: 503}
	_, err := serve(t, f).ApproveHeld(context.Background(), "weekly", 3)
	if !errors.Is(err, client.ErrUnavailable) || f.calls.Load() != 1 {
		t.Fatalf("got %v after %d calls, want unavailable after 1", err, f.calls.Load())
	}
}

// Retry-After is waited for, and the wait ends with the context.
func TestRetryAfter(t *testing.T) {
	f := &flaky{fail: 1, status: 503, retryAfter: "1", reply: scoreReply}
	start := time.Now()
	if _, err := serve(t, f).Score(context.Background(), "weekly", client.ScoreWrite{PlayerID: "ada", Value: 5}); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < time.Second {
		t.Errorf("retried after %v, want Retry-After's 1s", d)
	}

	f = &flaky{fail: 10, status: 503, retryAfter: "20"}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start = time.Now()
	_, err := serve(t, f).Score(ctx, "weekly", client.ScoreWrite{PlayerID: "ada", Value: 5})
	var e *client.Error
	if !errors.As(err, &e) || e.RetryAfter != 20*time.Second || time.Since(start) > 5*time.Second {
		t.Fatalf("got %v (%+v) after %v, want the 503 carrying Retry-After 20s, at the context's end", err, e, time.Since(start))
	}
}

// ScoreMany sends MaxBatch writes a call; a call that fails fails its own
// writes only.
func TestScoreManySplits(t *testing.T) {
	var sizes []int
	var mu sync.Mutex
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in struct {
			Writes []client.ScoreWrite `json:"writes"`
		}
		json.NewDecoder(r.Body).Decode(&in)
		mu.Lock()
		sizes = append(sizes, len(in.Writes))
		n := len(sizes)
		mu.Unlock()
		if n == 2 {
			w.WriteHeader(400)
			io.WriteString(w, `{"error":{"code":"invalid","message":"writes[0].player_id: refused on purpose"}}`)
			return
		}
		res := make([]map[string]any, len(in.Writes))
		for i, wr := range in.Writes {
			res[i] = map[string]any{"player_id": wr.PlayerID, "score": wr.Value}
		}
		json.NewEncoder(w).Encode(map[string]any{"results": res})
	}))
	defer ts.Close()
	writes := make([]client.ScoreWrite, 2500)
	for i := range writes {
		writes[i] = client.ScoreWrite{PlayerID: "p", Value: int64(i)}
	}
	res, err := client.New(ts.URL, "k").ScoreMany(context.Background(), "weekly", writes)
	if !errors.Is(err, client.ErrInvalid) {
		t.Fatalf("got %v, want the second call's invalid", err)
	}
	if len(sizes) != 3 || sizes[0] != 1000 || sizes[1] != 1000 || sizes[2] != 500 {
		t.Fatalf("got calls of %v writes, want 1000, 1000, 500", sizes)
	}
	for i, r := range res {
		failed := i >= 1000 && i < 2000
		if (r.Err != nil) != failed || (!failed && r.Score != int64(i)) || r.RequestID == "" {
			t.Fatalf("write %d: got %+v, want failed %v, score %d and a request id", i, r, failed, i)
		}
	}
	if writes[0].RequestID != "" {
		t.Error("ScoreMany changed the caller's writes")
	}
}
