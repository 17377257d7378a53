package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/league-engine/league/league"
)

// correct zeroes or removes a player of a settled period and re-decides
// their board (league.Engine.Correct), exactly once: run again, it prints
// the correction recorded and changes nothing, or finishes one that was
// interrupted after its Postgres commit.
func correct(ctx context.Context, args []string, out io.Writer) error {
	fs, path := flags("correct")
	id := fs.String("league", "", "league id (required)")
	period := fs.String("period", "", "the settled period, e.g. 20261116T000000Z (required)")
	pid := fs.String("player", "", "player id (required)")
	zero := fs.Bool("zero", false, "zero the player's score")
	remove := fs.Bool("remove", false, "take the player off their board")
	reason := fs.String("reason", "", "why, as the correction records it (required)")
	as := fs.String("as", defaultActor(), "who corrects, as the correction records it")
	if err := parse(fs, args); err != nil {
		return err
	}
	switch {
	case *id == "" || *pid == "" || *period == "":
		return usageError{fmt.Errorf("correct: -league, -period and -player are required")}
	case *zero == *remove:
		return usageError{fmt.Errorf("correct: give -zero or -remove")}
	case strings.TrimSpace(*reason) == "":
		return usageError{fmt.Errorf("correct: -reason is required: why, as the correction records it")}
	}
	start, err := league.ParsePeriodID(*period)
	if err != nil {
		return usageError{fmt.Errorf("correct: -period: %v", err)}
	}
	action := league.CorrectZero
	if *remove {
		action = league.CorrectRemove
	}
	e, err := open(ctx, *path, true)
	if err != nil {
		return err
	}
	defer e.close()
	cs, ok := e.store.(league.CorrectionStore)
	if !ok {
		return fmt.Errorf("the store at DATABASE_URL keeps no corrections")
	}
	c, err := e.engine.Correct(ctx, cs, league.CorrectionRequest{League: *id, Period: start, Player: *pid, Action: action,
		Reason: *reason, Actor: *as})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "league %s period %s: %s %s (correction %d by %s, %s): %d players changed\n", c.League,
		league.Period{Start: c.Period}.ID(), c.Action, c.Player, c.ID, c.Actor, c.Status, len(c.Changes))
	for _, ch := range c.Changes {
		fmt.Fprintf(out, "  %-20s rank %d -> %d, %s -> %s", ch.Player, ch.Before.Rank, ch.After.Rank, ch.Before.TierAfter, ch.After.TierAfter)
		switch {
		case ch.Revoked && ch.Claimed:
			fmt.Fprint(out, ", reward revoked after its claim (for the game)")
		case ch.Revoked:
			fmt.Fprint(out, ", reward revoked")
		}
		if ch.Granted {
			fmt.Fprint(out, ", reward granted")
		}
		if ch.Deferred {
			fmt.Fprint(out, ", deferred (plays a later period already: for the game)")
		}
		fmt.Fprintln(out)
	}
	return nil
}
