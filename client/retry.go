package client

import (
	crand "crypto/rand"
	"encoding/hex"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"
)

// retryPolicy is how a call that is safe to repeat is retried.
type retryPolicy struct {
	attempts      int           // sends at most, the first included
	base, max     time.Duration // backoff: a random wait in [0, min(max, base*2^n))
	maxRetryAfter time.Duration // a longer Retry-After is the caller's to wait
}

var defaultRetry = retryPolicy{attempts: 4, base: 100 * time.Millisecond, max: 5 * time.Second, maxRetryAfter: 30 * time.Second}

// backoff is the wait before retry n (1 for the first retry): "full
// jitter", a uniform draw below the capped exponential, so that clients
// failed by the same blip do not come back together.
func (p retryPolicy) backoff(n int) time.Duration {
	d := p.base
	for i := 1; i < n && d < p.max; i++ {
		d *= 2
	}
	d = min(d, p.max)
	if d <= 0 {
		return 0
	}
	return rand.N(d)
}

// retryable reports whether a reply of this status may be sent again (for a
// call that is safe to repeat): the service or a proxy in front of it was
// unavailable, or a rate limit frees later. Never another 4xx: the same
// request would be refused the same way.
func retryable(status int) bool {
	switch status {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// wait is how long to wait before retry n after err: the reply's
// Retry-After when it gave one, else the backoff; ok false when the call
// should not be retried (a limit that never frees, a Retry-After past the
// bound).
func (p retryPolicy) wait(n int, err *Error) (d time.Duration, ok bool) {
	if err == nil { // a network error
		return p.backoff(n), true
	}
	if err.Status == http.StatusTooManyRequests && !err.hasRetryAfter {
		return 0, false // a limit of "ever" never frees
	}
	if err.RetryAfter > p.maxRetryAfter {
		return 0, false
	}
	return max(err.RetryAfter, p.backoff(n)), true
}

// parseRetryAfter reads Retry-After as seconds or an HTTP date; 0 when
// absent or unreadable.
func parseRetryAfter(v string, now time.Time) time.Duration {
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseInt(v, 10, 64); err == nil {
		if s < 0 {
			return 0
		}
		return time.Duration(min(s, 1<<31)) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// NewRequestID returns a random request id (16 bytes, hex): what the
// client gives a write the caller sent without one. A caller that retries
// a write itself, after the client gave up, keeps the id the write was
// sent with (each result reports it).
func NewRequestID() string {
	b := make([]byte, 16)
	crand.Read(b) // never fails (crypto/rand)
	return hex.EncodeToString(b)
}
