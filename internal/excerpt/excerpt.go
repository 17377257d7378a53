// Package excerpt shortens input that an error message echoes: a message
// should name what was refused, not send a megabyte of it back.
package excerpt

import (
	"strconv"
	"unicode/utf8"
)

// keep is how many bytes of a long input an excerpt shows.
const keep = 40

// Of returns s if it is short, else its first 40 bytes (cut at a character
// boundary) and how long it was.
func Of(s string) string {
	if len(s) <= keep+16 {
		return s
	}
	cut := keep
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "… (" + strconv.Itoa(len(s)) + " bytes)"
}
