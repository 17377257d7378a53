// Package client is a typed Go client of the league API (api/openapi.yaml):
// leagues, leaderboards and the admin routes, a context on every call.
//
// Calls that are safe to repeat are retried on network errors, 502, 503,
// 504 and 429 (honouring Retry-After), with exponential backoff and full
// jitter: reads, and writes that carry a request id, which the client
// makes for every write the caller gave none, so a write is never sent
// twice without one. Errors the API answers are *Error, comparable by code
// with errors.Is (client.ErrNotJoined, client.ErrPeriodClosed, ...).
//
// It depends on the standard library only, so a game server takes it in
// without the service's dependencies.
package client

import (
	"net/http"
	"strings"
	"time"
)

// Client calls one league service. It is safe for concurrent use.
type Client struct {
	base      string // without a trailing slash
	key       string
	hc        *http.Client
	userAgent string
	retry     retryPolicy
}

// Option configures a Client.
type Option func(*Client)

// WithHTTPClient sends the requests through hc (its timeouts, transport,
// proxies) rather than http.DefaultClient.
func WithHTTPClient(hc *http.Client) Option { return func(c *Client) { c.hc = hc } }

// WithRetries sets how many times a call that is safe to repeat is sent at
// most, the first included (default 4); 1 turns retries off.
func WithRetries(attempts int) Option {
	return func(c *Client) { c.retry.attempts = max(attempts, 1) }
}

// WithBackoff sets the backoff between attempts: a random wait in [0, d)
// where d doubles from base up to maxWait (defaults 100ms and 5s).
func WithBackoff(base, maxWait time.Duration) Option {
	return func(c *Client) { c.retry.base, c.retry.max = base, maxWait }
}

// WithMaxRetryAfter bounds the Retry-After the client waits for before a
// retry (default 30s): a reply asking for longer is returned as its error,
// RetryAfter telling the caller when.
func WithMaxRetryAfter(d time.Duration) Option {
	return func(c *Client) { c.retry.maxRetryAfter = d }
}

// WithUserAgent sets the User-Agent header (default "league-go-client").
func WithUserAgent(ua string) Option { return func(c *Client) { c.userAgent = ua } }

// DefaultUserAgent is the User-Agent of a client not given one.
const DefaultUserAgent = "league-go-client"

// New returns a client of the service at baseURL (e.g.
// "http://leagued:8080") calling with apiKey, sent as a bearer token; an
// empty key sends none (a server without keys).
func New(baseURL, apiKey string, opts ...Option) *Client {
	c := &Client{
		base:      strings.TrimRight(baseURL, "/"),
		key:       apiKey,
		hc:        http.DefaultClient,
		userAgent: DefaultUserAgent,
		retry:     defaultRetry,
	}
	for _, o := range opts {
		o(c)
	}
	return c
}
