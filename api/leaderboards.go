package api

import (
	"context"
	"net/http"
	"time"

	"github.com/league-engine/league/internal/excerpt"
	"github.com/league-engine/league/leaderboard"
	"github.com/league-engine/league/league"
)

// The leaderboard routes, over five files: this one (which leaderboard,
// which view, the summary routes), lbwrite.go (writes), lbread.go (pages
// and members), lbcatalog.go (the admin import) and lbencode.go. The
// struct tags are the wire format: encoding/json writes most replies, and
// lbencode.go's appenders write the same bytes for the hot two.

// leaderboardOf returns the leaderboard the path names, or NotFound (for
// every one when the server has no leaderboard engine).
func (s *Server) leaderboardOf(r *http.Request) (*leaderboard.Leaderboard, error) {
	id := r.PathValue("leaderboard")
	if s.boards == nil {
		return nil, league.Errorf(league.NotFound, "unknown leaderboard %q", excerpt.Of(id))
	}
	return s.boards.Leaderboard(id)
}

type periodJSON struct {
	Kind  leaderboard.Kind `json:"kind"`
	ID    string           `json:"period"`
	Start *string          `json:"period_start"` // null for all_time
	End   *string          `json:"period_end"`   // null for all_time
	// WindowStart is where a rolling board's window begins (its oldest
	// bucket's start; period_start is its last bucket's).
	WindowStart *string `json:"window_start,omitempty"`
}

func newPeriodJSON(l *leaderboard.Leaderboard, p leaderboard.Period) periodJSON {
	out := periodJSON{Kind: p.Kind, ID: p.ID()}
	if p.Kind != leaderboard.AllTime {
		start, end := rfc3339(p.Start), rfc3339(p.End)
		out.Start, out.End = &start, &end
	}
	if p.Kind.Rolling() {
		from := rfc3339(l.WindowStart(p))
		out.WindowStart = &from
	}
	return out
}

type leaderboardJSON struct {
	ID            string       `json:"id"`
	Periods       []string     `json:"periods"`
	Rolling       []string     `json:"rolling"`
	TimeZone      string       `json:"time_zone"`
	WeekStart     string       `json:"week_start"`
	ScoreOperator string       `json:"score_operator"`
	Order         string       `json:"order"`
	TieBreak      string       `json:"tie_break"`
	MaxScore      int64        `json:"max_score"`
	Current       []periodJSON `json:"current"`
	// Shards: the current boards' shards (1: one key per board);
	// ShardSwitch: the last change of that count, reached or scheduled.
	Shards      int              `json:"shards"`
	ShardSwitch *shardSwitchJSON `json:"shard_switch,omitempty"`
	// Queue: a queued leaderboard's bound and the writes waiting.
	Queue *queueJSON `json:"queue,omitempty"`
}

type shardSwitchJSON struct {
	From int    `json:"from"`
	To   int    `json:"to"`
	At   string `json:"at"`
}

type queueJSON struct {
	MaxLag int   `json:"max_lag"`
	Behind int64 `json:"behind"`
}

func (s *Server) leaderboardSummary(ctx context.Context, l *leaderboard.Leaderboard) (leaderboardJSON, error) {
	cur, err := s.boards.Current(l.ID)
	if err != nil {
		return leaderboardJSON{}, err
	}
	out := leaderboardJSON{ID: l.ID, TimeZone: l.Calendar.Loc.String(), WeekStart: l.Calendar.WeekStart.String(),
		ScoreOperator: string(l.Operator), Order: string(l.Order), TieBreak: string(l.TieBreak), MaxScore: l.MaxScore}
	if out.Shards, err = s.boards.Shards(l.ID); err != nil {
		return leaderboardJSON{}, err
	}
	if sw, err := s.boards.Switch(l.ID); err != nil {
		return leaderboardJSON{}, err
	} else if sw != nil {
		out.ShardSwitch = &shardSwitchJSON{From: sw.From, To: sw.To, At: sw.At.UTC().Format(time.RFC3339)}
	}
	if l.Queue != nil {
		behind, err := s.boards.Lag(ctx, l.ID)
		if err != nil {
			return leaderboardJSON{}, s.redisErr(err)
		}
		out.Queue = &queueJSON{MaxLag: l.Queue.MaxLag, Behind: behind}
	}
	out.Periods, out.Rolling = []string{}, []string{}
	for i, k := range l.Boards() {
		if k.Rolling() {
			out.Rolling = append(out.Rolling, string(k))
		} else {
			out.Periods = append(out.Periods, string(k))
		}
		out.Current = append(out.Current, newPeriodJSON(l, cur[i]))
	}
	return out, nil
}

// leaderboards lists the leaderboards the caller's key may call.
func (s *Server) leaderboards(r *http.Request, caller *Key) (reply, error) {
	out := []leaderboardJSON{}
	if s.boards != nil {
		for _, l := range s.boards.Leaderboards() {
			if !caller.mayCallLeaderboard(l.ID) {
				continue
			}
			b, err := s.leaderboardSummary(r.Context(), l)
			if err != nil {
				return nil, err
			}
			out = append(out, b)
		}
	}
	return marshal{struct {
		Leaderboards []leaderboardJSON `json:"leaderboards"`
	}{out}}, nil
}

func (s *Server) leaderboard(r *http.Request, _ *Key) (reply, error) {
	l, err := s.leaderboardOf(r)
	if err != nil {
		return nil, err
	}
	b, err := s.leaderboardSummary(r.Context(), l)
	if err != nil {
		return nil, err
	}
	return marshal{b}, nil
}

// readsOf returns the engine view a read asks for with view=public|raw
// (or the members body's "view"): by default the public boards of a
// leaderboard that has them, what its players see.
func (s *Server) readsOf(l *leaderboard.Leaderboard, view string, given bool) (*leaderboard.Engine, error) {
	switch {
	case !given && l.PublicBoards, view == "public":
		return s.boards.Public(), nil
	case !given, view == "raw":
		return s.boards, nil
	}
	return nil, invalid("view", "%q is not public or raw", excerpt.Of(view))
}
