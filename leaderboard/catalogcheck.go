package leaderboard

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/league-engine/league/internal/excerpt"
	"github.com/league-engine/league/league"
)

// An import is all or nothing: every entry is checked before any is
// written, and a refused import says what is wrong with each entry it
// refused, not only the first (an operator fixes a file in one go), as an
// *ImportError under the league.Error the API and the console show.

// Problem is one thing wrong with an entry of a catalog import.
type Problem struct {
	// Entry names the entry: "row 7" of a CSV file (row 1 is the header),
	// "entries[3]" of a JSON body.
	Entry string
	// Field is the field or column at fault ("name", "initial_score"),
	// empty for the row as a whole (a CSV row of the wrong length).
	Field   string
	Message string

	overflow bool // an initial score past the maximum (league.Overflow)
	row      int  // the CSV row, which orders problems
}

func (p Problem) String() string {
	at := p.Entry
	if p.Field != "" {
		at += "." + p.Field
	}
	return at + ": " + p.Message
}

// MaxProblems is how many problems an ImportError lists; it counts the
// rest.
const MaxProblems = 100

// ImportError is why an import was refused: the cause of its
// league.Error (Invalid; Overflow when every problem is an initial score
// past the maximum).
type ImportError struct {
	Problems []Problem // in the file's order, at most MaxProblems
	More     int       // problems past those listed
	// Imported is how many entries were written before the refusal: 0,
	// unless a write raced the import past its check (Engine.Import).
	Imported int
}

func (e *ImportError) Error() string {
	return fmt.Sprintf("catalog import refused: %d problem(s)", len(e.Problems)+e.More)
}

// problemsInMessage is how many problems an import error's message lists
// (the ImportError lists up to MaxProblems).
const problemsInMessage = 10

// importError is the error of an import refused for problems (ordered by
// row where they have one), imported entries having been written first.
func importError(problems []Problem, imported int) error {
	slices.SortStableFunc(problems, func(a, b Problem) int { return a.row - b.row })
	ie := &ImportError{Problems: problems, Imported: imported}
	if len(problems) > MaxProblems {
		ie.Problems, ie.More = problems[:MaxProblems:MaxProblems], len(problems)-MaxProblems
	}
	code := league.Overflow
	for _, p := range problems {
		if !p.overflow {
			code = league.Invalid
		}
	}
	done := "nothing was imported"
	if imported > 0 {
		done = fmt.Sprintf("%d of the other entries were imported (the import is idempotent: import it again once fixed)", imported)
	}
	if len(problems) == 1 {
		p := problems[0]
		field := p.Entry
		if p.Field != "" {
			field += "." + p.Field
		}
		return &league.Error{Code: code, Field: field, Message: p.Message + "; " + done, Err: ie}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d problems, so %s: ", len(problems), done)
	for i, p := range problems[:min(len(problems), problemsInMessage)] {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(p.String())
	}
	if len(problems) > problemsInMessage {
		fmt.Fprintf(&b, "; and %d more", len(problems)-problemsInMessage)
	}
	return &league.Error{Code: code, Message: b.String(), Err: ie}
}

// catalogOf returns leaderboard id, refusing one without a catalog.
func (e *Engine) catalogOf(id string) (*Leaderboard, error) {
	l, err := e.Leaderboard(id)
	if err != nil {
		return nil, err
	}
	if !l.Catalog {
		return nil, &league.Error{Code: league.Invalid, Field: "leaderboard",
			Message: fmt.Sprintf("leaderboard %q has no catalog (catalog: true in its config)", id)}
	}
	return l, nil
}

// ImportCSV imports a CSV file (ParseCatalogCSV) into leaderboard id's
// catalog, as Import: when any row is refused, by the file's syntax or by
// the leaderboard's rules, nothing is imported and the error lists every
// row refused. It returns how many entries the file held and how many
// members changed.
func (e *Engine) ImportCSV(ctx context.Context, id string, r io.Reader) (entries, changed int, err error) {
	l, err := e.catalogOf(id)
	if err != nil {
		return 0, 0, err
	}
	list, problems, fatal := parseCatalogCSV(r)
	if fatal {
		return 0, 0, importError(problems, 0)
	}
	if n := len(list) + rowsRefused(problems); n > MaxImport {
		return 0, 0, &league.Error{Code: league.Invalid, Field: "entries",
			Message: fmt.Sprintf("%d rows; import at most %d a call", n, MaxImport)}
	}
	if problems = append(problems, l.catalogProblems(list)...); len(problems) > 0 {
		return 0, 0, importError(problems, 0)
	}
	changed, err = e.Import(ctx, id, list)
	return len(list), changed, err
}

// rowsRefused counts the rows problems name.
func rowsRefused(problems []Problem) int {
	rows := map[int]bool{}
	for _, p := range problems {
		rows[p.row] = true
	}
	return len(rows)
}

// ParseCatalogCSV reads a CSV file whose first row names the columns:
// member (required), name, initial_score, multiplier, and any others,
// which go into each member's metadata as strings (an avatar column:
// {"avatar": ...}). A refused file's error lists every row it refuses
// (an *ImportError; row 1 is the header) and the column.
func ParseCatalogCSV(r io.Reader) ([]CatalogEntry, error) {
	entries, problems, _ := parseCatalogCSV(r)
	if len(problems) > 0 {
		return nil, importError(problems, 0)
	}
	return entries, nil
}

// parseCatalogCSV reads a CSV file as ParseCatalogCSV does, on past the
// rows it cannot read: it returns the entries of the others and the
// problems of those. fatal: the header is refused, and nothing was read.
func parseCatalogCSV(r io.Reader) (entries []CatalogEntry, problems []Problem, fatal bool) {
	header1 := func(format string, args ...any) ([]CatalogEntry, []Problem, bool) {
		return nil, []Problem{{Entry: "row 1", Message: fmt.Sprintf(format, args...), row: 1}}, true
	}
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = 0 // every row as long as the header
	header, err := cr.Read()
	if err != nil {
		return header1("no header row: %v", err)
	}
	col := map[string]int{}
	for i, h := range header {
		h = strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))
		if _, dup := col[h]; dup || h == "" {
			return header1("column %d: %q is empty or named twice", i+1, excerpt.Of(h))
		}
		header[i], col[h] = h, i
	}
	if _, ok := col["member"]; !ok {
		return header1("no member column")
	}
	for row := 2; ; row++ {
		at := "row " + strconv.Itoa(row)
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return entries, problems, false
		}
		if err != nil {
			// A row of the wrong length, or quotes out of place: csv
			// reads on from the next line.
			problems = append(problems, Problem{Entry: at, Message: err.Error(), row: row})
			continue
		}
		c := CatalogEntry{Member: rec[col["member"]], Place: at, row: row}
		meta := map[string]string{}
		good := true
		for i, v := range rec {
			switch header[i] {
			case "member":
			case "name":
				c.Name = v
			case "initial_score", "multiplier":
				if v == "" {
					continue
				}
				n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
				if err != nil {
					problems = append(problems, Problem{Entry: at, Field: header[i], row: row,
						Message: fmt.Sprintf("%q is not a whole number", excerpt.Of(v))})
					good = false
					continue
				}
				if header[i] == "multiplier" {
					c.Multiplier = n
				} else {
					c.InitialScore = n
				}
			default:
				if v != "" {
					meta[header[i]] = v
				}
			}
		}
		if len(meta) > 0 {
			c.Metadata, _ = json.Marshal(meta)
		}
		if good {
			entries = append(entries, c)
		}
	}
}
