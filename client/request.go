package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// maxReply bounds a reply read into memory: a page of 1,000 board entries
// with their catalog metadata is a few MiB.
const maxReply = 64 << 20

// call is one API call as the methods describe it.
type call struct {
	method string
	path   string     // escaped, from /v1
	query  url.Values // nil: none
	in     any        // the JSON body; nil: none
	raw    []byte     // a body sent as is, of type contentType (a CSV import)
	ctype  string
	// rid is sent as X-Request-Id, so the service's log lines of the call
	// name the write's request id; "" none.
	rid string
	// safe: sending it twice does what sending it once does (a read, a
	// write with a request id, a join), so it may be retried.
	safe bool
	out  any // decoded from a 2xx reply; nil: the reply is dropped
}

// do sends cl, retrying it when it is safe to, and decodes its reply.
func (c *Client) do(ctx context.Context, cl call) error {
	body, ctype := cl.raw, cl.ctype
	if cl.in != nil {
		b, err := json.Marshal(cl.in)
		if err != nil {
			return fmt.Errorf("league: %s %s: encoding the body: %w", cl.method, cl.path, err)
		}
		body, ctype = b, "application/json"
	}
	target := c.base + cl.path
	if len(cl.query) > 0 {
		target += "?" + cl.query.Encode()
	}
	for n := 1; ; n++ {
		status, reply, apiErr, err := c.send(ctx, cl.method, target, body, ctype, cl.rid)
		switch {
		case err != nil:
			if ctx.Err() != nil {
				return ctx.Err()
			}
			err = fmt.Errorf("league: %s %s: %w", cl.method, cl.path, err)
		case apiErr != nil:
			err = apiErr
			if !retryable(status) {
				return err
			}
		default:
			if cl.out == nil {
				return nil
			}
			if derr := json.Unmarshal(reply, cl.out); derr != nil {
				return fmt.Errorf("league: %s %s: decoding the reply (%d): %w", cl.method, cl.path, status, derr)
			}
			return nil
		}
		if !cl.safe || n >= c.retry.attempts {
			return err
		}
		d, ok := c.retry.wait(n, apiErr)
		if !ok {
			return err
		}
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
	}
}

// send makes one attempt: the status and body of a 2xx, the *Error of any
// other status, or the error of a request that got no reply.
func (c *Client) send(ctx context.Context, method, target string, body []byte, ctype, rid string) (int, []byte, *Error, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, target, rd)
	if err != nil {
		return 0, nil, nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", ctype)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", c.userAgent)
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	if rid != "" {
		req.Header.Set("X-Request-Id", rid)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	reply, err := io.ReadAll(io.LimitReader(resp.Body, maxReply))
	if err != nil {
		return 0, nil, nil, err // the reply was cut: as if none came
	}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return resp.StatusCode, reply, nil, nil
	}
	return resp.StatusCode, nil, errorOf(resp, reply), nil
}

// errorOf is the *Error of a reply that is not a success: the API's
// {"error":{...}}, or for another body (a proxy's page, net/http's plain
// text) the code its status means and the start of the text.
func errorOf(resp *http.Response, body []byte) *Error {
	var env struct {
		Error *errorObject `json:"error"`
	}
	var e *Error
	if json.Unmarshal(body, &env) == nil && env.Error != nil && env.Error.Code != "" {
		e = env.Error.err()
	} else {
		msg := strings.TrimSpace(string(body[:min(len(body), 200)]))
		if msg == "" {
			msg = http.StatusText(resp.StatusCode)
		}
		e = &Error{Code: codeOfStatus(resp.StatusCode), Message: msg}
	}
	e.Status = resp.StatusCode
	ra := resp.Header.Get("Retry-After")
	e.RetryAfter, e.hasRetryAfter = parseRetryAfter(ra, time.Now()), ra != ""
	e.RequestID = resp.Header.Get("X-Request-Id")
	if e.Code == "invalid" && e.Field == "" {
		e.Field = fieldOf(e.Message)
	}
	return e
}

// fieldOf is the field an invalid input's message names first (the API
// writes "writes[3].value: ..."), or "".
func fieldOf(msg string) string {
	i := strings.Index(msg, ": ")
	if i <= 0 || strings.ContainsAny(msg[:i], " \"'") {
		return ""
	}
	return msg[:i]
}

// seg escapes one path segment (a player id "a/b" travels as a%2Fb).
func seg(s string) string { return url.PathEscape(s) }
