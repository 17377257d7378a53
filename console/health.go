package console

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/league-engine/league/scheduler"
)

// The health page: Redis and the store answering or not, writes and
// errors per second from the service's own metrics (rates.go), and the
// scheduler's leases and last errors, per league. It refreshes itself as
// a live board does. It is this replica's view: another replica's lease
// shows in the store's settlement records (a league's page).

// pingTimeout bounds each dependency's ping, as /readyz's.
const pingTimeout = 2 * time.Second

type healthView struct {
	Deps       []depStatus
	Rates      bool // false: no registry, or not sampled yet
	RatesError string
	Writes     float64
	Errors     float64
	DepErrors  []depRate
	Span       time.Duration
	Jobs       []jobRow
	Scheduler  bool // this process runs one
	Every      float64
}

type depStatus struct {
	Name  string
	Up    bool
	Took  time.Duration
	Error string
	Note  string // what an operator must know: in process memory, say
}

type depRate struct {
	Name string
	Rate float64
}

// jobRow is a league's settlement on this replica.
type jobRow struct {
	scheduler.Status
	Waiting      int    // ended periods waiting for settlement
	WaitingError string // why they could not be counted
}

func (c *Console) healthPage(w http.ResponseWriter, r *http.Request, sess *session) {
	c.render(w, r, http.StatusOK, "health", sess, view{Title: "Health", Data: c.health(r)})
}

// healthLive is the page's live part, which its script swaps in.
func (c *Console) healthLive(w http.ResponseWriter, r *http.Request, sess *session) {
	c.fragment(w, r, "health", "health-live", c.health(r))
}

// health reads it all: the pings and the rates side by side, so a Redis
// that hangs costs a look pingTimeout, not more.
func (c *Console) health(r *http.Request) healthView {
	ctx := r.Context()
	v := healthView{Every: c.cfg.Refresh.Seconds(), Scheduler: c.cfg.Scheduler != nil}
	redisDep, storeDep := depStatus{Name: "Redis", Note: c.cfg.RedisNote}, depStatus{Name: "Postgres", Note: c.cfg.StoreNote}
	if c.cfg.StoreNote != "" {
		storeDep.Name = "Store"
	}
	var wg sync.WaitGroup
	wg.Go(func() { ping(ctx, &redisDep, c.cfg.Engine.Ping) })
	if c.cfg.Store != nil {
		wg.Go(func() { ping(ctx, &storeDep, c.cfg.Store.Ping) })
	} else {
		storeDep.Error = "this console has no store"
	}
	if c.cfg.Metrics != nil {
		wg.Go(func() { c.sampleRates(ctx, &v) })
	}
	wg.Wait()
	v.Deps = []depStatus{redisDep, storeDep}

	if c.cfg.Scheduler != nil {
		for _, st := range c.cfg.Scheduler.Status() {
			row := jobRow{Status: st}
			if periods, err := c.cfg.Engine.Unsettled(ctx, st.League); err != nil {
				row.WaitingError = c.logged(r, err)
			} else {
				row.Waiting = len(periods)
			}
			v.Jobs = append(v.Jobs, row)
		}
	}
	return v
}

// ping pings a dependency within pingTimeout and says how it went.
func ping(ctx context.Context, d *depStatus, fn func(context.Context) error) {
	ctx, cancel := context.WithTimeout(ctx, pingTimeout)
	defer cancel()
	start := time.Now()
	err := fn(ctx)
	d.Took = time.Since(start)
	if err != nil {
		d.Error = err.Error()
		if ctx.Err() != nil {
			d.Error = "no answer within " + pingTimeout.String()
		}
		return
	}
	d.Up = true
}

// sampleRates samples the counters, twice a second apart when no sample
// is old enough to compare with. Rates are by the wall clock (time.Now),
// not the console's clock: they measure this process's real seconds.
func (c *Console) sampleRates(ctx context.Context, v *healthView) {
	for range 2 {
		cs, err := readCounters(c.cfg.Metrics)
		if err != nil {
			v.RatesError = err.Error()
		}
		per, span, ok := c.rates.add(time.Now(), cs)
		if ok {
			v.Rates, v.Writes, v.Errors, v.Span = true, per.writes, per.errors, span
			for _, dep := range []struct{ label, name string }{{"redis", "Redis"}, {"postgres", "Postgres"}} {
				v.DepErrors = append(v.DepErrors, depRate{Name: dep.name, Rate: per.deps[dep.label]})
			}
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(minSpan):
		}
	}
}
