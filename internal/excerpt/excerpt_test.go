package excerpt

import (
	"strings"
	"testing"
)

func TestOf(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"weekly", "weekly"},
		{strings.Repeat("a", 56), strings.Repeat("a", 56)},
		{strings.Repeat("a", 57), strings.Repeat("a", 40) + "… (57 bytes)"},
		// A character across the cut is left out whole, not split.
		{strings.Repeat("a", 39) + "é" + strings.Repeat("b", 30), strings.Repeat("a", 39) + "… (71 bytes)"},
	} {
		if got := Of(tc.in); got != tc.want {
			t.Errorf("Of(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
