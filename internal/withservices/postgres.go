//go:build unix

package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// pgBinDirs are where packages put the PostgreSQL server binaries when they
// are not on PATH: Debian/Ubuntu, RHEL, Homebrew (keg-only postgresql@N).
var pgBinDirs = []string{
	"/usr/lib/postgresql/*/bin",
	"/usr/pgsql-*/bin",
	"/opt/homebrew/opt/postgresql@*/bin",
	"/usr/local/opt/postgresql@*/bin",
	"/opt/homebrew/opt/postgresql/bin",
	"/usr/local/opt/postgresql/bin",
}

// findPostgres returns the directory holding initdb and postgres:
// $WITHSERVICES_PG_BINDIR if set, else the one on PATH, else the newest
// version in pgBinDirs.
func findPostgres(getenv func(string) string) (string, error) {
	if dir := getenv("WITHSERVICES_PG_BINDIR"); dir != "" {
		if !hasPostgres(dir) {
			return "", fmt.Errorf("WITHSERVICES_PG_BINDIR=%s holds no initdb and postgres", dir)
		}
		return dir, nil
	}
	if p, err := exec.LookPath("initdb"); err == nil && hasPostgres(filepath.Dir(p)) {
		return filepath.Dir(p), nil
	}
	var dirs []string
	for _, pattern := range pgBinDirs {
		m, _ := filepath.Glob(pattern)
		dirs = append(dirs, m...)
	}
	sort.SliceStable(dirs, func(i, j int) bool { return pgMajor(dirs[i]) > pgMajor(dirs[j]) })
	for _, dir := range dirs {
		if hasPostgres(dir) {
			return dir, nil
		}
	}
	return "", fmt.Errorf("initdb and postgres are neither on PATH nor in /usr/lib/postgresql/<version>/bin")
}

func hasPostgres(dir string) bool {
	for _, name := range []string{"initdb", "postgres"} {
		if fi, err := os.Stat(filepath.Join(dir, name)); err != nil || fi.IsDir() {
			return false
		}
	}
	return true
}

var pgMajorRE = regexp.MustCompile(`(?:postgresql/|postgresql@|pgsql-)(\d+)`)

// pgMajor is the major version in a binary directory's path, or 0.
func pgMajor(dir string) int {
	m := pgMajorRE.FindStringSubmatch(dir)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// startPostgres creates a cluster in dir (trust auth, superuser postgres),
// starts it on a free port of 127.0.0.1 with its unix socket in dir and
// durability off, creates the database test and returns its URL.
func startPostgres(ctx context.Context, bindir, dir string) (*server, string, error) {
	data := filepath.Join(dir, "data")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, "", err
	}
	cred, err := pgCredential(dir)
	if err != nil {
		return nil, "", err
	}

	initdb := exec.CommandContext(ctx, filepath.Join(bindir, "initdb"),
		"-D", data, "-U", "postgres", "--auth=trust", "--encoding=UTF8", "--locale=C", "--no-sync")
	initdb.Dir = dir
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if out, err := initdb.CombinedOutput(); err != nil {
		return nil, "", fmt.Errorf("initdb: %v\n%s", err, out)
	}

	port, err := freePort()
	if err != nil {
		return nil, "", err
	}
	cmd := exec.Command(filepath.Join(bindir, "postgres"),
		"-D", data,
		"-p", strconv.Itoa(port),
		"-k", dir,
		"-c", "listen_addresses=127.0.0.1",
		"-c", "fsync=off",
		"-c", "synchronous_commit=off",
		"-c", "full_page_writes=off",
	)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	// SIGINT is PostgreSQL's fast shutdown: it ends open sessions.
	s, err := startServer("postgres", filepath.Join(dir, "postgres.log"), syscall.SIGINT, cmd)
	if err != nil {
		return nil, "", err
	}

	admin := fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port)
	createTest := func(ctx context.Context) error {
		c, err := pgx.Connect(ctx, admin)
		if err != nil {
			return err
		}
		defer c.Close(context.Background())
		_, err = c.Exec(ctx, "CREATE DATABASE test")
		return err
	}
	if err := s.waitReady(ctx, 30*time.Second, createTest); err != nil {
		return s, "", err
	}
	return s, fmt.Sprintf("postgres://postgres@127.0.0.1:%d/test?sslmode=disable", port), nil
}

// pingPostgres checks that the database at url accepts a connection.
func pingPostgres(ctx context.Context, url string) error {
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	return c.Close(ctx)
}

// pgCredential is who runs initdb and postgres: the runner's own user, except
// for root, which PostgreSQL refuses; then the user postgres (or nobody),
// made owner of dir, with no supplementary groups. Nil means the runner's
// user.
func pgCredential(dir string) (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		if u, err = user.Lookup("nobody"); err != nil {
			return nil, fmt.Errorf("running as root, and there is no user postgres or nobody to run PostgreSQL as")
		}
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := os.Chown(dir, uid, gid); err != nil {
		return nil, err
	}
	// The user must be able to reach dir through its parent, the temp dir.
	if err := os.Chmod(filepath.Dir(dir), 0o711); err != nil {
		return nil, err
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

var pgVersionRE = regexp.MustCompile(`\(PostgreSQL\) (\S+)`)

// pgVersion is the version the postgres binary reports, or "".
func pgVersion(bindir string) string {
	out, _ := exec.Command(filepath.Join(bindir, "postgres"), "--version").Output()
	if m := pgVersionRE.FindSubmatch(out); m != nil {
		return string(m[1])
	}
	return ""
}
