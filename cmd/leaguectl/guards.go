package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/league-engine/league/internal/words"
	"github.com/league-engine/league/league"
)

// held lists a league's held score writes, or decides one.
func held(ctx context.Context, args []string, out io.Writer) error {
	fs, path := flags("held")
	id := fs.String("league", "", "league id (required)")
	period := fs.String("period", "", "period id (default: the current period; approving takes only the current one)")
	approve := fs.Int64("approve", 0, "apply the held write with this id")
	reject := fs.Int64("reject", 0, "drop the held write with this id")
	if err := parse(fs, args); err != nil {
		return err
	}
	switch {
	case *id == "":
		return usageError{fmt.Errorf("held: -league is required")}
	case *approve != 0 && *reject != 0:
		return usageError{fmt.Errorf("held: -approve or -reject, not both")}
	case *approve < 0 || *reject < 0:
		return usageError{fmt.Errorf("held: ids are whole numbers from 1")}
	case *approve != 0 && *period != "":
		return usageError{fmt.Errorf("held: -approve takes only the current period's writes; leave out -period")}
	}
	if err := checkPeriodFlag("held", *period); err != nil {
		return err
	}
	e, err := open(ctx, *path, false)
	if err != nil {
		return err
	}
	defer e.close()
	switch {
	case *approve != 0:
		r, err := e.engine.Approve(ctx, *id, *approve)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "league %s period %s: held write %d approved: score %d, rank %d of %d on %s\n",
			*id, r.Period.ID(), *approve, r.Score, r.Rank, r.BoardSize, r.Board)
		return nil
	case *reject != 0:
		h, err := e.engine.Reject(ctx, *id, *period, *reject)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "league %s period %s: held write %d rejected: %s's %d (past %s)\n", *id, h.Period.ID(), h.ID, h.Player, h.Value, h.Cap)
		return nil
	}
	p, list, err := e.engine.HeldWrites(ctx, *id, *period)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "league %s period %s: %s held\n", *id, p.ID(), words.Count(len(list), "write"))
	if len(list) == 0 {
		return nil
	}
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "id\tplayer\tvalue\tcap\tat")
	for _, h := range list {
		fmt.Fprintf(w, "%d\t%s\t%d\t%s\t%s\n", h.ID, h.Player, h.Value, h.Cap, h.At.Format(time.RFC3339))
	}
	return w.Flush()
}

// leagueLimits prints a league's guard counters for a player or a key.
func leagueLimits(ctx context.Context, path, id, player, key string, out io.Writer) error {
	e, err := open(ctx, path, false)
	if err != nil {
		return err
	}
	defer e.close()
	counters, err := e.engine.Counters(ctx, id, league.ScoreWrite{Player: player, Scope: key})
	if err != nil {
		return err
	}
	if len(counters) == 0 {
		fmt.Fprintf(out, "league %s: no limit counts by only the dimensions given\n", id)
		return nil
	}
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "limit\tby\tused\tmax\twindow")
	for _, c := range counters {
		var by []string
		for _, d := range c.Limit.By {
			by = append(by, string(d))
		}
		used := fmt.Sprint(c.Used)
		if c.Gain {
			used += " points"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s to %s\n", c.Limit.Name, strings.Join(by, "+"), used, c.Limit.Max,
			c.Start.UTC().Format(time.RFC3339), c.End.UTC().Format(time.RFC3339))
	}
	return tw.Flush()
}
