package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// A leagued of its own (-http) runs in another process, so this process's
// getrusage says nothing of what it spent. leagued registers Prometheus's
// process collector, so its own CPU seconds are on its public /metrics:
// reading them before and after each turn gives its CPU per operation, the
// figure that stays put on a noisy machine when rates do not.

// cpuMetric is the Prometheus process collector's counter of user + system
// CPU seconds. On Linux it moves in clock ticks (10 ms), so each reading is
// off by up to 10 ms: a turn of 1.5 s (-duration 3s -rounds 2) at half a
// core is read to about 1%, and shorter turns read coarser.
const cpuMetric = "process_cpu_seconds_total"

// leaguedCPU reads a separate leagued's CPU seconds from its /metrics.
type leaguedCPU struct {
	url    string // <-http>/metrics
	client *http.Client
	log    *slog.Logger
	warned sync.Once // a failing scrape is explained once, not every turn
}

func newLeaguedCPU(baseURL string, log *slog.Logger) *leaguedCPU {
	return &leaguedCPU{
		url: strings.TrimSuffix(baseURL, "/") + "/metrics",
		// Its own client, not the load's: a scrape must not wait behind
		// the load's connections, and must not hang a turn.
		client: &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{Proxy: nil}},
		log:    log,
	}
}

// seconds scrapes the CPU seconds leagued has used so far.
func (c *leaguedCPU) seconds(ctx context.Context) (float64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.url, nil)
	if err != nil {
		return 0, err
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 300))
		return 0, fmt.Errorf("GET %s: HTTP %d: %s", c.url, resp.StatusCode, body)
	}
	// Bounded: a wrong URL that streams forever must not stall the run.
	v, err := parseProcessCPU(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return 0, fmt.Errorf("GET %s: %w", c.url, err)
	}
	return v, nil
}

// warn says once, on stderr through the run's logger, why the column shows
// "-".
func (c *leaguedCPU) warn(err error) {
	c.warned.Do(func() {
		c.log.Warn("leagued µs/op shows -: cannot read leagued's CPU", "metric", cpuMetric, "err", err)
	})
}

// parseProcessCPU finds the counter in a Prometheus text exposition: the
// line "process_cpu_seconds_total <value> [<timestamp>]". The process
// collector exports it without labels, so a plain prefix match is enough;
// "# HELP"/"# TYPE" lines and longer names do not match the prefix with
// its space.
func parseProcessCPU(r io.Reader) (float64, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20) // long histogram lines
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), cpuMetric+" ")
		if !ok {
			continue
		}
		fields := strings.Fields(rest)
		if len(fields) == 0 {
			return 0, fmt.Errorf("%s has no value", cpuMetric)
		}
		v, err := strconv.ParseFloat(fields[0], 64)
		if err != nil || v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, fmt.Errorf("%s: %q is not a count of seconds", cpuMetric, fields[0])
		}
		return v, nil
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("no %s line: not leagued's /metrics, or its process collector is not registered", cpuMetric)
}

// cpuTally adds up a process's CPU seconds over the turns of a
// measurement. A turn whose reading failed leaves the sum short by an
// unknown amount, so one lost turn makes the whole tally unknown rather
// than quietly low.
type cpuTally struct {
	secs  float64
	turns int  // turns read
	lost  bool // some turn's reading failed
}

var errCounterBack = errors.New(cpuMetric + " went back: did leagued restart?")

// add counts one turn from the readings before and after it.
func (t *cpuTally) add(before, after float64, err error) error {
	if err == nil && after < before {
		err = errCounterBack
	}
	if err != nil {
		t.lost = true
		return err
	}
	t.secs += after - before
	t.turns++
	return nil
}

// total is the seconds over every turn; false when unknown.
func (t cpuTally) total() (float64, bool) { return t.secs, t.turns > 0 && !t.lost }
