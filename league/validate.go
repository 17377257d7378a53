package league

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Input limits. Ids and names are sized so a sub-board's sorted set and name
// hash stay in Redis's listpack encoding (values up to 64 bytes).
const (
	MaxPlayerIDLen  = 64
	MaxNameLen      = 32 // bytes of UTF-8
	MaxAvatarLen    = 31 // name + separator + avatar fit 64 bytes
	MaxRequestIDLen = 64
	MaxBatch        = 1000 // items in one batch call
	// MaxTierNameLen bounds a tier's display name (bytes of UTF-8). Names
	// stay in the config and the API's league listing, not in Redis: 64
	// bytes is room for a label in any script, and keeps a typo'd paste out.
	MaxTierNameLen = 64
)

// profileSep separates name and avatar in a board's name hash.
const profileSep = "\x1f"

// CheckID accepts 1..max bytes of printable ASCII without spaces, naming
// field when it refuses: ids end up in Redis keys and URLs (player ids,
// request ids, a leaderboard's member ids).
func CheckID(field, v string, max int) error { return checkID(field, v, max) }

func checkID(field, v string, max int) error {
	if v == "" {
		return fieldError(field, "must not be empty")
	}
	if len(v) > max {
		return fieldError(field, "is %d bytes, at most %d", len(v), max)
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; c <= ' ' || c > '~' {
			return fieldError(field, "byte %d (%q) is not printable ASCII without spaces", i, v[i:i+1])
		}
	}
	return nil
}

// checkText accepts UTF-8 without control characters, line breaks or
// bidirectional embeddings, overrides and isolates, up to
// max bytes; a required text must show something: not only spaces or
// invisible characters (a zero-width space, a byte order mark).
func checkText(field, v string, max int, required bool) error {
	if required && strings.IndexFunc(v, visible) < 0 {
		return fieldError(field, "must show at least one visible character, not only spaces or invisible ones")
	}
	if len(v) > max {
		return fieldError(field, "is %d bytes, at most %d", len(v), max)
	}
	if !utf8.ValidString(v) {
		return fieldError(field, "is not valid UTF-8 (nor is a lone \\ud800-\\udfff escape)")
	}
	for _, r := range v {
		if r < ' ' || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return fieldError(field, "contains the control character %U", r)
		}
		if r == '\u2028' || r == '\u2029' {
			return fieldError(field, "contains the line break %U", r)
		}
		if ('\u202a' <= r && r <= '\u202e') || ('\u2066' <= r && r <= '\u2069') {
			// An override reorders what follows it, a name's neighbours on
			// a board included, until the end of their paragraph.
			return fieldError(field, "contains the bidirectional control %U", r)
		}
	}
	return nil
}

// visible reports whether r draws something on its own: a letter, number,
// punctuation or symbol. Not spaces, format characters (U+200B, U+FEFF),
// combining marks (drawn on the character before them, so a name of marks
// alone shows nothing), the letters Unicode says to show as nothing (the
// Hangul fillers, U+3164) nor the blank Braille cell U+2800, which games'
// players use for names that look empty.
func visible(r rune) bool {
	return unicode.IsGraphic(r) && !unicode.IsSpace(r) && !unicode.Is(unicode.M, r) &&
		!unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r) && r != '\u2800'
}

// CheckPlayerID validates a player id. "." and ".." are refused: no URL
// can name them as a path segment (clients and servers remove dot
// segments), so GET /players/{player_id} could never find them. Any other
// id, "/" included, is addressed path-escaped.
func CheckPlayerID(id string) error {
	if id == "." || id == ".." {
		return fieldError("player_id", "%q cannot be a URL path segment", id)
	}
	return checkID("player_id", id, MaxPlayerIDLen)
}

// CheckRequestID validates an optional request id.
func CheckRequestID(id string) error {
	if id == "" {
		return nil
	}
	return checkID("request_id", id, MaxRequestIDLen)
}

// MaxScopeLen bounds ScoreWrite.Scope, an API key's name.
const MaxScopeLen = 32

// CheckScope accepts "" or 1..MaxScopeLen bytes of a-z, 0-9, _ and -,
// starting with a letter or digit: no colon, so that <scope>:<request id>
// names one pair only.
func CheckScope(scope string) error {
	if scope == "" {
		return nil
	}
	if !ValidName(scope) {
		return fieldError("scope", "%q is not 1-%d characters of a-z, 0-9, _ and -, starting with a letter or digit", scope, MaxScopeLen)
	}
	return nil
}

// ValidName reports whether s is a name as API keys have (CheckScope).
func ValidName(s string) bool {
	if s == "" || len(s) > MaxScopeLen || s[0] == '_' || s[0] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// checkValue validates a write's value against the league's operator and
// maximum. Values beyond the maximum are Overflow, not Invalid: the request
// is well-formed, the league refuses it.
func (l *League) checkValue(v int64) error {
	if v < 0 {
		return fieldError("value", "%d is negative; %s takes values from 0", v, l.Operator)
	}
	if v > l.MaxScore {
		return &Error{Code: Overflow, Message: "value " + strconv.FormatInt(v, 10) +
			" is over the league's maximum score " + strconv.FormatInt(l.MaxScore, 10)}
	}
	if l.MaxGain > 0 && l.Operator == Incr && v > l.MaxGain && !l.Hold {
		// an increment adds its value: refused before Redis (a league
		// that holds such writes lets score.lua hold it)
		return &Error{Code: Overflow, Field: "value", Message: fmt.Sprintf(
			"%d is over the league's max_gain %d, the most one write may add; nothing was written", v, l.MaxGain)}
	}
	return nil
}

// maxGainArg is score.lua's ARGV[17]: the cap, or ” for none.
func (l *League) maxGainArg() string {
	if l.MaxGain == 0 {
		return ""
	}
	return strconv.FormatInt(l.MaxGain, 10)
}

// tooMuch is the error of a best or set write refused by max_gain.
func (l *League) tooMuch(op string, w ScoreWrite, current int64) error {
	return &Error{Code: Overflow, Field: "value", Message: fmt.Sprintf(
		"%s %d would take player %q from %d, more than the league's max_gain %d in one write; nothing was written",
		op, w.Value, w.Player, current, l.MaxGain)}
}

// attemptsUsed is the cause of a write refused by max_attempts: the API
// answers Retry-After until the next period.
type attemptsUsed struct{ ends, now time.Time }

func (a *attemptsUsed) Error() string { return "max_attempts used" }

// RetryAfter is the time left in the period.
func (a *attemptsUsed) RetryAfter() time.Duration { return max(a.ends.Sub(a.now), time.Second) }
