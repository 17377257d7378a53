package league_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/league"
)

// TestCompactEncodings checks, on the real Redis, that a full board of 100,
// its name hash and the record buckets stay listpack-encoded: the memory
// budget per player depends on it.
func TestCompactEncodings(t *testing.T) {
	f := newFixture(t, testsvc.Backends[0], func(l *league.League) { l.BoardSize = 100; l.Buckets = 64 })
	for i := 0; i < 1000; i++ {
		id := fmt.Sprintf("player%06d", i) // 12 characters, as are the names
		p, err := f.engine.Join(f.ctx, "weekly", league.JoinRequest{Player: id, Name: fmt.Sprintf("name%08d", i), Avatar: "avatar_42"})
		testsvc.Must(t, err, "Join")
		if _, err := f.engine.Score(f.ctx, "weekly", league.ScoreWrite{Player: id, Value: int64(i) * 1_000_003}); err != nil {
			t.Fatal(p, err)
		}
	}
	keys, err := f.rdb.Keys(f.ctx, f.ns+":*").Result()
	testsvc.Must(t, err, "KEYS")
	kinds := map[string]int{}
	for _, k := range keys {
		kind := strings.SplitN(strings.TrimPrefix(k, f.ns+":{weekly}:"), ":", 2)[0]
		if kind != "b" && kind != "i" && kind != "r" {
			continue
		}
		enc, err := f.rdb.ObjectEncoding(f.ctx, k).Result()
		testsvc.Must(t, err, "OBJECT ENCODING %s", k)
		if enc != "listpack" {
			n, _ := f.rdb.HLen(f.ctx, k).Result()
			t.Errorf("%s is %s (%d fields), want listpack", k, enc, n)
		}
		kinds[kind]++
	}
	if kinds["b"] != 10 || kinds["i"] != 10 || kinds["r"] == 0 {
		t.Fatalf("keys checked: %v", kinds)
	}
}
