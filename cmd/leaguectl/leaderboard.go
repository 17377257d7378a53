package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/league-engine/league/internal/words"
	"github.com/league-engine/league/leaderboard"
)

// openLeaderboards connects as open does and opens the leaderboard engine.
func openLeaderboards(ctx context.Context, path string) (*env, *leaderboard.Engine, error) {
	e, err := connectAll(ctx, path, false)
	if err != nil {
		return nil, nil, err
	}
	lb, err := leaderboard.Open(ctx, e.rdb, e.cfg.Leaderboards, leaderboard.WithNamespace(e.cfg.Namespace), leaderboard.WithLogger(quiet()))
	if err != nil {
		e.close()
		return nil, nil, err
	}
	return e, lb, nil
}

// leaderboardBoard prints a page of a leaderboard's board.
func leaderboardBoard(ctx context.Context, args []string, out io.Writer) error {
	fs, path := flags("leaderboard")
	id := fs.String("leaderboard", "", "leaderboard id (required)")
	kind := fs.String("board", "", "board: hour, day, week, month, all_time, or a rolling window such as 7d (required)")
	period := fs.String("period", "", "period id (default: the current period)")
	offset := fs.Int("offset", 0, "ranks to skip")
	limit := fs.Int("limit", 20, "entries to print, at most 1000")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *id == "" || *kind == "" {
		return usageError{fmt.Errorf("leaderboard: -leaderboard and -board are required")}
	}
	k, err := leaderboard.ParseKind(*kind)
	if err != nil {
		return usageError{fmt.Errorf("leaderboard: -board: %v", err)}
	}
	e, lb, err := openLeaderboards(ctx, *path)
	if err != nil {
		return err
	}
	defer e.close()
	b, err := lb.Top(ctx, *id, k, *period, *offset, *limit)
	if err != nil {
		return err
	}
	note := ""
	if b.Incomplete {
		note = " (incomplete: not pre-filled yet; run leaguectl prefill)"
	}
	fmt.Fprintf(out, "leaderboard %s board %s period %s (ends %s): %s%s\n", *id, k, b.Period.ID(),
		endOf(b.Period), words.Count(b.Size, "member"), note)
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "rank\tmember\tscore\tname")
	for _, en := range b.Entries {
		fmt.Fprintf(w, "%d\t%s\t%d\t%s\n", en.Rank, en.Member, en.Score, en.Name)
	}
	return w.Flush()
}

func endOf(p leaderboard.Period) string {
	if p.Kind == leaderboard.AllTime {
		return "never"
	}
	return p.End.Format("2006-01-02T15:04:05Z07:00")
}

// prefill fills a leaderboard's rolling boards now: the current ones left
// incomplete by downtime, and the next ones ahead of their boundary. Safe
// while leagued runs: a lease keeps one process filling at a time.
func prefill(ctx context.Context, args []string, out io.Writer) error {
	fs, path := flags("prefill")
	id := fs.String("leaderboard", "", "leaderboard id (default: every leaderboard with rolling windows)")
	if err := parse(fs, args); err != nil {
		return err
	}
	e, lb, err := openLeaderboards(ctx, *path)
	if err != nil {
		return err
	}
	defer e.close()
	var ids []string
	for _, l := range lb.Leaderboards() {
		if (*id == "" && len(l.Windows) > 0) || l.ID == *id {
			ids = append(ids, l.ID)
		}
	}
	if *id != "" && len(ids) == 0 {
		_, err := lb.Leaderboard(*id)
		return err
	}
	for _, l := range ids {
		fills, err := lb.PreFill(ctx, l)
		if err != nil {
			return err
		}
		if len(fills) == 0 {
			fmt.Fprintf(out, "leaderboard %s: no rolling windows\n", l)
		}
		for _, f := range fills {
			state := "filled"
			switch {
			case f.Busy:
				state = "another process is filling it (its lease); run again in a few seconds"
			case f.Method == "previous":
				state = fmt.Sprintf("filled now from the board before, %s added", words.Count(f.Added, "member"))
			case f.Method == "buckets":
				state = fmt.Sprintf("filled now from its buckets, %s added", words.Count(f.Added, "member"))
			}
			fmt.Fprintf(out, "leaderboard %s %s period %s: %s\n", l, f.Period.Kind, f.Period.ID(), state)
		}
	}
	return nil
}

// importCatalog imports a leaderboard's catalog from a CSV (.csv) or JSON
// file, as the admin route does.
func importCatalog(ctx context.Context, args []string, out io.Writer) error {
	fs, path := flags("import")
	id := fs.String("leaderboard", "", "leaderboard id (required)")
	file := fs.String("file", "", "a .csv file (header: member,name,initial_score,<metadata columns>) or a JSON file {\"entries\":[...]} (required)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *id == "" || *file == "" {
		return usageError{fmt.Errorf("import: -leaderboard and -file are required")}
	}
	f, err := os.Open(*file)
	if err != nil {
		return err
	}
	defer f.Close()
	csv := strings.HasSuffix(strings.ToLower(*file), ".csv")
	var entries []leaderboard.CatalogEntry
	if !csv {
		if entries, err = leaderboard.ParseCatalogJSON(f); err != nil {
			return fmt.Errorf("%s: %w", *file, err)
		}
	}
	e, lb, err := openLeaderboards(ctx, *path)
	if err != nil {
		return err
	}
	defer e.close()
	n, changed := len(entries), 0
	if csv {
		// every row refused listed, not only the first
		n, changed, err = lb.ImportCSV(ctx, *id, f)
	} else {
		changed, err = lb.Import(ctx, *id, entries)
	}
	var ie *leaderboard.ImportError
	if errors.As(err, &ie) {
		for _, p := range ie.Problems {
			fmt.Fprintf(out, "%s: %s\n", *file, p)
		}
		if ie.More > 0 {
			fmt.Fprintf(out, "%s: and %s more\n", *file, words.Count(ie.More, "problem"))
		}
	}
	if err != nil {
		return fmt.Errorf("%s: %w", *file, err)
	}
	fmt.Fprintf(out, "leaderboard %s: %s imported, %d changed\n", *id, words.Count(n, "member"), changed)
	return nil
}

// limits prints the current counters of a leaderboard's rate limits for
// the dimension values given: every limit that counts by those.
func limits(ctx context.Context, args []string, out io.Writer) error {
	fs, path := flags("limits")
	id := fs.String("leaderboard", "", "leaderboard id (or -league)")
	leagueID := fs.String("league", "", "league id (or -leaderboard)")
	player := fs.String("player", "", "a league's player")
	key := fs.String("key", "", "the name of a game server's API key, for a league (_: callers without one)")
	var w leaderboard.Write
	fs.StringVar(&w.Actor, "actor", "", "an actor")
	fs.StringVar(&w.Member, "member", "", "a member")
	fs.StringVar(&w.Channel, "channel", "", "a channel")
	fs.StringVar(&w.Terminal, "terminal", "", "a terminal")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *leagueID != "" {
		if *id != "" || *player == "" && *key == "" || w.Actor != "" || w.Member != "" || w.Channel != "" || w.Terminal != "" {
			return usageError{fmt.Errorf("limits: -league takes -player, -key or both, and no leaderboard flags")}
		}
		return leagueLimits(ctx, *path, *leagueID, *player, *key, out)
	}
	if *id == "" || (w.Actor == "" && w.Member == "" && w.Channel == "" && w.Terminal == "") {
		return usageError{fmt.Errorf("limits: -leaderboard and at least one of -actor, -member, -channel, -terminal are required (or -league with -player or -key)")}
	}
	e, lb, err := openLeaderboards(ctx, *path)
	if err != nil {
		return err
	}
	defer e.close()
	counters, err := lb.Counters(ctx, *id, w)
	if err != nil {
		return err
	}
	if len(counters) == 0 {
		fmt.Fprintf(out, "leaderboard %s: no limit counts by only the dimensions given\n", *id)
		return nil
	}
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "limit\tby\tused\tmax\twindow")
	for _, c := range counters {
		window := "ever"
		if !c.End.IsZero() {
			window = c.Start.UTC().Format(time.RFC3339) + " to " + c.End.UTC().Format(time.RFC3339)
		}
		var by []string
		for _, d := range c.Limit.By {
			by = append(by, string(d))
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\n", c.Limit.Name, strings.Join(by, "+"), c.Used, c.Max, window)
	}
	return tw.Flush()
}
