package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

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
	pr := output(fs, out)
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
	j := lbBoardJSON{Leaderboard: *id, Board: fmt.Sprint(k), Period: b.Period.ID(), Size: b.Size, Incomplete: b.Incomplete,
		Entries: []lbEntryJSON{}}
	if k != leaderboard.AllTime {
		j.Ends = timeJSON(b.Period.End)
	}
	for _, en := range b.Entries {
		j.Entries = append(j.Entries, lbEntryJSON{Rank: en.Rank, Member: en.Member, Score: en.Score, Name: en.Name})
	}
	return pr.print(func() error {
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
	}, j)
}

// lbBoardJSON is leaderboard -o json.
type lbBoardJSON struct {
	Leaderboard string        `json:"leaderboard"`
	Board       string        `json:"board"`
	Period      string        `json:"period"`
	Ends        string        `json:"ends"` // "": all_time never ends
	Size        int           `json:"size"`
	Incomplete  bool          `json:"incomplete"` // not pre-filled yet: run leaguectl prefill
	Entries     []lbEntryJSON `json:"entries"`
}

type lbEntryJSON struct {
	Rank   int    `json:"rank"`
	Member string `json:"member"`
	Score  int64  `json:"score"`
	Name   string `json:"name"`
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
	pr := output(fs, out)
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
	text := out
	if pr.json() {
		text = io.Discard // the document is written whole at the end
	}
	j := prefillJSON{Fills: []fillJSON{}}
	for _, l := range ids {
		fills, err := lb.PreFill(ctx, l)
		if err != nil {
			return err
		}
		if len(fills) == 0 {
			fmt.Fprintf(text, "leaderboard %s: no rolling windows\n", l)
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
			fmt.Fprintf(text, "leaderboard %s %s period %s: %s\n", l, f.Period.Kind, f.Period.ID(), state)
			j.Fills = append(j.Fills, fillJSON{Leaderboard: l, Board: string(f.Period.Kind), Period: f.Period.ID(), Busy: f.Busy,
				Method: f.Method, Added: f.Added})
		}
	}
	return pr.print(func() error { return nil }, j)
}

// prefillJSON is prefill -o json: every rolling board looked at.
type prefillJSON struct {
	Fills []fillJSON `json:"fills"`
}

type fillJSON struct {
	Leaderboard string `json:"leaderboard"`
	Board       string `json:"board"`
	Period      string `json:"period"`
	Busy        bool   `json:"busy"`   // another process holds its lease: run again in a few seconds
	Method      string `json:"method"` // previous, buckets; "": nothing was left to fill
	Added       int    `json:"added"`
}

// importCatalog imports a leaderboard's catalog from a CSV (.csv) or JSON
// file, as the admin route does.
func importCatalog(ctx context.Context, args []string, out io.Writer) error {
	fs, path := flags("import")
	id := fs.String("leaderboard", "", "leaderboard id (required)")
	file := fs.String("file", "", "a .csv file (header: member,name,initial_score,<metadata columns>) or a JSON file {\"entries\":[...]} (required)")
	pr := output(fs, out)
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
	j := importJSON{Leaderboard: *id, File: *file, Imported: n, Changed: changed, Problems: []string{}}
	var ie *leaderboard.ImportError
	if errors.As(err, &ie) {
		j.Imported, j.Changed, j.More = 0, 0, ie.More
		for _, p := range ie.Problems {
			j.Problems = append(j.Problems, fmt.Sprint(p))
		}
		// every problem printed (as JSON too), then the error: exit 1
		_ = pr.print(func() error {
			for _, p := range ie.Problems {
				fmt.Fprintf(out, "%s: %s\n", *file, p)
			}
			if ie.More > 0 {
				fmt.Fprintf(out, "%s: and %s more\n", *file, words.Count(ie.More, "problem"))
			}
			return nil
		}, j)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", *file, err)
	}
	return pr.print(func() error {
		_, err := fmt.Fprintf(out, "leaderboard %s: %s imported, %d changed\n", *id, words.Count(n, "member"), changed)
		return err
	}, j)
}

// importJSON is import -o json; with problems, nothing was imported.
type importJSON struct {
	Leaderboard string   `json:"leaderboard"`
	File        string   `json:"file"`
	Imported    int      `json:"imported"`
	Changed     int      `json:"changed"`
	Problems    []string `json:"problems"`
	More        int      `json:"more_problems"` // problems past those listed
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
	pr := output(fs, out)
	if err := parse(fs, args); err != nil {
		return err
	}
	if *leagueID != "" {
		if *id != "" || *player == "" && *key == "" || w.Actor != "" || w.Member != "" || w.Channel != "" || w.Terminal != "" {
			return usageError{fmt.Errorf("limits: -league takes -player, -key or both, and no leaderboard flags")}
		}
		return leagueLimits(ctx, *path, *leagueID, *player, *key, pr)
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
	j := limitsJSON{Leaderboard: *id, Counters: []counterJSON{}}
	for _, c := range counters {
		j.Counters = append(j.Counters, counterJSON{Limit: c.Limit.Name, By: dimensions(c.Limit.By), Used: c.Used, Max: c.Max,
			Start: timeJSON(c.Start), End: timeJSON(c.End)})
	}
	return pr.print(func() error { return limitsText(out, "leaderboard "+*id, j.Counters) }, j)
}

// limitsJSON is limits -o json, of a leaderboard or of a league.
type limitsJSON struct {
	Leaderboard string        `json:"leaderboard,omitempty"`
	League      string        `json:"league,omitempty"`
	Counters    []counterJSON `json:"counters"`
}

type counterJSON struct {
	Limit string   `json:"limit"`
	By    []string `json:"by"`
	Used  int64    `json:"used"`
	Gain  bool     `json:"gain"` // used counts points gained (max_gain_per), not writes
	Max   int64    `json:"max"`
	Start string   `json:"start"` // "" with end "": ever
	End   string   `json:"end"`
}

// limitsText prints counters as a table.
func limitsText(out io.Writer, of string, counters []counterJSON) error {
	if len(counters) == 0 {
		_, err := fmt.Fprintf(out, "%s: no limit counts by only the dimensions given\n", of)
		return err
	}
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "limit\tby\tused\tmax\twindow")
	for _, c := range counters {
		window := "ever"
		if c.End != "" {
			window = c.Start + " to " + c.End
		}
		used := fmt.Sprint(c.Used)
		if c.Gain {
			used += " points"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\n", c.Limit, strings.Join(c.By, "+"), used, c.Max, window)
	}
	return tw.Flush()
}

// dimensions writes a limit's dimensions as strings.
func dimensions[D ~string](ds []D) []string {
	by := []string{}
	for _, d := range ds {
		by = append(by, string(d))
	}
	return by
}
