package api

import (
	"encoding/json"
	"net/http"
	"strconv"
	"sync"
	"unicode/utf8"
)

// reply is the body of a 200, written once into a pooled buffer. The hot
// routes (score writes, board reads) append their JSON by hand, with no
// reflection and no intermediate structs; the others use marshal.
type reply interface {
	appendJSON(b []byte) ([]byte, error)
}

// accepted is a reply answered 202 rather than 200 when it says so: a
// score write held for an operator, a write to a queued leaderboard.
type accepted interface{ accepted() bool }

// marshal is the reply of the routes off the hot path: a struct with json
// tags, encoded by encoding/json.
type marshal struct{ v any }

func (m marshal) appendJSON(b []byte) ([]byte, error) {
	js, err := json.Marshal(m.v)
	return append(b, js...), err
}

// bufPool holds response buffers. Buffers grown past maxPooled (a board of
// a thousand entries) are left to the collector rather than pinned.
var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 2048); return &b }}

const maxPooled = 256 << 10

// jsonContentType is shared by every reply: net/http only reads it.
var jsonContentType = []string{"application/json"}

// contentLengths are the Content-Length values of replies shorter than
// 1 KiB (every score write's, most errors'), made once and shared as
// jsonContentType is: a reply's own would be two allocations.
var contentLengths = func() (ls [1024][]string) {
	for n := range ls {
		ls[n] = []string{strconv.Itoa(n)}
	}
	return ls
}()

// contentLength is the Content-Length header value of an n-byte reply.
func contentLength(n int) []string {
	if n < len(contentLengths) {
		return contentLengths[n]
	}
	return []string{strconv.Itoa(n)}
}

// writeReply writes rep with status and returns the status.
func (s *Server) writeReply(x *exchange, status int, rep reply) int {
	w := x.w
	bp := bufPool.Get().(*[]byte)
	b, err := rep.appendJSON((*bp)[:0])
	if err != nil {
		s.log.Error("api: encoding a reply", "method", x.r.Method, "route", x.r.Pattern, "request_id", x.requestID(), "err", err)
		status = http.StatusInternalServerError
		b = append(b[:0], `{"error":{"code":"internal","message":"internal error"}}`...)
	}
	h := w.Header()
	h["Content-Type"] = jsonContentType
	// An explicit length keeps replies over net/http's 2 KiB chunking
	// threshold (boards) out of chunked encoding.
	h["Content-Length"] = contentLength(len(b))
	w.WriteHeader(status)
	w.Write(b)
	if cap(b) <= maxPooled {
		*bp = b[:0]
		bufPool.Put(bp)
	}
	return status
}

// The appenders below write JSON exactly as encoding/json does (the tests
// compare them), so the hand-written replies and the marshaled ones agree
// byte for byte on escaping.

// appendString appends s as a JSON string, escaping like encoding/json:
// quotes, backslashes, control characters, <, > and & (HTML-safe), U+2028
// and U+2029; invalid UTF-8 becomes U+FFFD.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if safeASCII[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

const hexDigits = "0123456789abcdef"

// safeASCII marks the ASCII bytes a JSON string holds as they are: a table
// lookup is cheaper than six comparisons in the loop every name of a board
// goes through.
var safeASCII = func() (t [utf8.RuneSelf]bool) {
	for c := byte(0x20); c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// appendKey appends "key": (key is a literal the caller knows needs no
// escaping) after a comma unless first.
func appendKey(b []byte, key string, first bool) []byte {
	if !first {
		b = append(b, ',')
	}
	b = append(b, '"')
	b = append(b, key...)
	return append(b, '"', ':')
}

func appendStringField(b []byte, key, v string, first bool) []byte {
	return appendString(appendKey(b, key, first), v)
}

func appendIntField(b []byte, key string, v int64) []byte {
	return strconv.AppendInt(appendKey(b, key, false), v, 10)
}

func appendBoolField(b []byte, key string, v bool) []byte {
	return strconv.AppendBool(appendKey(b, key, false), v)
}
