package api

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/league-engine/league/internal/excerpt"
	"github.com/league-engine/league/leaderboard"
	"github.com/league-engine/league/league"
)

// The leaderboard write routes: one write, a batch to one leaderboard,
// a batch over several.

type placementJSON struct {
	periodJSON
	Score int64 `json:"score"`
	Rank  int   `json:"rank"`
}

func placements(l *leaderboard.Leaderboard, ps []leaderboard.Placement) []placementJSON {
	if ps == nil {
		return nil
	}
	out := make([]placementJSON, len(ps))
	for i, p := range ps {
		out[i] = placementJSON{periodJSON: newPeriodJSON(l, p.Period), Score: p.Score, Rank: p.Rank}
	}
	return out
}

// lbWrite builds a leaderboard write from a decoded write.
func lbWrite(f writeFields, scope string) leaderboard.Write {
	return leaderboard.Write{Member: f.who, Value: f.value, RequestID: f.requestID, Scope: scope,
		Actor: f.actor, Channel: f.channel, Terminal: f.terminal}
}

// lbBoardWrite builds a write to a leaderboard named in the write.
func lbBoardWrite(f writeFields, scope string) leaderboard.BoardWrite {
	return leaderboard.BoardWrite{Leaderboard: f.group, Write: lbWrite(f, scope)}
}

type lbWriteJSON struct {
	Leaderboard string          `json:"leaderboard"`
	Member      string          `json:"member"`
	Boards      []placementJSON `json:"boards"`
	// Public: the member on the public twins (public_boards), omitted
	// without them.
	Public   []placementJSON `json:"public,omitempty"`
	Replayed bool            `json:"replayed"`
}

// queuedJSON is a write accepted into a queued leaderboard's queue.
type queuedJSON struct {
	ID     string `json:"id"`
	Behind int64  `json:"behind"`
}

// lbQueuedJSON is the 202 of a write to a queued leaderboard.
type lbQueuedJSON struct {
	Leaderboard string     `json:"leaderboard"`
	Member      string     `json:"member"`
	Queued      queuedJSON `json:"queued"`
}

func (lbQueuedJSON) accepted() bool { return true }

func (q lbQueuedJSON) appendJSON(b []byte) ([]byte, error) { return marshal{q}.appendJSON(b) }

func (s *Server) lbScore(r *http.Request, caller *Key) (reply, error) {
	l, err := s.leaderboardOf(r)
	if err != nil {
		return nil, err
	}
	w, err := readWrite(r, memberWriteShape, caller, lbWrite)
	if err != nil {
		return nil, err
	}
	if l.Queue != nil {
		qs, errs, err := s.boards.Enqueue(r.Context(), l.ID, []leaderboard.Write{w})
		if err == nil {
			err = errs[0]
		}
		if err != nil {
			return nil, s.redisErr(err)
		}
		return lbQueuedJSON{Leaderboard: l.ID, Member: w.Member, Queued: queuedJSON(qs[0])}, nil
	}
	res, err := s.boards.Write(r.Context(), l.ID, w)
	if err != nil {
		s.countRefusal(err)
		return nil, s.redisErr(err)
	}
	return lbWriteJSON{Leaderboard: l.ID, Member: w.Member, Boards: placements(l, res.Boards), Public: placements(l, res.Public),
		Replayed: res.Replayed}, nil
}

type lbResultJSON struct {
	Member   string          `json:"member"`
	Boards   []placementJSON `json:"boards,omitempty"`
	Public   []placementJSON `json:"public,omitempty"`
	Replayed *bool           `json:"replayed,omitempty"`
	Queued   *queuedJSON     `json:"queued,omitempty"`
	Error    *errorBody      `json:"error,omitempty"`
}

// writeOrQueue applies the writes to a leaderboard, or queues them where
// it is queued: a result or an error for each.
func (s *Server) writeOrQueue(r *http.Request, l *leaderboard.Leaderboard, writes []leaderboard.Write) ([]lbResultJSON, error) {
	out := make([]lbResultJSON, len(writes))
	var results []leaderboard.WriteResult
	var queued []leaderboard.Queued
	var errs []error
	var err error
	if l.Queue != nil {
		queued, errs, err = s.boards.Enqueue(r.Context(), l.ID, writes)
	} else {
		results, errs, err = s.boards.WriteBatch(r.Context(), l.ID, writes)
	}
	if err != nil {
		return nil, s.redisErr(err)
	}
	for i, w := range writes {
		if queued != nil && errs[i] == nil {
			q := queuedJSON(queued[i])
			out[i] = lbResultJSON{Member: w.Member, Queued: &q}
			continue
		}
		var res leaderboard.WriteResult
		if results != nil {
			res = results[i]
		}
		out[i] = s.lbResult(l, w.Member, res, errs[i])
	}
	return out, nil
}

// lbResult is one write's item in a batch reply: its places, or its
// error (counted as a refusal or a failure of Redis where it is one).
func (s *Server) lbResult(l *leaderboard.Leaderboard, member string, res leaderboard.WriteResult, err error) lbResultJSON {
	if err != nil {
		s.countRefusal(err)
		s.redisErr(err)
		return lbResultJSON{Member: member, Error: newErrorBody(err)}
	}
	replayed := res.Replayed
	return lbResultJSON{Member: member, Boards: placements(l, res.Boards), Public: placements(l, res.Public), Replayed: &replayed}
}

// lbScoreBatch applies up to 1,000 writes in one round trip: a malformed
// body is refused whole; writes the engine refuses fail on their own.
func (s *Server) lbScoreBatch(r *http.Request, caller *Key) (reply, error) {
	l, err := s.leaderboardOf(r)
	if err != nil {
		return nil, err
	}
	writes, err := readBatch(r, memberWriteShape, caller, lbWrite)
	if err != nil {
		return nil, err
	}
	out, err := s.writeOrQueue(r, l, writes)
	if err != nil {
		return nil, err
	}
	return marshal{struct {
		Leaderboard string         `json:"leaderboard"`
		Results     []lbResultJSON `json:"results"`
	}{l.ID, out}}, nil
}

type lbManyResultJSON struct {
	Leaderboard string `json:"leaderboard"`
	lbResultJSON
}

// lbScoreMany applies up to 1,000 writes over several leaderboards in one
// round trip, each write naming its leaderboard. A write naming a
// leaderboard the key may not call, or none configured, refuses the whole
// batch, as a malformed body does: nothing is written.
func (s *Server) lbScoreMany(r *http.Request, caller *Key) (reply, error) {
	writes, err := readBatch(r, boardWriteShape, caller, lbBoardWrite)
	if err != nil {
		return nil, err
	}
	for i, w := range writes {
		field := "writes[" + strconv.Itoa(i) + "].leaderboard"
		if !caller.mayCallLeaderboard(w.Leaderboard) {
			return nil, &league.Error{Code: league.Forbidden, Field: field,
				Message: fmt.Sprintf("key %q may not call leaderboard %q", caller.Name, excerpt.Of(w.Leaderboard))}
		}
		if s.boards == nil {
			return nil, &league.Error{Code: league.NotFound, Field: field, Message: fmt.Sprintf("unknown leaderboard %q", excerpt.Of(w.Leaderboard))}
		}
		if _, err := s.boards.Leaderboard(w.Leaderboard); err != nil {
			return nil, &league.Error{Code: league.NotFound, Field: field, Message: err.Error()}
		}
	}
	// Writes to queued leaderboards go to their queues, the others in one
	// round trip.
	var direct []leaderboard.BoardWrite
	var directAt []int
	queued := map[string][]int{}
	for i, w := range writes {
		if l, _ := s.boards.Leaderboard(w.Leaderboard); l.Queue != nil {
			queued[w.Leaderboard] = append(queued[w.Leaderboard], i)
		} else {
			direct, directAt = append(direct, w), append(directAt, i)
		}
	}
	out := make([]lbManyResultJSON, len(writes))
	for id, at := range queued {
		l, _ := s.boards.Leaderboard(id)
		ws := make([]leaderboard.Write, len(at))
		for j, i := range at {
			ws[j] = writes[i].Write
		}
		res, err := s.writeOrQueue(r, l, ws)
		if err != nil {
			return nil, err
		}
		for j, i := range at {
			out[i] = lbManyResultJSON{Leaderboard: id, lbResultJSON: res[j]}
		}
	}
	if len(direct) > 0 {
		results, errs, err := s.boards.WriteMany(r.Context(), direct)
		if err != nil {
			return nil, s.redisErr(err)
		}
		for j, w := range direct {
			l, _ := s.boards.Leaderboard(w.Leaderboard)
			out[directAt[j]] = lbManyResultJSON{Leaderboard: w.Leaderboard, lbResultJSON: s.lbResult(l, w.Member, results[j], errs[j])}
		}
	}
	return marshal{struct {
		Results []lbManyResultJSON `json:"results"`
	}{out}}, nil
}

// countRefusal counts a write a rate limit refused.
func (s *Server) countRefusal(err error) {
	var r *leaderboard.Refusal
	if errors.As(err, &r) {
		s.metrics.refusals.WithLabelValues(r.Leaderboard, r.Limit).Inc()
	}
}
