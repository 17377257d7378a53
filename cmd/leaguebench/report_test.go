package main

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestFormatting(t *testing.T) {
	cases := []struct {
		name, got, want string
	}{
		{"thousands 0", thousands(0), "0"},
		{"thousands 999", thousands(999), "999"},
		{"thousands 15230", thousands(15230.4), "15,230"},
		{"thousands 1000000", thousands(1e6), "1,000,000"},
		{"thousands negative", thousands(-1234), "-1,234"},
		{"thousands NaN", thousands(math.NaN()), "-"},
		{"duration µs", duration(850 * time.Microsecond), "850µs"},
		{"duration ms", duration(2140 * time.Microsecond), "2.14ms"},
		{"duration 10s of ms", duration(31200 * time.Microsecond), "31.2ms"},
		{"duration 100s of ms", duration(412 * time.Millisecond), "412ms"},
		{"duration s", duration(1234 * time.Millisecond), "1.23s"},
		{"seconds short", seconds(420 * time.Millisecond), "0.42s"},
		{"seconds long", seconds(12340 * time.Millisecond), "12.3s"},
		{"ratio", ratio(0.6249), "0.62×"},
		{"ratio unknown", ratio(math.NaN()), "-"},
		{"bytes", bytesIEC(512), "512 B"},
		{"KiB", bytesIEC(3482), "3.4 KiB"},
		{"MiB", bytesIEC(118 << 20), "118.0 MiB"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.got != c.want {
				t.Errorf("got %q, want %q", c.got, c.want)
			}
		})
	}
}

func TestTableIsPaddedMarkdown(t *testing.T) {
	type r struct {
		name string
		n    int
	}
	cols := []column[r]{
		{"name", false, func(x r) string { return x.name }},
		{"ops/s", true, func(x r) string { return thousands(float64(x.n)) }},
		{"note", false, func(x r) string { return "a|b" }},
	}
	got := table(cols, []r{{"score", 15230}, {"board", 7}})
	want := "" +
		"| name  |  ops/s | note |\n" +
		"| ----- | -----: | ---- |\n" +
		"| score | 15,230 | a\\|b |\n" +
		"| board |      7 | a\\|b |\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestReportRow checks a workload row end to end: rates, percentiles,
// ratios and the error list.
func TestReportRow(t *testing.T) {
	mk := func(label string, units uint64, lat time.Duration, elapsed time.Duration) *measurement {
		m := &measurement{label: label, unit: "ops", conc: 32, elapsed: elapsed}
		m.units.Store(units)
		for range 100 {
			m.latency.record(lat)
		}
		return m
	}
	work := mk("score/http", 15000, 2*time.Millisecond, time.Second)
	work.errs.add(errString("HTTP 409: conflict"))
	work.errs.add(errString("HTTP 409: conflict"))
	base := mk("score/http baseline", 30000, time.Millisecond, time.Second)
	rep := &report{env: "test box", rows: []*row{{workload: "score", via: "http", players: 10000, perUnit: true,
		work: work, base: base, baseLabel: evalshaLabel}}}
	var b strings.Builder
	rep.write(&b)
	out := b.String()
	for _, want := range []string{
		"| score    | http |  10,000 |   32 | 15,000 | 2.00ms | 2.00ms | 2.00ms |      2 |",
		"| EVALSHA trivial |     30,000 |",
		"|         0.50× |       2.00× |",
		"score/http: 2 errors, first distinct:\n  - HTTP 409: conflict\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q; got\n%s", want, out)
		}
	}
	// A closed-loop row beside open-loop ones (-rate 0,5000) leaves the
	// open-loop columns empty.
	open := mk("score/http", 5000, time.Millisecond, time.Second)
	open.rate = 5000
	for range 100 {
		open.service.record(800 * time.Microsecond)
		open.lag.record(200 * time.Microsecond)
	}
	rep.rows = append(rep.rows, &row{workload: "score", via: "http", players: 10000, perUnit: true, work: open})
	b.Reset()
	rep.write(&b)
	out = b.String()
	for _, want := range []string{
		"| score    | http |  10,000 |   32 |        - | 15,000 | 2.00ms | 2.00ms | 2.00ms |             - |                - |",
		"| score    | http |  10,000 |   32 |    5,000 |  5,000 | 1.00ms | 1.00ms | 1.00ms |         800µs |    200µs / 200µs |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("mixed open- and closed-loop report lacks %q; got\n%s", want, out)
		}
	}
	batch := &row{workload: "batch", via: "http", work: work, base: base}
	if got := ratio(batch.p99Ratio()); got != "-" {
		t.Errorf("batch p99 ratio: got %s, want - (a batch's latency is not a write's)", got)
	}
}

type errString string

func (e errString) Error() string { return string(e) }

func TestMicrosPer(t *testing.T) {
	cases := []struct {
		secs  float64
		units uint64
		want  float64
	}{
		{0.5, 10000, 50},    // half a CPU second over 10,000 ops
		{2.5, 1000000, 2.5}, // 2.5 s over a million
		{0, 100, 0},
	}
	for _, c := range cases {
		if got := microsPer(c.secs, c.units); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("microsPer(%v, %v) = %v, want %v", c.secs, c.units, got, c.want)
		}
	}
	if got := microsPer(1, 0); !math.IsNaN(got) {
		t.Errorf("microsPer over no units = %v, want NaN", got)
	}
}

// TestPerOpColumns checks the CPU-per-op cells and whose CPU each column
// says it is: a separate leagued's from its /metrics, this process's
// (server+load) for a product in this process, per write on batch rows.
func TestPerOpColumns(t *testing.T) {
	mk := func(label, unit string, units uint64, proc, redis float64, leagued ...float64) *measurement {
		m := &measurement{label: label, unit: unit, conc: 16, elapsed: time.Second, procSecs: proc, redisSecs: redis}
		m.units.Store(units)
		m.latency.record(time.Millisecond)
		for _, l := range leagued {
			m.leagued.add(0, l, nil)
		}
		return m
	}
	// In-process: lib and http rows, no leagued column.
	lib := &row{workload: "score", via: "lib", players: 2000, perUnit: true, baseLabel: evalshaLabel,
		work: mk("score/lib", "ops", 40000, 0.4, 0.8), base: mk("score/lib baseline", "ops", 50000, 0.5, 0.75)}
	batch := &row{workload: "batch", via: "http", players: 2000, baseLabel: "single score writes",
		work: mk("batch/http", "writes", 100000, 0.3, 0.6), base: mk("batch/http baseline", "writes", 20000, 0.6, 0.5)}
	rep := &report{env: "test box", rows: []*row{lib, batch}}
	var b strings.Builder
	rep.write(&b)
	out := b.String()
	head := out[strings.Index(out, "| workload"):]
	head = head[:strings.Index(head, "\n")]
	if strings.Contains(head, leaguedHead) || strings.Contains(head, loadHead) || !strings.Contains(head, inProcessHead) {
		t.Errorf("in-process table: want only the %q column, got header\n%s", inProcessHead, head)
	}
	inCols := liveColumns(false, scopesOf(rep.rows))
	for _, c := range []struct {
		r          *row
		head, want string
	}{
		{lib, "Redis µs/op", "20.0 / 15.0"},            // 0.8 s / 40k ops, 0.75 s / 50k
		{lib, inProcessHead, "10.0 / 10.0"},            // this process: 0.4 s / 40k, 0.5 s / 50k
		{batch, "Redis µs/op", "6.0 / 25.0 per write"}, // 0.6 s / 100k writes, 0.5 s / 20k
		{batch, inProcessHead, "3.0 / 30.0 per write"}, // this process
	} {
		if got := cellOf(t, inCols, c.r, c.head); got != c.want {
			t.Errorf("%s/%s %q: got %q, want %q", c.r.workload, c.r.via, c.head, got, c.want)
		}
	}
	for _, want := range []string{"| 6.0 / 25.0 per write |", "is not leagued's alone", "per write on batch rows"} {
		if !strings.Contains(out, want) {
			t.Errorf("in-process report lacks %q; got\n%s", want, out)
		}
	}

	// -http: the leagued's own CPU, and this process's as the load alone;
	// a lib row beside it keeps the in-process column, "-" elsewhere.
	sep := &row{workload: "score", via: "http", players: 2000, perUnit: true, separate: true, baseLabel: evalshaLabel,
		work: mk("score/http", "ops", 20000, 0.2, 0.4, 0.3, 0.3), base: mk("score/http baseline", "ops", 50000, 0.5, 0.75, 0.005)}
	lost := &row{workload: "board", via: "http", players: 2000, perUnit: true, separate: true, baseLabel: zrevrangeLabel,
		work: mk("board/http", "ops", 10000, 0.1, 0.4, 0.5), base: mk("board/http baseline", "ops", 10000, 0.1, 0.4)}
	lost.work.leagued.add(0, 0, errString("connection refused")) // one turn's scrape failed
	rep.rows = []*row{lib, sep, lost}
	b.Reset()
	rep.write(&b)
	out = b.String()
	cols := liveColumns(false, scopesOf(rep.rows))
	for _, c := range []struct {
		r          *row
		head, want string
	}{
		{sep, leaguedHead, "30.0 / 0.1"}, // 0.6 s over 20k; 0.005 s over 50k
		{sep, loadHead, "10.0 / 10.0"},
		{sep, inProcessHead, "-"},
		{lib, leaguedHead, "-"},
		{lib, loadHead, "-"},
		{lib, inProcessHead, "10.0 / 10.0"},
		{lost, leaguedHead, "- / -"}, // a lost turn, and a baseline never read
	} {
		if got := cellOf(t, cols, c.r, c.head); got != c.want {
			t.Errorf("%s/%s %q: got %q, want %q", c.r.workload, c.r.via, c.head, got, c.want)
		}
	}
	if !strings.Contains(out, "leagued µs/op is the leagued at -http alone (process_cpu_seconds_total") {
		t.Errorf("-http report does not explain the leagued column; got\n%s", out)
	}
}

// cellOf is row r's cell in the column headed head.
func cellOf(t *testing.T, cols []column[*row], r *row, head string) string {
	t.Helper()
	for _, c := range cols {
		if c.head == head {
			return c.cell(r)
		}
	}
	t.Fatalf("no %q column", head)
	return ""
}

func TestSettleCPUPerPlayer(t *testing.T) {
	start := cpuSpent{proc: 10, redis: 100}
	spent := cpuSpent{proc: 12.5, redis: 101}.since(start) // 2.5 s here, 1 s in Redis
	if got, want := spent.perPlayer(1000000), "1.0 + 2.5"; got != want {
		t.Errorf("1 s of Redis and 2.5 s here over 1M players: got %q, want %q", got, want)
	}
	r := settleResult{players: 100000, total: time.Second, restore: time.Second,
		settleCPU: cpuSpent{proc: 0.5, redis: 0.25}, restoreCPU: cpuSpent{proc: 0.1, redis: 0.2}}
	cells := map[string]string{}
	for _, c := range settleColumns() {
		cells[c.head] = c.cell(r)
	}
	if got, want := cells["settle µs/player Redis + bench"], "2.5 + 5.0"; got != want {
		t.Errorf("settle CPU per player: got %q, want %q", got, want)
	}
	if got, want := cells["restore µs/player Redis + bench"], "2.0 + 1.0"; got != want {
		t.Errorf("restore CPU per player: got %q, want %q", got, want)
	}
	var b strings.Builder
	(&report{settle: []settleResult{r}}).write(&b)
	if !strings.Contains(b.String(), "Postgres's is not counted") {
		t.Errorf("the settle note does not say whose CPU it counts; got\n%s", b.String())
	}
}
