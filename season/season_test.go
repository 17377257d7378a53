package season_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/league-engine/league/league"
	"github.com/league-engine/league/season"
	"github.com/league-engine/league/tiers"
)

func testLeague(t testing.TB, ts []tiers.Tier, size, decay int) *league.League {
	t.Helper()
	ld, err := tiers.NewLadder(ts)
	if err != nil {
		t.Fatal(err)
	}
	s, err := league.ParseSchedule("0 0 * * MON")
	if err != nil {
		t.Fatal(err)
	}
	l := &league.League{ID: "weekly", BoardSize: size, Schedule: s, Ladder: ld, DecayAfter: decay}
	if err := l.Init(); err != nil {
		t.Fatal(err)
	}
	return l
}

// TestRunIsRepeatable: the same seed gives the same seasons; another seed
// others.
func TestRunIsRepeatable(t *testing.T) {
	l := testLeague(t, []tiers.Tier{{ID: "low", Promote: 2000}, {ID: "mid", Promote: 1000, Demote: 2000}, {ID: "top", Demote: 2000}}, 50, 2)
	m := season.Model{Players: 5000, Periods: 8, Seed: 3}
	a, err := season.Run(l, m)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := season.Run(l, m)
	m.Seed = 4
	c, _ := season.Run(l, m)
	if !reflect.DeepEqual(a, b) || reflect.DeepEqual(a, c) {
		t.Fatal("the same seed gave other seasons, or another seed the same")
	}
	if a[len(a)-1].Decayed == 0 {
		t.Fatal("no player decayed over 8 periods with decay_after 2 and casual players: decay is not simulated")
	}
}

// TestRunPlacesAndSettlesByTheRules: with counts (the top 10 of each board
// up, the bottom 5 down), every tier's moves are what its boards give, the
// boards being runs of board_size joins (league.BoardOf): full boards move
// 10 and 5, the last one min(10, n) and min(5, n - 10); nobody is lost.
func TestRunPlacesAndSettlesByTheRules(t *testing.T) {
	const size = 30
	l := testLeague(t, []tiers.Tier{{ID: "low", PromoteCount: 10}, {ID: "mid", PromoteCount: 10, DemoteCount: 5},
		{ID: "top", DemoteCount: 5}}, size, 0)
	ps, err := season.Run(l, season.Model{Players: 3000, Periods: 6, Seed: 9, Idle: 1e-9})
	if err != nil {
		t.Fatal(err)
	}
	ever := 0
	for _, p := range ps {
		boards := 0
		for tier, n := range p.Joined {
			full, rest := n/size, n%size
			up, down := full*10, full*5
			if rest > 0 {
				boards++
				pr, d := l.Ladder.Counts(tier, rest)
				up, down = up+pr, down+d
			}
			boards += full
			if tier == 2 {
				up = 0
			}
			if tier == 0 {
				down = 0
			}
			if p.Promoted[tier] != up || p.Demoted[tier] != down {
				t.Fatalf("period %d, tier %d of %d players: %d up, %d down; the rules give %d, %d", p.N, tier, n, p.Promoted[tier], p.Demoted[tier], up, down)
			}
		}
		if p.Boards != boards {
			t.Fatalf("period %d: %d boards, want %d", p.N, p.Boards, boards)
		}
		total := 0
		for _, n := range p.Population {
			total += n
		}
		if total < ever || total > 3000 {
			t.Fatalf("period %d: %d players in tiers after %d before", p.N, total, ever)
		}
		ever = total
	}
}

// TestRunProtectsPromoted: with protect_promoted on the middle tier, the
// same season demotes fewer of its players, though not none: only those
// promoted into it are kept, and only in their first period there.
func TestRunProtectsPromoted(t *testing.T) {
	demoted := func(protect bool) (n int) {
		l := testLeague(t, []tiers.Tier{{ID: "low", PromoteCount: 10}, {ID: "mid", PromoteCount: 10, DemoteCount: 5, ProtectPromoted: protect},
			{ID: "top", DemoteCount: 5}}, 30, 0)
		ps, err := season.Run(l, season.Model{Players: 3000, Periods: 6, Seed: 9})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range ps {
			n += p.Demoted[1]
		}
		return n
	}
	with, without := demoted(true), demoted(false)
	if with == 0 || with >= without {
		t.Fatalf("mid demoted %d players with protection, %d without: want fewer, but some", with, without)
	}
}

func TestRunRefusesBadModels(t *testing.T) {
	l := testLeague(t, []tiers.Tier{{ID: "low", Promote: 2000}, {ID: "top"}}, 10, 0)
	for _, tt := range []struct {
		m    season.Model
		want string
	}{
		{season.Model{Players: 0, Periods: 1}, "players: 0"},
		{season.Model{Players: 10, Periods: 0}, "periods: 0"},
		{season.Model{Players: 10, Periods: 1, Regulars: 0.8, Casuals: 0.5}, "regulars + casuals"},
		{season.Model{Players: 10, Periods: 1, Idle: 2}, "idle: 2"},
	} {
		if _, err := season.Run(l, tt.m); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: %v, want %q", tt.m, err, tt.want)
		}
	}
}

// BenchmarkRun: 100,000 players over 20 periods (the issue asks for it in
// seconds).
func BenchmarkRun(b *testing.B) {
	l := testLeague(b, []tiers.Tier{{ID: "low", Promote: 2000}, {ID: "mid", Promote: 1500, Demote: 1500}, {ID: "top", Demote: 2000}}, 100, 2)
	for b.Loop() {
		if _, err := season.Run(l, season.Model{Players: 100_000, Periods: 20, Seed: 1}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestRunCohorts: 60 players in a league with cohorts a and b and
// min_board_size 25 on boards of 30: each tier's players split three
// ways, under 25 a cohort, so the cohorts are thin and fall back to the
// shared boards: every period decides boards together, and the top 2 of
// each tier's merged group are promoted, not the top 2 of each board.
func TestRunCohorts(t *testing.T) {
	ts := []tiers.Tier{{ID: "low", PromoteCount: 2, MinBoardSize: 25}, {ID: "top", DemoteCount: 2, MinBoardSize: 25}}
	withCohorts := func(cohorts []string) []season.Period {
		ld, err := tiers.NewLadder(ts)
		if err != nil {
			t.Fatal(err)
		}
		s, _ := league.ParseSchedule("0 0 * * MON")
		l := &league.League{ID: "weekly", BoardSize: 30, Schedule: s, Ladder: ld, Cohorts: cohorts}
		if err := l.Init(); err != nil {
			t.Fatal(err)
		}
		ps, err := season.Run(l, season.Model{Players: 60, Periods: 5, Seed: 1, Regulars: 1, Idle: 1e-9})
		if err != nil {
			t.Fatal(err)
		}
		return ps
	}
	for _, p := range withCohorts([]string{"b", "a"}) {
		if p.Merged == 0 || p.Boards < 3 {
			t.Fatalf("period %d: %d boards, %d merged groups; want cohorts' boards, thin ones merged", p.N, p.Boards, p.Merged)
		}
		if p.N == 1 && p.Promoted[0] != 2 {
			t.Fatalf("period 1: %d promoted from low's one merged group, want 2", p.Promoted[0])
		}
		players := 0
		for _, n := range p.Population {
			players += n
		}
		if players != p.Played && p.N == 1 || players > 60 {
			t.Fatalf("period %d: population %v of %d played", p.N, p.Population, p.Played)
		}
	}
	if p := withCohorts(nil)[0]; p.Boards != 2 {
		t.Fatalf("period 1 without cohorts: %d boards, want the ~54 players on 2", p.Boards)
	}
}
