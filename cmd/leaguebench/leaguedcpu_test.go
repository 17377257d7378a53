package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// exposition is the start of a real leagued /metrics, with the counter
// among the process collector's other lines.
const exposition = `# HELP go_gc_duration_seconds A summary of the wall-time pause (stop-the-world) duration in garbage collection cycles.
# TYPE go_gc_duration_seconds summary
go_gc_duration_seconds{quantile="0"} 2.1e-05
# HELP process_cpu_seconds_total Total user and system CPU time spent in seconds.
# TYPE process_cpu_seconds_total counter
process_cpu_seconds_total %s
# HELP process_max_fds Maximum number of open file descriptors.
# TYPE process_max_fds gauge
process_max_fds 1.048576e+06
`

func TestParseProcessCPU(t *testing.T) {
	cases := []struct {
		name, body string
		want       float64
		wantErr    string
	}{
		{"plain", fmt.Sprintf(exposition, "12.34"), 12.34, ""},
		{"exponent", fmt.Sprintf(exposition, "1.5e+01"), 15, ""},
		{"with timestamp", fmt.Sprintf(exposition, "3.25 1700000000000"), 3.25, ""},
		{"zero", fmt.Sprintf(exposition, "0"), 0, ""},
		{"longer name only", "process_cpu_seconds_total_x 5\n", 0, "no process_cpu_seconds_total line"},
		{"comment only", "# HELP process_cpu_seconds_total Total CPU.\n", 0, "no process_cpu_seconds_total line"},
		{"empty", "", 0, "no process_cpu_seconds_total line"},
		{"no value", "process_cpu_seconds_total \n", 0, "has no value"},
		{"garbage", fmt.Sprintf(exposition, "lots"), 0, `"lots" is not a count of seconds`},
		{"negative", fmt.Sprintf(exposition, "-1"), 0, "is not a count of seconds"},
		{"NaN", fmt.Sprintf(exposition, "NaN"), 0, "is not a count of seconds"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := parseProcessCPU(strings.NewReader(c.body))
			switch {
			case c.wantErr == "" && err != nil:
				t.Fatalf("got error %v, want %v", err, c.want)
			case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
				t.Fatalf("got %v, %v; want an error saying %q", got, err, c.wantErr)
			case c.wantErr == "" && got != c.want:
				t.Fatalf("got %v, want %v", got, c.want)
			}
		})
	}
}

func TestCPUTally(t *testing.T) {
	var tl cpuTally
	if _, ok := tl.total(); ok {
		t.Error("a tally of no turns should be unknown")
	}
	if err := tl.add(10, 10.5, nil); err != nil {
		t.Fatal(err)
	}
	if err := tl.add(20, 20.25, nil); err != nil {
		t.Fatal(err)
	}
	if secs, ok := tl.total(); !ok || secs != 0.75 {
		t.Errorf("two turns of 0.5 s and 0.25 s: got %v, %v; want 0.75, true", secs, ok)
	}
	if err := tl.add(5, 4, nil); !errors.Is(err, errCounterBack) {
		t.Errorf("a counter that went back: got %v, want errCounterBack", err)
	}
	if _, ok := tl.total(); ok {
		t.Error("a lost turn should make the tally unknown, not quietly low")
	}
	var failed cpuTally
	if err := failed.add(0, 0, errString("refused")); err == nil {
		t.Error("a failed reading should be returned")
	}
	if _, ok := failed.total(); ok {
		t.Error("a tally whose only turn failed should be unknown")
	}
}

// fakeLeagued serves /metrics with a CPU counter that grows by step at each
// scrape, and counts the scrapes.
func fakeLeagued(t *testing.T, step float64) (*httptest.Server, *atomic.Int64) {
	var scrapes atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/metrics" {
			http.NotFound(w, r)
			return
		}
		n := scrapes.Add(1)
		fmt.Fprintf(w, exposition, fmt.Sprint(float64(n)*step))
	}))
	t.Cleanup(srv.Close)
	return srv, &scrapes
}

func TestLeaguedCPUScrape(t *testing.T) {
	srv, _ := fakeLeagued(t, 0.5)
	c := newLeaguedCPU(srv.URL+"/", slog.New(slog.NewTextHandler(io.Discard, nil)))
	for _, want := range []float64{0.5, 1} {
		if got, err := c.seconds(context.Background()); err != nil || got != want {
			t.Errorf("got %v, %v; want %v", got, err, want)
		}
	}
	// A server that is not leagued (no such route) is an error, and the
	// warning that says so is logged once however often it fails.
	var logged strings.Builder
	bad := newLeaguedCPU(srv.URL+"/nope", slog.New(slog.NewTextHandler(&logged, nil)))
	for range 3 {
		_, err := bad.seconds(context.Background())
		if err == nil || !strings.Contains(err.Error(), "HTTP 404") {
			t.Fatalf("got %v, want an HTTP 404 error", err)
		}
		bad.warn(err)
	}
	if n := strings.Count(logged.String(), "leagued µs/op shows -"); n != 1 {
		t.Errorf("warned %d times, want once:\n%s", n, logged.String())
	}
}

// TestMeasureReadsLeaguedCPU drives a trivial op against a fake leagued's
// /metrics: each turn reads its counter before and after, so the tally is
// the sum of the deltas. Needs the real Redis (measure reads INFO cpu).
func TestMeasureReadsLeaguedCPU(t *testing.T) {
	o := smokeOptions()
	rdb, err := openRedis(context.Background(), o.redisURL, 4)
	if err != nil {
		t.Fatalf("%v (is Redis up? `make test` starts it)", err)
	}
	defer rdb.Close()
	b := &bench{o: o, rdb: rdb, log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	srv, scrapes := fakeLeagued(t, 0.25) // each scrape 0.25 s on: a turn is 0.25 s
	lc := newLeaguedCPU(srv.URL, b.log)
	s := spec{label: "noop", unit: "ops", conc: 2, duration: 20 * time.Millisecond}
	m := newMeasurement(s)
	noop := func(context.Context, *worker) (int, error) { time.Sleep(time.Millisecond); return 1, nil }
	for range 2 {
		b.measure(context.Background(), s, noop, nil, m, lc)
	}
	if secs, ok := m.leagued.total(); !ok || secs != 0.5 || m.leagued.turns != 2 {
		t.Errorf("got %v s over %d turns (known %v); want 0.5 s over 2", secs, m.leagued.turns, ok)
	}
	if n := scrapes.Load(); n != 4 {
		t.Errorf("%d scrapes, want one before and one after each of 2 turns", n)
	}
	// Without a leagued the tally stays empty (the column shows -).
	in := newMeasurement(s)
	b.measure(context.Background(), s, noop, nil, in, nil)
	if _, ok := in.leagued.total(); ok {
		t.Error("an in-process target should have no leagued CPU")
	}
	// A leagued that stops answering makes the tally unknown.
	srv.Close()
	b.measure(context.Background(), s, noop, nil, m, lc)
	if _, ok := m.leagued.total(); ok {
		t.Error("a failed scrape should make the tally unknown")
	}
}
