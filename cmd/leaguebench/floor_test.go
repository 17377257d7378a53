package main

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
)

// TestMain lets the test binary be the floor server too: startFloor starts
// os.Executable, which under `go test` is this binary.
func TestMain(m *testing.M) {
	if len(os.Args) == 2 && os.Args[1] == floorServerArg {
		if err := serveFloor(os.Stdin, os.Stdout); err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// The floor server answers a score write with a score reply's bytes,
// refuses a body that is not JSON, and reports its CPU as leagued does.
func TestFloorHandler(t *testing.T) {
	cases := []struct {
		name, method, path, body string
		status                   int
		reply                    string
	}{
		{"score write", "POST", "/v1/leagues/floor/scores", `{"player_id":"p1","value":3,"request_id":"r1"}`, 200, string(floorReply)},
		{"no body", "GET", "/v1/leagues/floor/players/p1", "", 200, string(floorReply)},
		{"not JSON", "POST", "/v1/leagues/floor/scores", `{"player_id":`, 400, "unexpected end of JSON input\n"},
		{"wrong type", "POST", "/v1/leagues/floor/scores", `{"value":"3"}`, 400, "json: cannot unmarshal"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			floorHandler(rec, httptest.NewRequest(c.method, c.path, strings.NewReader(c.body)))
			if rec.Code != c.status || !strings.HasPrefix(rec.Body.String(), c.reply) {
				t.Errorf("got %d %q, want %d %q", rec.Code, rec.Body.String(), c.status, c.reply)
			}
		})
	}
	rec := httptest.NewRecorder()
	floorHandler(rec, httptest.NewRequest("GET", "/metrics", nil))
	if s, err := parseProcessCPU(rec.Body); err != nil || s <= 0 {
		t.Errorf("/metrics: %v seconds, %v; want this process's CPU", s, err)
	}
}

// The floor server runs as a process of its own, serves the score
// workload's requests, and ends when its stdin closes.
func TestFloorServerProcess(t *testing.T) {
	f, err := startFloor(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(strings.TrimSuffix(f.target.base, "/v1/leagues/floor")+"/v1/leagues/floor/scores",
		"application/json", bytes.NewReader([]byte(`{"player_id":"p1","value":1}`)))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !bytes.Equal(body, floorReply) {
		t.Errorf("got %d %q", resp.StatusCode, body)
	}
	if err := f.stop(); err != nil {
		t.Errorf("stop: %v", err)
	}
	if f.cmd.ProcessState == nil || !f.cmd.ProcessState.Exited() || f.cmd.ProcessState.ExitCode() != 0 {
		t.Errorf("the floor server did not exit cleanly: %v", f.cmd.ProcessState)
	}
}
