package main

import (
	"context"
	"fmt"
	"io"
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
	pr := output(fs, out)
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
		return pr.print(func() error {
			_, err := fmt.Fprintf(out, "league %s period %s: held write %d approved: score %d, rank %d of %d on %s\n",
				*id, r.Period.ID(), *approve, r.Score, r.Rank, r.BoardSize, r.Board)
			return err
		}, decisionJSON{League: *id, Period: r.Period.ID(), ID: *approve, Decision: "approved", Score: r.Score, Rank: r.Rank,
			BoardSize: r.BoardSize, Board: r.Board.String()})
	case *reject != 0:
		h, err := e.engine.Reject(ctx, *id, *period, *reject)
		if err != nil {
			return err
		}
		return pr.print(func() error {
			_, err := fmt.Fprintf(out, "league %s period %s: held write %d rejected: %s's %d (past %s)\n", *id, h.Period.ID(), h.ID, h.Player, h.Value, h.Cap)
			return err
		}, decisionJSON{League: *id, Period: h.Period.ID(), ID: h.ID, Decision: "rejected", Player: h.Player, Value: h.Value, Cap: h.Cap})
	}
	p, list, err := e.engine.HeldWrites(ctx, *id, *period)
	if err != nil {
		return err
	}
	j := heldJSON{League: *id, Period: p.ID(), Held: []heldWriteJSON{}}
	for _, h := range list {
		j.Held = append(j.Held, heldWriteJSON{ID: h.ID, Player: h.Player, Value: h.Value, Cap: h.Cap, At: timeJSON(h.At)})
	}
	return pr.print(func() error {
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
	}, j)
}

// heldJSON is held -o json: the list.
type heldJSON struct {
	League string          `json:"league"`
	Period string          `json:"period"`
	Held   []heldWriteJSON `json:"held"`
}

type heldWriteJSON struct {
	ID     int64  `json:"id"`
	Player string `json:"player_id"`
	Value  int64  `json:"value"`
	Cap    string `json:"cap"`
	At     string `json:"at"`
}

// decisionJSON is held -approve | -reject -o json.
type decisionJSON struct {
	League    string `json:"league"`
	Period    string `json:"period"`
	ID        int64  `json:"id"`
	Decision  string `json:"decision"` // approved, rejected
	Player    string `json:"player_id,omitempty"`
	Value     int64  `json:"value,omitempty"`
	Cap       string `json:"cap,omitempty"`
	Score     int64  `json:"score,omitempty"` // approved: the player's score now, rank on board
	Rank      int    `json:"rank,omitempty"`
	BoardSize int    `json:"board_size,omitempty"`
	Board     string `json:"board,omitempty"`
}

// leagueLimits prints a league's guard counters for a player or a key.
func leagueLimits(ctx context.Context, path, id, player, key string, pr *printer) error {
	e, err := open(ctx, path, false)
	if err != nil {
		return err
	}
	defer e.close()
	counters, err := e.engine.Counters(ctx, id, league.ScoreWrite{Player: player, Scope: key})
	if err != nil {
		return err
	}
	j := limitsJSON{League: id, Counters: []counterJSON{}}
	for _, c := range counters {
		j.Counters = append(j.Counters, counterJSON{Limit: c.Limit.Name, By: dimensions(c.Limit.By), Used: c.Used, Gain: c.Gain,
			Max: c.Limit.Max, Start: timeJSON(c.Start), End: timeJSON(c.End)})
	}
	return pr.print(func() error { return limitsText(pr.out, "league "+id, j.Counters) }, j)
}
