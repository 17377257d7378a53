package words

import "testing"

func TestCount(t *testing.T) {
	for n, want := range map[int]string{0: "0 players", 1: "1 player", 2: "2 players", -1: "-1 players"} {
		if got := Count(n, "player"); got != want {
			t.Errorf("Count(%d): %q, want %q", n, got, want)
		}
	}
}
