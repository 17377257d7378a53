package main

import (
	"context"
	"fmt"

	"github.com/league-engine/league/leaderboard"
	"github.com/league-engine/league/league"
)

// libTarget calls the engines directly: the product's cost without HTTP.
type libTarget struct {
	engine *league.Engine
	league string
	// boards serves the leaderboard the lb workloads drive; nil where
	// none run (memory, settle).
	boards      *leaderboard.Engine
	leaderboard string
}

func (t libTarget) join(ctx context.Context, _ *worker, player, name string) error {
	_, err := t.engine.Join(ctx, t.league, league.JoinRequest{Player: player, Name: name})
	return err
}

func (t libTarget) score(ctx context.Context, _ *worker, w league.ScoreWrite) error {
	_, err := t.engine.Score(ctx, t.league, w)
	return err
}

func (t libTarget) scoreBatch(ctx context.Context, _ *worker, writes []league.ScoreWrite) (int, error) {
	_, errs, err := t.engine.ScoreBatch(ctx, t.league, writes)
	if err != nil {
		return len(writes), err
	}
	failed, first := 0, error(nil)
	for _, e := range errs {
		if e != nil {
			failed++
			first = cmpOr(first, e)
		}
	}
	if failed > 0 {
		return failed, fmt.Errorf("%d of %d writes failed, e.g. %w", failed, len(writes), first)
	}
	return 0, nil
}

func (t libTarget) standing(ctx context.Context, _ *worker, player string) error {
	_, err := t.engine.Standing(ctx, t.league, player)
	return err
}

func (t libTarget) board(ctx context.Context, _ *worker, id league.BoardID) error {
	_, err := t.engine.Board(ctx, t.league, league.Period{}, id)
	return err
}

func (t libTarget) lbWrite(ctx context.Context, _ *worker, w leaderboard.Write) error {
	_, err := t.boards.Write(ctx, t.leaderboard, w)
	return err
}

func (t libTarget) lbTop(ctx context.Context, _ *worker, limit int) (int, error) {
	b, err := t.boards.Top(ctx, t.leaderboard, leaderboard.Day, "", 0, limit)
	return b.Size, err
}

func (t libTarget) lbMember(ctx context.Context, _ *worker, member string) error {
	_, err := t.boards.Member(ctx, t.leaderboard, member)
	return err
}

func (t libTarget) lbRollWrite(ctx context.Context, _ *worker, w leaderboard.Write) error {
	_, err := t.boards.Write(ctx, rollLeaderboardID, w)
	return err
}

// cmpOr returns a unless it is nil.
func cmpOr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}
