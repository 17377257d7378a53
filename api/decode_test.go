package api

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
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
		var score scoreRequest
		if decodeString(body, func(d *decoder) error { return score.decode(d, "body", "") }) == nil {
			fields := exactFields(t, body)
			sameString(t, body, "player_id", score.playerID, fields)
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
		var batch batchRequest
		decodeString(body, batch.decode) // must not panic
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
	case got != nil && *got != *want:
		t.Fatalf("%q: %s %q, encoding/json %q", body, field, *got, *want)
	}
}
