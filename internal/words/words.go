// Package words writes counts for messages people read: "1 player",
// "2 players".
package words

import "strconv"

// Count returns n and noun, the noun in the plural (an s added) unless n
// is 1.
func Count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
