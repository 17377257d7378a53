package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/league-engine/league/config"
	"github.com/league-engine/league/league"
	"github.com/league-engine/league/season"
)

// simulate plays seasons of a configured league on made-up players
// (package season): per period, every tier's population, the players
// promoted, demoted and decayed, rewards paid and thin boards. It reads
// the config only.
func simulate(_ context.Context, args []string, out io.Writer) error {
	fs, path := flags("simulate")
	id := fs.String("league", "", "league id (default: the config's first)")
	m := season.Model{}
	fs.IntVar(&m.Players, "players", 100_000, "players, 1..10000000")
	fs.IntVar(&m.Periods, "periods", 20, "periods, 1..1000")
	fs.Uint64Var(&m.Seed, "seed", 1, "random seed: the same seed, the same run")
	fs.Float64Var(&m.Regulars, "regulars", 0.4, "share of players who play 90% of periods")
	fs.Float64Var(&m.Casuals, "casuals", 0.4, "share who play 50% (the rest play 15%)")
	fs.Float64Var(&m.Idle, "idle", 0.05, "share of joiners who never score")
	fs.Float64Var(&m.Scale, "scale", 100, "median score of a player of average skill")
	svg := fs.String("svg", "", "also draw tier populations over the periods to this SVG file")
	pr := output(fs, out)
	showProg := progressFlag(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	cfg, err := config.Load(*path)
	if err != nil {
		return err
	}
	if len(cfg.Leagues) == 0 {
		return fmt.Errorf("simulate: %s configures no league", *path)
	}
	l := cfg.Leagues[0]
	if *id != "" {
		l = nil
		for _, c := range cfg.Leagues {
			if c.ID == *id {
				l = c
			}
		}
		if l == nil {
			return usageError{fmt.Errorf("simulate: no league %q in %s", *id, *path)}
		}
	}
	began := time.Now()
	tick := startTicker(showProgress(*showProg), fmt.Sprintf("simulate %s: %d players, %d periods", l.ID, m.Players, m.Periods))
	ps, err := season.Run(l, m)
	tick.stop()
	if err != nil {
		return usageError{fmt.Errorf("simulate: %w", err)}
	}
	if *svg != "" {
		if err := writeSVG(*svg, l, m, ps); err != nil {
			return err
		}
	}
	took := time.Since(began)
	return pr.print(func() error { return simulateText(out, l, m, ps, took, *svg) }, simulateJSONOf(l, m, ps, *svg))
}

// simulateText prints a simulation as a table, a row a period.
func simulateText(out io.Writer, l *league.League, m season.Model, ps []season.Period, took time.Duration, svg string) error {
	ld := l.Ladder
	fmt.Fprintf(out, "league %s: %d players over %d periods, boards of %d, seed %d (%s)\n",
		l.ID, m.Players, m.Periods, l.BoardSize, m.Seed, took.Round(time.Millisecond))
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := []string{"period", "played"}
	for t := 0; t < ld.Len(); t++ {
		head = append(head, ld.Tier(t).ID)
	}
	head = append(head, "promoted", "demoted", "decayed", "rewarded", "items", "boards", "thin", "merged")
	fmt.Fprintln(tw, strings.Join(head, "\t")+"\t")
	for _, p := range ps {
		row := []string{fmt.Sprint(p.N), fmt.Sprint(p.Played)}
		up, down, items := 0, 0, int64(0)
		for t := 0; t < ld.Len(); t++ {
			row = append(row, fmt.Sprint(p.Population[t]))
			up, down, items = up+p.Promoted[t], down+p.Demoted[t], items+p.Rewards[t]
		}
		row = append(row, fmt.Sprint(up), fmt.Sprint(down), fmt.Sprint(p.Decayed), fmt.Sprint(p.Rewarded),
			fmt.Sprint(items), fmt.Sprint(p.Boards), fmt.Sprint(p.Thin), fmt.Sprint(p.Merged))
		fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(out, "tiers: players in each after the period settled (those who ever played); thin: boards under half full; "+
		"merged: short last boards decided with the board before (min_board_size)")
	if svg != "" {
		fmt.Fprintf(out, "wrote %s\n", svg)
	}
	return nil
}

// writeSVG draws the tier populations over the periods to a file.
func writeSVG(path string, l *league.League, m season.Model, ps []season.Period) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := season.WriteSVG(f, fmt.Sprintf("%s: players per tier, %d players, seed %d", l.ID, m.Players, m.Seed), l.Ladder, ps); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// simulateJSON is simulate -o json.
type simulateJSON struct {
	League    string              `json:"league"`
	Players   int                 `json:"players"`
	Periods   int                 `json:"periods"`
	BoardSize int                 `json:"board_size"`
	Seed      uint64              `json:"seed"`
	Tiers     []string            `json:"tiers"` // lowest first, as each period's per-tier lists
	Rows      []simulatePeriodRow `json:"rows"`
	SVG       string              `json:"svg,omitempty"`
}

type simulatePeriodRow struct {
	Period     int     `json:"period"`
	Played     int     `json:"played"`
	Population []int   `json:"population"` // per tier, after the period settled
	Promoted   []int   `json:"promoted"`   // per tier, from it
	Demoted    []int   `json:"demoted"`    // per tier, from it
	Rewards    []int64 `json:"rewards"`    // per tier, reward items paid
	Decayed    int     `json:"decayed"`
	Rewarded   int     `json:"rewarded"`
	Boards     int     `json:"boards"`
	Thin       int     `json:"thin"`
	Merged     int     `json:"merged"`
}

func simulateJSONOf(l *league.League, m season.Model, ps []season.Period, svg string) simulateJSON {
	j := simulateJSON{League: l.ID, Players: m.Players, Periods: m.Periods, BoardSize: l.BoardSize, Seed: m.Seed, SVG: svg,
		Tiers: []string{}, Rows: []simulatePeriodRow{}}
	for t := 0; t < l.Ladder.Len(); t++ {
		j.Tiers = append(j.Tiers, l.Ladder.Tier(t).ID)
	}
	for _, p := range ps {
		j.Rows = append(j.Rows, simulatePeriodRow{Period: p.N, Played: p.Played, Population: p.Population, Promoted: p.Promoted,
			Demoted: p.Demoted, Rewards: p.Rewards, Decayed: p.Decayed, Rewarded: p.Rewarded, Boards: p.Boards, Thin: p.Thin, Merged: p.Merged})
	}
	return j
}
