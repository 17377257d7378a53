package league

import (
	"errors"
	"fmt"
	"strings"

	"github.com/league-engine/league/internal/evalsha"
)

// Code classifies an error for callers. Transports map each code to their own
// status once (the HTTP API: api.statusOf); nothing else inspects messages.
type Code string

const (
	Invalid      Code = "invalid"       // bad input: which field and why
	NotFound     Code = "not_found"     // unknown league, board or player
	NotJoined    Code = "not_joined"    // the player has not joined the current period
	PeriodClosed Code = "period_closed" // the period has ended or was closed for settlement
	Conflict     Code = "conflict"      // e.g. a request id reused for another player
	Overflow     Code = "overflow"      // the write would pass the league's maximum score
	Unavailable  Code = "unavailable"   // a dependency is down or not ready; retry later
	RateLimited  Code = "rate_limited"  // a rate limit is reached; the error says which and when it frees
	Banned       Code = "banned"        // an operator banned the player from joining; the error says until when
	Moderated    Code = "moderated"     // an operator took the player off their board this period
	Unauthorized Code = "unauthorized"
	Forbidden    Code = "forbidden"
	Internal     Code = "internal"
)

// Error is the one error type of the domain. Field names the input at fault
// for Invalid errors.
type Error struct {
	Code    Code
	Field   string
	Message string
	Err     error // the cause, for logs; never shown to callers of Internal errors
}

func (e *Error) Error() string {
	msg := e.Message
	if e.Field != "" {
		msg = e.Field + ": " + msg
	}
	if e.Err != nil {
		if msg == "" {
			return string(e.Code) + ": " + e.Err.Error()
		}
		return msg + ": " + e.Err.Error()
	}
	if msg == "" {
		return string(e.Code)
	}
	return msg
}

func (e *Error) Unwrap() error { return e.Err }

// Is makes the sentinels below match any error of the same code:
// errors.Is(err, league.ErrNotJoined).
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Message == "" && t.Field == "" && t.Err == nil && t.Code == e.Code
}

// Sentinels for errors.Is.
var (
	ErrInvalid      = &Error{Code: Invalid}
	ErrNotFound     = &Error{Code: NotFound}
	ErrNotJoined    = &Error{Code: NotJoined}
	ErrPeriodClosed = &Error{Code: PeriodClosed}
	ErrConflict     = &Error{Code: Conflict}
	ErrOverflow     = &Error{Code: Overflow}
	ErrUnavailable  = &Error{Code: Unavailable}
	ErrBanned       = &Error{Code: Banned}
	ErrModerated    = &Error{Code: Moderated}
)

// Errorf returns an Error with a formatted message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// fieldError is the error of bad input in one field.
func fieldError(field, format string, args ...any) *Error {
	return &Error{Code: Invalid, Field: field, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of err, Internal for errors that are not *Error.
func ErrorCode(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return Internal
}

// ErrorMessage returns the message safe to show a caller: the message of an
// *Error, and "internal error" for everything else, whose details belong in
// the log only.
func ErrorMessage(err error) string {
	var e *Error
	if errors.As(err, &e) && e.Code != Internal {
		if e.Field != "" {
			return e.Field + ": " + e.Message
		}
		return e.Message
	}
	return "internal error"
}

// RedisError wraps the failure of a call to Redis as both products report
// it: Unavailable when Redis cannot be reached, is not ready, is out of
// memory or lost its scripts (nothing was written; retry), Internal
// otherwise. An *Error passes through.
func RedisError(op string, err error) error { return internal(op, err) }

// internal wraps a dependency failure. Redis or Postgres being unreachable
// is Unavailable (retry later), anything else Internal.
func internal(op string, err error) error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	if strings.HasPrefix(err.Error(), "OOM ") {
		// Redis refuses a script at its first write past maxmemory, so
		// nothing of the call was written (see warnIfEvicting).
		return &Error{Code: Unavailable, Message: op + ": redis is out of memory (maxmemory) and refused the write", Err: err}
	}
	if strings.HasPrefix(err.Error(), "NOSCRIPT") {
		// Still missing after evalsha loaded it again (the cache was
		// flushed twice, or a failover came between): Redis ran nothing.
		return &Error{Code: Unavailable, Message: op + ": redis lost its scripts (a restart, failover or SCRIPT FLUSH) and ran nothing; retry", Err: err}
	}
	if evalsha.Unavailable(err) {
		return &Error{Code: Unavailable, Message: op + ": redis unavailable", Err: err}
	}
	return &Error{Code: Internal, Message: op, Err: err}
}
