package main

import (
	"strings"
	"testing"
)

// TestBoardSize reads a leaderboard board's size from replies shaped as
// api/leaderboards.go writes them.
func TestBoardSize(t *testing.T) {
	cases := []struct {
		name, reply string
		want        int
		wantErr     string
	}{
		{"page", `{"leaderboard":"bench","kind":"day","period":"2026-11-25","period_start":"2026-11-25T00:00:00Z",` +
			`"period_end":"2026-11-26T00:00:00Z","size":10000,"entries":[{"rank":1,"member":"abcm00000001","score":7}]}`, 10000, ""},
		{"empty board", `{"leaderboard":"bench","kind":"day","size":0,"entries":[]}`, 0, ""},
		{"member named like the key", `{"size":3,"entries":[{"rank":1,"member":"\"size\":9","score":1}]}`, 3, ""},
		{"no size", `{"error":{"code":"not_found"}}`, 0, "without size"},
		{"not a number", `{"size":null}`, 0, "bad size"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := boardSize([]byte(c.reply))
			switch {
			case c.wantErr == "" && (err != nil || got != c.want):
				t.Fatalf("got %d, %v; want %d", got, err, c.want)
			case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
				t.Fatalf("got %d, %v; want an error saying %q", got, err, c.wantErr)
			}
		})
	}
}
