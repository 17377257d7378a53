package events_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/league-engine/league/events"
	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/league"
	"github.com/league-engine/league/migrations"
	"github.com/league-engine/league/postgres"
	"github.com/league-engine/league/tiers"
)

const secret = "webhook-secret-0123456789"

// newStore returns a store on a migrated schema of the test's own, and the
// URL of that schema.
func newStore(t *testing.T) (*postgres.Store, string) {
	t.Helper()
	pool, url := testsvc.Postgres(t)
	if _, err := migrations.Apply(t.Context(), pool); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	return openStore(t, url), url
}

func openStore(t *testing.T, url string) *postgres.Store {
	t.Helper()
	s, err := postgres.Open(t.Context(), url)
	testsvc.Must(t, err, "postgres.Open")
	t.Cleanup(s.Close)
	return s
}

var week0 = time.Date(2026, 11, 16, 0, 0, 0, 0, time.UTC)

// settle writes week w of league weekly as settlement does: n players
// p000.. on boards of 100, the top 10 of each promoted, the bottom 10
// demoted, the top 3 rewarded (an outcome and maybe a reward each, plus
// period.closed).
func settle(t *testing.T, s *postgres.Store, w, n int) {
	t.Helper()
	start := week0.AddDate(0, 0, 7*w)
	st, err := s.BeginSettlement(t.Context(), league.Settlement{League: "weekly", Period: start, PeriodEnd: start.AddDate(0, 0, 7)})
	testsvc.Must(t, err, "BeginSettlement")
	var outcomes []league.Outcome
	var rewards []league.EarnedReward
	for i := range n {
		o := league.Outcome{Player: fmt.Sprintf("p%03d", i), TierBefore: "silver", TierAfter: "silver", Board: i/100 + 1, Rank: i%100 + 1,
			Score: int64(1000 - i%100), Move: league.Stayed}
		switch {
		case o.Rank <= 10:
			o.TierAfter, o.Move = "gold", league.Promoted
		case o.Rank > 90:
			o.TierAfter, o.Move = "bronze", league.Demoted
		}
		outcomes = append(outcomes, o)
		if o.Rank <= 3 {
			rewards = append(rewards, league.EarnedReward{Player: o.Player, Tier: "silver", Rank: o.Rank, Items: []tiers.Item{{ID: "gems", Qty: 10}}})
		}
	}
	st.Players = n
	testsvc.Must(t, s.WriteOutcomes(t.Context(), st, outcomes, rewards), "WriteOutcomes")
}

// receiver is a webhook receiver whose answers the test sets (answer),
// which checks every delivery's signature and records those it accepts.
type receiver struct {
	t   *testing.T
	srv *httptest.Server

	mu       sync.Mutex
	answer   func(e events.Event) (status int, delay time.Duration)
	accepted []events.Event // in the order accepted
	tries    map[int64]int
	problems []string
}

func newReceiver(t *testing.T) *receiver {
	r := &receiver{t: t, tries: map[int64]int{}, answer: func(events.Event) (int, time.Duration) { return 200, 0 }}
	r.srv = httptest.NewServer(r)
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	var e events.Event
	err := events.Verify(secret, req.Header.Get(events.SignatureHeader), body, time.Now(), 0)
	if err == nil {
		err = json.Unmarshal(body, &e)
	}
	if err == nil && (req.Header.Get(events.EventIDHeader) != strconv.FormatInt(e.ID, 10) || req.Header.Get(events.EventTypeHeader) != string(e.Type) ||
		req.Method != http.MethodPost || req.Header.Get("Content-Type") != "application/json") {
		err = fmt.Errorf("headers %v do not match the body %s", req.Header, body)
	}
	r.mu.Lock()
	if err != nil {
		r.problems = append(r.problems, err.Error())
		r.mu.Unlock()
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	r.tries[e.ID]++
	answer := r.answer
	r.mu.Unlock()
	status, delay := answer(e)
	if delay > 0 {
		select {
		case <-time.After(delay):
		case <-req.Context().Done():
			return
		}
	}
	if status == http.StatusOK {
		r.mu.Lock()
		r.accepted = append(r.accepted, e)
		r.mu.Unlock()
	}
	w.WriteHeader(status)
	io.WriteString(w, "answer "+strconv.Itoa(status))
}

func (r *receiver) setAnswer(fn func(e events.Event) (int, time.Duration)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.answer = fn
}

// got returns what was accepted, and how many deliveries each event had.
func (r *receiver) got() ([]events.Event, map[int64]int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.problems) > 0 {
		r.t.Fatalf("the receiver refused deliveries: %v", r.problems)
	}
	tries := make(map[int64]int, len(r.tries))
	for k, v := range r.tries {
		tries[k] = v
	}
	return slices.Clone(r.accepted), tries
}

// eventually waits up to d for cond.
func eventually(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within %s: %s", d, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// outbox reads every event of the outbox.
func outbox(t *testing.T, s *postgres.Store) []events.Event {
	t.Helper()
	evs, err := s.Events(t.Context(), 0, 1_000_000, nil)
	testsvc.Must(t, err, "Events")
	return evs
}

// checkOrder fails the test unless every lane's accepted events came in
// the order of their ids, each the first time it was accepted (a
// redelivery after a restart may repeat one).
func checkOrder(t *testing.T, accepted []events.Event) {
	t.Helper()
	last := map[string]int64{}
	seen := map[int64]bool{}
	for _, e := range accepted {
		if seen[e.ID] {
			continue
		}
		seen[e.ID] = true
		if e.ID < last[e.Lane()] {
			t.Fatalf("lane %q: event %d accepted after %d", e.Lane(), e.ID, last[e.Lane()])
		}
		last[e.Lane()] = e.ID
	}
}

// fast is a deliverer for tests: short polls, timeouts and backoff.
func fast(s events.Store, hooks []events.Webhook, reg prometheus.Registerer) *events.Deliverer {
	return events.New(s, hooks, events.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))), events.WithRegistry(reg),
		events.WithPoll(10*time.Millisecond, 50*time.Millisecond, 50*time.Millisecond),
		events.WithBackoff(events.Backoff{Base: 10 * time.Millisecond, Max: 200 * time.Millisecond}, 5), events.WithBatch(64))
}

func hook(r *receiver, edit func(*events.Webhook)) []events.Webhook {
	w := events.Webhook{Name: "game", URL: r.srv.URL + "/league", Secrets: []string{secret}, Timeout: 300 * time.Millisecond,
		MaxAttempts: 1000, Concurrency: 4}
	if edit != nil {
		edit(&w)
	}
	return []events.Webhook{w}
}

func stop(t *testing.T, d *events.Deliverer) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	testsvc.Must(t, d.Stop(ctx), "Stop")
}

// TestDeliveryFailsTimesOutAndRecovers: the receiver fails on purpose for
// some players, then hangs past the timeout for everyone while another
// period settles, then recovers. Nothing is lost, nothing is delivered
// twice, every player's events arrive in order, the failing players' later
// events waited for them and the others' did not, and settlement never
// waited for delivery.
func TestDeliveryFailsTimesOutAndRecovers(t *testing.T) {
	s, _ := newStore(t)
	r := newReceiver(t)
	bad := func(e events.Event) bool { return e.Player == "p007" || e.Player == "p150" || e.Player == "p299" }
	r.setAnswer(func(e events.Event) (int, time.Duration) {
		if bad(e) {
			return http.StatusInternalServerError, 0
		}
		return http.StatusOK, 0
	})
	reg := prometheus.NewRegistry()
	d := fast(s, hook(r, nil), reg)
	d.Start()
	defer stop(t, d)
	eventually(t, 5*time.Second, "a deliverer leads", d.Leading)

	settle(t, s, 0, 300)
	all := outbox(t, s)
	var good int
	for _, e := range all {
		if !bad(e) {
			good++
		}
	}
	eventually(t, 20*time.Second, "every event of the players not failing delivered", func() bool {
		acc, _ := r.got()
		return len(acc) == good
	})
	acc, tries := r.got()
	for _, e := range acc {
		if bad(e) {
			t.Fatalf("event %s accepted while its player fails", e)
		}
	}
	// The failing players' first events were retried; their later ones
	// (p007's reward) waited, never tried.
	for _, e := range all {
		if bad(e) && e.Type == events.RewardGranted && tries[e.ID] != 0 {
			t.Fatalf("event %s was tried while its player's earlier event failed", e)
		}
	}

	// Everyone's deliveries hang past the timeout: the webhook pauses, and
	// the next settlement does not wait for it.
	r.setAnswer(func(events.Event) (int, time.Duration) { return http.StatusServiceUnavailable, 2 * time.Second })
	began := time.Now()
	settle(t, s, 1, 300)
	if took := time.Since(began); took > 5*time.Second {
		t.Fatalf("settling took %s while the receiver hung", took)
	}
	eventually(t, 10*time.Second, "the webhook paused", func() bool {
		return value(t, reg, "league_events_webhook_paused") == 1
	})
	before, _ := r.got()
	time.Sleep(time.Second)
	if during, _ := r.got(); len(during) != len(before) {
		t.Fatalf("%d events accepted while the receiver hung", len(during)-len(before))
	}

	// It recovers: everything arrives, once, in order per player.
	r.setAnswer(func(events.Event) (int, time.Duration) { return http.StatusOK, 0 })
	all = outbox(t, s)
	eventually(t, 30*time.Second, "every event delivered after the receiver recovered", func() bool {
		acc, _ := r.got()
		return len(acc) >= len(all)
	})
	acc, _ = r.got()
	checkOrder(t, acc)
	got := map[int64]int{}
	for _, e := range acc {
		got[e.ID]++
	}
	for _, e := range all {
		if got[e.ID] != 1 {
			t.Fatalf("event %s accepted %d times, want once", e, got[e.ID])
		}
	}
	if len(acc) != len(all) {
		t.Fatalf("%d accepted, %d in the outbox", len(acc), len(all))
	}
	eventually(t, 5*time.Second, "the webhook resumed and its lag is 0", func() bool {
		return value(t, reg, "league_events_webhook_paused") == 0 &&
			value(t, reg, "league_events_lag_seconds") == 0 &&
			value(t, reg, "league_events_waiting") == 0
	})
	if n := value(t, reg, "league_events_delivered_total"); int(n) != len(all) {
		t.Fatalf("league_events_delivered_total %v, want %d", n, len(all))
	}
	if n := value(t, reg, "league_events_delivery_failures_total"); n < 5 {
		t.Fatalf("league_events_delivery_failures_total %v, want the failures counted", n)
	}
}

// value is the named metric's value (of the only webhook, "game").
func value(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	testsvc.Must(t, err, "Gather")
	v := 0.0
	for _, mf := range mfs {
		if mf.GetName() == name {
			for _, m := range mf.GetMetric() {
				v += m.GetGauge().GetValue() + m.GetCounter().GetValue()
			}
		}
	}
	return v
}

// TestDeadLettersReplayed: a player whose events the receiver always
// refuses has their first event dead after max_attempts, holding their
// later events; others go on. Listed, then replayed once the receiver
// takes them, the player's events arrive in order.
func TestDeadLettersReplayed(t *testing.T) {
	s, _ := newStore(t)
	r := newReceiver(t)
	r.setAnswer(func(e events.Event) (int, time.Duration) {
		if e.Player == "p001" || e.Player == "p002" {
			return http.StatusUnprocessableEntity, 0
		}
		return http.StatusOK, 0
	})
	reg := prometheus.NewRegistry()
	d := fast(s, hook(r, func(w *events.Webhook) { w.MaxAttempts = 3 }), reg)
	d.Start()
	defer stop(t, d)
	eventually(t, 5*time.Second, "a deliverer leads", d.Leading)
	settle(t, s, 0, 100)
	settle(t, s, 1, 100)
	all := outbox(t, s)
	eventually(t, 20*time.Second, "two dead events, each holding its player's three later ones", func() bool {
		dead, err := s.DeadLetters(t.Context(), "game", 0)
		testsvc.Must(t, err, "DeadLetters")
		return len(dead) == 2 && dead[0].Holding == 3 && dead[1].Holding == 3
	})
	dead, _ := s.DeadLetters(t.Context(), "game", 0)
	for _, dl := range dead {
		// p001 and p002: rank 2 and 3, rewarded; two weeks each: their
		// first outcome is dead, and their reward and second week's two
		// events wait behind it.
		if dl.Attempts != 3 || dl.Holding != 3 || dl.Event.Type != events.PlayerPromoted || !dl.Event.Period.Equal(week0) ||
			dl.LastError != "HTTP 422: answer 422" {
			t.Fatalf("dead letter %+v, want a week-0 outcome after 3 attempts holding 3 events", dl)
		}
	}
	eventually(t, 10*time.Second, "the other players' events delivered", func() bool {
		acc, _ := r.got()
		return len(acc) == len(all)-8
	})
	eventually(t, 5*time.Second, "the dead gauge", func() bool {
		return value(t, reg, "league_events_dead") == 2
	})
	_, tries := r.got()
	if tries[dead[0].Event.ID] != 3 {
		t.Fatalf("the dead event was tried %d times, want 3", tries[dead[0].Event.ID])
	}
	time.Sleep(300 * time.Millisecond)
	if _, again := r.got(); again[dead[0].Event.ID] != 3 {
		t.Fatalf("a dead event was tried again without a replay")
	}

	// The receiver is fixed; one replayed by id, then the rest.
	r.setAnswer(func(events.Event) (int, time.Duration) { return http.StatusOK, 0 })
	n, err := s.Replay(t.Context(), "game", dead[0].Event.ID)
	if n != 1 || err != nil {
		t.Fatalf("Replay(%d): %d, %v", dead[0].Event.ID, n, err)
	}
	eventually(t, 10*time.Second, "the replayed player's four events delivered", func() bool {
		acc, _ := r.got()
		return len(acc) == len(all)-4
	})
	n, err = s.Replay(t.Context(), "", 0)
	if n != 1 || err != nil {
		t.Fatalf("Replay(all): %d, %v", n, err)
	}
	eventually(t, 10*time.Second, "every event delivered", func() bool {
		acc, _ := r.got()
		return len(acc) == len(all)
	})
	acc, _ := r.got()
	checkOrder(t, acc)
	eventually(t, 5*time.Second, "no dead events left", func() bool {
		return value(t, reg, "league_events_dead") == 0
	})
	if n := value(t, reg, "league_events_dead_total"); n != 2 {
		t.Fatalf("league_events_dead_total %v, want 2", n)
	}
}

// TestOneDelivererAtATime: of two deliverers on one database only one
// delivers; stopped mid-stream, the other takes over where it stopped, and
// every event arrives, in order per player.
func TestOneDelivererAtATime(t *testing.T) {
	s, url := newStore(t)
	r := newReceiver(t)
	r.setAnswer(func(events.Event) (int, time.Duration) { return http.StatusOK, 2 * time.Millisecond })
	hooks := hook(r, nil)
	a := fast(s, hooks, nil)
	b := fast(openStore(t, url), hooks, nil)
	a.Start()
	eventually(t, 5*time.Second, "a leads", a.Leading)
	b.Start()
	defer stop(t, b)
	settle(t, s, 0, 500)
	settle(t, s, 1, 500)
	all := outbox(t, s)
	eventually(t, 20*time.Second, "a third delivered", func() bool {
		acc, _ := r.got()
		return len(acc) > len(all)/3
	})
	if b.Leading() {
		t.Fatal("both deliverers lead")
	}
	stop(t, a)
	mid, _ := r.got()
	if len(mid) == len(all) {
		t.Fatal("everything was delivered before the stop: the test proves nothing")
	}
	eventually(t, 10*time.Second, "b leads", b.Leading)
	eventually(t, 30*time.Second, "every event delivered", func() bool {
		acc, _ := r.got()
		seen := map[int64]bool{}
		for _, e := range acc {
			seen[e.ID] = true
		}
		return len(seen) == len(all)
	})
	acc, _ := r.got()
	checkOrder(t, acc)
	if dup := len(acc) - len(all); dup > 0 {
		t.Logf("%d events delivered twice across the takeover (at least once)", dup)
	}
}

// TestWebhookFilters: a webhook of some types and leagues gets those only.
func TestWebhookFilters(t *testing.T) {
	s, _ := newStore(t)
	r := newReceiver(t)
	d := fast(s, hook(r, func(w *events.Webhook) {
		w.Types = []events.Type{events.RewardGranted, events.PeriodClosed}
		w.Leagues = []string{"weekly"}
	}), nil)
	d.Start()
	defer stop(t, d)
	eventually(t, 5*time.Second, "a deliverer leads", d.Leading)
	settle(t, s, 0, 200)
	testsvc.Must(t, s.RecordClaims(t.Context(), []league.Claim{{League: "weekly", Player: "p000", Earned: week0, At: time.Now()}}), "RecordClaims")
	st, err := s.BeginSettlement(t.Context(), league.Settlement{League: "other", Period: week0, PeriodEnd: week0.AddDate(0, 0, 7)})
	testsvc.Must(t, err, "BeginSettlement")
	testsvc.Must(t, s.WriteOutcomes(t.Context(), st, nil, []league.EarnedReward{{Player: "x", Tier: "t", Rank: 1, Items: []tiers.Item{{ID: "a", Qty: 1}}}}), "WriteOutcomes")
	eventually(t, 10*time.Second, "the rewards and the period delivered", func() bool {
		acc, _ := r.got()
		return len(acc) == 1+6
	})
	time.Sleep(200 * time.Millisecond)
	acc, _ := r.got()
	for _, e := range acc {
		if e.League != "weekly" || (e.Type != events.RewardGranted && e.Type != events.PeriodClosed) {
			t.Fatalf("delivered %s, which the webhook does not take", e)
		}
	}
	if len(acc) != 7 {
		t.Fatalf("%d delivered, want 7", len(acc))
	}
}
