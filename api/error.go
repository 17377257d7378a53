package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/league-engine/league/internal/excerpt"
	"github.com/league-engine/league/leaderboard"
	"github.com/league-engine/league/league"
)

// statusOf is the one table from error codes to HTTP statuses. Only two
// answers bypass it, both about the HTTP request itself rather than the
// league: a body over the size limit (413) and a method the path does not
// take (405); they carry their status in a statusError.
var statusOf = map[league.Code]int{
	league.Invalid:      http.StatusBadRequest,
	league.Unauthorized: http.StatusUnauthorized,
	league.Forbidden:    http.StatusForbidden,
	league.NotFound:     http.StatusNotFound,
	league.NotJoined:    http.StatusConflict,
	league.PeriodClosed: http.StatusConflict,
	league.Conflict:     http.StatusConflict,
	league.Overflow:     http.StatusUnprocessableEntity,
	league.RateLimited:  http.StatusTooManyRequests,
	league.Banned:       http.StatusForbidden,
	league.Moderated:    http.StatusForbidden,
	league.Unavailable:  http.StatusServiceUnavailable,
	league.Internal:     http.StatusInternalServerError,
}

// statusError is an error whose status is the transport's own (see
// statusOf). Its cause carries the code and message.
type statusError struct {
	status int
	err    *league.Error
	allow  string // the Allow header of a 405
}

func (e *statusError) Error() string { return e.err.Error() }
func (e *statusError) Unwrap() error { return e.err }

// status returns the HTTP status of err.
func status(err error) int {
	var se *statusError
	if errors.As(err, &se) {
		return se.status
	}
	if st, ok := statusOf[league.ErrorCode(err)]; ok {
		return st
	}
	return http.StatusInternalServerError
}

// writeError writes err as {"error":{"code","message"}} with its status and
// returns the status. Internal errors reach the caller as "internal error"
// and the log in full. A request past its deadline answers 503, whatever
// failed for want of time; every 503 says when to retry (Retry-After) and
// every 5xx carries the request id the log lines name.
func (s *Server) writeError(x *exchange, err error) int {
	r := x.r
	code, message := league.ErrorCode(err), league.ErrorMessage(err)
	if _, known := statusOf[code]; !known {
		code = league.Internal // a code this API does not know is a bug
	}
	st := status(err)
	switch ctxErr := r.Context().Err(); {
	case ctxErr == context.DeadlineExceeded && (code == league.Internal || code == league.Unavailable):
		if code == league.Internal {
			message = "no answer within the request deadline (" + s.requestTimeout.String() + "); retry"
		}
		code, st = league.Unavailable, http.StatusServiceUnavailable
		s.log.Debug("api: request past its deadline", "method", r.Method, "route", r.Pattern, "request_id", x.requestID(), "err", err)
	case code == league.Internal && ctxErr != nil:
		// The caller went away mid-request: not a failure of ours.
		s.log.Debug("api: request canceled", "method", r.Method, "route", r.Pattern, "request_id", x.requestID(), "err", err)
		message = "internal error"
	case code == league.Internal:
		s.log.Error("api: internal error", "method", r.Method, "route", r.Pattern, "request_id", x.requestID(), "err", err)
		message = "internal error"
	}
	h := x.w.Header()
	switch {
	case code == league.Unauthorized:
		h.Set("WWW-Authenticate", `Bearer realm="league"`)
	case st == http.StatusServiceUnavailable:
		h["Retry-After"] = retryAfter
	case code == league.RateLimited || code == league.Banned:
		// until the refusing limit's window frees (none: it never does),
		// or the ban ends
		var limited interface{ RetryAfter() time.Duration }
		if errors.As(err, &limited) && limited.RetryAfter() > 0 {
			h.Set("Retry-After", strconv.FormatInt(int64((limited.RetryAfter()+time.Second-1)/time.Second), 10))
		}
	}
	if st >= 500 {
		x.echoRequestID(true)
	}
	var se *statusError
	if errors.As(err, &se) && se.allow != "" {
		h.Set("Allow", se.allow)
	}
	rep := errorReply{code: code, message: message}
	if code != league.Internal {
		// a refused catalog import lists every entry it refused
		errors.As(err, &rep.problems)
	}
	return s.writeReply(x, st, rep)
}

// retryAfter is the Retry-After of a 503: a second, after which a
// dependency that blipped is back, or the client backs off further.
var retryAfter = []string{"1"}

// errorReply is the body of every error.
type errorReply struct {
	code     league.Code
	message  string
	problems *leaderboard.ImportError // a refused import's entries, listed
}

func (e errorReply) appendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"error":`...)
	b = appendErrorObject(b, e.code, e.message)
	if p := e.problems; p != nil {
		// inside the error object: {"code","message","problems":[...],"more_problems":N}
		b = append(b[:len(b)-1], `,"problems":[`...)
		for i, pr := range p.Problems {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendStringField(append(b, '{'), "entry", pr.Entry, true)
			b = appendStringField(b, "field", pr.Field, false)
			b = append(appendStringField(b, "message", pr.Message, false), '}')
		}
		b = append(appendIntField(append(b, ']'), "more_problems", int64(p.More)), '}')
	}
	return append(b, '}'), nil
}

// appendErrorObject appends {"code","message"}, the error object of error
// replies and of failed batch items.
func appendErrorObject(b []byte, code league.Code, message string) []byte {
	b = append(b, `{"code":`...)
	b = appendString(b, string(code))
	b = append(b, `,"message":`...)
	b = appendString(b, message)
	return append(b, '}')
}

// errorBody is the error object in replies encoded by encoding/json.
type errorBody struct {
	Code    league.Code `json:"code"`
	Message string      `json:"message"`
}

func newErrorBody(err error) *errorBody {
	return &errorBody{Code: league.ErrorCode(err), Message: league.ErrorMessage(err)}
}

// invalid is the error of bad input in one field.
func invalid(field, format string, args ...any) error {
	return &league.Error{Code: league.Invalid, Field: field, Message: fmt.Sprintf(format, args...)}
}

// methodNotAllowed is the 405 of a path that takes other methods.
func methodNotAllowed(method string, allowed []string) error {
	list := strings.Join(allowed, ", ")
	return &statusError{status: http.StatusMethodNotAllowed, allow: list, err: league.Errorf(league.Invalid,
		"method %s is not allowed here; allowed: %s", excerpt.Of(method), list)}
}
