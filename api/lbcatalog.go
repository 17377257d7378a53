package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"time"

	"github.com/league-engine/league/internal/excerpt"
	"github.com/league-engine/league/leaderboard"
	"github.com/league-engine/league/league"
)

// The admin routes of a leaderboard's catalog and limits: the import, a
// page of entries, one member's entry, a member's multiplier, and the
// limits with the writes they refused lately (what the console's pages
// show, through the same engine calls).

// lbImport serves the admin import of a leaderboard's catalog: a JSON body
// ({"entries":[...]}) or, with Content-Type text/csv, a CSV file whose
// header names the columns. A bad entry imports nothing of the body, and
// the error lists every entry refused (writeError: "problems").
func (s *Server) lbImport(r *http.Request, caller *Key) (reply, error) {
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
	var entries, changed int
	media, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch media {
	case "text/csv":
		entries, changed, err = s.boards.ImportCSV(r.Context(), l.ID, bytes.NewReader(body))
	case "application/json", "":
		var list []leaderboard.CatalogEntry
		if list, err = leaderboard.ParseCatalogJSON(bytes.NewReader(body)); err == nil {
			entries = len(list)
			changed, err = s.boards.Import(r.Context(), l.ID, list)
		}
	default:
		return nil, invalid("Content-Type", "%q is not application/json or text/csv", excerpt.Of(media))
	}
	if err != nil {
		return nil, s.redisErr(err)
	}
	s.log.Info("api: catalog imported", "leaderboard", l.ID, "entries", entries, "changed", changed, "key", caller.Name)
	return marshal{struct {
		Leaderboard string `json:"leaderboard"`
		Entries     int    `json:"entries"`
		Changed     int    `json:"changed"`
	}{l.ID, entries, changed}}, nil
}

// catalogEntryJSON is a catalog entry as the admin routes read it back.
type catalogEntryJSON struct {
	Member       string          `json:"member"`
	Name         string          `json:"name"`
	Metadata     json.RawMessage `json:"metadata"` // null for none
	InitialScore int64           `json:"initial_score"`
	Multiplier   int64           `json:"multiplier"`
}

func newCatalogEntryJSON(c leaderboard.CatalogEntry) catalogEntryJSON {
	out := catalogEntryJSON{Member: c.Member, Name: c.Name, Metadata: c.Metadata, InitialScore: c.InitialScore, Multiplier: c.Multiplier}
	if len(out.Metadata) == 0 {
		out.Metadata = json.RawMessage("null")
	}
	return out
}

// lbCatalog serves a page of a catalog: ?limit= entries (default 100)
// from ?cursor= (the next of the page before).
func (s *Server) lbCatalog(r *http.Request, _ *Key) (reply, error) {
	l, err := s.leaderboardOf(r)
	if err != nil {
		return nil, err
	}
	limit, err := intParam(r, "limit", 100)
	if err != nil {
		return nil, err
	}
	cursor, _ := queryParam(r, "cursor")
	page, err := s.boards.Catalog(r.Context(), l.ID, cursor, limit)
	if err != nil {
		return nil, s.redisErr(err)
	}
	out := struct {
		Leaderboard string             `json:"leaderboard"`
		Entries     []catalogEntryJSON `json:"entries"`
		Next        *string            `json:"next"`
	}{Leaderboard: l.ID, Entries: make([]catalogEntryJSON, len(page.Entries))}
	for i, c := range page.Entries {
		out.Entries[i] = newCatalogEntryJSON(c)
	}
	if page.Next != "" {
		out.Next = &page.Next
	}
	return marshal{out}, nil
}

// lbCatalogEntry serves one member's catalog entry: 404 when it has none.
func (s *Server) lbCatalogEntry(r *http.Request, _ *Key) (reply, error) {
	l, err := s.leaderboardOf(r)
	if err != nil {
		return nil, err
	}
	member := r.PathValue("member")
	c, found, err := s.boards.CatalogEntry(r.Context(), l.ID, member)
	if err != nil {
		return nil, s.redisErr(err)
	}
	if !found {
		return nil, league.Errorf(league.NotFound, "member %q has no entry in the catalog of leaderboard %q", excerpt.Of(member), l.ID)
	}
	return marshal{struct {
		Leaderboard string `json:"leaderboard"`
		catalogEntryJSON
	}{l.ID, newCatalogEntryJSON(c)}}, nil
}

// multiplierRequest is the body of PUT .../multiplier: {"multiplier": N}.
type multiplierRequest struct{ multiplier []byte }

func (req *multiplierRequest) decode(d *decoder) error {
	return d.object("body", func(field []byte) error {
		if string(field) != "multiplier" {
			return unknownField("", field)
		}
		if req.multiplier != nil {
			return invalid("multiplier", "given twice")
		}
		var err error
		req.multiplier, err = d.number("multiplier")
		return err
	})
}

// lbMultiplier sets one member's multiplier, the rest of its entry kept.
func (s *Server) lbMultiplier(r *http.Request, caller *Key) (reply, error) {
	l, err := s.leaderboardOf(r)
	if err != nil {
		return nil, err
	}
	member := r.PathValue("member")
	var req multiplierRequest
	if err := decodeBody(r, false, req.decode); err != nil {
		return nil, err
	}
	m, err := scoreValue("multiplier", req.multiplier)
	if err != nil {
		return nil, err
	}
	prev, err := s.boards.SetMultiplier(r.Context(), l.ID, member, m)
	if err != nil {
		return nil, s.redisErr(err)
	}
	s.log.Info("api: multiplier set", "leaderboard", l.ID, "member", member, "multiplier", m, "previous", prev, "key", caller.Name)
	return marshal{struct {
		Leaderboard string `json:"leaderboard"`
		Member      string `json:"member"`
		Multiplier  int64  `json:"multiplier"`
		Previous    int64  `json:"previous"`
	}{l.ID, member, m, prev}}, nil
}

type limitJSON struct {
	Name string                  `json:"name"`
	By   []leaderboard.Dimension `json:"by"`
	Per  leaderboard.Per         `json:"per"`
	Max  int64                   `json:"max"`
	// Extra: more allowed by channel or terminal value.
	Extra map[leaderboard.Dimension]map[string]int64 `json:"extra"`
	// AcrossShards: taken in a step before the write, across a sharded
	// leaderboard's shards (it does not count by member).
	AcrossShards bool `json:"across_shards"`
}

type refusedJSON struct {
	At       string `json:"at"`
	Limit    string `json:"limit"`
	Max      int64  `json:"max"`
	Member   string `json:"member"`
	Actor    string `json:"actor,omitempty"`
	Channel  string `json:"channel,omitempty"`
	Terminal string `json:"terminal,omitempty"`
}

// lbLimits serves a leaderboard's rate limits and the ?limit= (default
// 50) writes they refused last, newest first.
func (s *Server) lbLimits(r *http.Request, _ *Key) (reply, error) {
	l, err := s.leaderboardOf(r)
	if err != nil {
		return nil, err
	}
	n, err := intParam(r, "limit", 50)
	if err != nil {
		return nil, err
	}
	refused, err := s.boards.Refusals(r.Context(), l.ID, n)
	if err != nil {
		return nil, s.redisErr(err)
	}
	out := struct {
		Leaderboard string        `json:"leaderboard"`
		Limits      []limitJSON   `json:"limits"`
		Refusals    []refusedJSON `json:"refusals"`
	}{Leaderboard: l.ID, Limits: []limitJSON{}, Refusals: make([]refusedJSON, len(refused))}
	for _, lim := range l.Limits {
		extra := lim.Extra
		if extra == nil {
			extra = map[leaderboard.Dimension]map[string]int64{}
		}
		out.Limits = append(out.Limits, limitJSON{Name: lim.Name, By: lim.By, Per: lim.Per, Max: lim.Max, Extra: extra,
			AcrossShards: l.AcrossShards(lim)})
	}
	for i, x := range refused {
		out.Refusals[i] = refusedJSON{At: x.At.UTC().Format(time.RFC3339Nano), Limit: x.Limit, Max: x.Max, Member: x.Member,
			Actor: x.Actor, Channel: x.Channel, Terminal: x.Terminal}
	}
	return marshal{out}, nil
}
