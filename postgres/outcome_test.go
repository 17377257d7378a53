package postgres

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// byPlayer must order ids exactly as bytes compare (COLLATE "C"), the short
// ids, the shared prefixes and the ties of the first eight bytes included.
func TestByPlayer(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	ids := []string{"", "a", "ab", "ab\x01", "abcdefgh", "abcdefgh0", "abcdefgg9", "player-00000001", "player-00000010", "ü", "z"}
	for range 5000 {
		b := make([]byte, r.IntN(20))
		for i := range b {
			b[i] = "aAzZ09-_\xc3\xbc"[r.IntN(10)]
		}
		ids = append(ids, "player-"+string(b), string(b))
	}
	order := byPlayer(len(ids), func(i int) string { return ids[i] })
	got := make([]string, len(order))
	for i, j := range order {
		got[i] = ids[j]
	}
	want := slices.Clone(ids)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("byPlayer: at %d got %q, want %q", i, got[i], want[i])
			}
		}
	}
}
