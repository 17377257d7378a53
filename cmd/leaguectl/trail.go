package main

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/league-engine/league/internal/words"
	"github.com/league-engine/league/league"
	"github.com/league-engine/league/tiers"
)

// trail prints a page of the audit trail of a player or a period: every
// tier move with its cause, every reward and claim, every admin action,
// newest first.
//
//	leaguectl trail -league L (-player ID | -period P | both) [-limit N] [-after CURSOR] [-o json]
func trail(ctx context.Context, args []string, out io.Writer) error {
	fs, path := flags("trail")
	id := fs.String("league", "", "league id (required)")
	pid := fs.String("player", "", "the player's entries")
	period := fs.String("period", "", "the period's entries")
	limit := fs.Int("limit", 50, fmt.Sprintf("entries in the page, 1..%d", league.MaxAuditPage))
	after := fs.String("after", "", "the page starts after this cursor (a page's next)")
	pr := output(fs, out)
	if err := parse(fs, args); err != nil {
		return err
	}
	switch {
	case *id == "":
		return usageError{fmt.Errorf("trail: -league is required")}
	case *pid == "" && *period == "":
		return usageError{fmt.Errorf("trail: give -player, -period or both")}
	case *limit < 1 || *limit > league.MaxAuditPage:
		return usageError{fmt.Errorf("trail: -limit %d is outside 1..%d", *limit, league.MaxAuditPage)}
	}
	if *after != "" {
		if _, err := league.ParseTrailCursor(*after); err != nil {
			return usageError{fmt.Errorf("trail: -after %q is not a cursor of the trail (a page's next)", *after)}
		}
	}
	if err := checkPeriodFlag("trail", *period); err != nil {
		return err
	}
	e, err := open(ctx, *path, true)
	if err != nil {
		return err
	}
	defer e.close()
	log, ok := e.store.(league.TrailLog)
	audit, _ := e.store.(league.AuditLog)
	if !ok || audit == nil {
		return fmt.Errorf("trail: the store keeps no audit trail")
	}
	lg, err := e.engine.League(*id)
	if err != nil {
		return err
	}
	q := league.TrailQuery{League: *id, Player: *pid, Limit: *limit, After: *after}
	if *period != "" {
		p, err := e.engine.PeriodOf(*id, *period)
		if err != nil {
			return err
		}
		q.Period = p.Start
	}
	// Actions left waiting in Redis first, so the page holds every one.
	if _, err := e.engine.RecordActions(ctx, *id, audit); err != nil {
		return err
	}
	page, err := log.Trail(ctx, q)
	if err != nil {
		return err
	}
	j := trailJSON{League: *id, Entries: []trailEntryJSON{}, Next: page.Next}
	lg.NameMoves(page.Entries)
	for i := range page.Entries {
		en := &page.Entries[i]
		ej := trailEntryJSON{At: timeJSON(en.At), Kind: string(en.Kind), Period: periodID(*en), Player: en.Player,
			TierBefore: en.TierBefore, TierAfter: en.TierAfter, Move: string(en.Move), Rank: en.Rank, Tier: en.Tier, Items: en.Items,
			Absent: en.Absent, What: en.Summary()}
		if en.Kind == league.TrailSettlement {
			ej.Board, ej.Score = en.BoardOf().String(), &en.Score
		}
		if c := en.Correction; c != nil {
			ej.Correction = &c.ID
		}
		if a := en.Action; a != nil {
			ej.Action = a.ID
		}
		j.Entries = append(j.Entries, ej)
	}
	return pr.print(func() error {
		fmt.Fprintf(out, "league %s: %s, newest first\n", *id, words.Count(len(j.Entries), "line"))
		if len(j.Entries) == 0 {
			return nil
		}
		w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
		fmt.Fprintln(w, "at\tkind\tperiod\tplayer\twhat")
		for _, en := range page.Entries {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", en.At.UTC().Format("2006-01-02T15:04:05.000Z"), en.Kind, periodID(en), en.Player,
				en.Summary())
		}
		if err := w.Flush(); err != nil {
			return err
		}
		if j.Next != "" {
			fmt.Fprintf(out, "more: -after %s\n", j.Next)
		}
		return nil
	}, j)
}

// trailJSON is trail -o json: a page of entries, newest first.
type trailJSON struct {
	League  string           `json:"league"`
	Entries []trailEntryJSON `json:"entries"`
	Next    string           `json:"next_after"` // -after for the next page; "": none
}

type trailEntryJSON struct {
	At         string       `json:"at"`
	Kind       string       `json:"kind"`
	Period     string       `json:"period"` // "-": an admin action of no period
	Player     string       `json:"player_id"`
	TierBefore string       `json:"tier_before,omitempty"`
	TierAfter  string       `json:"tier_after,omitempty"`
	Move       string       `json:"move,omitempty"`
	Board      string       `json:"board,omitempty"`
	Rank       int          `json:"rank,omitempty"`
	Score      *int64       `json:"score,omitempty"`
	Tier       string       `json:"tier,omitempty"`
	Items      []tiers.Item `json:"items,omitempty"`
	Absent     int          `json:"absent,omitempty"`
	Correction *int64       `json:"correction_id,omitempty"`
	Action     string       `json:"action_id,omitempty"` // leaguectl audit lists the action
	What       string       `json:"what"`                // the text output's line
}

func periodID(e league.TrailEntry) string {
	if e.Period.IsZero() {
		return "-"
	}
	return league.Period{Start: e.Period}.ID()
}
