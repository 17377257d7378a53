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
	pr := output(fs, out)
	showProg := progressFlag(fs)
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
	// Its steps' lines are the text's own; with -o json they go to stderr,
	// as other progress does (a terminal, or -progress).
	steps := out
	if pr.json() {
		steps = io.Discard
		if showProgress(*showProg) {
			steps = progress
		}
	}
	s := scheduler.New(e.engine, e.store, scheduler.WithLogger(quiet()), scheduler.WithProgress(func(p scheduler.Progress) {
		fmt.Fprintf(steps, "%s %s: %s (%s)\n", p.League, p.Period.ID(), describe(p), time.Since(began).Round(time.Millisecond))
	}))
	st, err := s.SettleNow(ctx, *id, start)
	if err != nil {
		return err
	}
	n, err := s.RecordClaims(ctx, *id)
	if err != nil {
		return fmt.Errorf("settled, but recording reward claims failed (leagued retries): %w", err)
	}
	took := time.Since(began)
	already := st.FinishedAt.Before(began)
	j := settlementJSON{League: st.League, Period: league.Period{Start: st.Period}.ID(), Status: string(st.Status), Players: st.Players,
		Tiers: st.Tiers, FinishedAt: timeJSON(st.FinishedAt), Already: already, ClaimsRecorded: n, TookMS: took.Milliseconds()}
	if j.Tiers == nil {
		j.Tiers = []league.TierCount{}
	}
	return pr.print(func() error {
		printSettlement(out, st)
		if already {
			_, err := fmt.Fprintf(out, "settled already, at %s: nothing to do; %s recorded\n", st.FinishedAt.Format(time.RFC3339), words.Count(n, "reward claim"))
			return err
		}
		_, err := fmt.Fprintf(out, "took %s (%.0f players/s); %s recorded\n", took.Round(time.Millisecond),
			float64(st.Players)/took.Seconds(), words.Count(n, "reward claim"))
		return err
	}, j)
}

// settlementJSON is settle -o json.
type settlementJSON struct {
	League         string             `json:"league"`
	Period         string             `json:"period"`
	Status         string             `json:"status"`
	Players        int                `json:"players"`
	Tiers          []league.TierCount `json:"tiers"` // ladder order: tier, players, promoted, demoted, rewarded, moderated
	FinishedAt     string             `json:"finished_at"`
	Already        bool               `json:"already_settled"` // settled before this run: nothing done
	ClaimsRecorded int                `json:"claims_recorded"`
	TookMS         int64              `json:"took_ms"`
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
