package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"

	"github.com/league-engine/league/internal/excerpt"
	"github.com/league-engine/league/leaderboard"
	"github.com/league-engine/league/league"
)

// The leaderboard routes: writes to every board of a leaderboard in one
// call, pages of a board, a member on every board. The struct tags below
// are the wire format: encoding/json writes the other replies, and the
// appenders at the end write the same bytes for the hot two.

// countRefusal counts a write a rate limit refused.
func (s *Server) countRefusal(err error) {
	var r *leaderboard.Refusal
	if errors.As(err, &r) {
		s.metrics.refusals.WithLabelValues(r.Leaderboard, r.Limit).Inc()
	}
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
}

func (s *Server) leaderboardSummary(l *leaderboard.Leaderboard) (leaderboardJSON, error) {
	cur, err := s.boards.Current(l.ID)
	if err != nil {
		return leaderboardJSON{}, err
	}
	out := leaderboardJSON{ID: l.ID, TimeZone: l.Calendar.Loc.String(), WeekStart: l.Calendar.WeekStart.String(),
		ScoreOperator: string(l.Operator), Order: string(l.Order), TieBreak: string(l.TieBreak), MaxScore: l.MaxScore}
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
func (s *Server) leaderboards(_ *http.Request, caller *Key) (reply, error) {
	out := []leaderboardJSON{}
	if s.boards != nil {
		for _, l := range s.boards.Leaderboards() {
			if !caller.mayCallLeaderboard(l.ID) {
				continue
			}
			b, err := s.leaderboardSummary(l)
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
	b, err := s.leaderboardSummary(l)
	if err != nil {
		return nil, err
	}
	return marshal{b}, nil
}

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

func (s *Server) lbScore(r *http.Request, caller *Key) (reply, error) {
	l, err := s.leaderboardOf(r)
	if err != nil {
		return nil, err
	}
	w, err := readWrite(r, memberWriteShape, caller, lbWrite)
	if err != nil {
		return nil, err
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
	Error    *errorBody      `json:"error,omitempty"`
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
	results, errs, err := s.boards.WriteBatch(r.Context(), l.ID, writes)
	if err != nil {
		return nil, s.redisErr(err)
	}
	out := make([]lbResultJSON, len(writes))
	for i, w := range writes {
		out[i].Member = w.Member
		if errs[i] != nil {
			s.countRefusal(errs[i])
			s.redisErr(errs[i])
			out[i].Error = newErrorBody(errs[i])
			continue
		}
		replayed := results[i].Replayed
		out[i].Boards, out[i].Public, out[i].Replayed = placements(l, results[i].Boards), placements(l, results[i].Public), &replayed
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
	results, errs, err := s.boards.WriteMany(r.Context(), writes)
	if err != nil {
		return nil, s.redisErr(err)
	}
	out := make([]lbManyResultJSON, len(writes))
	for i, w := range writes {
		out[i].Leaderboard, out[i].Member = w.Leaderboard, w.Member
		if errs[i] != nil {
			s.countRefusal(errs[i])
			s.redisErr(errs[i])
			out[i].Error = newErrorBody(errs[i])
			continue
		}
		l, _ := s.boards.Leaderboard(w.Leaderboard)
		replayed := results[i].Replayed
		out[i].Boards, out[i].Public, out[i].Replayed = placements(l, results[i].Boards), placements(l, results[i].Public), &replayed
	}
	return marshal{struct {
		Results []lbManyResultJSON `json:"results"`
	}{out}}, nil
}

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
	Participants *int64      `json:"participants,omitempty"`
	Entries      []entryJSON `json:"entries"`
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

// The two hot replies, a write's and a page's, are appended by hand as
// the league's are (encode.go), byte for byte what encoding/json makes of
// the same structs (TestLeaderboardRepliesMatchEncodingJSON): a page of
// 100 entries through encoding/json's reflection cost more CPU than the
// read.

func (p periodJSON) appendFields(b []byte, first bool) []byte {
	b = appendStringField(b, "kind", string(p.Kind), first)
	b = appendStringField(b, "period", p.ID, false)
	b = appendOptionalString(appendKey(b, "period_start", false), p.Start)
	b = appendOptionalString(appendKey(b, "period_end", false), p.End)
	if p.WindowStart != nil {
		b = appendString(appendKey(b, "window_start", false), *p.WindowStart)
	}
	return b
}

func appendOptionalString(b []byte, s *string) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	return appendString(b, *s)
}

func (p placementJSON) appendJSON(b []byte) []byte {
	b = p.periodJSON.appendFields(append(b, '{'), true)
	b = appendIntField(b, "score", p.Score)
	return append(appendIntField(b, "rank", int64(p.Rank)), '}')
}

func (w lbWriteJSON) appendJSON(b []byte) ([]byte, error) {
	b = appendStringField(append(b, '{'), "leaderboard", w.Leaderboard, true)
	b = appendStringField(b, "member", w.Member, false)
	b = appendPlacements(appendKey(b, "boards", false), w.Boards)
	if len(w.Public) > 0 {
		b = appendPlacements(appendKey(b, "public", false), w.Public)
	}
	return append(appendBoolField(b, "replayed", w.Replayed), '}'), nil
}

func appendPlacements(b []byte, ps []placementJSON) []byte {
	b = append(b, '[')
	for i, p := range ps {
		if i > 0 {
			b = append(b, ',')
		}
		b = p.appendJSON(b)
	}
	return append(b, ']')
}

func (bd lbBoardJSON) appendJSON(b []byte) ([]byte, error) {
	b = appendStringField(append(b, '{'), "leaderboard", bd.Leaderboard, true)
	b = bd.periodJSON.appendFields(b, false)
	b = appendIntField(b, "size", int64(bd.Size))
	b = appendBoolField(b, "incomplete", bd.Incomplete)
	if bd.Archived {
		b = appendBoolField(b, "archived", true)
	}
	if bd.Participants != nil {
		b = appendIntField(b, "participants", *bd.Participants)
	}
	b = append(appendKey(b, "entries", false), '[')
	for i, e := range bd.Entries {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(append(b, `{"rank":`...), int64(e.Rank), 10)
		b = appendIntField(appendStringField(b, "member", e.Member, false), "score", e.Score)
		if e.Name != "" {
			b = appendStringField(b, "name", e.Name, false)
		}
		if len(e.Metadata) > 0 {
			b = append(appendKey(b, "metadata", false), e.Metadata...) // compact JSON, checked at import
		}
		b = append(b, '}')
	}
	return append(b, "]}"...), nil
}

// lbImport serves the admin import of a leaderboard's catalog: a JSON body
// ({"entries":[...]}) or, with Content-Type text/csv, a CSV file whose
// header names the columns. A bad entry imports nothing of the body.
func (s *Server) lbImport(r *http.Request, _ *Key) (reply, error) {
	l, err := s.leaderboardOf(r)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, errTooLarge
		}
		return nil, invalid("body", "could not be read: %v", err)
	}
	var entries []leaderboard.CatalogEntry
	media, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch media {
	case "text/csv":
		entries, err = leaderboard.ParseCatalogCSV(bytes.NewReader(body))
	case "application/json", "":
		entries, err = leaderboard.ParseCatalogJSON(bytes.NewReader(body))
	default:
		return nil, invalid("Content-Type", "%q is not application/json or text/csv", excerpt.Of(media))
	}
	if err != nil {
		return nil, err
	}
	changed, err := s.boards.Import(r.Context(), l.ID, entries)
	if err != nil {
		return nil, s.redisErr(err)
	}
	return marshal{struct {
		Leaderboard string `json:"leaderboard"`
		Entries     int    `json:"entries"`
		Changed     int    `json:"changed"`
	}{l.ID, len(entries), changed}}, nil
}
