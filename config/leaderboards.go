package config

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/league-engine/league/internal/excerpt"
	"github.com/league-engine/league/leaderboard"
)

// leaderboardFile mirrors one entry of leaderboards: in config.yaml.
type leaderboardFile struct {
	ID                string              `yaml:"id"`
	Periods           []string            `yaml:"periods"`
	Rolling           []string            `yaml:"rolling"`
	TimeZone          string              `yaml:"time_zone"`
	WeekStart         string              `yaml:"week_start"`
	ScoreOperator     string              `yaml:"score_operator"`
	Order             string              `yaml:"order"`
	TieBreak          string              `yaml:"tie_break"`
	TieResolution     duration            `yaml:"tie_resolution"`
	MaxScore          *int64              `yaml:"max_score"`
	Retention         map[string]duration `yaml:"retention"`
	IdempotencyWindow duration            `yaml:"idempotency_window"`
	CarryOver         map[string]string   `yaml:"carry_over"`
	Archive           *archiveFile        `yaml:"archive"`
	Catalog           bool                `yaml:"catalog"`
	PublicBoards      bool                `yaml:"public_boards"`
	Channels          []string            `yaml:"channels"`
	Terminals         []string            `yaml:"terminals"`
	Limits            []limitFile         `yaml:"limits"`
	Participants      []string            `yaml:"participants"`
	Shards            *int                `yaml:"shards"`
	Queue             *queueFile          `yaml:"queue"`
	MaxPageDepth      *int                `yaml:"max_page_depth"`
}

// limitFile mirrors one entry of a leaderboard's limits:.
type limitFile struct {
	Name  string                      `yaml:"name"`
	By    []string                    `yaml:"by"`
	Per   string                      `yaml:"per"`
	Max   *int64                      `yaml:"max"`
	Extra map[string]map[string]int64 `yaml:"extra"`
}

// queueFile mirrors a leaderboard's queue: section.
type queueFile struct {
	MaxLag     int      `yaml:"max_lag"`
	Batch      int      `yaml:"batch"`
	ClaimAfter duration `yaml:"claim_after"`
}

// archiveFile mirrors a leaderboard's archive: section.
type archiveFile struct {
	Periods []string `yaml:"periods"`
	Top     int      `yaml:"top"`
}

// build checks the entry and returns the leaderboard, Init done.
func (lf leaderboardFile) build() (*leaderboard.Leaderboard, error) {
	cal, err := leaderboard.NewCalendar(lf.TimeZone, lf.WeekStart)
	if err != nil {
		return nil, err
	}
	l := &leaderboard.Leaderboard{ID: lf.ID, Calendar: cal, Operator: leaderboard.Operator(lf.ScoreOperator),
		Order: leaderboard.Order(lf.Order), TieBreak: leaderboard.TieBreak(lf.TieBreak), Catalog: lf.Catalog,
		PublicBoards: lf.PublicBoards, Channels: lf.Channels, Terminals: lf.Terminals}
	if q := lf.Queue; q != nil {
		if q.MaxLag == 0 {
			return nil, fmt.Errorf("queue.max_lag: required: how many writes may wait before writes are refused (503)")
		}
		claim, err := q.ClaimAfter.get("queue.claim_after", time.Second)
		if err != nil {
			return nil, err
		}
		l.Queue = &leaderboard.QueuePolicy{MaxLag: q.MaxLag, Batch: q.Batch, ClaimAfter: claim}
	}
	// Init reads a zero as "left out": a zero written is refused here.
	if lf.Shards != nil {
		if *lf.Shards == 0 {
			return nil, fmt.Errorf("shards: 0 is outside 1..%d", leaderboard.MaxShards)
		}
		l.Shards = *lf.Shards
	}
	if lf.MaxPageDepth != nil {
		if *lf.MaxPageDepth == 0 {
			return nil, fmt.Errorf("max_page_depth: 0 is outside %d..1000000", leaderboard.MaxPage)
		}
		l.MaxDepth = *lf.MaxPageDepth
	}
	for _, p := range lf.Participants {
		k, err := leaderboard.ParseKind(p)
		if err != nil {
			return nil, fmt.Errorf("participants: %v", err)
		}
		l.Participants = append(l.Participants, k)
	}
	for i, lim := range lf.Limits {
		if lim.Max == nil {
			return nil, fmt.Errorf("limits[%d].max: required", i)
		}
		out := leaderboard.Limit{Name: lim.Name, Per: leaderboard.Per(lim.Per), Max: *lim.Max}
		for _, d := range lim.By {
			out.By = append(out.By, leaderboard.Dimension(d))
		}
		for d, more := range lim.Extra {
			if out.Extra == nil {
				out.Extra = map[leaderboard.Dimension]map[string]int64{}
			}
			out.Extra[leaderboard.Dimension(d)] = more
		}
		l.Limits = append(l.Limits, out)
	}
	for _, p := range lf.Periods {
		k, err := leaderboard.ParseKind(p)
		if err != nil {
			return nil, fmt.Errorf("periods: %v", err)
		}
		l.Kinds = append(l.Kinds, k)
	}
	for _, r := range lf.Rolling {
		w, err := leaderboard.ParseWindow(r)
		if err != nil {
			return nil, fmt.Errorf("rolling: %v", err)
		}
		l.Windows = append(l.Windows, w)
	}
	if lf.MaxScore != nil {
		if *lf.MaxScore <= 0 {
			return nil, fmt.Errorf("max_score: %d is not above 0 (leave it out for the exact maximum)", *lf.MaxScore)
		}
		l.MaxScore = *lf.MaxScore
	}
	for _, d := range []struct {
		field string
		in    duration
		min   time.Duration
		out   *time.Duration
	}{
		{"tie_resolution", lf.TieResolution, time.Millisecond, &l.TieResolution},
		{"idempotency_window", lf.IdempotencyWindow, time.Second, &l.IdempotencyWindow},
	} {
		if *d.out, err = d.in.get(d.field, d.min); err != nil {
			return nil, err
		}
	}
	if len(lf.Retention) > 0 {
		l.Retention = map[leaderboard.Kind]time.Duration{}
		for kind, d := range lf.Retention {
			k, err := leaderboard.ParseKind(kind)
			if err != nil {
				return nil, fmt.Errorf("retention: %v", err)
			}
			if l.Retention[k], err = d.get("retention."+kind, time.Second); err != nil {
				return nil, err
			}
		}
	}
	for kind, share := range lf.CarryOver {
		k, err := leaderboard.ParseKind(kind)
		if err != nil {
			return nil, fmt.Errorf("carry_over: %v", err)
		}
		digits, ok := strings.CutSuffix(share, "%")
		n, err := strconv.Atoi(digits)
		if !ok || err != nil {
			return nil, fmt.Errorf("carry_over.%s: %q is not a share in percent, such as 10%%", kind, excerpt.Of(share))
		}
		if l.CarryOver == nil {
			l.CarryOver = map[leaderboard.Kind]int{}
		}
		l.CarryOver[k] = n
	}
	if a := lf.Archive; a != nil {
		l.Archive = &leaderboard.ArchivePolicy{Top: a.Top}
		for _, p := range a.Periods {
			k, err := leaderboard.ParseKind(p)
			if err != nil {
				return nil, fmt.Errorf("archive.periods: %v", err)
			}
			l.Archive.Kinds = append(l.Archive.Kinds, k)
		}
	}
	if err := l.Init(); err != nil {
		return nil, err
	}
	return l, nil
}

// entry is a list entry of config.yaml with an id: a league or a
// leaderboard.
type entry[T any] interface {
	id() string
	build() (T, error)
}

func (lf leagueFile) id() string      { return lf.ID }
func (lf leaderboardFile) id() string { return lf.ID }

// buildAll builds the entries of one list (what: "league" or
// "leaderboard"), ids unique within it; an error names the entry, by its id
// or its place. Leagues and leaderboards may share an id: their keys differ.
func buildAll[T any, F entry[T]](what string, files []F) ([]T, error) {
	var out []T
	seen := map[string]bool{}
	for i, f := range files {
		name := f.id()
		if name == "" {
			name = fmt.Sprintf("#%d", i+1)
		}
		if seen[f.id()] {
			return nil, fmt.Errorf("%s %q: id: configured twice", what, f.id())
		}
		seen[f.id()] = true
		built, err := f.build()
		if err != nil {
			return nil, fmt.Errorf("%s %q: %w", what, name, err)
		}
		out = append(out, built)
	}
	return out, nil
}
