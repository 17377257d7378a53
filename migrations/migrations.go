// Package migrations holds the Postgres schema as numbered SQL files,
// NNNN_name.up.sql and NNNN_name.down.sql, embedded in the binary, and
// applies them.
//
// A released migration is never edited: a fix is a new migration. Apply
// enforces it by recording a checksum of each file it applies and refusing to
// run when an applied file has changed, or when the database holds a version
// this binary does not know (a newer binary migrated it).
package migrations

import (
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

//go:embed *.sql
var files embed.FS

// Migration is one numbered step of the schema.
type Migration struct {
	Version  int
	Name     string
	Up, Down string
	Checksum string // hex SHA-256 of Up
}

// State is a migration and whether the database has it.
type State struct {
	Migration
	AppliedAt time.Time // zero while pending
}

var (
	// ErrChecksumMismatch: an applied migration's file was edited since.
	ErrChecksumMismatch = errors.New("migrations: an applied migration differs from the file in this binary")
	// ErrNewerDatabase: the database holds a migration this binary does not
	// know, so it was migrated by a newer binary.
	ErrNewerDatabase = errors.New("migrations: the database has a migration this binary does not know")
)

// All returns the embedded migrations, oldest first.
func All() []Migration { return slices.Clone(embedded) }

var embedded = mustLoad(files)

func mustLoad(fsys fs.FS) []Migration {
	ms, err := load(fsys)
	if err != nil {
		panic(err) // the embedded files are checked by the tests
	}
	return ms
}

// load reads NNNN_name.up.sql / .down.sql pairs. Versions start at 1 and
// leave no gaps but reserved ones, so a lost file cannot go unnoticed.
func load(fsys fs.FS) ([]Migration, error) {
	paths, err := fs.Glob(fsys, "*.sql")
	if err != nil {
		return nil, err
	}
	byVersion := map[int]*Migration{}
	for _, p := range paths {
		base, dir, ok := strings.Cut(p, ".")
		num, name, ok2 := strings.Cut(base, "_")
		v, err := strconv.Atoi(num)
		if !ok || !ok2 || err != nil || v <= 0 || (dir != "up.sql" && dir != "down.sql") {
			return nil, fmt.Errorf("migrations: %s is not named NNNN_name.up.sql or NNNN_name.down.sql", p)
		}
		body, err := fs.ReadFile(fsys, p)
		if err != nil {
			return nil, err
		}
		m := byVersion[v]
		if m == nil {
			m = &Migration{Version: v, Name: name}
			byVersion[v] = m
		}
		if m.Name != name {
			return nil, fmt.Errorf("migrations: version %d has two names, %q and %q", v, m.Name, name)
		}
		if dir == "up.sql" {
			sum := sha256.Sum256(body)
			m.Up, m.Checksum = string(body), hex.EncodeToString(sum[:])
		} else {
			m.Down = string(body)
		}
	}
	ms := make([]Migration, 0, len(byVersion))
	for _, m := range byVersion {
		if m.Up == "" || m.Down == "" {
			return nil, fmt.Errorf("migrations: version %d (%s) needs both an up and a down file", m.Version, m.Name)
		}
		ms = append(ms, *m)
	}
	slices.SortFunc(ms, func(a, b Migration) int { return a.Version - b.Version })
	want := 1
	for _, m := range ms {
		for m.Version > want && reserved[want] {
			want++
		}
		if m.Version != want {
			return nil, fmt.Errorf("migrations: version %d is missing", want)
		}
		want++
	}
	return ms, nil
}

// reserved are versions taken by work on another branch that has not landed
// yet, so that two branches adding a migration at once do not renumber each
// other's. A gap there is expected, not a lost file, and a database that
// applied a later version before it applies it when it comes (compare). An
// entry is harmless once its migration lands, and can go once every
// database has it: 0006 (the events outbox) and 0008 (settlement rules)
// landed on 2026-11-26, after 0007 and 0009 had been applied on
// development databases.
var reserved = map[int]bool{6: true, 8: true}

// Apply brings the schema of the pool's connections (their search_path) up
// to date and returns the migrations it applied, as "NNNN_name". Two
// processes starting at once are safe: the second waits for the first and
// then finds nothing left to do.
func Apply(ctx context.Context, pool *pgxpool.Pool) (applied []string, err error) {
	return apply(ctx, pool, embedded)
}

// Down rolls back every applied migration above version to, newest first,
// and returns those it rolled back. Down(ctx, pool, 0) empties the schema.
// For tests and operators: the application never migrates down.
func Down(ctx context.Context, pool *pgxpool.Pool, to int) (rolledBack []string, err error) {
	return down(ctx, pool, embedded, to)
}

// Status returns every migration this binary knows, with the time it was
// applied (zero while pending). It checks, as Apply does, that the database
// holds no edited or unknown migration.
func Status(ctx context.Context, pool *pgxpool.Pool) ([]State, error) {
	var out []State
	err := locked(ctx, pool, func(conn *pgx.Conn) error {
		done, err := check(ctx, conn, embedded)
		for _, m := range embedded {
			out = append(out, State{Migration: m, AppliedAt: done[m.Version]})
		}
		return err
	})
	return out, err
}

func apply(ctx context.Context, pool *pgxpool.Pool, ms []Migration) (applied []string, err error) {
	err = locked(ctx, pool, func(conn *pgx.Conn) error {
		done, err := check(ctx, conn, ms)
		if err != nil {
			return err
		}
		for _, m := range ms {
			if _, ok := done[m.Version]; ok {
				continue
			}
			err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
				if _, err := tx.Exec(ctx, m.Up); err != nil {
					return err
				}
				_, err := tx.Exec(ctx, `INSERT INTO schema_migrations (version, name, checksum, applied_at)
					VALUES ($1, $2, $3, now())`, m.Version, m.Name, m.Checksum)
				return err
			})
			if err != nil {
				return fmt.Errorf("migrations: applying %s: %w", m.Label(), err)
			}
			applied = append(applied, m.Label())
		}
		return nil
	})
	return applied, err
}

func down(ctx context.Context, pool *pgxpool.Pool, ms []Migration, to int) (rolledBack []string, err error) {
	err = locked(ctx, pool, func(conn *pgx.Conn) error {
		done, err := check(ctx, conn, ms)
		if err != nil {
			return err
		}
		for i := len(ms) - 1; i >= 0; i-- {
			m := ms[i]
			if _, ok := done[m.Version]; !ok || m.Version <= to {
				continue
			}
			err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
				if _, err := tx.Exec(ctx, m.Down); err != nil {
					return err
				}
				_, err := tx.Exec(ctx, `DELETE FROM schema_migrations WHERE version = $1`, m.Version)
				return err
			})
			if err != nil {
				return fmt.Errorf("migrations: rolling back %s: %w", m.Label(), err)
			}
			rolledBack = append(rolledBack, m.Label())
		}
		return nil
	})
	return rolledBack, err
}

// locked runs fn on one connection holding the migration lock of its schema.
// The lock is a session-level advisory lock, so a process that dies while
// migrating releases it with its connection. It is keyed by schema: two
// schemas of one database (tests, or two deployments) migrate independently.
func locked(ctx context.Context, pool *pgxpool.Pool, fn func(*pgx.Conn) error) error {
	c, err := pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("migrations: %w", err)
	}
	const key = `hashtextextended('league-engine/migrations/' || coalesce(current_schema(), ''), 0)`
	if _, err := c.Exec(ctx, `SELECT pg_advisory_lock(`+key+`)`); err != nil {
		c.Release()
		return fmt.Errorf("migrations: taking the migration lock: %w", err)
	}
	defer func() {
		// A canceled ctx must not leave the lock on a pooled connection.
		unlockCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if _, err := c.Exec(unlockCtx, `SELECT pg_advisory_unlock(`+key+`)`); err != nil {
			c.Hijack().Close(unlockCtx) // closing the session ends the lock
			return
		}
		c.Release()
	}()
	return fn(c.Conn())
}

// check creates the version table if need be, returns the applied versions
// and when, and refuses a database whose applied migrations differ from ms.
func check(ctx context.Context, conn *pgx.Conn, ms []Migration) (map[int]time.Time, error) {
	_, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version    integer PRIMARY KEY,
		name       text NOT NULL,
		checksum   text NOT NULL,
		applied_at timestamptz NOT NULL DEFAULT now()
	)`)
	if err != nil {
		return nil, fmt.Errorf("migrations: creating schema_migrations: %w", err)
	}
	return compare(ctx, conn, ms)
}

// Pending returns the migrations this binary knows that the database has
// not applied, reading only: no table created, no lock taken, so a
// read-only role or a standby can ask. It refuses, as Apply does, a
// database whose applied migrations differ from this binary's.
func Pending(ctx context.Context, pool *pgxpool.Pool) ([]Migration, error) {
	var exists bool
	if err := pool.QueryRow(ctx, `SELECT to_regclass('schema_migrations') IS NOT NULL`).Scan(&exists); err != nil {
		return nil, fmt.Errorf("migrations: looking for schema_migrations: %w", err)
	}
	done := map[int]time.Time{}
	if exists {
		var err error
		if done, err = compare(ctx, pool, embedded); err != nil {
			return nil, err
		}
	}
	var pending []Migration
	for _, m := range embedded {
		if _, ok := done[m.Version]; !ok {
			pending = append(pending, m)
		}
	}
	return pending, nil
}

// compare reads the applied versions and when, and refuses a database
// whose applied migrations differ from ms.
func compare(ctx context.Context, q interface {
	Query(context.Context, string, ...any) (pgx.Rows, error)
}, ms []Migration) (map[int]time.Time, error) {
	rows, _ := q.Query(ctx, `SELECT version, name, checksum, applied_at FROM schema_migrations ORDER BY version`)
	type row struct {
		version        int
		name, checksum string
		appliedAt      time.Time
	}
	applied, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (row, error) {
		var x row
		err := r.Scan(&x.version, &x.name, &x.checksum, &x.appliedAt)
		return x, err
	})
	if err != nil {
		return nil, fmt.Errorf("migrations: reading schema_migrations: %w", err)
	}
	known := make(map[int]Migration, len(ms))
	for _, m := range ms {
		known[m.Version] = m
	}
	done := make(map[int]time.Time, len(applied))
	for _, a := range applied {
		m, ok := known[a.version]
		if !ok {
			return done, fmt.Errorf("%w: version %d (%s); this binary knows up to %d: run a newer binary",
				ErrNewerDatabase, a.version, a.name, len(ms))
		}
		if m.Checksum != a.checksum {
			return done, fmt.Errorf("%w: %s was applied with checksum %.12s, the file now has %.12s; write a new migration instead of editing a released one",
				ErrChecksumMismatch, m.Label(), a.checksum, m.Checksum)
		}
		done[a.version] = a.appliedAt.UTC()
	}
	// Versions apply in order: one missing below an applied one means the
	// files were renumbered after release.
	// A reserved version is the exception: its migration, written beside
	// a later one on another branch, may land after the later one was
	// applied, and is applied then (the two are written not to depend on
	// each other).
	for _, m := range ms {
		if _, ok := done[m.Version]; !ok && !reserved[m.Version] && len(applied) > 0 && m.Version < applied[len(applied)-1].version {
			return done, fmt.Errorf("migrations: %s is not applied but the later version %d is; migrations were renumbered",
				m.Label(), applied[len(applied)-1].version)
		}
	}
	return done, nil
}

// Label names the migration as its files do: NNNN_name.
func (m Migration) Label() string { return fmt.Sprintf("%04d_%s", m.Version, m.Name) }
