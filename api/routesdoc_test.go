package api_test

import (
	"os"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/league-engine/league/api"
)

// TestRoutesDocumented: every operation of openapi.yaml has its row in
// docs/http.md's route table ("`METHOD /path`"), so a route added to the
// API cannot be missing from the guide.
func TestRoutesDocumented(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromData(api.OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	guide, err := os.ReadFile("../docs/http.md")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			n++
			if row := "`" + method + " " + path + "`"; !strings.Contains(string(guide), row) {
				t.Errorf("docs/http.md's route table has no %s", row)
			}
		}
	}
	if n < 30 {
		t.Fatalf("found %d operations: the document did not load as expected", n)
	}
}
