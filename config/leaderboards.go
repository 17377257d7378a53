package config

import (
	"fmt"
	"time"

	"github.com/league-engine/league/leaderboard"
)

// leaderboardFile mirrors one entry of leaderboards: in config.yaml.
type leaderboardFile struct {
	ID                string              `yaml:"id"`
	Periods           []string            `yaml:"periods"`
	TimeZone          string              `yaml:"time_zone"`
	WeekStart         string              `yaml:"week_start"`
	ScoreOperator     string              `yaml:"score_operator"`
	Order             string              `yaml:"order"`
	TieBreak          string              `yaml:"tie_break"`
	TieResolution     duration            `yaml:"tie_resolution"`
	MaxScore          *int64              `yaml:"max_score"`
	Retention         map[string]duration `yaml:"retention"`
	IdempotencyWindow duration            `yaml:"idempotency_window"`
}

// build checks the entry and returns the leaderboard, Init done.
func (lf leaderboardFile) build() (*leaderboard.Leaderboard, error) {
	cal, err := leaderboard.NewCalendar(lf.TimeZone, lf.WeekStart)
	if err != nil {
		return nil, err
	}
	l := &leaderboard.Leaderboard{ID: lf.ID, Calendar: cal, Operator: leaderboard.Operator(lf.ScoreOperator),
		Order: leaderboard.Order(lf.Order), TieBreak: leaderboard.TieBreak(lf.TieBreak)}
	for _, p := range lf.Periods {
		k, err := leaderboard.ParseKind(p)
		if err != nil {
			return nil, fmt.Errorf("periods: %v", err)
		}
		l.Kinds = append(l.Kinds, k)
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
	if err := l.Init(); err != nil {
		return nil, err
	}
	return l, nil
}

// buildLeaderboards checks the leaderboards: section; ids must be unique
// among leaderboards (a league may share one: their keys differ).
func buildLeaderboards(files []leaderboardFile) ([]*leaderboard.Leaderboard, error) {
	var out []*leaderboard.Leaderboard
	seen := map[string]bool{}
	for i, lf := range files {
		name := lf.ID
		if name == "" {
			name = fmt.Sprintf("#%d", i+1)
		}
		if seen[lf.ID] {
			return nil, fmt.Errorf("leaderboard %q: id: configured twice", lf.ID)
		}
		seen[lf.ID] = true
		l, err := lf.build()
		if err != nil {
			return nil, fmt.Errorf("leaderboard %q: %w", name, err)
		}
		out = append(out, l)
	}
	return out, nil
}
