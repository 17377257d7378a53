package postgres

import (
	"context"
	"encoding/binary"
	"io"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// copyIn streams n rows into table by COPY in PostgreSQL's binary format,
// row(b, i) appending row i to b with the append* functions below.
//
// Why not pgx's CopyFrom: it encodes every value through its type map, which
// at a million rows costs about two seconds of CPU, on a machine whose other
// core is busy inserting. The rows of settlement have a handful of fixed
// column types, and encoding them by hand costs a tenth of that.
func copyIn(ctx context.Context, tx pgx.Tx, table string, columns []string, n int, row func(b []byte, i int) []byte) error {
	if n == 0 {
		return nil
	}
	sql := "COPY " + pgx.Identifier{table}.Sanitize() + " (" + strings.Join(columns, ", ") + ") FROM STDIN (FORMAT binary)"
	_, err := tx.Conn().PgConn().CopyFrom(ctx, &copyReader{n: n, row: row}, sql)
	return err
}

// copyReader encodes rows as pgconn reads, a buffer at a time, so a
// million rows never sit in memory twice.
type copyReader struct {
	n, i int
	row  func(b []byte, i int) []byte
	buf  []byte
	off  int
	done bool
}

// copyHeader opens binary COPY data: signature, flags, no extension.
var copyHeader = []byte("PGCOPY\n\xff\r\n\x00\x00\x00\x00\x00\x00\x00\x00\x00")

func (r *copyReader) Read(p []byte) (int, error) {
	total := 0
	for len(p) > 0 {
		if r.off == len(r.buf) {
			if r.done {
				break
			}
			r.fill(len(p))
		}
		c := copy(p, r.buf[r.off:])
		r.off += c
		total += c
		p = p[c:]
	}
	if total == 0 && r.done {
		return 0, io.EOF
	}
	return total, nil
}

// fill encodes rows until the buffer holds about want bytes.
func (r *copyReader) fill(want int) {
	b := r.buf[:0]
	if r.i == 0 {
		b = append(b, copyHeader...)
	}
	for r.i < r.n && len(b) < want {
		b = r.row(b, r.i)
		r.i++
	}
	if r.i == r.n {
		b = binary.BigEndian.AppendUint16(b, 0xffff) // trailer: field count -1
		r.done = true
	}
	r.buf, r.off = b, 0
}

// Fields of the binary format: a 4-byte length, then the value in the
// type's binary representation.

func appendFields(b []byte, n int) []byte { return binary.BigEndian.AppendUint16(b, uint16(n)) }

func appendText(b []byte, s string) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(s)))
	return append(b, s...)
}

// appendTextOrNull appends s, or NULL (length -1) for "": most players
// have no avatar, and NULL costs the row nothing.
func appendTextOrNull(b []byte, s string) []byte {
	if s == "" {
		return binary.BigEndian.AppendUint32(b, 0xffffffff)
	}
	return appendText(b, s)
}

func appendInt4(b []byte, v int) []byte {
	b = binary.BigEndian.AppendUint32(b, 4)
	return binary.BigEndian.AppendUint32(b, uint32(int32(v)))
}

func appendInt8(b []byte, v int64) []byte {
	b = binary.BigEndian.AppendUint32(b, 8)
	return binary.BigEndian.AppendUint64(b, uint64(v))
}

// postgresEpoch is where timestamptz counts microseconds from.
var postgresEpoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC).UnixMicro()

func appendTimestamptz(b []byte, t time.Time) []byte {
	return appendInt8(b, t.UnixMicro()-postgresEpoch)
}

// appendJSONB appends JSON text as jsonb: format version 1, then the text.
func appendJSONB(b []byte, js []byte) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(js)+1))
	b = append(b, 1)
	return append(b, js...)
}

// Element types of the arrays settlement writes (pg_type's oids): an
// array's binary form names its element type, and Postgres refuses one
// that is not the column's.
const (
	oidChar uint32 = 18 // "char"
	oidInt8 uint32 = 20
	oidInt4 uint32 = 23
	oidText uint32 = 25
)

// appendArray appends a one-dimensional array of n elements of type oid,
// elem(b, i) appending element i as a field (appendText, appendInt4, ...).
// nulls says whether an element is NULL.
func appendArray(b []byte, oid uint32, n int, nulls bool, elem func(b []byte, i int) []byte) []byte {
	start := len(b)
	b = append(b, 0, 0, 0, 0) // the field's length, known at the end
	flags := uint32(0)
	if nulls {
		flags = 1
	}
	for _, v := range [...]uint32{1, flags, oid, uint32(n), 1} { // dimensions, flags, type, length, lower bound
		b = binary.BigEndian.AppendUint32(b, v)
	}
	for i := range n {
		b = elem(b, i)
	}
	binary.BigEndian.PutUint32(b[start:], uint32(len(b)-start-4))
	return b
}

// appendChar appends a "char".
func appendChar(b []byte, c byte) []byte {
	return append(binary.BigEndian.AppendUint32(b, 1), c)
}
