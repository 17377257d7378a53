package main

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/league-engine/league/config"
	"github.com/league-engine/league/internal/connect"
	"github.com/league-engine/league/internal/words"
	"github.com/league-engine/league/league"
	"github.com/league-engine/league/tiers"
)

// Archives: export streams a settled period out of Postgres, prune deletes
// old settled history. Both read only Postgres (DATABASE_URL) and the
// config: no Redis, which has long let these periods go.

// progress is where export writes its progress line: stderr, so that the
// export itself can go to stdout.
var progress io.Writer = os.Stderr

// export streams a settled period's boards and outcomes as CSV or NDJSON.
func export(ctx context.Context, args []string, out io.Writer) error {
	fs, path := flags("export")
	id := fs.String("league", "", "league id (required)")
	period := fs.String("period", "", "period id, e.g. 20261116T000000Z (required)")
	format := fs.String("format", "ndjson", "csv or ndjson")
	file := fs.String("out", "", "write to this file (default: stdout); written whole or not at all")
	if err := parse(fs, args); err != nil {
		return err
	}
	switch {
	case *id == "":
		return usageError{fmt.Errorf("export: -league is required")}
	case *period == "":
		return usageError{fmt.Errorf("export: -period is required")}
	case *format != "csv" && *format != "ndjson":
		return usageError{fmt.Errorf("export: -format %q: csv or ndjson", *format)}
	}
	start, err := league.ParsePeriodID(*period)
	if err != nil {
		return usageError{fmt.Errorf("export: -period: %v", err)}
	}
	archive, cfg, closeStore, err := openArchive(ctx, *path)
	if err != nil {
		return err
	}
	defer closeStore()
	if err := configured(cfg, *id); err != nil {
		return err
	}

	// To a file: into a temporary one beside it, renamed at the end, so
	// that a failed export (a period never settled, an interrupt) leaves
	// nothing and a reader never sees half a file.
	var (
		w   = out
		tmp *os.File
	)
	if *file != "" {
		if tmp, err = os.CreateTemp(filepath.Dir(*file), "."+filepath.Base(*file)+".*"); err != nil {
			return err
		}
		defer os.Remove(tmp.Name()) // after the rename: nothing to remove
		defer tmp.Close()
		w = tmp
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	enc := newRowWriter(*format, bw)
	var (
		n, total int
		last     time.Time
	)
	err = archive.EachArchived(ctx, *id, start, func(r league.ArchivedRow, all int) error {
		if n == 0 {
			total = all
			if err := enc.header(); err != nil {
				return err
			}
		}
		if err := enc.row(*id, *period, r); err != nil {
			return err
		}
		n++
		if now := time.Now(); now.Sub(last) >= 200*time.Millisecond {
			last = now
			fmt.Fprintf(progress, "\rexport %s %s: %d/%d rows", *id, *period, n, total)
		}
		return ctx.Err()
	})
	if err == nil && n == 0 {
		err = enc.header() // a period of no players: the header alone
	}
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		if n > 0 {
			fmt.Fprintln(progress)
		}
		return err
	}
	fmt.Fprintf(progress, "\rexport %s %s: %d/%d rows, done\n", *id, *period, n, total)
	if tmp != nil {
		if err := tmp.Close(); err != nil {
			return err
		}
		return os.Rename(tmp.Name(), *file)
	}
	return nil
}

// rowWriter writes export rows in one format.
type rowWriter struct {
	csv  *csv.Writer // nil: NDJSON
	json *json.Encoder
}

func newRowWriter(format string, w io.Writer) *rowWriter {
	if format == "csv" {
		return &rowWriter{csv: csv.NewWriter(w)}
	}
	return &rowWriter{json: json.NewEncoder(w)}
}

// exportColumns are the CSV header, and the NDJSON keys.
var exportColumns = []string{"league", "period", "board", "rank", "player_id", "name", "avatar", "score", "zone",
	"tier_before", "tier_after", "rewards"}

func (rw *rowWriter) header() error {
	if rw.csv == nil {
		return nil
	}
	return rw.csv.Write(exportColumns)
}

// exportRow is one NDJSON line; CSV has the same columns, rewards as JSON.
type exportRow struct {
	League     string       `json:"league"`
	Period     string       `json:"period"`
	Board      string       `json:"board"`
	Rank       int          `json:"rank"`
	Player     string       `json:"player_id"`
	Name       string       `json:"name"`
	Avatar     string       `json:"avatar"`
	Score      int64        `json:"score"`
	Zone       string       `json:"zone"`
	TierBefore string       `json:"tier_before"`
	TierAfter  string       `json:"tier_after"`
	Rewards    []tiers.Item `json:"rewards"`
}

func (rw *rowWriter) row(leagueID, period string, r league.ArchivedRow) error {
	rewards := r.Rewards
	if rewards == nil {
		rewards = []tiers.Item{}
	}
	x := exportRow{League: leagueID, Period: period, Board: r.Board.String(), Rank: r.Rank, Player: r.Player,
		Name: r.Name, Avatar: r.Avatar, Score: r.Score, Zone: r.Zone.String(),
		TierBefore: r.Board.Tier, TierAfter: r.TierAfter, Rewards: rewards}
	if rw.csv == nil {
		return rw.json.Encode(x)
	}
	js, err := json.Marshal(rewards)
	if err != nil {
		return err
	}
	err = rw.csv.Write([]string{x.League, x.Period, x.Board, strconv.Itoa(x.Rank), x.Player, x.Name, x.Avatar,
		strconv.FormatInt(x.Score, 10), x.Zone, x.TierBefore, x.TierAfter, string(js)})
	if err != nil {
		return err
	}
	// csv.Writer buffers in the bufio.Writer below it; its Flush only
	// pushes into that, so memory stays bounded by the two buffers.
	rw.csv.Flush()
	return rw.csv.Error()
}

// prune deletes settled history older than an age.
func prune(ctx context.Context, args []string, out io.Writer) error {
	fs, path := flags("prune")
	id := fs.String("league", "", "only this league (default: every league)")
	olderThan := fs.String("older-than", "", "age, e.g. 180d or 4320h, of the periods to prune, by their end "+
		"(default: the config's settlement.keep_history)")
	dryRun := fs.Bool("dry-run", false, "print what would be deleted, delete nothing")
	batch := fs.Int("batch", 10_000, "rows deleted per statement")
	pr := output(fs, out)
	if err := parse(fs, args); err != nil {
		return err
	}
	var age time.Duration
	if *olderThan != "" {
		var err error
		if age, err = parseAge(*olderThan); err != nil {
			return usageError{fmt.Errorf("prune: -older-than: %v", err)}
		}
	}
	if *batch < 1 {
		return usageError{fmt.Errorf("prune: -batch %d: at least 1", *batch)}
	}
	archive, cfg, closeStore, err := openArchive(ctx, *path)
	if err != nil {
		return err
	}
	defer closeStore()
	if age == 0 {
		if age = cfg.Settlement.KeepHistory; age == 0 {
			return usageError{fmt.Errorf("prune: -older-than is required (the config sets no settlement.keep_history)")}
		}
	}
	if *id != "" {
		if err := configured(cfg, *id); err != nil {
			return err
		}
	}
	before := time.Now().Add(-age).UTC()
	verb := "deleted"
	if *dryRun {
		verb = "would delete"
	}
	var sum league.PruneCount
	periods := 0
	j := pruneJSON{Before: timeJSON(before), DryRun: *dryRun, Periods: []prunedJSON{}}
	err = archive.Prune(ctx, league.PruneQuery{League: *id, Before: before, Batch: *batch, DryRun: *dryRun}, func(c league.PruneCount) error {
		periods++
		sum.Outcomes, sum.Rewards, sum.Claims, sum.Kept = sum.Outcomes+c.Outcomes, sum.Rewards+c.Rewards, sum.Claims+c.Claims, sum.Kept+c.Kept
		if pr.json() {
			j.Periods = append(j.Periods, prunedJSON{League: c.League, Period: league.Period{Start: c.Period}.ID(), Outcomes: c.Outcomes,
				Rewards: c.Rewards, Claims: c.Claims, Kept: c.Kept, Settlement: c.Settled})
			return ctx.Err()
		}
		settlement := "settlement kept"
		if c.Settled {
			settlement = "and the settlement"
		}
		fmt.Fprintf(out, "%s %s: %s %s, %s, %s, %s; %s kept\n", c.League, league.Period{Start: c.Period}.ID(), verb,
			words.Count(c.Outcomes, "outcome"), words.Count(c.Rewards, "claimed reward"), words.Count(c.Claims, "claim"),
			settlement, words.Count(c.Kept, "unclaimed reward"))
		return ctx.Err()
	})
	if err != nil {
		return err
	}
	j.Outcomes, j.Rewards, j.Claims, j.Kept = sum.Outcomes, sum.Rewards, sum.Claims, sum.Kept
	return pr.print(func() error {
		_, err := fmt.Fprintf(out, "periods ended before %s: %s %s, %s, %s in %s; %s kept\n", before.Format(time.RFC3339), verb,
			words.Count(sum.Outcomes, "outcome"), words.Count(sum.Rewards, "claimed reward"), words.Count(sum.Claims, "claim"),
			words.Count(periods, "period"), words.Count(sum.Kept, "unclaimed reward"))
		return err
	}, j)
}

// pruneJSON is prune -o json: each period pruned (or, with dry_run, that
// would be), and the totals.
type pruneJSON struct {
	Before   string       `json:"before"` // periods ended before this
	DryRun   bool         `json:"dry_run"`
	Periods  []prunedJSON `json:"periods"`
	Outcomes int          `json:"outcomes"`
	Rewards  int          `json:"claimed_rewards"`
	Claims   int          `json:"claims"`
	Kept     int          `json:"unclaimed_rewards_kept"`
}

type prunedJSON struct {
	League     string `json:"league"`
	Period     string `json:"period"`
	Outcomes   int    `json:"outcomes"`
	Rewards    int    `json:"claimed_rewards"`
	Claims     int    `json:"claims"`
	Kept       int    `json:"unclaimed_rewards_kept"`
	Settlement bool   `json:"settlement_deleted"` // false: kept while unclaimed rewards remain
}

// parseAge reads an age as the config does: 180d, or a Go duration; a day
// at least.
func parseAge(s string) (time.Duration, error) {
	var d time.Duration
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil || n < 0 || n > 100*366 {
			return 0, fmt.Errorf("%q is not an age like 180d or 4320h", s)
		}
		d = time.Duration(n) * 24 * time.Hour
	} else {
		var err error
		if d, err = time.ParseDuration(s); err != nil || d < 0 {
			return 0, fmt.Errorf("%q is not an age like 180d or 4320h", s)
		}
	}
	if d < 24*time.Hour {
		return 0, fmt.Errorf("%s is less than a day: settled history that young is still claimed and looked at", s)
	}
	return d, nil
}

// openArchive loads the config and opens the store at DATABASE_URL (no
// Redis), which must keep an archive (Postgres does).
func openArchive(ctx context.Context, path string) (league.Archive, *config.Config, func(), error) {
	cfg, err := config.Load(path)
	if err != nil {
		return nil, nil, nil, err
	}
	dsn := os.Getenv("DATABASE_URL")
	if dsn == "" {
		return nil, nil, nil, fmt.Errorf("DATABASE_URL is not set: the archive is in Postgres")
	}
	store, closeStore, err := connect.Store(ctx, dsn, false, quiet())
	if err != nil {
		return nil, nil, nil, err
	}
	a, ok := store.(league.Archive)
	if !ok {
		closeStore()
		return nil, nil, nil, fmt.Errorf("the store at DATABASE_URL keeps no archive")
	}
	return a, cfg, closeStore, nil
}

// configured refuses a league the config does not have.
func configured(cfg *config.Config, id string) error {
	for _, l := range cfg.Leagues {
		if l.ID == id {
			return nil
		}
	}
	return league.Errorf(league.NotFound, "league %q is not in the config", id)
}
