package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/league-engine/league/internal/excerpt"
	"github.com/league-engine/league/league"
)

// Request bodies are decoded by hand rather than by encoding/json, whose
// field matching ignores case ("PLAYER_ID" would fill player_id) and which
// cannot say which field was missing, repeated, or of the wrong type in
// which element of a batch. The body is first checked whole with
// json.Valid and utf8.Valid, so the decoder below walks JSON known to be
// well formed and only judges its shape: exact field names, each at most
// once, of the expected types.

// MaxBody is the largest request body read: a full batch of MaxBatch writes
// is about a tenth of it.
const MaxBody = 1 << 20

// errTooLarge answers a body over MaxBody.
var errTooLarge = &statusError{status: http.StatusRequestEntityTooLarge, err: &league.Error{
	Code: league.Invalid, Field: "body", Message: "is over " + strconv.Itoa(MaxBody) + " bytes"}}

// decodeBody reads the body (at most MaxBody, see serve), checks it is one
// well-formed JSON value, and hands a decoder at its start to decode. An
// empty body is an error unless optional, when decode is not called. A
// compressed body is refused rather than read as if it were plain.
func decodeBody(r *http.Request, optional bool, decode func(d *decoder) error) error {
	if ce := r.Header.Get("Content-Encoding"); ce != "" && !strings.EqualFold(ce, "identity") {
		return invalid("Content-Encoding", "%q is not supported; send the JSON body uncompressed", excerpt.Of(ce))
	}
	bp := bufPool.Get().(*[]byte)
	defer func() {
		if cap(*bp) <= maxPooled {
			bufPool.Put(bp)
		}
	}()
	data, err := readAll(r.Body, (*bp)[:0])
	*bp = data[:0]
	if err != nil {
		var tooBig *http.MaxBytesError
		var ne net.Error
		switch {
		case errors.As(err, &tooBig):
			return errTooLarge
		case errors.As(err, &ne) && ne.Timeout():
			// A body shorter than its Content-Length waits here.
			return &statusError{status: http.StatusRequestTimeout, err: &league.Error{Code: league.Invalid, Field: "body",
				Message: "not received whole within " + ReadTimeout.String() + " (is it as long as its Content-Length?)"}}
		}
		return invalid("body", "could not be read: %v", err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		if optional {
			return nil
		}
		return invalid("body", "empty; expected a JSON object")
	}
	if !json.Valid(data) {
		return syntaxError(data)
	}
	if !utf8.Valid(data) {
		return invalid("body", "is not valid UTF-8")
	}
	return decode(&decoder{data: data})
}

// readAll reads r to its end, appending to buf.
func readAll(r io.Reader, buf []byte) ([]byte, error) {
	if r == nil {
		return buf, nil
	}
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// syntaxError describes why data is not one JSON value. Only the error
// path pays for encoding/json's scanner a second time.
func syntaxError(data []byte) error {
	var v any
	err := json.Unmarshal(data, &v)
	var syn *json.SyntaxError
	switch {
	case errors.As(err, &syn) && strings.Contains(syn.Error(), "after top-level value"):
		return invalid("body", "unexpected data after the JSON value at byte %d", syn.Offset)
	case errors.As(err, &syn):
		return invalid("body", "invalid JSON at byte %d: %s", syn.Offset, strings.TrimPrefix(syn.Error(), "json: "))
	}
	return invalid("body", "truncated JSON")
}

// decoder walks a JSON value known to be well formed (see decodeBody).
type decoder struct {
	data []byte
	pos  int
}

func (d *decoder) skipSpace() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

// next returns the first byte of the next token.
func (d *decoder) next() byte {
	d.skipSpace()
	return d.data[d.pos]
}

// object decodes an object, calling field for each name with the decoder
// at its value; field must consume the value. what names the object in
// errors ("body", "writes[2]").
func (d *decoder) object(what string, field func(name []byte) error) error {
	if d.next() != '{' {
		return d.wrongType(what, "an object")
	}
	d.pos++
	if d.next() == '}' {
		d.pos++
		return nil
	}
	for {
		d.next()
		name := d.stringBytes()
		d.next() // ':'
		d.pos++
		if err := field(name); err != nil {
			return err
		}
		if d.next() == '}' {
			d.pos++
			return nil
		}
		d.pos++ // ','
	}
}

// array decodes an array, calling elem with each index and the decoder at
// the element; elem must consume it.
func (d *decoder) array(what string, elem func(i int) error) error {
	if d.next() != '[' {
		return d.wrongType(what, "an array")
	}
	d.pos++
	if d.next() == ']' {
		d.pos++
		return nil
	}
	for i := 0; ; i++ {
		if err := elem(i); err != nil {
			return err
		}
		if d.next() == ']' {
			d.pos++
			return nil
		}
		d.pos++ // ','
	}
}

// string decodes a string into *dst; null leaves *dst nil. A field given
// twice is an error.
func (d *decoder) string(field string, dst **string) error {
	if *dst != nil {
		return invalid(field, "given twice")
	}
	switch d.next() {
	case 'n':
		d.pos += len("null")
		return nil
	case '"':
		s := string(d.stringBytes())
		*dst = &s
		return nil
	}
	return d.wrongType(field, "a string")
}

// number consumes a number, or a literal (null, true, false) for
// scoreValue to refuse by name, and returns its text. Strings, objects and
// arrays are refused here, since scoreValue never needs their text.
func (d *decoder) number(field string) ([]byte, error) {
	c := d.next()
	start := d.pos
	switch c {
	case 'n', 't':
		d.pos += 4
	case 'f':
		d.pos += 5
	case '"', '{', '[':
		return nil, invalid(field, "must be an integer, got %s", kindOfRaw(c))
	default:
		for d.pos < len(d.data) && strings.IndexByte("+-0123456789.eE", d.data[d.pos]) >= 0 {
			d.pos++
		}
	}
	return d.data[start:d.pos], nil
}

// wrongType is the error of a value of another JSON type than want.
func (d *decoder) wrongType(field, want string) error {
	return invalid(field, "expected %s, got %s", want, kindOfRaw(d.next()))
}

// unknownField is the error of a name the object does not have.
func unknownField(prefix string, name []byte) error {
	return invalid(prefix+excerpt.Of(string(name)), "unknown field")
}

// stringBytes consumes a string and returns its value. Without escapes the
// result aliases the body (callers copy what they keep).
func (d *decoder) stringBytes() []byte {
	d.pos++ // opening quote
	start := d.pos
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case '"':
			s := d.data[start:d.pos]
			d.pos++
			return s
		case '\\':
			return d.unescape(start)
		}
		d.pos++
	}
	return d.data[start:]
}

// unescape decodes a string with escapes from start. A lone surrogate
// (\ud800 not followed by its pair) decodes to its three bytes as if it were
// a character (WTF-8), which is not UTF-8, so the field's check refuses the
// value; encoding/json would store U+FFFD in its place instead, and the name
// kept would not be the name sent.
func (d *decoder) unescape(start int) []byte {
	out := append([]byte(nil), d.data[start:d.pos]...)
	for d.pos < len(d.data) {
		c := d.data[d.pos]
		switch {
		case c == '"':
			d.pos++
			return out
		case c != '\\':
			out = append(out, c)
			d.pos++
			continue
		}
		d.pos++
		switch e := d.data[d.pos]; e {
		case 'b':
			out, d.pos = append(out, '\b'), d.pos+1
		case 'f':
			out, d.pos = append(out, '\f'), d.pos+1
		case 'n':
			out, d.pos = append(out, '\n'), d.pos+1
		case 'r':
			out, d.pos = append(out, '\r'), d.pos+1
		case 't':
			out, d.pos = append(out, '\t'), d.pos+1
		case 'u':
			r := d.hex4(d.pos + 1)
			d.pos += 5
			if utf16.IsSurrogate(r) {
				if d.pos+6 <= len(d.data) && d.data[d.pos] == '\\' && d.data[d.pos+1] == 'u' {
					if pair := utf16.DecodeRune(r, d.hex4(d.pos+2)); pair != utf8.RuneError {
						d.pos += 6
						out = utf8.AppendRune(out, pair)
						continue
					}
				}
				out = append(out, 0xe0|byte(r>>12), 0x80|byte(r>>6)&0x3f, 0x80|byte(r)&0x3f)
				continue
			}
			out = utf8.AppendRune(out, r)
		default: // '"', '\\', '/'
			out, d.pos = append(out, e), d.pos+1
		}
	}
	return out
}

// hex4 reads the four hex digits at i (valid JSON guarantees them).
func (d *decoder) hex4(i int) rune {
	var r rune
	for _, c := range d.data[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		default:
			c = c - 'A' + 10
		}
		r = r<<4 | rune(c)
	}
	return r
}

// required returns *v, or an Invalid error naming the field when the field
// was missing or null.
func required(field string, v *string) (string, error) {
	if v == nil {
		return "", invalid(field, "required")
	}
	return *v, nil
}

// optionalString returns *v, or "" when the field was missing or null.
func optionalString(v *string) string {
	if v == nil {
		return ""
	}
	return *v
}

// scoreValue reads a score value from its token (see decoder.number):
// a JSON number holding an integer. Strings ("7"), fractions (1.5, and
// 999999.99999999999, which a float64 would round to 1000000) and numbers
// past an int64 (1e400) are refused, naming the field; exponents of
// integers (1e3, 2.5e1) are integers and accepted.
func scoreValue(field string, raw []byte) (int64, error) {
	if len(raw) == 0 {
		return 0, invalid(field, "required")
	}
	if c := raw[0]; c != '-' && (c < '0' || c > '9') {
		return 0, invalid(field, "must be an integer, got %s", kindOfRaw(c))
	}
	if v, ok := parseInt(raw); ok {
		return v, nil
	}
	return integerLiteral(field, string(raw))
}

// integerLiteral reads a JSON number literal (json.Valid has checked its
// grammar: -?int(.frac)?([eE][+-]?exp)?) by its digits, never through a
// float64: the value is digits × 10^shift, so it is an integer exactly when
// shift >= 0 once the digits' trailing zeros are moved into it.
func integerLiteral(field, text string) (int64, error) {
	s, sign := text, ""
	if s[0] == '-' {
		s, sign = s[1:], "-"
	}
	mantissa, exp := s, ""
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mantissa, exp = s[:i], s[i+1:]
	}
	whole, frac, _ := strings.Cut(mantissa, ".")
	digits := strings.TrimLeft(whole+frac, "0")
	trimmed := strings.TrimRight(digits, "0")
	if trimmed == "" {
		return 0, nil // zero, however written
	}
	shift := len(digits) - len(trimmed) - len(frac) + exponent(exp)
	switch {
	case shift < 0:
		return 0, invalid(field, "must be an integer, got %s", excerpt.Of(text))
	case len(trimmed)+shift > 19:
		return 0, invalid(field, "%s is beyond the 64-bit integer range", excerpt.Of(text))
	}
	v, err := strconv.ParseInt(sign+trimmed+strings.Repeat("0", shift), 10, 64)
	if err != nil {
		return 0, invalid(field, "%s is beyond the 64-bit integer range", excerpt.Of(text))
	}
	return v, nil
}

// exponent parses an exponent's digits, clamped to ±1e7: a body of at most
// MaxBody bytes has fewer digits than that, so past it the exponent alone
// decides that the number is beyond every range or below every integer, and
// the clamp keeps the arithmetic small.
func exponent(exp string) int {
	neg := strings.HasPrefix(exp, "-")
	exp = strings.TrimLeft(exp, "+-")
	e := 0
	for _, c := range exp {
		if e = e*10 + int(c-'0'); e > 1e7 {
			e = 1e7
			break
		}
	}
	if neg {
		return -e
	}
	return e
}

// parseInt parses an optionally negative run of decimal digits that fits an
// int64, without allocating: the common case of scoreValue.
func parseInt(b []byte) (int64, bool) {
	neg := b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 18 { // 18 digits always fit
		return 0, false
	}
	var v int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	if neg {
		v = -v
	}
	return v, true
}

// kindOfRaw names the JSON type of a value by its first byte.
func kindOfRaw(c byte) string {
	switch c {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}
