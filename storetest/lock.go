package storetest

import (
	"sync"
	"testing"

	"github.com/league-engine/league/league"
)

func testLock(t *testing.T, s league.Store) {
	release, ok, err := s.Lock(t.Context(), "l", week(0))
	must(t, err, "Lock")
	if !ok {
		t.Fatal("Lock of a free period: got not ok, want the lock")
	}
	_, ok, err = s.Lock(t.Context(), "l", week(0))
	must(t, err, "second Lock")
	if ok {
		t.Fatal("Lock of a held period: got ok, want it refused")
	}

	releaseNext, ok, err := s.Lock(t.Context(), "l", week(1))
	must(t, err, "Lock of the next period")
	if !ok {
		t.Error("Lock of another period: got not ok, want the lock")
	} else {
		releaseNext()
	}

	release()
	release() // harmless
	again, ok, err := s.Lock(t.Context(), "l", week(0))
	must(t, err, "Lock after release")
	if !ok {
		t.Fatal("Lock after release: got not ok, want the lock")
	}
	again()
}

func testLockConcurrent(t *testing.T, s league.Store) {
	const n = 4
	releases := make([]func(), n)
	oks := make([]bool, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			releases[i], oks[i], errs[i] = s.Lock(t.Context(), "l", week(0))
		}()
	}
	wg.Wait()
	held := 0
	for i := range n {
		must(t, errs[i], "Lock %d", i)
		if oks[i] {
			held++
			defer releases[i]()
		}
	}
	if held != 1 {
		t.Errorf("concurrent Lock: %d callers got the lock, want 1", held)
	}
}
