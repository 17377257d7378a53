package league

import "time"

// record is what the engine remembers of a player between periods, one
// 9-byte value in a bucket hash (keys.go):
//
//	bytes 0-3  start of the last period the player joined, Unix seconds, big endian
//	byte  4    tier code they played that period in
//	bytes 5-7  their join number in that tier and period (board and slot derive from it)
//	byte  8    tier code settlement moved them to, or noTier while it has not
//
// scripts/common.lua encodes and decodes the same bytes.
type record struct {
	start int64
	tier  int // tier code
	n     int
	next  int // tier code, or noTier
}

const (
	recordLen = 9
	noTier    = 255
	// maxJoins is the most players one tier can place in one period (3 bytes).
	maxJoins = 1<<24 - 1
)

func decodeRecord(s string) (record, bool) {
	if len(s) != recordLen {
		return record{}, false
	}
	b := []byte(s)
	return record{
		start: int64(b[0])<<24 | int64(b[1])<<16 | int64(b[2])<<8 | int64(b[3]),
		tier:  int(b[4]),
		n:     int(b[5])<<16 | int(b[6])<<8 | int(b[7]),
		next:  int(b[8]),
	}, true
}

func (r record) encode() string {
	return string([]byte{
		byte(r.start >> 24), byte(r.start >> 16), byte(r.start >> 8), byte(r.start),
		byte(r.tier), byte(r.n >> 16), byte(r.n >> 8), byte(r.n), byte(r.next),
	})
}

func (r record) startTime() time.Time { return time.Unix(r.start, 0).UTC() }

// placement returns the board number and 1-based slot of join number n.
func placement(n, size int) (board, slot int) {
	board = (n + size - 1) / size // ceil(n/size)
	return board, n - (board-1)*size
}

// BoardOf returns the sub-board number and 1-based slot of the n-th join
// of a tier in a period, on boards of size players: what join.lua's HINCRBY
// decides (for tools that model placement, such as the season simulator).
func BoardOf(n, size int) (board, slot int) { return placement(n, size) }
