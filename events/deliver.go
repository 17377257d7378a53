package events

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Deliverer pushes the outbox's events to the webhooks. Every replica of
// leagued runs one; the one holding the delivery lease (Store.LockDelivery)
// delivers, the others stand by and take over when its lease ends.
//
// To each webhook, in rounds:
//
//  1. Retries. Events that wait (a lane's head, due) are tried again, each
//     lane's head on its own: a failure schedules the next try with
//     exponential backoff and jitter, and after the webhook's max_attempts
//     the event is dead until replayed. A delivered head hands its lane on
//     to the event behind it.
//  2. New events, a batch after the webhook's progress: those of a lane
//     with events waiting wait behind them (held); the other lanes are
//     delivered in order, Concurrency lanes at a time. A lane stops at its
//     first failure: that event is retried, the rest of the lane held. The
//     batch's waiting events and the new progress are recorded in one
//     transaction. A process killed mid-batch left its progress where it
//     was: the next deliverer sends the batch again (at least once).
//
// A receiver that is down fails every lane at once: after pauseAfter
// failures in a row the webhook pauses (exponential backoff and jitter up
// to the backoff's maximum), and then a single delivery probes it, ending
// the pause or doubling it. Delivery never touches what settlement writes:
// a receiver down for days holds up nothing but its own deliveries.
type Deliverer struct {
	store      Store
	hooks      []Webhook
	log        *slog.Logger
	metrics    *metrics
	poll       time.Duration // idle: how often the outbox is looked at
	standby    time.Duration // how often a standby tries for the lease, and the leader checks it
	statsEvery time.Duration
	backoff    Backoff
	pauseAfter int
	batch      int
	now        func() time.Time
	clients    map[string]*http.Client

	quit    chan struct{}
	stopped sync.Once
	wg      sync.WaitGroup
	leading atomic.Bool
}

// Backoff spaces retries: the n-th wait is Base·2^(n-1), at most Max,
// of which a random half is taken off (jitter: receivers that come back
// are not hit by every retry at once).
type Backoff struct {
	Base, Max time.Duration
}

// DefaultBackoff: 1 s, 2 s, 4 s ... up to 10 minutes.
var DefaultBackoff = Backoff{Base: time.Second, Max: 10 * time.Minute}

// After returns the wait before retry n (1-based), jittered by r in [0, 1).
func (b Backoff) After(n int, r float64) time.Duration {
	d := b.Max
	if n < 1 {
		n = 1
	}
	if n <= 62 {
		if x := b.Base << (n - 1); x > 0 && x>>(n-1) == b.Base && x < b.Max {
			d = x
		}
	}
	return d/2 + time.Duration(r*float64(d/2))
}

// Defaults of a Deliverer.
const (
	DefaultPoll       = time.Second
	DefaultStandby    = 5 * time.Second
	DefaultPauseAfter = 5
	DefaultBatch      = 500
	statsEvery        = 15 * time.Second
)

// Option configures a Deliverer.
type Option func(*Deliverer)

// WithLogger sets the logger (default slog.Default()).
func WithLogger(l *slog.Logger) Option { return func(d *Deliverer) { d.log = l } }

// WithRegistry registers the delivery metrics on r.
func WithRegistry(r prometheus.Registerer) Option {
	return func(d *Deliverer) { d.metrics = newMetrics(r) }
}

// WithPoll sets how often an idle deliverer looks for new events (default
// 1 s), how often a standby tries for the lease (default 5 s) and how
// often the gauges are refreshed (default 15 s).
func WithPoll(poll, standby, stats time.Duration) Option {
	return func(d *Deliverer) {
		if poll > 0 {
			d.poll = poll
		}
		if standby > 0 {
			d.standby = standby
		}
		if stats > 0 {
			d.statsEvery = stats
		}
	}
}

// WithBackoff sets the retries' backoff (default DefaultBackoff) and how
// many failures in a row pause a webhook (default 5).
func WithBackoff(b Backoff, pauseAfter int) Option {
	return func(d *Deliverer) {
		if b.Base > 0 && b.Max >= b.Base {
			d.backoff = b
		}
		if pauseAfter > 0 {
			d.pauseAfter = pauseAfter
		}
	}
}

// WithBatch sets how many new events a round reads (default 500).
func WithBatch(n int) Option {
	return func(d *Deliverer) {
		if n > 0 {
			d.batch = n
		}
	}
}

// New returns a deliverer of store's events to hooks. Start starts it.
func New(store Store, hooks []Webhook, opts ...Option) *Deliverer {
	d := &Deliverer{
		store: store, log: slog.Default(), poll: DefaultPoll, standby: DefaultStandby, statsEvery: statsEvery,
		backoff: DefaultBackoff, pauseAfter: DefaultPauseAfter, batch: DefaultBatch, now: time.Now,
		clients: map[string]*http.Client{}, quit: make(chan struct{}),
	}
	for _, o := range opts {
		o(d)
	}
	if d.metrics == nil {
		d.metrics = newMetrics(nil)
	}
	for _, h := range hooks {
		h = h.WithDefaults()
		d.hooks = append(d.hooks, h)
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.MaxIdleConnsPerHost = h.Concurrency
		d.clients[h.Name] = &http.Client{Transport: t,
			// A redirect is an answer the receiver must fix, not follow:
			// following it would send the signed body somewhere else.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		d.metrics.start(h.Name)
	}
	return d
}

// Start starts delivering (or standing by); Stop ends it.
func (d *Deliverer) Start() {
	d.wg.Add(2)
	go d.run()
	go d.refreshGauges()
}

// Stop stops delivering and waits until the rounds in flight are recorded
// (deliveries in flight are cut off and count as not made) or ctx ends.
func (d *Deliverer) Stop(ctx context.Context) error {
	d.stopped.Do(func() { close(d.quit) })
	done := make(chan struct{})
	go func() { d.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Leading reports whether this deliverer holds the lease and delivers.
func (d *Deliverer) Leading() bool { return d.leading.Load() }

// run takes the lease when it can and delivers while it holds it.
func (d *Deliverer) run() {
	defer d.wg.Done()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-d.quit:
			cancel()
		case <-ctx.Done():
		}
	}()
	for {
		lease, ok, err := d.store.LockDelivery(ctx)
		switch {
		case err != nil && ctx.Err() == nil:
			d.log.Warn("events: taking the delivery lease failed; retrying", "in", d.standby, "err", err)
		case ok:
			d.lead(ctx, lease)
			lease.Release()
		}
		if !sleep(ctx, d.standby) {
			return
		}
	}
}

// lead delivers to every webhook until ctx ends or the lease is lost.
func (d *Deliverer) lead(ctx context.Context, lease Lease) {
	d.leading.Store(true)
	d.metrics.leading.Set(1)
	defer func() { d.leading.Store(false); d.metrics.leading.Set(0) }()
	d.log.Info("events: delivering to the webhooks (this replica holds the delivery lease)", "webhooks", len(d.hooks))
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for _, h := range d.hooks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d.deliverTo(ctx, h)
		}()
	}
	tick := time.NewTicker(d.standby)
	defer tick.Stop()
	for ctx.Err() == nil {
		select {
		case <-ctx.Done():
		case <-tick.C:
			if err := lease.Check(ctx); err != nil && ctx.Err() == nil {
				d.log.Warn("events: the delivery lease was lost (its database connection dropped); delivery stops until it is taken again", "err", err)
				cancel()
			}
		}
	}
	cancel()
	wg.Wait()
}

// refreshGauges reads every webhook's progress into the gauges, on every
// replica: any of them can tell, since the progress is in Postgres.
func (d *Deliverer) refreshGauges() {
	defer d.wg.Done()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-d.quit:
			cancel()
		case <-ctx.Done():
		}
	}()
	for {
		for _, h := range d.hooks {
			c, done := context.WithTimeout(ctx, 10*time.Second)
			p, err := d.store.Progress(c, h.Name)
			done()
			if err != nil {
				continue // the rounds log the database's failures
			}
			m := d.metrics.hook(h.Name)
			m.deadNow.Set(float64(p.Dead))
			m.waiting.Set(float64(p.Retrying + p.Held))
			lag := 0.0
			if !p.Oldest.IsZero() {
				lag = max(0, d.now().Sub(p.Oldest).Seconds())
			}
			m.lag.Set(lag)
		}
		if !sleep(ctx, d.statsEvery) {
			return
		}
	}
}

// sleep waits d or until ctx ends, and reports whether ctx is still live.
func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
