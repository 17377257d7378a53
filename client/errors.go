package client

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Error is an error the API answered (or the client refused before
// sending, with the API's code and message). Compare it with the sentinel
// values by code: errors.Is(err, client.ErrPeriodClosed).
type Error struct {
	Status  int    // the HTTP status; 0 for a check made before sending
	Code    string // the API's code: invalid, not_found, not_joined, ...
	Message string
	// Field names the input at fault, for the client's own checks before
	// sending; the API names it in Message.
	Field string
	// RetryAfter is the reply's Retry-After (429, 503, a ban's 403); 0
	// when it had none.
	RetryAfter time.Duration
	// RequestID is the reply's X-Request-Id, for a support ticket (every
	// 5xx carries one).
	RequestID string
	// Problems are a refused catalog import's entries, each refused and
	// why; MoreProblems counts those past the list.
	Problems     []ImportProblem
	MoreProblems int

	hasRetryAfter bool // the reply had a Retry-After, maybe of 0
}

// ImportProblem is one entry a catalog import refused.
type ImportProblem struct {
	Entry   string `json:"entry"` // entries[3] of a JSON body, row 7 of a CSV file
	Field   string `json:"field"`
	Message string `json:"message"`
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("league: ")
	if e.Status != 0 {
		b.WriteString(strconv.Itoa(e.Status) + " ")
	}
	if e.Code != "" {
		b.WriteString(e.Code + ": ")
	}
	if e.Field != "" && !strings.Contains(e.Message, e.Field) {
		b.WriteString(e.Field + ": ")
	}
	b.WriteString(e.Message)
	return b.String()
}

// Is reports whether target is an *Error of the same code, so that the
// sentinels match any error of their code whatever its message.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code != "" && t.Code == e.Code
}

// The API's codes (api/error.go), as sentinels for errors.Is.
var (
	ErrInvalid      = &Error{Code: "invalid", Message: "invalid input"}
	ErrUnauthorized = &Error{Code: "unauthorized", Message: "no key, or an unknown one"}
	ErrForbidden    = &Error{Code: "forbidden", Message: "the key may not call this"}
	ErrNotFound     = &Error{Code: "not_found", Message: "not found"}
	ErrNotJoined    = &Error{Code: "not_joined", Message: "the player has not joined the current period"}
	ErrPeriodClosed = &Error{Code: "period_closed", Message: "the period has ended or is being settled"}
	ErrConflict     = &Error{Code: "conflict", Message: "conflict"}
	ErrOverflow     = &Error{Code: "overflow", Message: "past the maximum score"}
	ErrRateLimited  = &Error{Code: "rate_limited", Message: "a rate limit is reached"}
	ErrBanned       = &Error{Code: "banned", Message: "the player is banned"}
	ErrModerated    = &Error{Code: "moderated", Message: "the player is off their board"}
	ErrUnavailable  = &Error{Code: "unavailable", Message: "unavailable; retry later"}
	ErrInternal     = &Error{Code: "internal", Message: "internal error"}
)

// statusOf is the API's table from codes to statuses (api/error.go), for
// the errors of a batch's items, which carry a code and no status.
var statusOf = map[string]int{
	"invalid":       http.StatusBadRequest,
	"unauthorized":  http.StatusUnauthorized,
	"forbidden":     http.StatusForbidden,
	"banned":        http.StatusForbidden,
	"moderated":     http.StatusForbidden,
	"not_found":     http.StatusNotFound,
	"not_joined":    http.StatusConflict,
	"period_closed": http.StatusConflict,
	"conflict":      http.StatusConflict,
	"overflow":      http.StatusUnprocessableEntity,
	"rate_limited":  http.StatusTooManyRequests,
	"unavailable":   http.StatusServiceUnavailable,
	"internal":      http.StatusInternalServerError,
}

// errorObject is the API's {"code","message",...}, in an error reply and in
// a batch's failed item.
type errorObject struct {
	Code         string          `json:"code"`
	Message      string          `json:"message"`
	Problems     []ImportProblem `json:"problems,omitempty"`
	MoreProblems int             `json:"more_problems,omitempty"`
}

func (o *errorObject) err() *Error {
	if o == nil {
		return nil
	}
	e := &Error{Status: statusOf[o.Code], Code: o.Code, Message: o.Message, Problems: o.Problems, MoreProblems: o.MoreProblems}
	if e.Code == "invalid" {
		e.Field = fieldOf(e.Message)
	}
	return e
}

// codeOfStatus is the code of a reply that is not the API's JSON (a proxy's
// 502, net/http's plain-text 400): what the status means to a caller.
func codeOfStatus(status int) string {
	switch {
	case status == http.StatusBadGateway || status == http.StatusServiceUnavailable || status == http.StatusGatewayTimeout:
		return "unavailable"
	case status == http.StatusTooManyRequests:
		return "rate_limited"
	case status == http.StatusNotFound:
		return "not_found"
	case status == http.StatusUnauthorized:
		return "unauthorized"
	case status == http.StatusForbidden:
		return "forbidden"
	case status >= 500:
		return "internal"
	case status >= 400:
		return "invalid"
	}
	return ""
}

// invalid is the client's own refusal of bad input, before sending.
func invalid(field, format string, args ...any) *Error {
	return &Error{Code: "invalid", Field: field, Message: field + ": " + fmt.Sprintf(format, args...)}
}
