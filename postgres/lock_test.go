package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/league-engine/league/internal/testsvc"
)

var week0 = time.Date(2026, 11, 16, 0, 0, 0, 0, time.UTC)

// Two processes of one deployment: a lock one holds is not the other's.
func TestLockAcrossPools(t *testing.T) {
	first, url := newStore(t)
	second := open(t, url)

	release, ok, err := first.Lock(t.Context(), "l", week0)
	if err != nil || !ok {
		t.Fatalf("first Lock: got %v, %v; want the lock", ok, err)
	}
	if _, ok, err := second.Lock(t.Context(), "l", week0); err != nil || ok {
		t.Fatalf("Lock from another pool while held: got %v, %v; want refused", ok, err)
	}
	release()
	again, ok, err := second.Lock(t.Context(), "l", week0)
	if err != nil || !ok {
		t.Fatalf("Lock from another pool after release: got %v, %v; want the lock", ok, err)
	}
	again()
}

// A settler that dies holding the lock (its session ends) frees the period
// for another, and its own release afterwards is harmless.
func TestLockEndsWithItsConnection(t *testing.T) {
	_, url := newStore(t)
	holderURL := url + "&application_name=" + testsvc.Namespace(t)
	holder := open(t, holderURL)
	other := open(t, url)

	release, ok, err := holder.Lock(t.Context(), "l", week0)
	if err != nil || !ok {
		t.Fatalf("holder Lock: got %v, %v; want the lock", ok, err)
	}
	terminate(t, holderURL)

	deadline := time.Now().Add(10 * time.Second)
	for {
		releaseOther, ok, err := other.Lock(t.Context(), "l", week0)
		if err != nil {
			t.Fatalf("Lock after the holder died: %v", err)
		}
		if ok {
			releaseOther()
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("Lock after the holder's session was terminated: still refused after 10s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	release() // on a dead connection: must neither panic nor hang

	// The holder's pool recovers: its next Lock works on a new connection.
	r, ok, err := holder.Lock(t.Context(), "l", week0)
	if err != nil || !ok {
		t.Fatalf("holder Lock after its connection died: got %v, %v; want the lock", ok, err)
	}
	r()
}

// terminate ends every session opened with url's application_name, as if
// their process had died.
func terminate(t *testing.T, url string) {
	t.Helper()
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(t.Context(), testsvc.DatabaseURL())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var n int
	err = conn.QueryRow(t.Context(), `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = $1`,
		cfg.RuntimeParams["application_name"]).Scan(&n)
	if err != nil || n == 0 {
		t.Fatalf("terminating the holder's sessions: %d terminated, %v", n, err)
	}
}
