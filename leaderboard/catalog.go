package leaderboard

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/league-engine/league/internal/excerpt"
	"github.com/league-engine/league/league"
	"github.com/league-engine/league/scripts"
	"github.com/redis/go-redis/v9"
)

// A leaderboard with a catalog (Leaderboard.Catalog) keeps, per member, a
// display name and metadata (an avatar, a team) that its boards' reads
// carry beside the member id, and an initial score: the score a member
// starts with on the all-time board (seed 003's candidates start with
// their votes so far). An admin imports entries (Engine.Import), thousands
// a call, from JSON or CSV; importing again is harmless.

// CatalogEntry is one member of a leaderboard's catalog.
type CatalogEntry struct {
	Member string
	Name   string
	// Metadata is a JSON object (e.g. {"avatar":"https://..."}), nil for none.
	Metadata json.RawMessage
	// InitialScore is the member's starting score on the all-time board:
	// importing it again with another value moves the score by the
	// difference.
	InitialScore int64
	// Multiplier is how many points a write of 1 counts on the public
	// boards (Leaderboard.PublicBoards), from 1 (0 means 1) to
	// MaxMultiplier. A change counts from the next write on.
	Multiplier int64
	// Place says where the entry came from, for errors ("row 7" of a CSV
	// file); empty: its index ("entries[3]").
	Place string

	row int // its CSV row (1 is the header), which orders problems; 0: none
}

// Limits of a catalog entry.
const (
	MaxNameLen     = 64   // characters
	MaxMetadataLen = 1024 // bytes of JSON
	MaxMultiplier  = 1000000
	// MaxImport is how many entries one Import takes (a JSON body of a
	// megabyte holds about as many).
	MaxImport = 10000
)

// importChunk is how many entries one lb_catalog.lua call imports.
const importChunk = 500

// catalogValue is how an entry is kept in the catalog hash.
type catalogValue struct {
	Name     string          `json:"name,omitempty"`
	Metadata json.RawMessage `json:"metadata,omitempty"`
}

// entryProblems returns what is wrong with one entry of leaderboard l,
// field by field (none: it is fine); at names the entry ("row 7").
func (l *Leaderboard) entryProblems(c CatalogEntry, at string) []Problem {
	var out []Problem
	bad := func(f, format string, args ...any) {
		out = append(out, Problem{Entry: at, Field: f, Message: fmt.Sprintf(format, args...)})
	}
	if err := CheckMember(c.Member); err != nil {
		var le *league.Error
		msg := err.Error()
		if errors.As(err, &le) {
			msg = le.Message
		}
		bad("member", "%s", msg)
	}
	switch {
	case !utf8.ValidString(c.Name) || utf8.RuneCountInString(c.Name) > MaxNameLen:
		bad("name", "is not UTF-8 text of at most %d characters", MaxNameLen)
	case strings.IndexFunc(c.Name, func(r rune) bool { return unicode.IsControl(r) }) >= 0:
		bad("name", "holds a control character")
	}
	if c.Metadata != nil {
		var obj map[string]any
		switch {
		case len(c.Metadata) > MaxMetadataLen:
			bad("metadata", "is %d bytes of JSON; at most %d", len(c.Metadata), MaxMetadataLen)
		case json.Unmarshal(c.Metadata, &obj) != nil || obj == nil:
			bad("metadata", "is not a JSON object")
		}
	}
	if c.Multiplier != 0 && c.Multiplier != 1 {
		switch {
		case !l.PublicBoards:
			bad("multiplier", "leaderboard %q has no public boards to count it on (public_boards: true)", l.ID)
		case c.Multiplier < 1 || c.Multiplier > MaxMultiplier:
			bad("multiplier", "%d is not from 1 to %d", c.Multiplier, MaxMultiplier)
		}
	}
	if c.InitialScore != 0 {
		switch {
		case !l.has(AllTime):
			bad("initial_score", "leaderboard %q keeps no all_time board to start it on", l.ID)
		case l.Operator != Incr && l.Operator != Decr:
			bad("initial_score", "an initial score goes with score_operator incr or decr (a sum), not %s", l.Operator)
		case c.InitialScore > l.MaxScore || c.InitialScore < -l.MaxScore:
			out = append(out, Problem{Entry: at, Field: "initial_score", overflow: true,
				Message: fmt.Sprintf("%d is past the leaderboard's maximum score %d", c.InitialScore, l.MaxScore)})
		}
	}
	return out
}

// catalogProblems returns what is wrong with entries, in their order:
// each entry's problems and the members named twice.
func (l *Leaderboard) catalogProblems(entries []CatalogEntry) []Problem {
	var out []Problem
	seen := make(map[string]int, len(entries))
	for i, c := range entries {
		for _, p := range l.entryProblems(c, place(entries, i)) {
			p.row = c.row
			out = append(out, p)
		}
		if j, dup := seen[c.Member]; dup {
			out = append(out, Problem{Entry: place(entries, i), Field: "member", row: c.row, Message: fmt.Sprintf("%q is also %s", c.Member, place(entries, j))})
		} else {
			seen[c.Member] = i
		}
	}
	return out
}

// Import adds or updates catalog entries of leaderboard id. The entries
// are checked first: a bad entry imports nothing, and the error (an
// *ImportError its cause) lists every entry refused and why ("row 7",
// "name", "holds a control character"). They are then written 500 an
// atomic step; each step is idempotent, so after a failure (Redis down)
// the same import run again completes it. It returns how many members
// changed.
func (e *Engine) Import(ctx context.Context, id string, entries []CatalogEntry) (changed int, err error) {
	l, err := e.catalogOf(id)
	if err != nil {
		return 0, err
	}
	if len(entries) > MaxImport {
		return 0, &league.Error{Code: league.Invalid, Field: "entries",
			Message: fmt.Sprintf("%d entries; import at most %d a call", len(entries), MaxImport)}
	}
	if problems := l.catalogProblems(entries); len(problems) > 0 {
		return 0, importError(problems, 0)
	}
	values := make([]string, len(entries))
	for i, c := range entries {
		if c.Name != "" || c.Metadata != nil {
			v, _ := json.Marshal(catalogValue{Name: c.Name, Metadata: compact(c.Metadata)})
			values[i] = string(v)
		}
	}
	// Each member's entry, multiplier and initial score live in its shard,
	// where the write script reads them: the entries go by shard, 500 an
	// atomic step (one shard: in the file's order).
	var chunks [][]int // positions in entries
	byShard := make([][]int, l.Shards)
	for i, c := range entries {
		s := shardOf(c.Member, l.Shards)
		byShard[s] = append(byShard[s], i)
	}
	for _, at := range byShard {
		for from := 0; from < len(at); from += importChunk {
			chunks = append(chunks, at[from:min(from+importChunk, len(at))])
		}
	}
	call := func(chunk []int, check bool) ([]string, []any) {
		k := e.memberKeys(l, entries[chunk[0]].Member)
		board := k.catalogInitial()
		if l.has(AllTime) {
			board = k.board(Period{Kind: AllTime})
		}
		args := []any{e.clock.Arg(), l.MaxScore, l.tieBits[AllTime], l.TieResolution.Milliseconds(), l.orderArg(),
			AllTimeFrom.Unix(), AllTimeUntil.Unix(), flag(l.has(AllTime)), flag(check)}
		for _, i := range chunk {
			c := entries[i]
			args = append(args, c.Member, c.InitialScore, values[i], max(c.Multiplier, 1))
		}
		return []string{k.catalogInitial(), k.catalog(), board, k.multipliers()}, args
	}
	overflow := func(chunk []int, reply []int64, imported int) error {
		i := chunk[reply[1]-1]
		return importError([]Problem{{Entry: place(entries, i), Field: "initial_score", overflow: true, Message: fmt.Sprintf(
			"would take %q's all-time score from %d past the maximum %d", entries[i].Member, reply[2], l.MaxScore)}}, imported)
	}
	if len(chunks) > 1 {
		// Every chunk checked against the scores first, in one round
		// trip, so an initial score past the maximum imports nothing. A
		// write between the check and the import can still take a score
		// past it: that chunk is then refused alone, below.
		cmds, err := e.run.Pipeline(ctx, scripts.LBCatalog, len(chunks), func(j int) ([]string, []any) { return call(chunks[j], true) })
		if err != nil {
			return 0, league.RedisError("leaderboard import", err)
		}
		for j, cmd := range cmds {
			reply, err := cmd.Int64Slice()
			if err != nil {
				return 0, league.RedisError("leaderboard import", err)
			}
			if scripts.Status(reply[0]) == scripts.Overflow {
				return 0, overflow(chunks[j], reply, 0)
			}
		}
	}
	imported := 0
	for _, chunk := range chunks {
		ks, args := call(chunk, false)
		reply, err := e.run.RunAlone(ctx, scripts.LBCatalog, ks, args...).Int64Slice()
		if err != nil {
			return changed, league.RedisError("leaderboard import", err)
		}
		if scripts.Status(reply[0]) == scripts.Overflow {
			return changed, overflow(chunk, reply, imported)
		}
		changed += int(reply[1])
		imported += len(chunk)
	}
	return changed, nil
}

// place names entry i in errors.
func place(entries []CatalogEntry, i int) string {
	if entries[i].Place != "" {
		return entries[i].Place
	}
	return "entries[" + strconv.Itoa(i) + "]"
}

func compact(js json.RawMessage) json.RawMessage {
	if js == nil {
		return nil
	}
	var b bytes.Buffer
	if json.Compact(&b, js) != nil {
		return js
	}
	return b.Bytes()
}

// names fills the Name and Metadata of entries from the catalog: one
// HMGET, or on a sharded leaderboard one per shard holding some of them,
// in one pipeline.
func (e *Engine) names(ctx context.Context, l *Leaderboard, entries []Entry) error {
	if !l.Catalog || len(entries) == 0 {
		return nil
	}
	at := map[int][]int{} // shard -> positions in entries
	for i, en := range entries {
		s := shardOf(en.Member, l.Shards)
		at[s] = append(at[s], i)
	}
	pipe := e.rdb.Pipeline()
	cmds := map[int]*redis.SliceCmd{}
	for s, is := range at {
		members := make([]string, len(is))
		for n, i := range is {
			members[n] = entries[i].Member
		}
		cmds[s] = pipe.HMGet(ctx, e.shards(l)[s].catalog(), members...)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return league.RedisError("leaderboard read", err)
	}
	for s, is := range at {
		for n, v := range cmds[s].Val() {
			if str, ok := v.(string); ok {
				var cv catalogValue
				if json.Unmarshal([]byte(str), &cv) == nil {
					entries[is[n]].Name, entries[is[n]].Metadata = cv.Name, cv.Metadata
				}
			}
		}
	}
	return nil
}

// ParseCatalogJSON reads {"entries":[{"member","name","metadata","initial_score"}]}.
func ParseCatalogJSON(r io.Reader) ([]CatalogEntry, error) {
	var body struct {
		Entries *[]struct {
			Member       *string         `json:"member"`
			Name         string          `json:"name"`
			Metadata     json.RawMessage `json:"metadata"`
			InitialScore json.Number     `json:"initial_score"`
			Multiplier   json.Number     `json:"multiplier"`
		} `json:"entries"`
	}
	d := json.NewDecoder(r)
	d.DisallowUnknownFields()
	d.UseNumber()
	if err := d.Decode(&body); err != nil {
		return nil, &league.Error{Code: league.Invalid, Field: "body", Message: fmt.Sprintf("not a catalog: %v", err)}
	}
	if body.Entries == nil {
		return nil, &league.Error{Code: league.Invalid, Field: "entries", Message: "required"}
	}
	out := make([]CatalogEntry, len(*body.Entries))
	for i, en := range *body.Entries {
		field := "entries[" + strconv.Itoa(i) + "]."
		if en.Member == nil {
			return nil, &league.Error{Code: league.Invalid, Field: field + "member", Message: "required"}
		}
		out[i] = CatalogEntry{Member: *en.Member, Name: en.Name}
		if len(en.Metadata) > 0 && string(en.Metadata) != "null" {
			out[i].Metadata = en.Metadata
		}
		if en.InitialScore != "" {
			n, err := strconv.ParseInt(string(en.InitialScore), 10, 64)
			if err != nil {
				return nil, &league.Error{Code: league.Invalid, Field: field + "initial_score", Message: fmt.Sprintf("%q is not a whole number", excerpt.Of(string(en.InitialScore)))}
			}
			out[i].InitialScore = n
		}
		if en.Multiplier != "" {
			n, err := strconv.ParseInt(string(en.Multiplier), 10, 64)
			if err != nil {
				return nil, &league.Error{Code: league.Invalid, Field: field + "multiplier", Message: fmt.Sprintf("%q is not a whole number", excerpt.Of(string(en.Multiplier)))}
			}
			out[i].Multiplier = n
		}
	}
	return out, nil
}
