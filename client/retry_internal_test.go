package client

import (
	"net/http"
	"testing"
	"time"
)

func TestBackoff(t *testing.T) {
	p := retryPolicy{attempts: 10, base: 100 * time.Millisecond, max: time.Second, maxRetryAfter: 30 * time.Second}
	for n, bound := range map[int]time.Duration{1: 100 * time.Millisecond, 2: 200 * time.Millisecond, 3: 400 * time.Millisecond,
		4: 800 * time.Millisecond, 5: time.Second, 30: time.Second} {
		var longest time.Duration
		for range 1000 {
			d := p.backoff(n)
			if d < 0 || d >= bound {
				t.Fatalf("backoff(%d) = %v, want in [0, %v)", n, d, bound)
			}
			longest = max(longest, d)
		}
		if longest < bound/2 {
			t.Errorf("backoff(%d): longest of 1000 draws %v, want up to %v (full jitter)", n, longest, bound)
		}
	}
}

func TestWait(t *testing.T) {
	p := retryPolicy{attempts: 4, base: time.Millisecond, max: time.Millisecond, maxRetryAfter: 10 * time.Second}
	for _, tc := range []struct {
		name string
		err  *Error
		want time.Duration
		ok   bool
	}{
		{"no reply", nil, 0, true},
		{"503 with Retry-After", &Error{Status: 503, RetryAfter: 2 * time.Second, hasRetryAfter: true}, 2 * time.Second, true},
		{"429 with Retry-After", &Error{Status: 429, RetryAfter: time.Second, hasRetryAfter: true}, time.Second, true},
		{"429 without: never frees", &Error{Status: 429}, 0, false},
		{"Retry-After past the bound", &Error{Status: 503, RetryAfter: time.Minute, hasRetryAfter: true}, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, ok := p.wait(1, tc.err)
			if ok != tc.ok || (tc.want > 0 && d != tc.want) || d > max(tc.want, time.Millisecond) {
				t.Fatalf("got %v, %v; want %v, %v", d, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 26, 8, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Duration{
		"": 0, "0": 0, "1": time.Second, "120": 2 * time.Minute, "-3": 0, "soon": 0,
		now.Add(30 * time.Second).Format(http.TimeFormat): 30 * time.Second,
		now.Add(-time.Hour).Format(http.TimeFormat):       0,
	} {
		if got := parseRetryAfter(in, now); got != want {
			t.Errorf("parseRetryAfter(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestFieldOf(t *testing.T) {
	for msg, want := range map[string]string{
		"writes[3].value: not an integer":          "writes[3].value",
		"limit: 5000 is outside 1..1000":           "limit",
		`player "x" has never joined: it must`:     "",
		"more than 1000 writes; send at most 1000": "",
	} {
		if got := fieldOf(msg); got != want {
			t.Errorf("fieldOf(%q) = %q, want %q", msg, got, want)
		}
	}
}
