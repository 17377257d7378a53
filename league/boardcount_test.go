package league_test

import (
	"testing"

	"github.com/league-engine/league/league"
)

func TestBoardCount(t *testing.T) {
	l := &league.League{BoardSize: 100}
	for _, c := range []struct{ players, want int }{{-1, 0}, {0, 0}, {1, 1}, {100, 1}, {101, 2}, {250, 3}} {
		if got := l.BoardCount(c.players); got != c.want {
			t.Errorf("BoardCount(%d) with boards of 100: got %d, want %d", c.players, got, c.want)
		}
	}
}
