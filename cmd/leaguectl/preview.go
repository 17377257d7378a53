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
	"github.com/league-engine/league/tiers"
)

// preview prints what settling a period would do (league.Engine.Preview):
// the summary and a page of rows. It reads Redis only and writes nothing.
func preview(ctx context.Context, args []string, out io.Writer) error {
	fs, path := flags("preview")
	id := fs.String("league", "", "league id (required)")
	period := fs.String("period", "", "period id, e.g. 20261116T000000Z (default: the current period)")
	limit := fs.Int("limit", 100, fmt.Sprintf("rows to print, 0 (the summary only) to %d", league.MaxPreviewRows))
	after := fs.String("after", "", "print the rows after this one, as the last page's next gave it (e.g. bronze-3:17)")
	pr := output(fs, out)
	if err := parse(fs, args); err != nil {
		return err
	}
	switch {
	case *id == "":
		return usageError{fmt.Errorf("preview: -league is required")}
	case *limit < 0 || *limit > league.MaxPreviewRows:
		return usageError{fmt.Errorf("preview: -limit %d is outside 0..%d", *limit, league.MaxPreviewRows)}
	}
	if err := checkPeriodFlag("preview", *period); err != nil {
		return err
	}
	if *after != "" {
		if _, err := league.ParsePreviewCursor(*after); err != nil {
			return usageError{fmt.Errorf("preview: -%v", err)}
		}
	}
	e, err := open(ctx, *path, false)
	if err != nil {
		return err
	}
	defer e.close()
	p, err := e.engine.Preview(ctx, *id, league.PreviewRequest{Period: *period, After: *after, Limit: *limit})
	if err != nil {
		return err
	}
	return pr.print(func() error {
		printPreview(out, p, *id)
		return nil
	}, previewJSONOf(p))
}

func printPreview(out io.Writer, p league.Preview, id string) {
	state := "ended: what its settlement writes"
	if !p.Final {
		state = "current, decided as if it ended now (its boards still change)"
	}
	fmt.Fprintf(out, "league %s period %s (ends %s): %s\n", p.League, p.Period.ID(), p.Period.End.UTC().Format(time.RFC3339), state)
	if len(p.Waiting) > 0 {
		ids := make([]string, len(p.Waiting))
		for i, w := range p.Waiting {
			ids[i] = w.ID()
		}
		fmt.Fprintf(out, "waiting for settlement: %s (leaguectl settle -league %s settles them, oldest first)\n", strings.Join(ids, ", "), id)
	}
	s := p.Summary
	fmt.Fprintf(out, "%s, %d rewarded\n", words.Count(s.Players, "player"), s.Rewarded)
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "tier\tplayers\tpromoted\tdemoted\tstayed\trewarded\tafter\t")
	for _, t := range s.Tiers {
		fmt.Fprintf(w, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t\n", t.Tier, t.Players, t.Promoted, t.Demoted, t.Stayed, t.Rewarded, t.After)
	}
	w.Flush()
	if len(s.Moves) > 0 {
		moves := make([]string, len(s.Moves))
		for i, m := range s.Moves {
			moves[i] = fmt.Sprintf("%s -> %s %d", m.From, m.To, m.Players)
		}
		fmt.Fprintf(out, "moves: %s\n", strings.Join(moves, ", "))
	}
	if len(s.Rewards) > 0 {
		items := make([]string, len(s.Rewards))
		for i, it := range s.Rewards {
			items[i] = fmt.Sprintf("%s %d (%s)", it.ID, it.Qty, words.Count(it.Players, "player"))
		}
		fmt.Fprintf(out, "rewards: %s\n", strings.Join(items, ", "))
	}
	if len(p.Rows) == 0 {
		return
	}
	w = tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "board\trank\tplayer\tscore\tfrom\tto\tmove\treward")
	for _, r := range p.Rows {
		fmt.Fprintf(w, "%s\t%d\t%s\t%d\t%s\t%s\t%s\t%s\n", r.Board, r.Rank, r.Player, r.Score, r.From, r.To, r.Move, itemList(r.Rewards))
	}
	w.Flush()
	if p.Next != nil {
		fmt.Fprintf(out, "more: -after %s\n", p.Next)
	}
}

// itemList writes items as "100 gems, 5 coins"; "-" for none.
func itemList(items []tiers.Item) string {
	if len(items) == 0 {
		return "-"
	}
	return tiers.ItemsText(items)
}
