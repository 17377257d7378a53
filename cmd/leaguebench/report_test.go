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
