package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Player ids and names are 12 characters, the size the memory target is
// stated for: a 3-character run tag, a letter for what made the player, and
// 8 digits. Names are "Player" and 6 digits.
type idSource struct {
	prefix string // tag + kind
	next   atomic.Int64
}

func newIDSource(tag string, kind byte) *idSource {
	return &idSource{prefix: tag + string(kind)}
}

func (s *idSource) id(i int64) string {
	b := make([]byte, 0, 12)
	b = append(b, s.prefix...)
	digits := strconv.AppendInt(make([]byte, 0, 8), i%100_000_000, 10)
	for range 8 - len(digits) {
		b = append(b, '0')
	}
	return string(append(b, digits...))
}

// fresh returns an id never handed out by this source.
func (s *idSource) fresh() string { return s.id(s.next.Add(1) - 1) }

func playerName(id string) string { return "Player" + id[len(id)-6:] }

// load runs fn for i in [0, n) on `loaders` goroutines, each with its own
// worker, printing a progress line every five seconds, and stops at the
// first error.
func load(ctx context.Context, what string, n, loaders int, progress io.Writer, fn func(ctx context.Context, w *worker, i int) error) (time.Duration, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var next, done atomic.Int64
	var once sync.Once
	var firstErr error
	var wg sync.WaitGroup
	began := time.Now()
	for g := range min(loaders, n) {
		w := newWorker(uint64(began.UnixNano()), g)
		wg.Go(func() {
			defer w.close()
			for ctx.Err() == nil {
				i := next.Add(1) - 1
				if i >= int64(n) {
					return
				}
				if err := fn(ctx, w, int(i)); err != nil {
					once.Do(func() { firstErr = fmt.Errorf("%s #%d: %w", what, i, err); cancel() })
					return
				}
				done.Add(1)
			}
		})
	}
	stop := make(chan struct{})
	go func() {
		tick := time.NewTicker(5 * time.Second)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				d := done.Load()
				fmt.Fprintf(progress, "  %s: %s/%s (%s/s)\n", what, thousands(float64(d)), thousands(float64(n)),
					thousands(float64(d)/time.Since(began).Seconds()))
			}
		}
	}()
	wg.Wait()
	close(stop)
	if firstErr == nil && ctx.Err() != nil {
		firstErr = ctx.Err()
	}
	return time.Since(began), firstErr
}
