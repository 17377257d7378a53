package api

import (
	"net/http"
	"strconv"

	"github.com/league-engine/league/league"
)

// board serves GET /v1/leagues/{league}/boards/{board}?period=<id>: a
// sub-board's ranking, of the current period unless one is named. A named
// period whose boards Redis no longer has (settled, and past the league's
// retention) is read from the archive (archive.go): the reply says which
// in "source".
func (s *Server) board(r *http.Request, _ *Key) (reply, error) {
	leagueID := r.PathValue("league")
	if _, err := s.engine.League(leagueID); err != nil {
		return nil, s.redisErr(err) // unknown, or lost by Redis
	}
	id, err := league.ParseBoardID(r.PathValue("board"))
	if err != nil {
		return nil, err
	}
	var period league.Period
	pid, given := queryParam(r, "period")
	if given {
		if period, err = s.engine.PeriodOf(leagueID, pid); err != nil {
			// A period the schedule no longer has may still be archived.
			return s.archivedBoard(r, leagueID, pid, id, err)
		}
	}
	b, err := s.engine.Board(r.Context(), leagueID, period, id)
	if given && league.ErrorCode(err) == league.NotFound {
		return s.archivedBoard(r, leagueID, pid, id, err)
	}
	if err != nil {
		return nil, s.redisErr(err)
	}
	return boardReply{b}, nil
}

// boardReply is
// {"league","period","period_end","board","tier","source":"live","entries":[{"rank","player_id","name","avatar","score","zone"}]}.
type boardReply struct{ b league.Board }

func (br boardReply) appendJSON(b []byte) ([]byte, error) {
	bd := br.b
	b = append(b, '{')
	b = appendStringField(b, "league", bd.League, true)
	b = appendStringField(b, "period", bd.Period.ID(), false)
	b = appendStringField(b, "period_end", rfc3339(bd.Period.End), false)
	b = appendStringField(b, "board", bd.ID.String(), false)
	b = appendStringField(b, "tier", bd.ID.Tier, false)
	b = appendStringField(b, "source", sourceLive, false)
	if bd.MergedWith != nil {
		b = appendStringField(b, "merged_with", bd.MergedWith.String(), false)
	}
	b = append(b, `,"entries":[`...)
	for i, e := range bd.Entries {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '{')
		b = appendKey(b, "rank", true)
		b = strconv.AppendInt(b, int64(e.Rank), 10)
		b = appendStringField(b, "player_id", e.Player, false)
		b = appendStringField(b, "name", e.Name, false)
		b = appendStringField(b, "avatar", e.Avatar, false)
		b = appendIntField(b, "score", e.Score)
		b = appendStringField(b, "zone", e.Zone.String(), false)
		if e.Protected {
			b = appendBoolField(b, "protected", true)
		}
		b = append(b, '}')
	}
	return append(b, "]}"...), nil
}
