// Package scheduler settles leagues: at every boundary of a league's cron
// schedule it settles the period that just ended (see settle.go for the
// pipeline), and it keeps looking for periods left unsettled (a replica died,
// Postgres was down, the process was not running at the boundary) and
// settles them oldest first. Any number of replicas may run it.
package scheduler

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/robfig/cron/v3"

	"github.com/league-engine/league/leaderboard"
	"github.com/league-engine/league/league"
)

// Scheduler settles the leagues of an engine into a store.
type Scheduler struct {
	engine   *league.Engine
	boards   *leaderboard.Engine // nil: no rolling boards to pre-fill
	fills    *fillMetrics
	archives *archiveMetrics
	queues   *queueMetrics
	store    league.Store
	audit    league.AuditLog // nil: admin actions wait in Redis for another process
	log      *slog.Logger
	poll     time.Duration
	metrics  *metrics
	onStep   func(Progress)
	faultFn  func(step string) error
	attempt  time.Duration

	status  statuses
	cron    *cron.Cron
	quit    chan struct{}
	stopped sync.Once
	wg      sync.WaitGroup
	leagues map[string]*runner
}

// runner serialises the settlements of one league: periods settle oldest
// first, and a trigger while a run is under way asks for one more run.
type runner struct {
	mu      sync.Mutex // held for the length of a run
	pending chan struct{}
}

// Progress reports a settlement's progress (for leaguectl's progress lines).
type Progress struct {
	League      string
	Period      league.Period
	Step        string
	Done, Total int
}

// Option configures a Scheduler.
type Option func(*Scheduler)

// WithLogger sets the logger (default slog.Default()).
func WithLogger(l *slog.Logger) Option { return func(s *Scheduler) { s.log = l } }

// WithPoll sets how often unsettled periods are looked for (default 15s).
func WithPoll(d time.Duration) Option { return func(s *Scheduler) { s.poll = d } }

// WithRegistry registers the settlement metrics on r.
func WithRegistry(r prometheus.Registerer) Option {
	return func(s *Scheduler) {
		s.metrics, s.fills, s.archives, s.queues = newMetrics(r), newFillMetrics(r), newArchiveMetrics(r), newQueueMetrics(r)
	}
}

// WithProgress calls fn as a settlement moves through its steps.
func WithProgress(fn func(Progress)) Option { return func(s *Scheduler) { s.onStep = fn } }

// WithAttemptTimeout bounds one attempt at settling a league's periods
// (default 15 minutes; see attemptTimeout). 0 or less keeps the default.
func WithAttemptTimeout(d time.Duration) Option {
	return func(s *Scheduler) {
		if d > 0 {
			s.attempt = d
		}
	}
}

// WithFault makes step fail when fn returns an error: tests use it to kill a
// settlement at each step and check that a re-run completes it.
func WithFault(fn func(step string) error) Option { return func(s *Scheduler) { s.faultFn = fn } }

// WithAuditLog sets where the admin actions waiting in Redis are recorded
// (league.Engine.RecordActions); the default is the store, when it is one
// (postgres.Store and inmem.Store are).
func WithAuditLog(a league.AuditLog) Option { return func(s *Scheduler) { s.audit = a } }

// New returns a scheduler for every league of the engine.
func New(engine *league.Engine, store league.Store, opts ...Option) *Scheduler {
	s := &Scheduler{
		engine: engine, store: store, log: slog.Default(), poll: 15 * time.Second, attempt: attemptTimeout,
		quit: make(chan struct{}), leagues: map[string]*runner{},
	}
	s.audit, _ = store.(league.AuditLog)
	for _, o := range opts {
		o(s)
	}
	if s.metrics == nil {
		s.metrics, s.fills, s.archives, s.queues = newMetrics(nil), newFillMetrics(nil), newArchiveMetrics(nil), newQueueMetrics(nil)
	}
	for _, l := range engine.Leagues() {
		s.leagues[l.ID] = &runner{pending: make(chan struct{}, 1)}
		s.metrics.start(l.ID)
	}
	return s
}

func (s *Scheduler) fault(step string) error {
	if s.faultFn != nil {
		return s.faultFn(step)
	}
	return nil
}

func (s *Scheduler) progress(p Progress) {
	if s.onStep != nil {
		s.onStep(p)
	}
}

// Start settles whatever was missed while no process ran (catch-up, oldest
// first), then settles at every boundary of every league and polls for
// periods left unsettled. It also starts recording reward claims in the
// store, and admin actions whose caller died before it recorded them,
// pre-filling rolling boards and archiving leaderboards' closed
// periods (WithLeaderboards; prefill.go, archive.go). It returns at once;
// Stop ends it.
func (s *Scheduler) Start() {
	s.cron = cron.New(cron.WithLocation(time.UTC))
	for _, l := range s.engine.Leagues() {
		id := l.ID
		s.cron.Schedule(l.Schedule, cron.FuncJob(func() { s.trigger(id) }))
		s.wg.Add(2)
		go s.loop(id)
		go s.recordClaims(id)
		s.trigger(id) // catch-up
	}
	if s.boards != nil {
		for _, l := range s.boards.Leaderboards() {
			if len(l.Windows) > 0 {
				s.fills.start(l)
				s.wg.Add(1)
				go s.repeat(func(ctx context.Context) time.Duration { return s.preFillOnce(ctx, l) })
			}
			if l.Archive != nil {
				s.archives.start(l)
				s.wg.Add(1)
				go s.repeat(func(ctx context.Context) time.Duration { return s.archiveOnce(ctx, l) })
			}
			if l.Queue != nil {
				s.queues.start(l)
				s.wg.Add(1)
				go s.repeat(func(ctx context.Context) time.Duration { return s.drainOnce(ctx, l) })
			}
		}
	}
	s.cron.Start()
}

// Stop stops triggering settlements and waits until running ones reach a
// safe point (the end of a step) or ctx ends.
func (s *Scheduler) Stop(ctx context.Context) error {
	s.stopped.Do(func() { close(s.quit) })
	if s.cron != nil {
		<-s.cron.Stop().Done()
	}
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// trigger asks the league's loop for a run; triggers during a run coalesce.
func (s *Scheduler) trigger(id string) {
	select {
	case s.leagues[id].pending <- struct{}{}:
	default:
	}
}

// loop runs a league's settlements: on every trigger and every poll, but
// after a failure not before its backoff has passed.
func (s *Scheduler) loop(id string) {
	defer s.wg.Done()
	tick := time.NewTicker(s.poll)
	defer tick.Stop()
	var backoff time.Duration
	var notBefore time.Time
	for {
		var retry <-chan time.Time
		if backoff > 0 {
			retry = time.After(time.Until(notBefore))
		}
		select {
		case <-s.quit:
			return
		case <-s.leagues[id].pending:
		case <-tick.C:
		case <-retry:
		}
		if time.Now().Before(notBefore) {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), s.attempt)
		err := s.catchUp(ctx, id)
		cancel()
		if err != nil {
			if lostRace(err) {
				// Another replica holds the lease, or moved the settlement
				// on: the normal case with several replicas, not a failure
				// to back off from or alert on. Asking again every poll
				// bounds a takeover by the poll.
				s.log.Debug("settlement under way in another process; asking again at the next poll", "league", id, "err", err)
				backoff, notBefore = 0, time.Time{}
				continue
			}
			backoff = s.retryWait(backoff, err)
			notBefore = time.Now().Add(backoff)
			switch {
			case errors.Is(err, errStopped), errors.Is(err, league.ErrNotEnded):
			default:
				s.log.Warn("settlement did not complete; retrying", "league", id, "in", backoff, "err", err)
			}
			continue
		}
		backoff, notBefore = 0, time.Time{}
	}
}

// repeat runs once until Stop, waiting between runs as long as it says
// (until its next boundary, at most a poll); after a failure (a negative
// wait), backing off as settlements do. Each run has an attempt's context,
// cancelled by Stop: the leaderboards' steps resume where they stopped.
func (s *Scheduler) repeat(once func(ctx context.Context) time.Duration) {
	defer s.wg.Done()
	var backoff time.Duration
	for {
		ctx, cancel := context.WithTimeout(context.Background(), s.attempt)
		go func() {
			select {
			case <-s.quit:
				cancel()
			case <-ctx.Done():
			}
		}()
		wait := once(ctx)
		cancel()
		if wait < 0 {
			backoff = nextBackoff(backoff, nil)
			wait = min(backoff, max(s.poll, time.Second))
		} else {
			backoff = 0
		}
		select {
		case <-s.quit:
			return
		case <-time.After(wait):
		}
	}
}

// attemptTimeout bounds one attempt at settling a league's periods. A
// million players settle in seconds; the bound is for a Postgres that hangs
// rather than refuses, which would otherwise hold the settler, and every
// SettleNow queued behind it, for ever. The attempt fails, and the next
// one picks the settlement up where it stopped.
const attemptTimeout = 15 * time.Minute

// retryWait is how long a league's loop waits to settle again after err:
// nextBackoff's wait, at most the poll (at least a second). Replicas look
// for unsettled periods that often, as docs/design.md says: a Postgres back after
// an outage should not wait out a doubled minute.
func (s *Scheduler) retryWait(cur time.Duration, err error) time.Duration {
	return min(nextBackoff(cur, err), max(s.poll, time.Second))
}

// nextBackoff doubles the wait from one second to a minute. A period that
// has not ended by Redis's clock yet (the cron fired on a clock a little
// ahead) is retried after half a second.
func nextBackoff(cur time.Duration, err error) time.Duration {
	if errors.Is(err, league.ErrNotEnded) {
		return 500 * time.Millisecond
	}
	switch {
	case cur < time.Second:
		return time.Second
	case cur >= 30*time.Second:
		return time.Minute
	default:
		return 2 * cur
	}
}

// catchUp settles every ended, unsettled period of the league, oldest first,
// stopping at the first that does not complete: a newer period must never
// settle before an older one (tiers flow forward).
func (s *Scheduler) catchUp(ctx context.Context, id string) error {
	r := s.leagues[id]
	r.mu.Lock()
	defer r.mu.Unlock()
	periods, err := s.engine.Unsettled(ctx, id)
	if err != nil {
		// Redis down, or it lost the league: no period to blame, but the
		// settlement failed all the same.
		s.metrics.failed(id, err)
		s.status.failed(id, "looking for unsettled periods", err)
		return err
	}
	l, _ := s.engine.League(id)
	waiting := s.metrics.unsettled.WithLabelValues(id)
	waiting.Set(float64(len(periods)))
	for _, p := range periods {
		if err := s.stopping("catch-up"); err != nil {
			return err
		}
		if _, err := s.settle(ctx, l, p); err != nil {
			// A lost race: another replica settles it. Not ended: by
			// Redis's clock, this host's runs ahead; retried in half a
			// second. Neither failed.
			if !lostRace(err) && !errors.Is(err, league.ErrNotEnded) {
				s.metrics.failed(id, err)
				s.status.failed(id, "settling period "+p.ID(), err)
				s.recordFailure(ctx, id, p, err)
			}
			return err
		}
		waiting.Dec()
	}
	return nil
}

// lostRace reports errors that mean another process is settling the
// period: it holds the lease (ErrBusy), or it moved the settlement past the
// step this one was at (league.ErrOvertaken: Postgres dropped the
// connection holding this process's lease while it worked on, or a dead
// settler's last statement committed late). The store refused the step, so
// nothing was done twice.
func lostRace(err error) bool {
	return errors.Is(err, ErrBusy) || errors.Is(err, league.ErrOvertaken)
}

// recordFailure writes err into the settlement's last_error, unless it is
// done. It has a context of its own: the attempt's may be the one that ran
// out, and the reason would then go unrecorded.
func (s *Scheduler) recordFailure(ctx context.Context, id string, p league.Period, err error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if st, ferr := s.store.Settlement(ctx, id, p.Start); ferr == nil && st.Status != league.StatusDone {
		s.store.Fail(ctx, id, p.Start, err.Error())
	}
}

// SettleNow settles a period now and returns its settlement: the last ended
// period when period is zero. Older unsettled periods settle first. Safe
// while leagued runs elsewhere: the lease keeps one settler per period.
func (s *Scheduler) SettleNow(ctx context.Context, leagueID string, period time.Time) (league.Settlement, error) {
	ctx, cancel := context.WithTimeout(ctx, s.attempt)
	defer cancel()
	l, err := s.engine.League(leagueID)
	if err != nil {
		return league.Settlement{}, err
	}
	cur, err := s.engine.Current(leagueID)
	if err != nil {
		return league.Settlement{}, err
	}
	var p league.Period
	if period.IsZero() {
		p = l.Schedule.Preceding(cur)
	} else if p, err = l.Schedule.Containing(period); err != nil {
		return league.Settlement{}, league.Errorf(league.NotFound, "league %q has no period starting at %s", leagueID, period.UTC().Format(time.RFC3339))
	}
	if p.End.After(cur.Start) { // by the engine's clock; Close checks Redis's
		return league.Settlement{}, league.Errorf(league.Conflict, "period %s of league %q has not ended", p.ID(), leagueID)
	}
	if err := s.catchUp(ctx, leagueID); err != nil {
		return league.Settlement{}, err
	}
	r := s.leagues[leagueID]
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := s.somethingToSettle(ctx, l.ID, p); err != nil {
		return league.Settlement{}, err
	}
	return s.settle(ctx, l, p)
}

// somethingToSettle refuses a period whose boards Redis does not hold
// (the periods joins left waiting are the ones it holds), unless its
// settlement got far enough not to need them:
//   - never settled: nobody joined it, or Redis lost it; settling would only
//     record an empty settlement, for a period from before the league
//     existed as readily as for last week;
//   - settlement started and never wrote its outcomes: Redis lost the boards
//     (leaguectl restore records that in last_error); settling now would
//     record the period as settled with nobody in it.
//
// The scheduler never settles such a period either: it settles the periods
// joins left waiting.
func (s *Scheduler) somethingToSettle(ctx context.Context, leagueID string, p league.Period) error {
	st, err := s.store.Settlement(ctx, leagueID, p.Start)
	recorded := err == nil
	if recorded && st.Status != league.StatusStarted {
		return nil // resume or report it
	}
	if err != nil && league.ErrorCode(err) != league.NotFound {
		return err
	}
	waiting, err := s.engine.Unsettled(ctx, leagueID)
	if err != nil {
		return err
	}
	for _, w := range waiting {
		if w.Start.Equal(p.Start) {
			return nil
		}
	}
	if recorded {
		return league.Errorf(league.Conflict, "the settlement of period %s of league %q never wrote its outcomes, and Redis no longer holds its boards: "+
			"there is nothing left to settle (%s)", p.ID(), leagueID, st.LastError)
	}
	return league.Errorf(league.NotFound, "Redis holds no boards of period %s of league %q (nobody joined it, or Redis lost it): there is nothing to settle", p.ID(), leagueID)
}
