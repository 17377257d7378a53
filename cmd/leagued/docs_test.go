package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestMetricsDocumented: every metric the service registers (a Name:
// "league_..." in its Go source) has a row in docs/operations.md, so an
// operator finds each one there.
func TestMetricsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/operations.md")
	if err != nil {
		t.Fatal(err)
	}
	name := regexp.MustCompile(`Name:\s+"(league_[a-z0-9_]+)"`)
	found := 0
	err = filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range name.FindAllStringSubmatch(string(src), -1) {
			found++
			if !strings.Contains(string(doc), "`"+m[1]+"`") {
				t.Errorf("%s: metric %s is not in docs/operations.md", path, m[1])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found < 20 {
		t.Fatalf("found %d metrics in the source; the pattern no longer matches how they are registered", found)
	}
}
