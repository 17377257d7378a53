package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/league-engine/league/league"
	"github.com/league-engine/league/scheduler"
)

// settle settles a period now, printing progress lines.
func settle(ctx context.Context, args []string, out io.Writer) error {
	fs, path := flags("settle")
	id := fs.String("league", "", "league id (required)")
	period := fs.String("period", "", "period id, e.g. 20261116T000000Z (default: the last ended period)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *id == "" {
		return fmt.Errorf("settle: -league is required")
	}
	e, err := open(ctx, *path, true)
	if err != nil {
		return err
	}
	defer e.close()
	var start time.Time
	if *period != "" {
		p, err := e.engine.PeriodOf(*id, *period)
		if err != nil {
			return err
		}
		start = p.Start
	}
	began := time.Now()
	s := scheduler.New(e.engine, e.store, scheduler.WithProgress(func(p scheduler.Progress) {
		fmt.Fprintf(out, "%s %s: %-5s %d/%d players (%s)\n", p.League, p.Period.ID(), p.Step, p.Done, p.Total,
			time.Since(began).Round(time.Millisecond))
	}))
	st, err := s.SettleNow(ctx, *id, start)
	if err != nil {
		return err
	}
	n, err := s.RecordClaims(ctx, *id)
	if err != nil {
		return fmt.Errorf("settled, but recording reward claims failed (leagued retries): %w", err)
	}
	printSettlement(out, st)
	took := time.Since(began)
	fmt.Fprintf(out, "took %s (%.0f players/s); %d reward claims recorded\n", took.Round(time.Millisecond),
		float64(st.Players)/took.Seconds(), n)
	return nil
}

func printSettlement(out io.Writer, st league.Settlement) {
	fmt.Fprintf(out, "league %s period %s: %s, %d players\n", st.League, st.Period.Format("20060102T150405Z"), st.Status, st.Players)
	for _, t := range st.Tiers {
		fmt.Fprintf(out, "  %-12s %7d players  %6d promoted  %6d demoted  %6d rewarded\n", t.Tier, t.Players, t.Promoted, t.Demoted, t.Rewarded)
	}
}
