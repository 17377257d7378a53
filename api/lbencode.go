package api

import "strconv"

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
	if bd.Behind != nil {
		b = appendIntField(b, "behind", *bd.Behind)
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
