package main

import (
	"sync"
	"sync/atomic"
)

// errorLog counts a run's errors and keeps the first few distinct messages.
// Past that it only counts, without a lock, so a failing run still runs at
// speed.
type errorLog struct {
	n       atomic.Uint64
	full    atomic.Bool
	mu      sync.Mutex
	samples []string
}

const errorSamples = 5

func (l *errorLog) add(err error) {
	l.n.Add(1)
	if l.full.Load() {
		return
	}
	msg := err.Error()
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, s := range l.samples {
		if s == msg {
			return
		}
	}
	l.samples = append(l.samples, msg)
	if len(l.samples) == errorSamples {
		l.full.Store(true)
	}
}

func (l *errorLog) count() uint64 { return l.n.Load() }

func (l *errorLog) messages() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.samples...)
}
