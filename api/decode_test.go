package api

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"
)

// decodeSeeds are bodies near the shapes the decoder knows.
var decodeSeeds = []string{
	`{"player_id":"a","name":"x","avatar":"y"}`,
	`{"player_id":"a","name":"x\u00e9\ud83c\udfae\ud800","avatar":null}`,
	`{"player_id":"a\"b\\c\/d\b\f\n\r\t","name":"\u0041"}`,
	`{"player_id":"a","value":-12,"request_id":"r"}`,
	`{"player_id":"a","value":1.5e3}`,
	`{"player_ids":["a","b",""]}`,
	`{"writes":[{"player_id":"a","value":1},{"player_id":"b","value":2,"request_id":null}]}`,
	` { "player_id" : "a" , "name" : "x" } `,
	`{"PLAYER_ID":"a"}`, `{"player_id":"a","player_id":"b"}`, `[]`, `null`, `{}`, `{"a":{"b":[1,{"c":2}]}}`,
}

// FuzzDecoder holds the hand-written decoder to encoding/json: on any
// input it must not panic, and what it accepts must be valid JSON whose
// fields encoding/json reads the same.
func FuzzDecoder(f *testing.F) {
	for _, s := range decodeSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		var join joinRequest
		if decodeString(body, join.decode) == nil {
			fields := exactFields(t, body)
			sameString(t, body, "player_id", join.playerID, fields)
			sameString(t, body, "name", join.name, fields)
			sameString(t, body, "avatar", join.avatar, fields)
		}
		score := writeRequest{shape: playerWriteShape}
		if decodeString(body, func(d *decoder) error { return score.decode(d, "body", "") }) == nil {
			fields := exactFields(t, body)
			sameString(t, body, "player_id", score.who, fields)
			sameString(t, body, "request_id", score.requestID, fields)
			if raw, ok := fields["value"]; ok != (score.value != nil) || ok && !bytes.Equal(bytes.TrimSpace(raw), score.value) {
				t.Fatalf("%q: value %q, encoding/json %q", body, score.value, raw)
			}
		}
		var standings standingsRequest
		if decodeString(body, standings.decode) == nil && standings.playerIDs != nil {
			var want struct {
				IDs []string `json:"player_ids"`
			}
			if err := json.Unmarshal([]byte(body), &want); err != nil || strings.Join(want.IDs, "\x00") != strings.Join(*standings.playerIDs, "\x00") {
				t.Fatalf("%q: player_ids %q, encoding/json %q (%v)", body, *standings.playerIDs, want.IDs, err)
			}
		}
		decodeString(body, func(d *decoder) error { // must not panic
			_, err := decodeBatch(d, boardWriteShape, func(f writeFields) string { return f.who })
			return err
		})
	})
}

func TestDecoderSeeds(t *testing.T) {
	for _, s := range decodeSeeds {
		var join joinRequest
		err := decodeString(s, join.decode)
		t.Logf("%s -> %v", s, err)
	}
}

func decodeString(body string, decode func(*decoder) error) error {
	r := httptest.NewRequest("POST", "/", strings.NewReader(body))
	return decodeBody(r, false, decode)
}

// exactFields decodes a body the decoder accepted with encoding/json: it
// must be an object, and its raw fields are returned.
func exactFields(t *testing.T, body string) map[string]json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		t.Fatalf("%q: accepted by the decoder, but encoding/json says %v", body, err)
	}
	return m
}

func sameString(t *testing.T, body, field string, got *string, fields map[string]json.RawMessage) {
	t.Helper()
	raw, present := fields[field]
	var want *string
	if present {
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatalf("%q: %s accepted as a string, encoding/json says %v", body, field, err)
		}
	}
	switch {
	case (got == nil) != (want == nil):
		t.Fatalf("%q: %s %v, encoding/json %v", body, field, got, want)
	case got != nil && lonesToReplacement(*got) != *want:
		t.Fatalf("%q: %s %q, encoding/json %q", body, field, *got, *want)
	}
}

// lonesToReplacement turns the decoder's lone surrogates (three WTF-8
// bytes, which the field checks refuse) into the U+FFFD encoding/json
// stores in their place.
func lonesToReplacement(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if i+2 < len(s) && s[i] == 0xed && s[i+1] >= 0xa0 && s[i+1] <= 0xbf && s[i+2]&0xc0 == 0x80 {
			b.WriteRune(utf8.RuneError)
			i += 2
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func TestLoneSurrogates(t *testing.T) {
	for body, want := range map[string]string{
		`{"player_id":"a","name":"x\ud83c\udfaey"}`: "x\U0001F3AEy", // a pair is one character
		`{"player_id":"a","name":"x\ud800y"}`:       "x\xed\xa0\x80y",
		`{"player_id":"a","name":"\udfff"}`:         "\xed\xbf\xbf",
		`{"player_id":"a","name":"\udc00\ud800"}`:   "\xed\xb0\x80\xed\xa0\x80", // reversed: two lone halves
		`{"player_id":"a","name":"\ud800\u0041"}`:   "\xed\xa0\x80A",
	} {
		var join joinRequest
		if err := decodeString(body, join.decode); err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		if *join.name != want {
			t.Errorf("%s: name %q, want %q", body, *join.name, want)
		}
		if utf8.ValidString(want) != !strings.Contains(want, "\xed") {
			t.Fatalf("%q: lone surrogates must not be valid UTF-8", want)
		}
	}
}
