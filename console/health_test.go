package console_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/league-engine/league/console"
	"github.com/league-engine/league/inmem"
)

// TestHealthPage: Redis and the store up, the writes per second the API
// served between two looks, and each league's settlement on this replica.
func TestHealthPage(t *testing.T) {
	f := newFixture(t, bothKeys)
	cookie := f.signin(adminKey)
	rep := f.get("/console/health", cookie)
	if rep.status != http.StatusOK {
		t.Fatalf("got %d, want 200: %s", rep.status, rep.body)
	}
	wants(t, "the health page", rep.body, "<strong>Redis</strong>\n<span class=\"state\">● up</span>",
		"<strong>Postgres</strong>\n<span class=\"state\">● up</span>", "<dt>Writes per second</dt><dd>0.00</dd>",
		`<a href="/console/leagues/weekly">weekly</a>`, "<td>none since start</td>", `data-live="/console/health/live"`)

	for _, p := range []string{"ann", "bob", "cy"} {
		f.apiPost("/v1/leagues/weekly/join", `{"player_id":"`+p+`","name":"`+p+`"}`)
	}
	rep = f.get("/console/health/live", cookie)
	m := regexp.MustCompile(`<dt>Writes per second</dt><dd>([0-9.,]+)</dd>`).FindStringSubmatch(rep.body)
	if m == nil || m[1] == "0.00" {
		t.Errorf("after 3 joins: got writes per second %v, want above 0: %s", m, rep.body)
	}
	if strings.Contains(rep.body, "<html") {
		t.Errorf("the live part is a whole page: %s", rep.body)
	}
}

// downStore is a store whose ping fails.
type downStore struct{ *inmem.Store }

func (downStore) Ping(context.Context) error { return errors.New("connection refused") }

type keysOff struct{}

func (keysOff) Off() bool                    { return true }
func (keysOff) Admin(string) (string, error) { return "", nil }
func (keysOff) IsAdmin(string) bool          { return false }

// TestHealthDown: a store that does not answer shows down, saying why; a
// console without a registry or a scheduler says it has none.
func TestHealthDown(t *testing.T) {
	f := newFixture(t, nil)
	c := console.New(console.Config{Engine: f.engine, Store: downStore{f.store}, Keys: keysOff{}, Redis: f.rdb, Namespace: f.ns,
		StoreNote: "in memory: nothing survives a restart"})
	srv := httptest.NewServer(c)
	t.Cleanup(srv.Close)
	resp, err := http.Get(srv.URL + "/console/health")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	wants(t, "the health page", string(b), "<strong>Store</strong>\n<span class=\"state\">✖ down</span>: connection refused",
		"in memory: nothing survives a restart", "No metrics to show", "This process runs no scheduler.")
}
