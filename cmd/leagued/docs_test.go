package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestMetricsDocumented: every metric the service registers has a row in
// docs/operations.md, so an operator finds each one there.
func TestMetricsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/operations.md")
	if err != nil {
		t.Fatal(err)
	}
	for name, path := range registeredMetrics(t) {
		if !strings.Contains(string(doc), "`"+name+"`") {
			t.Errorf("%s: metric %s is not in docs/operations.md", path, name)
		}
	}
}

// registeredMetrics are the metrics the service registers (a Name:
// "league_..." in its Go source, tests aside), each with a file naming it.
func registeredMetrics(t *testing.T) map[string]string {
	t.Helper()
	name := regexp.MustCompile(`Name:\s+"(league_[a-z0-9_]+)"`)
	found := map[string]string{}
	err := filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range name.FindAllStringSubmatch(string(src), -1) {
			found[m[1]] = path
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(found) < 20 {
		t.Fatalf("found %d metrics in the source; the pattern no longer matches how they are registered", len(found))
	}
	return found
}
