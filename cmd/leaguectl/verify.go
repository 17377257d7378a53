package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"text/tabwriter"

	"github.com/league-engine/league/config"
	"github.com/league-engine/league/internal/connect"
	"github.com/league-engine/league/internal/words"
	"github.com/league-engine/league/league"
	"github.com/league-engine/league/tiers"
)

// settlement verify re-decides a settled period from what Postgres recorded
// (its outcome rows are the boards as read at close, and the settlement row
// holds the rules it was decided under: migration 0008) and compares. It
// reads only Postgres and the config: no Redis, which has long let the
// period's boards go.

// errDifferences is what verify returns after printing differences: the
// command ran, and what it found fails it (exit status 1).
var errDifferences = errors.New("the recorded settlement differs from what its rules give")

// verifySettlement prints what it checked and every difference, row by row;
// an error when there is any.
func verifySettlement(ctx context.Context, args []string, out io.Writer) error {
	fs, path := flags("settlement verify")
	id := fs.String("league", "", "league id (required)")
	period := fs.String("period", "", "period id, e.g. 20261116T000000Z (required)")
	if err := parse(fs, args); err != nil {
		return err
	}
	switch {
	case *id == "":
		return usageError{fmt.Errorf("settlement verify: -league is required")}
	case *period == "":
		return usageError{fmt.Errorf("settlement verify: -period is required")}
	}
	start, err := league.ParsePeriodID(*period)
	if err != nil {
		return usageError{fmt.Errorf("settlement verify: -period: %v", err)}
	}
	cfg, err := config.Load(*path)
	if err != nil {
		return err
	}
	dsn := os.Getenv("DATABASE_URL")
	if dsn == "" {
		return fmt.Errorf("DATABASE_URL is not set: settlements are recorded in Postgres")
	}
	store, closeStore, err := connect.Store(ctx, dsn, false, quiet())
	if err != nil {
		return err
	}
	defer closeStore()
	recorded, ok := store.(league.Recorded)
	if !ok {
		return fmt.Errorf("the store at DATABASE_URL keeps no settled boards to verify")
	}

	// A league the config dropped can still be verified (from its recorded
	// rules alone), as long as Postgres has settled it.
	var configured *tiers.Ladder
	for _, l := range cfg.Leagues {
		if l.ID == *id {
			configured = l.Ladder
		}
	}
	if configured == nil {
		if some, err := store.Settlements(ctx, *id, 1); err != nil {
			return err
		} else if len(some) == 0 {
			return league.Errorf(league.NotFound, "league %q is unknown: not in the config, and Postgres has no settlement of it", *id)
		}
	}
	st, err := store.Settlement(ctx, *id, start)
	if league.ErrorCode(err) == league.NotFound {
		return league.Errorf(league.NotFound, "league %q period %s was never settled: nothing to verify", *id, *period)
	}
	if err != nil {
		return err
	}
	if st.Status == league.StatusStarted {
		return league.Errorf(league.Conflict, "league %q period %s is being settled, its outcomes not written yet: nothing to verify", *id, *period)
	}
	ladder, alone, err := league.VerifyLadder(st, configured)
	if err != nil {
		return err
	}

	v := league.NewVerification(ladder)
	stray, err := recorded.EachRecordedBoard(ctx, *id, start, func(b league.RecordedBoard) error {
		v.Board(b)
		return ctx.Err()
	})
	if err != nil {
		return err
	}
	for _, r := range stray {
		v.Stray(r)
	}
	v.Counts(st.Tiers)

	how := "laid on the configured tiers"
	if alone {
		how = "rebuilt from the recorded rules alone (the config's tiers no longer fit them, or the league left the config)"
	}
	fmt.Fprintf(out, "league %s period %s: settled (%s) under rules %s, %s\n", st.League, *period, st.Status, st.RulesFP, how)
	fmt.Fprintf(out, "checked %s on %s: %s and %s re-decided, and %s\n",
		words.Count(v.Players, "player"), words.Count(v.Boards, "board"), words.Count(v.Outcomes, "outcome"),
		words.Count(v.Rewards, "reward"), words.Count(len(st.Tiers), "tier count"))
	if len(v.Differences) == 0 {
		fmt.Fprintln(out, "ok: the recorded outcomes and rewards are exactly what the rules give")
		return nil
	}
	fmt.Fprintf(out, "%s:\n", words.Count(len(v.Differences), "difference"))
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "BOARD\tRANK\tPLAYER\tFIELD\tRECORDED\tEXPECTED")
	for _, d := range v.Differences {
		board, rank, player := "-", "-", d.Player
		if d.Board != (league.BoardID{}) {
			board = d.Board.String()
		}
		if d.Rank != 0 {
			rank = strconv.Itoa(d.Rank)
		}
		if player == "" {
			player = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", board, rank, player, d.Field, d.Recorded, d.Expected)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return fmt.Errorf("league %q period %s: %s: %w", *id, *period, words.Count(len(v.Differences), "difference"), errDifferences)
}
