package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSimulate: leaguectl simulate prints a row per period with every tier
// of the config's league, draws the SVG, and refuses a bad model.
func TestSimulate(t *testing.T) {
	svg := filepath.Join(t.TempDir(), "tiers.svg")
	var out bytes.Buffer
	err := run(context.Background(), []string{"simulate", "-config", "../../config.yaml", "-league", "weekly",
		"-players", "3000", "-periods", "4", "-seed", "2", "-svg", svg}, &out)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 8 || !strings.Contains(lines[1], "bronze") || !strings.Contains(lines[1], "promoted") ||
		!strings.HasPrefix(strings.TrimSpace(lines[5]), "4 ") {
		t.Fatalf("output:\n%s", out.String())
	}
	b, err := os.ReadFile(svg)
	if err != nil || !bytes.Contains(b, []byte("<polyline")) || !bytes.HasSuffix(b, []byte("</svg>\n")) {
		t.Fatalf("svg: %v\n%.300s", err, b)
	}
	for _, args := range [][]string{{"-players", "0"}, {"-league", "nope"}, {"-periods", "1001"}} {
		err := run(context.Background(), append([]string{"simulate", "-config", "../../config.yaml"}, args...), &out)
		if _, usage := err.(usageError); !usage {
			t.Errorf("simulate %v: %v, want a usage error", args, err)
		}
	}
}
