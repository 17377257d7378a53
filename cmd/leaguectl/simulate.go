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
	ps, err := season.Run(l, m)
	if err != nil {
		return usageError{fmt.Errorf("simulate: %w", err)}
	}
	ld := l.Ladder
	fmt.Fprintf(out, "league %s: %d players over %d periods, boards of %d, seed %d (%s)\n",
		l.ID, m.Players, m.Periods, l.BoardSize, m.Seed, time.Since(began).Round(time.Millisecond))
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := []string{"period", "played"}
	for t := 0; t < ld.Len(); t++ {
		head = append(head, ld.Tier(t).ID)
	}
	head = append(head, "promoted", "demoted", "decayed", "rewarded", "items", "boards", "thin")
	fmt.Fprintln(tw, strings.Join(head, "\t")+"\t")
	for _, p := range ps {
		row := []string{fmt.Sprint(p.N), fmt.Sprint(p.Played)}
		up, down, items := 0, 0, int64(0)
		for t := 0; t < ld.Len(); t++ {
			row = append(row, fmt.Sprint(p.Population[t]))
			up, down, items = up+p.Promoted[t], down+p.Demoted[t], items+p.Rewards[t]
		}
		row = append(row, fmt.Sprint(up), fmt.Sprint(down), fmt.Sprint(p.Decayed), fmt.Sprint(p.Rewarded),
			fmt.Sprint(items), fmt.Sprint(p.Boards), fmt.Sprint(p.Thin))
		fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(out, "tiers: players in each after the period settled (those who ever played); thin: boards under half full")
	if *svg == "" {
		return nil
	}
	f, err := os.Create(*svg)
	if err != nil {
		return err
	}
	if err := season.WriteSVG(f, fmt.Sprintf("%s: players per tier, %d players, seed %d", l.ID, m.Players, m.Seed), ld, ps); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	fmt.Fprintf(out, "wrote %s\n", *svg)
	return nil
}
