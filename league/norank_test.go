package league_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/league"
	"github.com/league-engine/league/tiers"
)

// rankless writes a score that asks for no rank (ScoreWrite.NoRank).
func (f *fixture) rankless(player string, v int64, rid string) (league.ScoreResult, error) {
	return f.engine.Score(f.ctx, f.league.ID, league.ScoreWrite{Player: player, Value: v, RequestID: rid, NoRank: true})
}

// TestScoreWithoutRank: a write that asks for no rank is applied as any
// other (the board, the standing), answers without rank, board size or
// zone, and its retries answer as it did, whatever they ask; a ranked
// write's retry that asks for none still has its rank.
func TestScoreWithoutRank(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b testsvc.Backend) {
		f := newFixture(t, b)
		f.join("a")
		f.join("b")
		f.score("b", 10)

		r, err := f.rankless("a", 15, "r1")
		testsvc.Must(t, err, "rank-less write")
		if r.Score != 15 || r.Rank != 0 || r.BoardSize != 0 || r.Ranked() || r.Replayed || r.Tier != "bronze" || r.Board.N != 1 {
			t.Fatalf("rank-less write: %+v, want score 15 on bronze-1, no rank or size, not replayed", r)
		}
		if st := f.standing("a"); st.Score != 15 || st.Rank != 1 {
			t.Fatalf("a's standing after the rank-less write: score %d rank %d, want 15 and 1", st.Score, st.Rank)
		}

		before := f.dump()
		for _, noRank := range []bool{true, false} {
			again, err := f.engine.Score(f.ctx, "weekly", league.ScoreWrite{Player: "a", Value: 15, RequestID: "r1", NoRank: noRank})
			testsvc.Must(t, err, "retry")
			if !again.Replayed || again.Score != 15 || again.Ranked() || again.BoardSize != 0 {
				t.Fatalf("retry of the rank-less write (no rank %v): %+v, want its answer: score 15, no rank, replayed", noRank, again)
			}
		}
		if after := f.dump(); fmt.Sprint(after) != fmt.Sprint(before) {
			t.Fatalf("a retry changed Redis:\nbefore %v\nafter  %v", before, after)
		}

		// A ranked write's retry asking for no rank: the first answer, rank included.
		first, err := f.engine.Score(f.ctx, "weekly", league.ScoreWrite{Player: "b", Value: 20, RequestID: "r2"})
		testsvc.Must(t, err, "ranked write")
		again, err := f.rankless("b", 20, "r2")
		testsvc.Must(t, err, "its rank-less retry")
		if first.Rank != 1 || first.BoardSize != 2 || !again.Replayed || again.Rank != 1 || again.BoardSize != 2 || again.Zone != first.Zone {
			t.Fatalf("ranked write %+v, its rank-less retry %+v: want the same rank 1 of 2 and zone, replayed", first, again)
		}

		// The same id for another player is still a conflict.
		if _, err := f.rankless("b", 1, "r1"); !errors.Is(err, league.ErrConflict) {
			t.Fatalf("r1 for b: %v, want conflict", err)
		}
	})
}

// TestScoreWithoutRankRefusals: a rank-less write is refused where a
// ranked one is (max score, not joined, closed period, a tier the caller
// does not know), and writes nothing.
func TestScoreWithoutRankRefusals(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b testsvc.Backend) {
		f := newFixture(t, b, func(l *league.League) { l.MaxScore = 100 })
		f.join("a")
		f.score("a", 60)
		before := f.dump()
		if _, err := f.rankless("a", 41, "over"); !errors.Is(err, league.ErrOverflow) {
			t.Fatalf("past the maximum: %v, want overflow", err)
		}
		if _, err := f.rankless("nobody", 1, ""); !errors.Is(err, league.ErrNotJoined) {
			t.Fatalf("a stranger's write: %v, want not joined", err)
		}
		if after := f.dump(); fmt.Sprint(after) != fmt.Sprint(before) {
			t.Fatalf("a refused write changed Redis:\nbefore %v\nafter  %v", before, after)
		}

		// A player in a tier this process lacks: unavailable, nothing written.
		ts := append(f.league.Ladder.Tiers(), tiers.Tier{ID: "master", Demote: 3000})
		ts[2].Promote = 2000
		newer := f.openWith(ts, "master")
		_, err := newer.Join(f.ctx, "weekly", league.JoinRequest{Player: "m1", Name: "m1"})
		testsvc.Must(t, err, "newer join")
		if _, err := f.rankless("m1", 5, "m1-a"); league.ErrorCode(err) != league.Unavailable {
			t.Fatalf("a master player's write on the older process: %v, want unavailable", err)
		}
		if s, err := newer.Standing(f.ctx, "weekly", "m1"); err != nil || s.Score != 0 {
			t.Fatalf("m1 after the refused write: %+v, %v; want score 0", s, err)
		}

		week := f.period()
		f.clock.After(week.End)
		if _, err := f.rankless("a", 1, ""); !errors.Is(err, league.ErrPeriodClosed) {
			t.Fatalf("a write after the period: %v, want period closed", err)
		}
	})
}

// TestScoreWithoutRankGuarded: a rank-less write passes the league's
// guards as a ranked one does, a write past max_gain is held without a
// rank, and its retry answers the same.
func TestScoreWithoutRankGuarded(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b testsvc.Backend) {
		f := newFixture(t, b, func(l *league.League) {
			l.MaxGain, l.Hold, l.MaxScore, l.MaxAttempts = 50, true, 1000, 3
			l.Limits = []league.Limit{{By: []league.LimitBy{league.ByPlayer}, Per: league.PerMinute, Max: 5}}
		})
		f.join("a")
		if r, err := f.rankless("a", 10, "w1"); err != nil || r.Score != 10 || r.Ranked() {
			t.Fatalf("a write within the caps: %+v, %v; want score 10, no rank", r, err)
		}
		held, err := f.rankless("a", 80, "big")
		testsvc.Must(t, err, "a write past max_gain")
		if held.Held == nil || held.Held.Cap != "max_gain" || held.Score != 10 || held.Ranked() || held.Replayed {
			t.Fatalf("a write past max_gain: %+v %+v, want held, score 10, no rank", held, held.Held)
		}
		again, err := f.engine.Score(f.ctx, "weekly", league.ScoreWrite{Player: "a", Value: 80, RequestID: "big"})
		testsvc.Must(t, err, "its retry")
		if again.Held == nil || again.Held.ID != held.Held.ID || !again.Replayed || again.Ranked() {
			t.Fatalf("its ranked retry: %+v %+v, want the held answer again, no rank", again, again.Held)
		}
		if _, err := f.rankless("a", 1, ""); err != nil {
			t.Fatalf("the third write: %v", err)
		}
		if _, err := f.rankless("a", 1, ""); league.ErrorCode(err) != league.RateLimited {
			t.Fatalf("a fourth write: %v, want max_attempts' refusal", err)
		}
		res, err := f.engine.Approve(f.ctx, "weekly", held.Held.ID)
		testsvc.Must(t, err, "Approve")
		if res.Score != 91 || res.Rank != 1 || res.BoardSize != 1 {
			t.Fatalf("approved: %+v, want score 91, rank 1 of 1", res)
		}
	})
}

// TestScoreBatchWithoutRank: each write of a batch asks for its rank or not.
func TestScoreBatchWithoutRank(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b testsvc.Backend) {
		f := newFixture(t, b)
		f.join("a")
		f.join("b")
		res, errs, err := f.engine.ScoreBatch(f.ctx, "weekly", []league.ScoreWrite{
			{Player: "a", Value: 3, NoRank: true}, {Player: "b", Value: 5}, {Player: "nobody", Value: 1, NoRank: true},
		})
		testsvc.Must(t, err, "ScoreBatch")
		if errs[0] != nil || res[0].Score != 3 || res[0].Ranked() {
			t.Fatalf("a: %+v %v, want score 3, no rank", res[0], errs[0])
		}
		if errs[1] != nil || res[1].Score != 5 || res[1].Rank != 1 || res[1].BoardSize != 2 {
			t.Fatalf("b: %+v %v, want score 5, rank 1 of 2", res[1], errs[1])
		}
		if !errors.Is(errs[2], league.ErrNotJoined) {
			t.Fatalf("nobody: %v, want not joined", errs[2])
		}
	})
}
