package api

import (
	"net/http"
	"strconv"

	"github.com/league-engine/league/league"
)

// scoreRequest is one score write, {"player_id","value","request_id"}: the
// body of POST .../scores and an element of a batch. value is the raw
// token until scoreValue reads it, nil when missing; it points into the
// pooled body buffer, so write() must run before decodeBody returns.
type scoreRequest struct {
	playerID, requestID *string
	value               []byte
}

// decode decodes the object; prefix names the element of a batch in
// errors ("writes[3].").
func (req *scoreRequest) decode(d *decoder, what, prefix string) error {
	return d.object(what, func(field []byte) error {
		switch string(field) {
		case "player_id":
			return d.string(prefix+"player_id", &req.playerID)
		case "request_id":
			return d.string(prefix+"request_id", &req.requestID)
		case "value":
			if req.value != nil {
				return invalid(prefix+"value", "given twice")
			}
			var err error
			req.value, err = d.number(prefix + "value")
			return err
		}
		return unknownField(prefix, field)
	})
}

// write checks the fields a request must have and returns the write.
func (req *scoreRequest) write(prefix string) (league.ScoreWrite, error) {
	player, err := required(prefix+"player_id", req.playerID)
	if err != nil {
		return league.ScoreWrite{}, err
	}
	v, err := scoreValue(prefix+"value", req.value)
	if err != nil {
		return league.ScoreWrite{}, err
	}
	return league.ScoreWrite{Player: player, Value: v, RequestID: optionalString(req.requestID)}, nil
}

func (s *Server) score(r *http.Request, caller *Key) (reply, error) {
	leagueID := r.PathValue("league")
	var w league.ScoreWrite
	err := decodeBody(r, false, func(d *decoder) error {
		var req scoreRequest
		if err := req.decode(d, "body", ""); err != nil {
			return err
		}
		// Inside the callback: req.value points into the pooled body buffer,
		// which goes back to the pool when decodeBody returns.
		var err error
		w, err = req.write("")
		return err
	})
	if err != nil {
		return nil, err
	}
	w.Scope = caller.Name // request ids belong to the key's name
	res, err := s.engine.Score(r.Context(), leagueID, w)
	if err != nil {
		return nil, s.redisErr(err)
	}
	return scoreReply{league: leagueID, res: res}, nil
}

// batchRequest is the body of POST .../scores/batch: {"writes":[...]}.
type batchRequest struct {
	writes *[]league.ScoreWrite
}

// decode decodes the body; a malformed element fails it, naming the
// element ("writes[3].value").
func (req *batchRequest) decode(d *decoder) error {
	return d.object("body", func(field []byte) error {
		if string(field) != "writes" {
			return unknownField("", field)
		}
		if req.writes != nil {
			return invalid("writes", "given twice")
		}
		writes := []league.ScoreWrite{}
		req.writes = &writes
		return d.array("writes", func(i int) error {
			if i == league.MaxBatch {
				return invalid("writes", "more than %d writes; send at most %d a batch", league.MaxBatch, league.MaxBatch)
			}
			what := "writes[" + strconv.Itoa(i) + "]"
			var item scoreRequest
			if err := item.decode(d, what, what+"."); err != nil {
				return err
			}
			w, err := item.write(what + ".")
			writes = append(writes, w)
			return err
		})
	})
}

// scoreBatch applies many writes in one Redis round trip. A malformed body
// or element is refused whole, before anything is written; writes the
// engine refuses fail on their own, in their place in "results".
func (s *Server) scoreBatch(r *http.Request, caller *Key) (reply, error) {
	leagueID := r.PathValue("league")
	var req batchRequest
	if err := decodeBody(r, false, req.decode); err != nil {
		return nil, err
	}
	if req.writes == nil {
		return nil, invalid("writes", "required")
	}
	writes := *req.writes
	for i := range writes {
		writes[i].Scope = caller.Name
	}
	if _, err := s.engine.League(leagueID); err != nil {
		return nil, s.redisErr(err) // unknown league: 404 even for an empty batch; or lost by Redis
	}
	results, errs, err := s.engine.ScoreBatch(r.Context(), leagueID, writes)
	if err != nil {
		return nil, s.redisErr(err)
	}
	for i, e := range errs {
		if e != nil {
			s.redisErr(e)
			if league.ErrorCode(e) == league.Internal {
				s.log.Error("api: batch score write", "league", leagueID, "player", writes[i].Player, "err", e)
			}
		}
	}
	return batchReply{league: leagueID, writes: writes, results: results, errs: errs}, nil
}

// scoreReply is the reply of a score write:
// {"league","period","tier","board","score","rank","board_size","zone","replayed"}.
type scoreReply struct {
	league string
	res    league.ScoreResult
}

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
	b = appendIntField(b, "rank", int64(res.Rank))
	b = appendIntField(b, "board_size", int64(res.BoardSize))
	b = appendStringField(b, "zone", res.Zone.String(), false)
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
