package keyspace

import "testing"

func TestKeys(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{Prefix("league", League, "weekly"), "league:{weekly}:"},
		{Prefix("league", Leaderboard, "kills"), "league:lb:{kills}:"},
		{Request("league:{weekly}:", "", "m-1"), "league:{weekly}:q:m-1"},
		{Request("league:lb:{kills}:", "game-eu", "m-1"), "league:lb:{kills}:q:game-eu:m-1"},
		{Reservation("league:lb:{kills:3}:", "", "m-1"), "league:lb:{kills:3}:rv:m-1"},
		{Reservation("league:lb:{kills:3}:", "game-eu", "m-1"), "league:lb:{kills:3}:rv:game-eu:m-1"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
