package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/league-engine/league/config"
	"github.com/league-engine/league/internal/words"
	"github.com/league-engine/league/league"
	"github.com/league-engine/league/tiers"
)

// board prints a sub-board.
func board(ctx context.Context, args []string, out io.Writer) error {
	fs, path := flags("board")
	id := fs.String("league", "", "league id (required)")
	name := fs.String("board", "", "board, e.g. gold-3 (required)")
	period := fs.String("period", "", "period id (default: the current period)")
	pr := output(fs, out)
	if err := parse(fs, args); err != nil {
		return err
	}
	if *id == "" || *name == "" {
		return usageError{fmt.Errorf("board: -league and -board are required")}
	}
	bid, err := league.ParseBoardID(*name)
	if err != nil {
		return usageError{fmt.Errorf("board: -board: %v", err)}
	}
	if err := checkPeriodFlag("board", *period); err != nil {
		return err
	}
	e, err := open(ctx, *path, false)
	if err != nil {
		return err
	}
	defer e.close()
	var p league.Period
	if *period != "" {
		if p, err = e.engine.PeriodOf(*id, *period); err != nil {
			return err
		}
	}
	b, err := e.engine.Board(ctx, *id, p, bid)
	if err != nil {
		return err
	}
	return pr.print(func() error {
		fmt.Fprintf(out, "league %s period %s board %s: %s\n", b.League, b.Period.ID(), b.ID, words.Count(len(b.Entries), "player"))
		w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
		fmt.Fprintln(w, "rank\tplayer\tname\tscore\tzone")
		for _, en := range b.Entries {
			fmt.Fprintf(w, "%d\t%s\t%s\t%d\t%s\n", en.Rank, en.Player, en.Name, en.Score, en.Zone)
		}
		return w.Flush()
	}, boardJSONOf(b))
}

// player prints a player's standing and settled history.
func player(ctx context.Context, args []string, out io.Writer) error {
	fs, path := flags("player")
	id := fs.String("league", "", "league id (required)")
	pid := fs.String("player", "", "player id (required)")
	limit := fs.Int("history", 0, fmt.Sprintf("past periods to show, 1..%d (default: the config's settlement.history_limit)", config.MaxHistoryLimit))
	pr := output(fs, out)
	if err := parse(fs, args); err != nil {
		return err
	}
	if *id == "" || *pid == "" {
		return usageError{fmt.Errorf("player: -league and -player are required")}
	}
	if given(fs, "history") && (*limit < 1 || *limit > config.MaxHistoryLimit) {
		return usageError{fmt.Errorf("player: -history %d is outside 1..%d", *limit, config.MaxHistoryLimit)}
	}
	e, err := open(ctx, *path, true)
	if err != nil {
		return err
	}
	defer e.close()
	if *limit == 0 {
		*limit = e.cfg.Settlement.HistoryLimit
	}
	var note error
	if _, err := e.engine.League(*id); err != nil {
		if e.configured(*id) == nil {
			return err
		}
		// Configured but left out (Redis holds none of it): show what
		// Postgres keeps, saying so.
		note = err
	}
	s, serr := e.engine.Standing(ctx, *id, *pid)
	prof, perr := e.store.Profile(ctx, *id, *pid, *limit)
	if errors.Is(serr, league.ErrNotFound) && errors.Is(perr, league.ErrNotFound) {
		return serr
	}
	if serr != nil && !errors.Is(serr, league.ErrNotFound) {
		return serr
	}
	if perr != nil && !errors.Is(perr, league.ErrNotFound) {
		return perr
	}
	var banned time.Time
	if serr == nil {
		if st, _, err := e.engine.PlayerModeration(ctx, *id, *pid); err == nil {
			banned = st.BannedUntil
		}
	}
	var waiting []league.Reward
	if pending, err := e.engine.PendingRewards(ctx, *id, *pid); err == nil {
		// As the API's profile: with the reward the next join decides from
		// a frozen board before settlement writes it.
		waiting = s.WithEarned(pending)
	}
	v := playerView{id: *id, pid: *pid, note: note, standing: s, hasStanding: serr == nil, banned: banned, waiting: waiting, history: prof.History}
	return pr.print(func() error { return v.text(out) }, v.json())
}

// playerView is what player found, printed as text or JSON.
type playerView struct {
	id, pid     string
	note        error // the league is configured but not in Redis
	standing    league.Standing
	hasStanding bool
	banned      time.Time
	waiting     []league.Reward
	history     []league.HistoryEntry
}

func (v playerView) text(out io.Writer) error {
	s := v.standing
	if v.note != nil {
		fmt.Fprintf(out, "note: %s\n", league.ErrorMessage(v.note))
	}
	if v.hasStanding {
		fmt.Fprintf(out, "player %s in league %s, period %s: tier %s\n", v.pid, v.id, s.Period.ID(), s.Tier)
		switch {
		case s.Moderation != "":
			fmt.Fprintf(out, "  board %s: %s by an operator (off the board: no rank, skipped by settlement), score %d kept; %d on the board\n",
				s.Board, s.Moderation, s.Score, s.BoardSize)
		case s.Joined:
			above := fmt.Sprintf("%d behind the player above", s.Gap)
			if s.Rank == 1 {
				above = "top of the board"
			}
			fmt.Fprintf(out, "  board %s rank %d of %d, score %d, %s, zone %s\n",
				s.Board, s.Rank, s.BoardSize, s.Score, above, s.Zone)
		default:
			fmt.Fprintln(out, "  not joined this period")
		}
		if !v.banned.IsZero() {
			fmt.Fprintf(out, "  banned until %s: joins are refused\n", v.banned.Format(time.RFC3339))
		}
	}
	for _, r := range v.waiting {
		fmt.Fprintf(out, "  waiting for the next join: %s, for rank %d in %s in period %s\n",
			items(r.Items), r.Rank, r.Tier, league.Period{Start: r.Earned}.ID())
	}
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "period\ttier\tboard\trank\tscore\trewards\tclaimed")
	for _, h := range v.history {
		claimed := ""
		if !h.ClaimedAt.IsZero() {
			claimed = h.ClaimedAt.Format(time.RFC3339)
		}
		fmt.Fprintf(w, "%s\t%s -> %s\t%s\t%d\t%d\t%s\t%s\n", league.Period{Start: h.Period}.ID(), h.TierBefore, h.TierAfter,
			h.BoardOf(), h.Rank, h.Score, items(h.Rewards), claimed)
	}
	return w.Flush()
}

// items writes reward items as "100 coins, 5 gems"; none as "-".
func items(its []tiers.Item) string {
	if len(its) == 0 {
		return "-"
	}
	parts := make([]string, len(its))
	for i, it := range its {
		parts[i] = strconv.FormatInt(it.Qty, 10) + " " + it.ID
	}
	return strings.Join(parts, ", ")
}

// checkPeriodFlag refuses a -period that is no period id at all (a command
// line error, exit 2); one that is well formed but not of the league's
// schedule is the league's answer, found once it is open.
func checkPeriodFlag(cmd, period string) error {
	if period == "" {
		return nil
	}
	if _, err := league.ParsePeriodID(period); err != nil {
		return usageError{fmt.Errorf("%s: -period: %v", cmd, err)}
	}
	return nil
}
