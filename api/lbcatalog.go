package api

import (
	"bytes"
	"errors"
	"io"
	"mime"
	"net/http"

	"github.com/league-engine/league/internal/excerpt"
	"github.com/league-engine/league/leaderboard"
)

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
