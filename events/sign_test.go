package events_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/league-engine/league/events"
)

// TestSignAndVerify: the signature is the HMAC-SHA256 of "<t>.<body>" in
// hex, as docs/operations.md tells receivers to compute it; Verify takes
// it, takes either secret while one is rotated, and refuses a changed body,
// another secret, an old timestamp and a header without one.
func TestSignAndVerify(t *testing.T) {
	body := []byte(`{"id":1,"type":"period.closed"}`)
	at := time.Unix(1_795_000_000, 0)
	h := events.Sign([]string{"old-secret-0123456789", "new-secret-0123456789"}, at, body)
	m := hmac.New(sha256.New, []byte("new-secret-0123456789"))
	m.Write([]byte("1795000000." + string(body)))
	if want := "v1=" + hex.EncodeToString(m.Sum(nil)); !strings.HasPrefix(h, "t=1795000000,v1=") || !strings.HasSuffix(h, ","+want) {
		t.Fatalf("header %q, want t=1795000000 and %s", h, want)
	}
	for _, secret := range []string{"old-secret-0123456789", "new-secret-0123456789"} {
		if err := events.Verify(secret, h, body, at.Add(time.Minute), 0); err != nil {
			t.Fatalf("Verify with %s: %v", secret, err)
		}
	}
	for name, err := range map[string]error{
		"changed body":    events.Verify("new-secret-0123456789", h, []byte(`{"id":2}`), at, 0),
		"another secret":  events.Verify("other-secret-0123456789", h, body, at, 0),
		"too old":         events.Verify("new-secret-0123456789", h, body, at.Add(6*time.Minute), 0),
		"from the future": events.Verify("new-secret-0123456789", h, body, at.Add(-6*time.Minute), 0),
		"no timestamp":    events.Verify("new-secret-0123456789", strings.TrimPrefix(h, "t=1795000000,"), body, at, 0),
		"empty":           events.Verify("new-secret-0123456789", "", body, at, 0),
	} {
		if !errors.Is(err, events.ErrSignature) {
			t.Errorf("%s: %v, want ErrSignature", name, err)
		}
	}
	if err := events.Verify("new-secret-0123456789", h, body, at.Add(time.Hour), 2*time.Hour); err != nil {
		t.Errorf("a wider tolerance: %v", err)
	}
}

// TestBackoff: doubling from the base up to the maximum, less up to half
// of it at random.
func TestBackoff(t *testing.T) {
	b := events.Backoff{Base: time.Second, Max: 10 * time.Minute}
	for _, c := range []struct {
		n    int
		r    float64
		want time.Duration
	}{
		{1, 0, 500 * time.Millisecond}, {1, 0.999999, time.Second - time.Microsecond}, {2, 0, time.Second}, {4, 1, 8 * time.Second},
		{10, 1, 8*time.Minute + 32*time.Second}, {11, 1, 10 * time.Minute}, {11, 0, 5 * time.Minute}, {70, 1, 10 * time.Minute},
		{0, 0, 500 * time.Millisecond},
	} {
		if got := b.After(c.n, c.r); got < c.want-time.Microsecond || got > c.want+time.Microsecond {
			t.Errorf("After(%d, %v) = %v, want %v", c.n, c.r, got, c.want)
		}
	}
}

// TestEventJSON: the wire form the feed and the webhooks share, and back.
func TestEventJSON(t *testing.T) {
	e := events.Event{ID: 42, Type: events.PlayerPromoted, League: "weekly", Period: time.Date(2026, 11, 16, 0, 0, 0, 0, time.UTC),
		Player: "alice", At: time.Date(2026, 11, 23, 0, 0, 1, 500, time.UTC), Data: json.RawMessage(`{"from":"bronze"}`)}
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":42,"type":"player.promoted","league":"weekly","period":"20261116T000000Z","player_id":"alice","at":"2026-11-23T00:00:01Z","data":{"from":"bronze"}}`
	if string(b) != want {
		t.Fatalf("JSON %s\nwant %s", b, want)
	}
	var back events.Event
	if err := json.Unmarshal(b, &back); err != nil || back.ID != 42 || back.Player != "alice" || !back.Period.Equal(e.Period) ||
		back.Lane() != "weekly alice" {
		t.Fatalf("read back: %+v, %v", back, err)
	}
	closed := events.Event{ID: 1, Type: events.PeriodClosed, League: "weekly", Period: e.Period, At: e.At}
	if b, _ := json.Marshal(closed); !strings.Contains(string(b), `"player_id":null`) || !strings.Contains(string(b), `"data":{}`) {
		t.Fatalf("period.closed JSON %s", b)
	}
	if closed.Lane() != "weekly" {
		t.Fatalf("period.closed lane %q", closed.Lane())
	}
}

// TestCheckURL: http and https URLs with a host only.
func TestCheckURL(t *testing.T) {
	for _, ok := range []string{"https://game.example.com/hooks/league", "http://10.0.0.7:8080/x?k=v"} {
		if err := events.CheckURL(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for bad, want := range map[string]string{
		"":                           "required",
		"ftp://game.example.com/x":   "not an http:// or https:// URL",
		"game.example.com/hook":      "not an http:// or https:// URL",
		"https:///path":              "names no host",
		"https://a.example.com/#x":   "#fragment",
		"https://u:pw@a.example/%zz": "not a URL",
	} {
		err := events.CheckURL(bad)
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), ":pw@") {
			t.Errorf("%q: %v, want an error saying %q (and no password)", bad, err, want)
		}
	}
}
