package api

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/league-engine/league/internal/excerpt"
	"github.com/league-engine/league/league"
)

// scoreWrite builds a league's score write from a decoded write.
func scoreWrite(f writeFields, scope string) league.ScoreWrite {
	return league.ScoreWrite{Player: f.who, Value: f.value, RequestID: f.requestID, Scope: scope}
}

// rankParam reads ?rank=: false asks for no rank (league.ScoreWrite.NoRank),
// so Redis does not read it; the default is true.
func rankParam(r *http.Request) (noRank bool, err error) {
	v, given := queryParam(r, "rank")
	switch {
	case !given || v == "true":
		return false, nil
	case v == "false":
		return true, nil
	}
	return false, invalid("rank", "%q is neither true nor false", excerpt.Of(v))
}

func (s *Server) score(r *http.Request, caller *Key) (reply, error) {
	leagueID := r.PathValue("league")
	noRank, err := rankParam(r)
	if err != nil {
		return nil, err
	}
	w, err := readWrite(r, playerWriteShape, caller, scoreWrite)
	if err != nil {
		return nil, err
	}
	w.NoRank = noRank
	res, err := s.engine.Score(r.Context(), leagueID, w)
	s.countGuards(leagueID, res, err)
	if err != nil {
		return nil, s.redisErr(err)
	}
	return scoreReply{league: leagueID, res: res}, nil
}

// scoreBatch applies many writes in one Redis round trip. A malformed body
// or element is refused whole, before anything is written; writes the
// engine refuses fail on their own, in their place in "results".
func (s *Server) scoreBatch(r *http.Request, caller *Key) (reply, error) {
	leagueID := r.PathValue("league")
	noRank, err := rankParam(r)
	if err != nil {
		return nil, err
	}
	writes, err := readBatch(r, playerWriteShape, caller, scoreWrite)
	if err != nil {
		return nil, err
	}
	for i := range writes {
		writes[i].NoRank = noRank
	}
	if _, err := s.engine.League(leagueID); err != nil {
		return nil, s.redisErr(err) // unknown league: 404 even for an empty batch; or lost by Redis
	}
	results, errs, err := s.engine.ScoreBatch(r.Context(), leagueID, writes)
	if err != nil {
		return nil, s.redisErr(err)
	}
	for i, e := range errs {
		s.countGuards(leagueID, results[i], e)
		if e != nil {
			s.redisErr(e)
			if league.ErrorCode(e) == league.Internal {
				s.log.Error("api: batch score write", "league", leagueID, "player", writes[i].Player, "err", e)
			}
		}
	}
	return batchReply{league: leagueID, writes: writes, results: results, errs: errs}, nil
}

// countGuards counts a score write a guard refused, or that was held. A
// write that succeeded is asked nothing more (errors.As's target escapes:
// an allocation every write would pay for nothing).
func (s *Server) countGuards(leagueID string, res league.ScoreResult, err error) {
	if err == nil {
		if res.Held != nil && !res.Replayed {
			s.metrics.held.WithLabelValues(leagueID, res.Held.Cap).Inc()
		}
		return
	}
	var r *league.Refusal
	switch {
	case errors.As(err, &r):
		s.metrics.scoreRefusals.WithLabelValues(leagueID, r.Limit).Inc()
	case league.ErrorCode(err) == league.RateLimited:
		s.metrics.scoreRefusals.WithLabelValues(leagueID, "max_attempts").Inc()
	}
}

// scoreReply is the reply of a score write:
// {"league","period","tier","board","score","rank","board_size","zone","replayed"},
// without rank, board_size and zone when the write asked for no rank
// (?rank=false) or is the retry of one that did, and with "merged_with"
// while the board is decided with another (min_board_size).
type scoreReply struct {
	league string
	res    league.ScoreResult
}

// accepted: a held write is 202, accepted for an operator's decision.
func (s scoreReply) accepted() bool { return s.res.Held != nil }

func (s scoreReply) appendJSON(b []byte) ([]byte, error) {
	b = append(b, '{')
	b = appendScoreFields(b, s.league, s.res, true)
	return append(b, '}'), nil
}

// appendScoreFields appends the fields of a score result, without braces,
// for scoreReply and the items of batchReply.
func appendScoreFields(b []byte, leagueID string, res league.ScoreResult, first bool) []byte {
	b = appendStringField(b, "league", leagueID, first)
	b = appendStringField(b, "period", res.Period.ID(), false)
	b = appendStringField(b, "tier", res.Tier, false)
	b = appendStringField(b, "board", res.Board.String(), false)
	b = appendIntField(b, "score", res.Score)
	if res.Ranked() {
		b = appendIntField(b, "rank", int64(res.Rank))
		b = appendIntField(b, "board_size", int64(res.BoardSize))
		b = appendStringField(b, "zone", res.Zone.String(), false)
		if res.MergedWith != nil {
			b = appendStringField(b, "merged_with", res.MergedWith.String(), false)
		}
		if res.Protected {
			b = appendBoolField(b, "protected", true)
		}
	}
	if h := res.Held; h != nil {
		b = appendKey(b, "held", false)
		b = strconv.AppendInt(appendKey(append(b, '{'), "id", true), h.ID, 10)
		b = appendStringField(b, "cap", h.Cap, false)
		b = append(b, '}')
	}
	return appendBoolField(b, "replayed", res.Replayed)
}

// batchReply is {"results":[...]}: per write, in order, either
// {"player_id", <score fields>} or {"player_id","error":{"code","message"}}.
type batchReply struct {
	league  string
	writes  []league.ScoreWrite
	results []league.ScoreResult
	errs    []error
}

func (br batchReply) appendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"results":[`...)
	for i, w := range br.writes {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '{')
		b = appendStringField(b, "player_id", w.Player, true)
		if err := br.errs[i]; err != nil {
			b = appendKey(b, "error", false)
			b = appendErrorObject(b, league.ErrorCode(err), league.ErrorMessage(err))
		} else {
			b = appendScoreFields(b, br.league, br.results[i], false)
		}
		b = append(b, '}')
	}
	return append(b, "]}"...), nil
}
