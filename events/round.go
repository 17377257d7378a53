package events

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"
)

// hookRun is delivery to one webhook while this process leads.
type hookRun struct {
	d       *Deliverer
	h       Webhook
	m       hookMetrics
	client  *http.Client
	scanned int64

	failures atomic.Int32 // failed deliveries in a row

	mu     sync.Mutex
	pauses int       // pauses in a row; 0: not paused
	until  time.Time // end of the pause
}

// storeBackoffMax bounds the wait after a round failed on the database.
const storeBackoffMax = 30 * time.Second

// deliverTo runs rounds to one webhook until ctx ends.
func (d *Deliverer) deliverTo(ctx context.Context, h Webhook) {
	r := &hookRun{d: d, h: h, m: d.metrics.hook(h.Name), client: d.clients[h.Name], scanned: -1}
	defer r.m.paused.Set(0)
	var storeBackoff int
	for ctx.Err() == nil {
		busy, err := r.round(ctx)
		wait := time.Duration(0)
		switch {
		case err != nil && ctx.Err() == nil:
			// The database's failures back off on their own scale: a
			// receiver's ten minutes would keep delivery idle long after
			// Postgres is back.
			storeBackoff++
			wait = min(d.backoff.After(storeBackoff, rand.Float64()), storeBackoffMax)
			d.log.Warn("events: a delivery round failed on the database; retrying", "webhook", h.Name, "in", wait.Round(time.Millisecond), "err", err)
		case err == nil:
			storeBackoff = 0
			if !busy {
				wait = d.poll
			}
		}
		if until := r.pausedUntil(); !until.IsZero() {
			wait = max(wait, until.Sub(d.now()))
		}
		if !sleep(ctx, wait) {
			return
		}
	}
}

// round runs one round: retries, then a batch of new events. busy reports
// that it did something (another round follows at once).
func (r *hookRun) round(ctx context.Context) (busy bool, err error) {
	d, h := r.d, r.h
	if r.scanned < 0 {
		if r.scanned, err = d.store.StartWebhook(ctx, h.Name); err != nil {
			r.scanned = -1
			return false, err
		}
	}
	probing := r.probing()
	limit := h.Concurrency * 4
	if probing {
		limit = 1
	}
	due, err := d.store.Due(ctx, h.Name, limit)
	if err != nil {
		return false, err
	}
	if len(due) > 0 {
		if err := r.retry(ctx, due); err != nil {
			return true, err
		}
		if probing || r.paused() {
			return true, nil
		}
		busy = true
	}

	evs, err := d.store.Events(ctx, r.scanned, d.batch, nil)
	if err != nil || len(evs) == 0 {
		return busy, err
	}
	to := evs[len(evs)-1].ID
	var lanes [][]Event
	at := map[string]int{}
	for _, e := range evs {
		if !h.takes(e) {
			continue
		}
		if probing && len(lanes) > 0 {
			to = e.ID - 1 // one delivery probes a paused webhook: the rest waits for the next round
			break
		}
		l := e.Lane()
		i, ok := at[l]
		if !ok {
			i = len(lanes)
			at[l] = i
			lanes = append(lanes, nil)
		}
		lanes[i] = append(lanes[i], e)
	}
	names := make([]string, len(lanes))
	for i, l := range lanes {
		names[i] = l[0].Lane()
	}
	held, err := d.store.LanesWaiting(ctx, h.Name, names)
	if err != nil {
		return busy, err
	}
	var free [][]Event
	var waiting []Waiting
	for _, l := range lanes {
		if held[l[0].Lane()] {
			for _, e := range l {
				waiting = append(waiting, Waiting{EventID: e.ID, Lane: e.Lane(), State: Held})
			}
			continue
		}
		free = append(free, l)
	}
	results := r.deliverLanes(ctx, free)
	now := d.now()
	for i, l := range free {
		res := results[i]
		for k := res.delivered; k < len(l); k++ {
			w := Waiting{EventID: l[k].ID, Lane: l[k].Lane(), State: Held}
			if k == res.delivered {
				w.State, w.NextAt = Retry, now
				if res.err != nil {
					w.Attempts, w.LastError = 1, res.err.Error()
					w.NextAt = now.Add(d.backoff.After(1, rand.Float64()))
					if w.Attempts >= h.MaxAttempts {
						w.State = Dead
						r.m.dead.Inc()
					}
				}
			}
			waiting = append(waiting, w)
		}
	}
	// Recorded even when told to stop: what was delivered is not sent again.
	rec, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := d.store.Scanned(rec, h.Name, r.scanned, to, waiting); err != nil {
		r.scanned = -1 // read it again: another deliverer may have moved it
		return true, err
	}
	r.scanned = to
	return true, nil
}

// retry tries due heads again, Concurrency at a time, and records each
// result.
func (r *hookRun) retry(ctx context.Context, due []Pending) error {
	d, h := r.d, r.h
	lanes := make([][]Event, len(due))
	for i, p := range due {
		lanes[i] = []Event{p.Event}
	}
	attempt := func(i int) int { return due[i].Attempts + 1 }
	results := r.deliverLanesFrom(ctx, lanes, attempt)
	rec, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	now := d.now()
	for i, p := range due {
		res := results[i]
		var err error
		switch {
		case res.delivered == 1:
			err = d.store.Delivered(rec, h.Name, p.Event.ID)
		case res.err != nil:
			n := p.Attempts + 1
			dead := n >= h.MaxAttempts
			if dead {
				r.m.dead.Inc()
				d.log.Warn("events: an event is dead after its last attempt; it holds its player's later events until replayed (leaguectl events replay)",
					"webhook", h.Name, "event", p.Event.String(), "attempts", n, "err", res.err)
			}
			err = d.store.Failed(rec, h.Name, p.Event.ID, n, now.Add(d.backoff.After(n, rand.Float64())), dead, res.err.Error())
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// laneResult is how far a lane got: its first delivered events, then the
// failure of the next (nil: not tried, the webhook paused or delivery
// stopped).
type laneResult struct {
	delivered int
	err       error
}

func (r *hookRun) deliverLanes(ctx context.Context, lanes [][]Event) []laneResult {
	return r.deliverLanesFrom(ctx, lanes, func(int) int { return 1 })
}

// deliverLanesFrom delivers each lane in order, Concurrency lanes at a
// time; attempt(i) numbers the first delivery of lane i.
func (r *hookRun) deliverLanesFrom(ctx context.Context, lanes [][]Event, attempt func(i int) int) []laneResult {
	out := make([]laneResult, len(lanes))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(r.h.Concurrency, len(lanes)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < len(lanes); i = int(next.Add(1) - 1) {
				out[i] = r.deliverLane(ctx, lanes[i], attempt(i))
			}
		}()
	}
	wg.Wait()
	return out
}

// deliverLane delivers a lane's events in order until one fails.
func (r *hookRun) deliverLane(ctx context.Context, lane []Event, first int) laneResult {
	for k, e := range lane {
		if ctx.Err() != nil || r.paused() {
			return laneResult{delivered: k}
		}
		attempt := 1
		if k == 0 {
			attempt = first
		}
		if err := r.post(ctx, e, attempt); err != nil {
			if ctx.Err() != nil {
				return laneResult{delivered: k} // cut off by Stop: not an attempt
			}
			return laneResult{delivered: k, err: err}
		}
	}
	return laneResult{delivered: len(lane)}
}

// post delivers one event: a 2xx answer within the timeout delivers it.
func (r *hookRun) post(ctx context.Context, e Event, attempt int) error {
	body, err := json.Marshal(e)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, r.h.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.h.URL, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "league-events/1")
	req.Header.Set(EventIDHeader, strconv.FormatInt(e.ID, 10))
	req.Header.Set(EventTypeHeader, string(e.Type))
	req.Header.Set(AttemptHeader, strconv.Itoa(attempt))
	req.Header.Set(SignatureHeader, Sign(r.h.Secrets, r.d.now(), body))
	resp, err := r.client.Do(req)
	if err == nil {
		snippet, _ := io.ReadAll(io.LimitReader(resp.Body, 200))
		io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10)) // so the connection is reused
		resp.Body.Close()
		if resp.StatusCode < 200 || resp.StatusCode > 299 {
			err = fmt.Errorf("HTTP %d: %s", resp.StatusCode, printable(snippet))
		}
	} else if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		err = fmt.Errorf("no answer within %s", r.h.Timeout)
	}
	if err != nil {
		if ctx.Err() == nil || errors.Is(ctx.Err(), context.DeadlineExceeded) {
			r.m.failed.Inc()
			r.failed()
		}
		return err
	}
	r.m.delivered.Inc()
	r.succeeded()
	return nil
}

// printable is a receiver's answer fit for a log line: valid UTF-8, no
// control characters.
func printable(b []byte) string {
	out := make([]rune, 0, len(b))
	for len(b) > 0 {
		c, n := utf8.DecodeRune(b)
		b = b[n:]
		if c == utf8.RuneError || c < ' ' || c == 0x7f {
			c = ' '
		}
		out = append(out, c)
	}
	return string(bytes.TrimSpace([]byte(string(out))))
}

// failed counts a failed delivery: pauseAfter in a row pause the webhook,
// and a failed probe pauses it longer.
func (r *hookRun) failed() {
	n := int(r.failures.Add(1))
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.pauses > 0 && r.d.now().Before(r.until):
		return // paused already (this one was in flight)
	case r.pauses > 0: // the probe failed
	case n < r.d.pauseAfter:
		return
	}
	r.pauses++
	wait := r.d.backoff.After(r.pauses, rand.Float64())
	r.until = r.d.now().Add(wait)
	r.m.paused.Set(1)
	r.d.log.Warn("events: the webhook fails every delivery; pausing it, then one delivery probes it", "webhook", r.h.Name,
		"url", r.h.Redacted(), "failures_in_a_row", n, "pause", wait.Round(time.Millisecond))
}

// succeeded counts a delivery: a paused webhook is back.
func (r *hookRun) succeeded() {
	r.failures.Store(0)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.pauses > 0 {
		r.d.log.Info("events: the webhook answers again; delivery resumes", "webhook", r.h.Name)
		r.pauses, r.until = 0, time.Time{}
		r.m.paused.Set(0)
	}
}

// paused reports whether the webhook is paused (a probe's time has not
// come).
func (r *hookRun) paused() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.pauses > 0 && r.d.now().Before(r.until)
}

// probing reports that a pause is over and one delivery probes it.
func (r *hookRun) probing() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.pauses > 0 && !r.d.now().Before(r.until)
}

// pausedUntil is the end of the pause, or zero.
func (r *hookRun) pausedUntil() time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.pauses == 0 {
		return time.Time{}
	}
	return r.until
}
