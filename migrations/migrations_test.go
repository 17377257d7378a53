package migrations

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/league-engine/league/internal/testsvc"
)

func TestEmbedded(t *testing.T) {
	ms := All()
	if len(ms) == 0 {
		t.Fatal("All: got no migrations")
	}
	want := 1
	for i, m := range ms {
		for m.Version > want && reserved[want] {
			want++
		}
		if m.Version != want || m.Up == "" || m.Down == "" || len(m.Checksum) != 64 {
			t.Errorf("migration %d: got version %d (want %d), up %d bytes, down %d bytes, checksum %q",
				i, m.Version, want, len(m.Up), len(m.Down), m.Checksum)
		}
		want++
	}
}

// TestReservedGap: a gap at a reserved version (another branch's migration
// not landed yet) loads; any other gap does not.
func TestReservedGap(t *testing.T) {
	file := &fstest.MapFile{Data: []byte("SELECT 1;")}
	fsys := fstest.MapFS{}
	for v := 1; v <= 7; v++ {
		if !reserved[v] {
			fsys[fmt.Sprintf("%04d_m.up.sql", v)] = file
			fsys[fmt.Sprintf("%04d_m.down.sql", v)] = file
		}
	}
	if ms, err := load(fsys); err != nil || ms[len(ms)-1].Version != 7 {
		t.Fatalf("load with reserved versions left out: %v", err)
	}
	delete(fsys, "0005_m.up.sql")
	delete(fsys, "0005_m.down.sql")
	if _, err := load(fsys); err == nil || !strings.Contains(err.Error(), "version 5 is missing") {
		t.Fatalf("load without 0005: %v, want version 5 missing", err)
	}
}

// TestReservedLandsLate: a database that applied the versions around a
// reserved one applies it when a binary brings it, rather than refusing
// it as renumbered.
func TestReservedLandsLate(t *testing.T) {
	pool, _ := testsvc.Postgres(t)
	ctx := ctxFor(t)
	fsys := fstest.MapFS{}
	for v := 1; v <= 7; v++ {
		if !reserved[v] {
			fsys[fmt.Sprintf("%04d_m%d.up.sql", v, v)] = &fstest.MapFile{Data: []byte(fmt.Sprintf("CREATE TABLE t%d (x int);", v))}
			fsys[fmt.Sprintf("%04d_m%d.down.sql", v, v)] = &fstest.MapFile{Data: []byte(fmt.Sprintf("DROP TABLE t%d;", v))}
		}
	}
	without, err := load(fsys)
	testsvc.Must(t, err, "load")
	if applied, err := apply(ctx, pool, without); err != nil || len(applied) != 6 {
		t.Fatalf("apply without 0006: %v, %v", applied, err)
	}
	fsys["0006_m6.up.sql"] = &fstest.MapFile{Data: []byte("CREATE TABLE t6 (x int);")}
	fsys["0006_m6.down.sql"] = &fstest.MapFile{Data: []byte("DROP TABLE t6;")}
	with, err := load(fsys)
	testsvc.Must(t, err, "load")
	if applied, err := apply(ctx, pool, with); err != nil || len(applied) != 1 || applied[0] != "0006_m6" {
		t.Fatalf("apply with 0006 landed late: %v, %v; want 0006_m6 applied", applied, err)
	}
	wantTable(t, pool, "t6", true)
}

func TestLoadRefusesBadSets(t *testing.T) {
	file := &fstest.MapFile{Data: []byte("SELECT 1;")}
	for _, tc := range []struct {
		name string
		fsys fstest.MapFS
		want string
	}{
		{"no down", fstest.MapFS{"0001_a.up.sql": file}, "needs both"},
		{"gap", fstest.MapFS{"0001_a.up.sql": file, "0001_a.down.sql": file, "0003_c.up.sql": file, "0003_c.down.sql": file}, "version 2 is missing"},
		{"bad name", fstest.MapFS{"1-a.up.sql": file}, "is not named"},
		{"two names", fstest.MapFS{"0001_a.up.sql": file, "0001_b.down.sql": file}, "two names"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := load(tc.fsys)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("load: got %v, want an error saying %q", err, tc.want)
			}
		})
	}
}

func TestApplyAndDown(t *testing.T) {
	pool, _ := testsvc.Postgres(t)
	ctx := ctxFor(t)

	applied, err := Apply(ctx, pool)
	if err != nil || len(applied) != len(All()) || applied[0] != "0001_league" {
		t.Fatalf("Apply: got %v, %v; want all %d migrations", applied, err, len(All()))
	}
	wantTable(t, pool, "outcomes", true)
	applied, err = Apply(ctx, pool)
	if err != nil || len(applied) != 0 {
		t.Fatalf("second Apply: got %v, %v; want nothing to do", applied, err)
	}
	states, err := Status(ctx, pool)
	if err != nil || len(states) != len(All()) || states[0].AppliedAt.IsZero() {
		t.Fatalf("Status: got %+v, %v; want every migration applied", states, err)
	}

	back, err := Down(ctx, pool, 0)
	if err != nil || len(back) != len(All()) {
		t.Fatalf("Down(0): got %v, %v; want all rolled back", back, err)
	}
	wantTable(t, pool, "outcomes", false)
	if applied, err := Apply(ctx, pool); err != nil || len(applied) != len(All()) {
		t.Fatalf("Apply after Down: got %v, %v; want all again", applied, err)
	}
}

// TestPendingOnlyReads: Pending answers for a database never migrated
// without creating anything there (a read-only role may ask), and for one
// migrated since.
func TestPendingOnlyReads(t *testing.T) {
	pool, _ := testsvc.Postgres(t)
	ctx := ctxFor(t)
	pending, err := Pending(ctx, pool)
	if err != nil || len(pending) != len(All()) || pending[0].Label() != "0001_league" {
		t.Fatalf("Pending on a fresh schema: got %v, %v; want all %d", pending, err, len(All()))
	}
	wantTable(t, pool, "schema_migrations", false)
	if _, err := Apply(ctx, pool); err != nil {
		t.Fatal(err)
	}
	if pending, err := Pending(ctx, pool); err != nil || len(pending) != 0 {
		t.Fatalf("Pending after Apply: got %v, %v; want none", pending, err)
	}
}

// A migration runs in its own transaction: one that fails leaves nothing of
// itself, and those before it stay applied.
func TestApplyFailingMigration(t *testing.T) {
	pool, _ := testsvc.Postgres(t)
	ms, err := load(fstest.MapFS{
		"0001_a.up.sql":   {Data: []byte("CREATE TABLE a (x int);")},
		"0001_a.down.sql": {Data: []byte("DROP TABLE a;")},
		"0002_b.up.sql":   {Data: []byte("CREATE TABLE b (x int); SELECT no_such_function();")},
		"0002_b.down.sql": {Data: []byte("DROP TABLE b;")},
	})
	if err != nil {
		t.Fatal(err)
	}
	applied, err := apply(ctxFor(t), pool, ms)
	if err == nil || !strings.Contains(err.Error(), "0002_b") || len(applied) != 1 {
		t.Fatalf("apply: got %v, %v; want 0001_a applied and an error naming 0002_b", applied, err)
	}
	wantTable(t, pool, "a", true)
	wantTable(t, pool, "b", false)
}

// Released migrations are never edited: Apply refuses a database whose
// record of one differs from the file.
func TestApplyRefusesEditedMigration(t *testing.T) {
	pool, _ := testsvc.Postgres(t)
	ctx := ctxFor(t)
	if _, err := Apply(ctx, pool); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `UPDATE schema_migrations SET checksum = 'edited' WHERE version = 1`); err != nil {
		t.Fatal(err)
	}
	_, err := Apply(ctx, pool)
	if !errors.Is(err, ErrChecksumMismatch) || !strings.Contains(err.Error(), "0001_league") {
		t.Fatalf("Apply over an edited migration: got %v, want ErrChecksumMismatch naming 0001_league", err)
	}
	if _, err := Status(ctx, pool); !errors.Is(err, ErrChecksumMismatch) {
		t.Fatalf("Status over an edited migration: got %v, want ErrChecksumMismatch", err)
	}
}

// An older binary must not run against a schema a newer one migrated.
func TestApplyRefusesNewerDatabase(t *testing.T) {
	pool, _ := testsvc.Postgres(t)
	ctx := ctxFor(t)
	if _, err := Apply(ctx, pool); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO schema_migrations (version, name, checksum) VALUES (9999, 'future', 'x')`); err != nil {
		t.Fatal(err)
	}
	_, err := Apply(ctx, pool)
	if !errors.Is(err, ErrNewerDatabase) || !strings.Contains(err.Error(), "9999") {
		t.Fatalf("Apply to a newer database: got %v, want ErrNewerDatabase naming 9999", err)
	}
}

// Replicas starting at once each run Apply: the migrations are applied
// exactly once, and nobody fails.
func TestApplyRacing(t *testing.T) {
	_, url := testsvc.Postgres(t)
	ctx := ctxFor(t)
	const n = 4
	applied := make([][]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		pool, err := pgxpool.New(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(pool.Close)
		wg.Add(1)
		go func() {
			defer wg.Done()
			applied[i], errs[i] = Apply(ctx, pool)
		}()
	}
	wg.Wait()
	total := 0
	for i := range n {
		if errs[i] != nil {
			t.Errorf("Apply %d: %v", i, errs[i])
		}
		total += len(applied[i])
	}
	if total != len(All()) {
		t.Errorf("racing Apply: %d migrations applied in all, want %d (each once)", total, len(All()))
	}
}

func wantTable(t *testing.T, pool *pgxpool.Pool, name string, want bool) {
	t.Helper()
	var got bool
	if err := pool.QueryRow(ctxFor(t), `SELECT to_regclass($1) IS NOT NULL`, name).Scan(&got); err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("table %s exists: got %v, want %v", name, got, want)
	}
}

func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// Rolling back 0013 unpacks the chunks of player events into rows of
// events, ids and fields as the outbox view showed them: no event is lost.
func TestEventChunksDown(t *testing.T) {
	pool, _ := testsvc.Postgres(t)
	ctx := ctxFor(t)
	if _, err := Apply(ctx, pool); err != nil {
		t.Fatal(err)
	}
	_, err := pool.Exec(ctx, `
		INSERT INTO events (id, type, league, period_start) VALUES (4, 'period.closed', 'l', '2026-11-16');
		INSERT INTO event_chunks VALUES (5, 7, 'l', '2026-11-16', '2026-11-23', '{p,s,d}', '{ann,bob,cy}',
			'{bronze,silver,gold}', '{silver,silver,silver}', '{1,1,2}', '{1,2,3}', '{30,20,10}', '{NULL,NULL,eu}');
		INSERT INTO events (id, type, league, period_start, player) VALUES (8, 'reward.granted', 'l', '2026-11-16', 'ann')`)
	if err != nil {
		t.Fatal(err)
	}
	const show = `SELECT string_agg(concat_ws(' ', id, type, player, tier_before, tier_after, board, rank, score, cohort), '; ' ORDER BY id) FROM `
	var before, after string
	if err := pool.QueryRow(ctx, show+`outbox`).Scan(&before); err != nil {
		t.Fatal(err)
	}
	want := "4 period.closed; 5 player.promoted ann bronze silver 1 1 30; 6 player.stayed bob silver silver 1 2 20; " +
		"7 player.demoted cy gold silver 2 3 10 eu; 8 reward.granted ann"
	if before != want {
		t.Fatalf("the outbox view shows %q, want %q", before, want)
	}
	if _, err := Down(ctx, pool, 12); err != nil {
		t.Fatal(err)
	}
	wantTable(t, pool, "event_chunks", false)
	if err := pool.QueryRow(ctx, show+`events`).Scan(&after); err != nil || after != want {
		t.Fatalf("events after rolling 0013 back: %q %v, want %q", after, err, want)
	}
}
