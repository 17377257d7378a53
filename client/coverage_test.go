package client_test

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/league-engine/league/client"
)

// methodOf is the client's call for each operation of api/openapi.yaml
// under /v1. A route added to the document fails TestEveryRoute until the
// client calls it (and it is listed here).
var methodOf = map[string]string{
	"join": "Join", "score": "Score", "scoreBatch": "ScoreBatch", "player": "Player", "standings": "Standings",
	"board": "Board", "leagues": "Leagues", "league": "League",
	"leaderboards": "Leaderboards", "leaderboard": "Leaderboard", "leaderboardWrite": "Write",
	"leaderboardWriteBatch": "WriteBatch", "leaderboardsWriteBatch": "WriteAcross", "leaderboardBoard": "Top",
	"leaderboardMember": "Member", "leaderboardMembers": "Members",
	"leaderboardImport": "ImportCatalog", "leaderboardCatalog": "Catalog", "leaderboardCatalogEntry": "CatalogEntry",
	"leaderboardMultiplier": "SetMultiplier", "leaderboardLimits": "Limits",
	"settle": "Settle", "settlements": "Settlements", "previewSettlement": "Preview", "heldWrites": "HeldWrites",
	"approveHeld": "ApproveHeld", "rejectHeld": "RejectHeld",
	"hidePlayer": "Moderate", "unhidePlayer": "Moderate", "removePlayer": "Moderate", "setPlayerScore": "Moderate",
	"banPlayer": "Moderate", "unbanPlayer": "Moderate", "audit": "Audit", "events": "Events", "archivedOutcomes": "Outcomes",
	"correctSettledPeriod": "Correct", "corrections": "Corrections", "trail": "Trail",
}

func TestEveryRoute(t *testing.T) {
	b, err := os.ReadFile("../api/openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]map[string]struct {
			OperationID string `yaml:"operationId"`
		} `yaml:"paths"`
	}
	if err := yaml.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	c := reflect.TypeOf(&client.Client{})
	n := 0
	for path, ops := range doc.Paths {
		if !strings.HasPrefix(path, "/v1/") {
			continue
		}
		for method, op := range ops {
			n++
			name, ok := methodOf[op.OperationID]
			if !ok {
				t.Errorf("%s %s (%s): no client call", strings.ToUpper(method), path, op.OperationID)
				continue
			}
			if _, ok := c.MethodByName(name); !ok {
				t.Errorf("%s: client.Client has no method %s", op.OperationID, name)
			}
		}
	}
	if n != len(methodOf) {
		t.Errorf("the document has %d operations under /v1, methodOf %d: remove what the API no longer has", n, len(methodOf))
	}
}

// TestStandardLibraryOnly keeps the package free of dependencies: a game
// server takes it in without the service's.
func TestStandardLibraryOnly(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		ast, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range ast.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if first, _, _ := strings.Cut(p, "/"); strings.Contains(first, ".") {
				t.Errorf("%s imports %s: the client uses the standard library only", f, p)
			}
		}
	}
}
