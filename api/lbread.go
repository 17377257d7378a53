package api

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/league-engine/league/internal/excerpt"
	"github.com/league-engine/league/leaderboard"
	"github.com/league-engine/league/league"
)

// The leaderboard read routes: a page of a board, one member on every
// board, several members at once.

type entryJSON struct {
	Rank   int    `json:"rank"`
	Member string `json:"member"`
	Score  int64  `json:"score"`
	// Name and Metadata: the member's catalog entry, on a leaderboard with
	// a catalog.
	Name     string          `json:"name,omitempty"`
	Metadata json.RawMessage `json:"metadata,omitempty"`
}

type lbBoardJSON struct {
	Leaderboard string `json:"leaderboard"`
	periodJSON
	Size int `json:"size"`
	// Incomplete: a rolling board not yet pre-filled (members who did not
	// write since its bucket began may be missing); false on the others.
	Incomplete bool `json:"incomplete"`
	// Archived: a period past its Redis retention, read from the archive.
	Archived bool `json:"archived,omitempty"`
	// Participants: distinct actors in the period, where counted.
	Participants *int64 `json:"participants,omitempty"`
	// Behind: on a queued leaderboard, the writes waiting to be applied:
	// the board may be that far behind.
	Behind  *int64      `json:"behind,omitempty"`
	Entries []entryJSON `json:"entries"`
}

// lbBoard serves a page of a board: from ?offset= (default 0), ?limit=
// entries (default 100), or the window around ?around=<member> (limit
// entries above and below it, default 10).
func (s *Server) lbBoard(r *http.Request, _ *Key) (reply, error) {
	l, err := s.leaderboardOf(r)
	if err != nil {
		return nil, err
	}
	k, err := leaderboard.ParseKind(r.PathValue("kind"))
	if err != nil {
		return nil, league.Errorf(league.NotFound, "%v", err)
	}
	period, _ := queryParam(r, "period")
	member, around := queryParam(r, "around")
	offset, err := intParam(r, "offset", 0)
	if err != nil {
		return nil, err
	}
	def := 100
	if around {
		def = 10
	}
	limit, err := intParam(r, "limit", def)
	if err != nil {
		return nil, err
	}
	view, given := queryParam(r, "view")
	reads, err := s.readsOf(l, view, given)
	if err != nil {
		return nil, err
	}
	var b leaderboard.Board
	if around {
		if _, given := queryParam(r, "offset"); given {
			return nil, invalid("offset", "does not go with around")
		}
		b, err = reads.Around(r.Context(), l.ID, k, period, member, limit)
	} else {
		b, err = reads.Top(r.Context(), l.ID, k, period, offset, limit)
	}
	if err != nil {
		return nil, s.redisErr(err)
	}
	out := lbBoardJSON{Leaderboard: l.ID, periodJSON: newPeriodJSON(l, b.Period), Size: b.Size, Incomplete: b.Incomplete, Archived: b.Archived,
		Participants: counted(b.Participants), Entries: make([]entryJSON, len(b.Entries))}
	for i, e := range b.Entries {
		out.Entries[i] = entryJSON{Rank: e.Rank, Member: e.Member, Score: e.Score, Name: e.Name, Metadata: e.Metadata}
	}
	if l.Queue != nil && !b.Archived {
		behind, err := s.boards.Lag(r.Context(), l.ID)
		if err != nil {
			return nil, s.redisErr(err)
		}
		out.Behind = &behind
	}
	return out, nil
}

// intParam reads a whole-number query parameter, def when not given.
func intParam(r *http.Request, name string, def int) (int, error) {
	v, given := queryParam(r, name)
	if !given {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, invalid(name, "%q is not a whole number", excerpt.Of(v))
	}
	return n, nil
}

type standingJSON struct {
	periodJSON
	Score    int64          `json:"score"`
	Rank     int            `json:"rank"` // 0: not on the board
	Gap      *int64         `json:"gap"`  // to the member just above; null: none above, or not on the board
	Previous *placementJSON `json:"previous"`
	// Incomplete: a rolling board not yet pre-filled (lbBoardJSON).
	Incomplete bool `json:"incomplete"`
	// Participants: distinct actors who wrote for the member, where counted.
	Participants *int64 `json:"participants,omitempty"`
}

// counted is a participant count for JSON: nil where not counted.
func counted(n int64) *int64 {
	if n < 0 {
		return nil
	}
	return &n
}

// lbMember serves one member on every board, with the period before.
func (s *Server) lbMember(r *http.Request, _ *Key) (reply, error) {
	l, err := s.leaderboardOf(r)
	if err != nil {
		return nil, err
	}
	member := r.PathValue("member")
	view, given := queryParam(r, "view")
	reads, err := s.readsOf(l, view, given)
	if err != nil {
		return nil, err
	}
	st, err := reads.Member(r.Context(), l.ID, member)
	if err != nil {
		return nil, s.redisErr(err)
	}
	return marshal{struct {
		Leaderboard string         `json:"leaderboard"`
		Member      string         `json:"member"`
		Boards      []standingJSON `json:"boards"`
	}{l.ID, member, standingsJSON(l, st)}}, nil
}

func standingsJSON(l *leaderboard.Leaderboard, st []leaderboard.Standing) []standingJSON {
	out := make([]standingJSON, len(st))
	for i, b := range st {
		out[i] = standingJSON{periodJSON: newPeriodJSON(l, b.Period), Score: b.Score, Rank: b.Rank, Incomplete: b.Incomplete,
			Participants: counted(b.Participants)}
		if b.Gap >= 0 {
			gap := b.Gap
			out[i].Gap = &gap
		}
		if b.Previous != nil {
			out[i].Previous = &placementJSON{periodJSON: newPeriodJSON(l, b.Previous.Period), Score: b.Previous.Score, Rank: b.Previous.Rank}
		}
	}
	return out
}

// lbMembersRequest is the body of POST .../members:
// {"members":[...], "boards":[...]}.
type lbMembersRequest struct {
	members, boards *[]string
	view            *string
}

func (req *lbMembersRequest) decode(d *decoder) error {
	return d.object("body", func(field []byte) error {
		var list **[]string
		switch string(field) {
		case "view":
			return d.string("view", &req.view)
		case "members":
			list = &req.members
		case "boards":
			list = &req.boards
		default:
			return unknownField("", field)
		}
		name := string(field)
		if *list != nil {
			return invalid(name, "given twice")
		}
		items := []string{}
		*list = &items
		return d.array(name, func(i int) error {
			if i == leaderboard.MaxBatch {
				return invalid(name, "more than %d; ask for at most %d at once", leaderboard.MaxBatch, leaderboard.MaxBatch)
			}
			what := name + "[" + strconv.Itoa(i) + "]"
			var v *string
			if err := d.string(what, &v); err != nil {
				return err
			}
			if v == nil {
				return invalid(what, "expected a string, got null")
			}
			items = append(items, *v) // *list points at items
			return nil
		})
	})
}

type lbMemberResultJSON struct {
	Member string         `json:"member"`
	Boards []standingJSON `json:"boards,omitempty"`
	Error  *errorBody     `json:"error,omitempty"`
}

// lbMembers serves several members on several boards (all by default) in
// one round trip; a bad member id fails alone.
func (s *Server) lbMembers(r *http.Request, _ *Key) (reply, error) {
	l, err := s.leaderboardOf(r)
	if err != nil {
		return nil, err
	}
	var req lbMembersRequest
	if err := decodeBody(r, false, req.decode); err != nil {
		return nil, err
	}
	if req.members == nil {
		return nil, invalid("members", "required")
	}
	var kinds []leaderboard.Kind
	if req.boards != nil {
		kinds = []leaderboard.Kind{}
		for i, b := range *req.boards {
			k, err := leaderboard.ParseKind(b)
			if err != nil {
				return nil, invalid("boards["+strconv.Itoa(i)+"]", "%v", err)
			}
			kinds = append(kinds, k)
		}
	}
	reads, err := s.readsOf(l, optionalString(req.view), req.view != nil)
	if err != nil {
		return nil, err
	}
	members := *req.members
	sts, errs, err := reads.Members(r.Context(), l.ID, members, kinds)
	if err != nil {
		return nil, s.redisErr(err)
	}
	out := make([]lbMemberResultJSON, len(members))
	for i, m := range members {
		out[i].Member = m
		if errs[i] != nil {
			s.redisErr(errs[i])
			out[i].Error = newErrorBody(errs[i])
			continue
		}
		out[i].Boards = standingsJSON(l, sts[i])
	}
	return marshal{struct {
		Leaderboard string               `json:"leaderboard"`
		Members     []lbMemberResultJSON `json:"members"`
	}{l.ID, out}}, nil
}
