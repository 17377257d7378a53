package scheduler

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/league-engine/league/league"
)

// Consumers of the claims group left by processes gone for pruneIdle are
// deleted every pruneEvery (a live one reads every few seconds).
const (
	pruneEvery = 10 * time.Minute
	pruneIdle  = time.Hour
)

// recordClaims copies the league's reward claims (and absence decays) from
// Redis's claims stream to the store. Redis decides a claim atomically at the join; the store's
// copy is the record of "claimed when and at which join". Every replica runs
// one consumer of the stream's group: each claim reaches one of them, and a
// claim taken by a consumer that died is taken over after a minute.
func (s *Scheduler) recordClaims(id string) {
	defer s.wg.Done()
	host, _ := os.Hostname()
	consumer := fmt.Sprintf("%s-%d", host, os.Getpid())
	// Stop cancels a read waiting for claims; a batch read and not yet
	// stored stays pending in the stream: this consumer reads it again
	// first, and another takes it over a minute after this one stopped.
	stopped, cancelAll := context.WithCancel(context.Background())
	defer cancelAll()
	go func() { <-s.quit; cancelAll() }()
	backoff := time.Duration(0)
	nextPrune := time.Now().Add(pruneEvery)
	for {
		select {
		case <-s.quit:
			return
		case <-time.After(backoff):
		}
		ctx, cancel := context.WithTimeout(stopped, 30*time.Second)
		if time.Now().After(nextPrune) {
			nextPrune = time.Now().Add(pruneEvery)
			if n, err := s.engine.PruneClaimConsumers(ctx, id, consumer, pruneIdle); err != nil {
				s.log.Warn("pruning idle claim consumers failed", "league", id, "err", err)
			} else if n > 0 {
				s.log.Info("pruned idle claim consumers", "league", id, "consumers", n)
			}
		}
		n, err := s.recordClaimsOnce(ctx, id, consumer, 2*time.Second)
		if err == nil {
			s.recordActions(ctx, id)
			s.resumeCorrections(ctx, id)
		}
		cancel()
		if stopped.Err() != nil {
			return
		}
		if err != nil {
			backoff = nextBackoff(backoff, err)
			s.metrics.claimFailures.WithLabelValues(id).Inc()
			s.status.failed(id, "recording reward claims", err)
			s.log.Warn("recording reward claims failed; retrying", "league", id, "in", backoff, "err", err)
			continue
		}
		backoff = 0
		s.metrics.claims.WithLabelValues(id).Add(float64(n))
	}
}

// recordActions copies the league's admin actions waiting in Redis to the
// audit log: those whose caller (the API, leaguectl) died, or lost the
// store, before it recorded them. Each is recorded once however many
// replicas copy it. Runs with the claims, every few seconds.
func (s *Scheduler) recordActions(ctx context.Context, id string) error {
	if s.audit == nil {
		return nil
	}
	n, err := s.engine.RecordActions(ctx, id, s.audit)
	if n > 0 {
		s.log.Info("recorded admin actions left waiting in Redis", "league", id, "actions", n)
	}
	return err
}

// resumeCorrections finishes the league's corrections whose run died
// after its Postgres commit (league.Engine.ResumeCorrections). Runs with
// the claims, every few seconds; a failure is logged and tried again then.
func (s *Scheduler) resumeCorrections(ctx context.Context, id string) {
	cs, ok := s.store.(league.CorrectionStore)
	if !ok {
		return
	}
	n, err := s.engine.ResumeCorrections(ctx, cs, id)
	if n > 0 {
		s.log.Info("finished corrections interrupted after their commit", "league", id, "corrections", n)
	}
	if err != nil {
		s.log.Warn("finishing an interrupted correction failed; retrying", "league", id, "err", err)
	}
}

// recordClaimsOnce moves one batch of claims and decays; it waits up to
// block for new ones and returns how many it recorded.
func (s *Scheduler) recordClaimsOnce(ctx context.Context, id, consumer string, block time.Duration) (int, error) {
	read, err := s.engine.ReadJoinRecords(ctx, id, consumer, 500, block)
	if err != nil || read.Len() == 0 {
		return 0, err
	}
	// Two writes, each idempotent: a crash between them leaves both read
	// again and recorded once.
	if err := s.store.RecordClaims(ctx, read.Claims); err != nil {
		return 0, err
	}
	if err := s.store.RecordDecays(ctx, read.Decays); err != nil {
		return 0, err
	}
	return read.Len(), s.engine.AckJoinRecords(ctx, id, read)
}

// RecordClaims copies every reward claim waiting in Redis to the store now
// and returns how many it copied (leaguectl, tests).
func (s *Scheduler) RecordClaims(ctx context.Context, leagueID string) (int, error) {
	host, _ := os.Hostname()
	consumer := fmt.Sprintf("%s-%d-now", host, os.Getpid())
	total := 0
	for {
		n, err := s.recordClaimsOnce(ctx, leagueID, consumer, -1) // -1: do not block
		total += n
		if err != nil || n == 0 {
			return total, err
		}
	}
}
