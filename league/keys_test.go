package league

import (
	"context"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/scripts"
)

// TestKeysMatchLua holds keys.go and scripts/common.lua together: the keys a
// script builds must be the keys Go reads.
func TestKeysMatchLua(t *testing.T) {
	c, _ := testsvc.Mini(t)
	k := newKeys("ns", "weekly", 16)
	check := scripts.Source(`
local r = rec_encode(tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]))
local s, t, n, nx = rec_decode(r)
return {board_key(ARGV[5], s, t, n), names_key(ARGV[5], s, t, n), r, s, t, n, nx, counters_key(ARGV[5], s),
	moderation_key(ARGV[5], s)}`)
	tests := []record{
		{start: 1763337600, tier: 3, n: 12, next: noTier},
		{start: 4294967295, tier: 254, n: maxJoins, next: 0},
		{start: 1, tier: 0, n: 1, next: 7},
	}
	for _, rec := range tests {
		got, err := redis.NewScript(check).Run(context.Background(), c, nil,
			rec.start, rec.tier, rec.n, rec.next, k.prefix).Slice()
		if err != nil {
			t.Fatal(err)
		}
		want := []any{k.board(rec.start, rec.tier, rec.n), k.names(rec.start, rec.tier, rec.n),
			rec.encode(), rec.start, int64(rec.tier), int64(rec.n), int64(rec.next), k.counters(rec.start), k.moderated(rec.start)}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("%+v: element %d: Lua %q, Go %q", rec, i, got[i], want[i])
			}
		}
		if back, ok := decodeRecord(rec.encode()); !ok || back != rec {
			t.Errorf("decodeRecord(encode(%+v)) = %+v", rec, back)
		}
	}
}

func TestKeysShareHashTag(t *testing.T) {
	k := newKeys("league", "weekly", 16384)
	for _, key := range []string{k.tiers(), k.meta(), k.periods(), k.claims(), k.counters(1), k.board(1, 2, 3),
		k.names(1, 2, 3), k.claimed(1), k.request("", "r"), k.request("game-eu", "r"), k.record("p"), k.reward("p"),
		k.moderated(1), k.bans(), k.actions(), k.promoted(1)} {
		if got := hashTag(key); got != "weekly" {
			t.Errorf("%s: hash tag %q, want weekly", key, got)
		}
	}
}

func hashTag(key string) string {
	for i := 0; i < len(key); i++ {
		if key[i] == '{' {
			for j := i + 1; j < len(key); j++ {
				if key[j] == '}' {
					return key[i+1 : j]
				}
			}
		}
	}
	return ""
}

func TestPlacement(t *testing.T) {
	tests := []struct{ n, size, board, slot int }{
		{1, 100, 1, 1}, {100, 100, 1, 100}, {101, 100, 2, 1}, {250, 100, 3, 50}, {1, 1, 1, 1}, {7, 1, 7, 1},
	}
	for _, tt := range tests {
		if b, s := placement(tt.n, tt.size); b != tt.board || s != tt.slot {
			t.Errorf("placement(%d, %d) = %d, %d; want %d, %d", tt.n, tt.size, b, s, tt.board, tt.slot)
		}
	}
}

func TestParseBoardID(t *testing.T) {
	for s, want := range map[string]BoardID{
		"gold-3": {Tier: "gold", N: 3}, "bronze-1": {Tier: "bronze", N: 1}, "t_2-100": {Tier: "t_2", N: 100},
		"a-9999": {Tier: "a", N: 9999}, strings.Repeat("x", 32) + "-1": {Tier: strings.Repeat("x", 32), N: 1},
		"gold.core-3": {Tier: "gold", Cohort: "core", N: 3}, "t.eu_west-12": {Tier: "t", Cohort: "eu_west", N: 12},
	} {
		if got, err := ParseBoardID(s); err != nil || got != want {
			t.Errorf("ParseBoardID(%q) = %v, %v; want %v", s, got, err, want)
		}
		if want.String() != s {
			t.Errorf("%#v.String() = %q, want %q", want, want.String(), s)
		}
	}
	for _, s := range []string{
		"", "gold", "gold-", "-1", "gold-0", "gold-01", "gold-+1", "gold--1", "gold-1.0", "gold- 1",
		"Gold-1", "go ld-1", "a-b-1", "gold-99999999999999999999", strings.Repeat("x", 33) + "-1",
		"gold.-1", ".core-1", "gold.core.x-1", "gold..core-1", "gold.Core-1", "gold.core-0", "gold." + strings.Repeat("x", 33) + "-1",
	} {
		if got, err := ParseBoardID(s); ErrorCode(err) != Invalid {
			t.Errorf("ParseBoardID(%q) = %v, %v; want invalid", s, got, err)
		}
	}
}

func TestRequestKeysOfScopes(t *testing.T) {
	k := newKeys("league", "weekly", 16)
	for _, c := range []struct{ scope, id, want string }{
		{"", "m-1", "league:{weekly}:q:m-1"},
		{"game-eu", "m-1", "league:{weekly}:q:game-eu:m-1"},
		{"game-na", "m-1", "league:{weekly}:q:game-na:m-1"},
	} {
		if got := k.request(c.scope, c.id); got != c.want {
			t.Errorf("request(%q, %q) = %q, want %q", c.scope, c.id, got, c.want)
		}
	}
}
