package main_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/league-engine/league/internal/testsvc"
)

// otlpReceiver is a collector's OTLP/HTTP traces endpoint that keeps the
// spans it is sent.
type otlpReceiver struct {
	mu    sync.Mutex
	spans map[string]map[string]string // span name -> its string attributes
	kinds map[string]string            // span name -> the scope that made it
}

func (o *otlpReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req coltrace.ExportTraceServiceRequest
	if r.URL.Path != "/v1/traces" || proto.Unmarshal(body, &req) != nil {
		http.Error(w, "not an OTLP traces export", http.StatusBadRequest)
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, rs := range req.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				attrs := map[string]string{}
				for _, a := range s.Attributes {
					attrs[a.Key] = a.Value.GetStringValue()
				}
				o.spans[s.Name], o.kinds[s.Name] = attrs, ss.Scope.GetName()
			}
		}
	}
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Write(nil)
}

// TestLeaguedTraces: configured with an OTLP endpoint, leagued sends a span
// for each request, named by its route, with the request id and the key's
// name, and spans for the Redis and Postgres calls it made.
func TestLeaguedTraces(t *testing.T) {
	recv := &otlpReceiver{spans: map[string]map[string]string{}, kinds: map[string]string{}}
	collector := httptest.NewServer(recv)
	defer collector.Close()

	bin := build(t)
	ns := testsvc.Namespace(t)
	testsvc.Redis(t, ns)
	_, dsn := testsvc.Postgres(t)
	addr := freeAddr(t)
	yaml := fmt.Sprintf(e2eConfig, addr, apiKey, adminKey, ns) + "tracing:\n  otlp_endpoint: " + collector.URL + "\n"
	cfgPath := filepath.Join(t.TempDir(), "config.yaml")
	testsvc.Must(t, os.WriteFile(cfgPath, []byte(yaml), 0o600), "config")
	var logs bytes.Buffer
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "LEAGUE_CONFIG="+cfgPath, "REDIS_URL="+testsvc.RedisURL(), "DATABASE_URL="+dsn)
	cmd.Stdout, cmd.Stderr = &logs, &logs
	testsvc.Must(t, cmd.Start(), "start leagued")
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		if t.Failed() {
			t.Logf("leagued log:\n%s", logs.String())
		}
	})
	c := &client{t: t, base: "http://" + addr}
	c.waitReady(exited)
	req, _ := http.NewRequest("POST", c.base+"/v1/leagues/e2e/join", strings.NewReader(`{"player_id":"traced","name":"Traced"}`))
	req.Header.Set("Authorization", "Bearer "+apiKey)
	req.Header.Set("X-Request-Id", "trace-me-1")
	resp, err := http.DefaultClient.Do(req)
	testsvc.Must(t, err, "join")
	resp.Body.Close()
	c.get("/v1/admin/leagues/e2e/settlements", adminKey, 200, nil) // a Postgres read

	const join = "POST /v1/leagues/{league}/join"
	deadline := time.Now().Add(20 * time.Second) // the batcher exports every 5 s
	for {
		recv.mu.Lock()
		attrs, joined := recv.spans[join]
		redis, postgres := false, false
		for name, scope := range recv.kinds {
			redis = redis || (strings.Contains(scope, "redis") && strings.Contains(strings.ToLower(name), "evalsha"))
			postgres = postgres || strings.Contains(scope, "pgx")
		}
		recv.mu.Unlock()
		if joined && redis && postgres {
			if attrs["league.request_id"] != "trace-me-1" || attrs["league.key"] == "" {
				t.Fatalf("the join's span attributes: %v", attrs)
			}
			return
		}
		if time.Now().After(deadline) {
			recv.mu.Lock()
			defer recv.mu.Unlock()
			t.Fatalf("after 20 s: the join's span %v, a Redis EVALSHA span %v, a Postgres span %v; spans %v", joined, redis, postgres, recv.kinds)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
