package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/league-engine/league/internal/words"
	"github.com/league-engine/league/league"
	"github.com/league-engine/league/scheduler"
)

// settle settles a period now, printing progress lines.
func settle(ctx context.Context, args []string, out io.Writer) error {
	fs, path := flags("settle")
	id := fs.String("league", "", "league id (required)")
	period := fs.String("period", "", "period id, e.g. 20261116T000000Z (default: the last ended period)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *id == "" {
		return usageError{fmt.Errorf("settle: -league is required")}
	}
	if err := checkPeriodFlag("settle", *period); err != nil {
		return err
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
	s := scheduler.New(e.engine, e.store, scheduler.WithLogger(quiet()), scheduler.WithProgress(func(p scheduler.Progress) {
		fmt.Fprintf(out, "%s %s: %s (%s)\n", p.League, p.Period.ID(), describe(p), time.Since(began).Round(time.Millisecond))
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
	if st.FinishedAt.Before(began) {
		fmt.Fprintf(out, "settled already, at %s: nothing to do; %s recorded\n", st.FinishedAt.Format(time.RFC3339), words.Count(n, "reward claim"))
		return nil
	}
	took := time.Since(began)
	fmt.Fprintf(out, "took %s (%.0f players/s); %s recorded\n", took.Round(time.Millisecond),
		float64(st.Players)/took.Seconds(), words.Count(n, "reward claim"))
	return nil
}

// describe says what a settlement step has done.
func describe(p scheduler.Progress) string {
	switch p.Step {
	case scheduler.StepClose:
		return fmt.Sprintf("closed, %s to settle", words.Count(p.Total, "player"))
	case scheduler.StepRead:
		return fmt.Sprintf("read and decided %d/%d players", p.Done, p.Total)
	case scheduler.StepWrite:
		return fmt.Sprintf("wrote %s to the store", words.Count(p.Done, "outcome"))
	case scheduler.StepApply:
		return fmt.Sprintf("applied %s and rewards to Redis", words.Count(p.Done, "tier move"))
	}
	return fmt.Sprintf("%s %d/%d", p.Step, p.Done, p.Total)
}

func printSettlement(out io.Writer, st league.Settlement) {
	fmt.Fprintf(out, "league %s period %s: %s, %s\n", st.League, st.Period.Format("20060102T150405Z"), st.Status, words.Count(st.Players, "player"))
	for _, t := range st.Tiers {
		fmt.Fprintf(out, "  %-12s %7d players  %6d promoted  %6d demoted  %6d rewarded\n", t.Tier, t.Players, t.Promoted, t.Demoted, t.Rewarded)
	}
}
