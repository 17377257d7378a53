package league_test

import (
	"strings"
	"testing"

	"github.com/league-engine/league/league"
)

// TestCheckPlayerIDNamesTheByte: a refused byte is shown as itself when
// printable and as an escape otherwise, never decoded as another character.
func TestCheckPlayerIDNamesTheByte(t *testing.T) {
	for id, want := range map[string]string{
		"s\xed\xa0\x80": `byte 1 ("\xed")`, // a lone surrogate's WTF-8 bytes
		"a b":           `byte 1 (" ")`,
		"é":             `byte 0 ("\xc3")`,
		"ok\x7f":        `byte 2 ("\x7f")`,
	} {
		err := league.CheckPlayerID(id)
		if league.ErrorCode(err) != league.Invalid || !strings.Contains(err.Error(), want) {
			t.Errorf("CheckPlayerID(%q): %v, want it to name %s", id, err, want)
		}
	}
	if err := league.CheckPlayerID("player-42_x.y"); err != nil {
		t.Fatalf("a valid id: %v", err)
	}
}

// TestCheckScope: a scope is a key's name, whose colon-free spelling keeps
// <scope>:<request id> one pair.
func TestCheckScope(t *testing.T) {
	for scope, ok := range map[string]bool{
		"": true, "game-eu": true, "a_1": true, strings.Repeat("a", 32): true,
		"a:b": false, "Game": false, "-a": false, "_a": false, strings.Repeat("a", 33): false, "a b": false,
	} {
		err := league.CheckScope(scope)
		if (err == nil) != ok || (err != nil && league.ErrorCode(err) != league.Invalid) {
			t.Errorf("CheckScope(%q) = %v, want ok %v", scope, err, ok)
		}
	}
}
