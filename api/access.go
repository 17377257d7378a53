package api

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"
)

// exchange is one JSON request on its way through serve: what the error
// path and the access line need to know of it.
type exchange struct {
	w      http.ResponseWriter
	r      *http.Request
	caller *Key   // the key the request came with, once known; nil for none or an unknown one
	id     string // the request id, once asked for (requestID)
}

// requestIDHeader carries a request's id for logs: the client's own when
// it sends a usable one, else one made here. It is echoed in replies when
// the client sent it, and in every 5xx reply (for a support ticket to
// quote). Not to be confused with a score write's request_id, which makes
// the write idempotent.
const requestIDHeader = "X-Request-Id"

// requestIDs makes the ids of requests that came without one: this
// process's random prefix and a counter, unique across replicas and cheap.
var requestIDs = struct {
	prefix string
	n      atomic.Uint64
}{prefix: randomPrefix()}

func randomPrefix() string {
	b := make([]byte, 4)
	rand.Read(b)
	return hex.EncodeToString(b) + "-"
}

// requestID returns the request's id: the client's X-Request-Id when it is
// 1-64 printable ASCII characters without spaces (an id that reaches logs
// must not carry line breaks), else one made on first use. Most requests
// never need one.
func (x *exchange) requestID() string {
	if x.id == "" {
		if v := x.r.Header[requestIDHeader]; len(v) == 1 && usableID(v[0]) {
			x.id = v[0]
		} else {
			x.id = requestIDs.prefix + strconv.FormatUint(requestIDs.n.Add(1), 10)
		}
	}
	return x.id
}

func usableID(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c > '~' {
			return false
		}
	}
	return true
}

// echoRequestID puts the request id in the reply's headers: always when
// the client sent a usable one (the same slice, no allocation), and for a
// 5xx reply when forced.
func (x *exchange) echoRequestID(force bool) {
	if v := x.r.Header[requestIDHeader]; len(v) == 1 && usableID(v[0]) {
		x.w.Header()[requestIDHeader] = v
	} else if force {
		x.w.Header()[requestIDHeader] = []string{x.requestID()}
	}
}

// logAccess logs a request's line: route, status, duration, key name and
// request id (never the key).
func (s *Server) logAccess(x *exchange, route string, status int, d time.Duration) {
	level := s.accessLog.Level()
	if !s.log.Enabled(context.Background(), level) {
		return
	}
	name := ""
	if x.caller != nil {
		name = x.caller.Name
	}
	s.log.LogAttrs(context.Background(), level, "request", slog.String("method", x.r.Method), slog.String("route", route),
		slog.Int("status", status), slog.Float64("duration_ms", float64(d.Microseconds())/1000), slog.String("key", name),
		slog.String("request_id", x.requestID()))
}
