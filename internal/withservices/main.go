//go:build unix

// Command withservices runs a command with a Redis and a PostgreSQL for its
// tests. It uses the ones REDIS_URL and DATABASE_URL name, after checking
// they answer; for each one not set it starts a throwaway server in a temp
// dir and exports its URL to the command. When the command ends (or on
// Ctrl-C, SIGTERM, a failed start) it stops the servers and removes the dir.
// It exits with the command's exit code.
//
//	go run ./internal/withservices -- go test ./...
//
// A service it can neither reach nor start is an error, never a skip. It
// runs on Unix systems (Linux, macOS), where Redis and PostgreSQL do.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"
)

func main() {
	redis.SetLogger(quietLogger{})
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "usage: withservices -- command [args...]")
		return 2
	}

	// From here on signals are ours: during the start they abort it, then
	// they go to the command; either way the cleanup runs.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	ctx, cancel := context.WithCancelCause(context.Background())
	started, watched := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(watched)
		select {
		case sig := <-sigs:
			cancel(signalError{sig.(syscall.Signal)})
		case <-started:
		}
	}()
	svcs, env, err := setup(ctx, os.Getenv, os.Stdout)
	close(started)
	<-watched
	defer svcs.cleanup(os.Stdout)
	var sig signalError
	if errors.As(context.Cause(ctx), &sig) {
		fmt.Fprintf(os.Stderr, "withservices: %v while starting the services\n", sig.sig)
		return 128 + int(sig.sig)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "withservices: %v\n", err)
		return 1
	}

	// The command runs in a process group of its own, and a signal goes to
	// the whole group: make, go test and the test binaries stop together,
	// whether the signal came from the terminal or from kill. (So the command
	// cannot read the terminal; go test does not.)
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "withservices: %v\n", err)
		return 127
	}
	go func() {
		for sig := range sigs {
			syscall.Kill(-cmd.Process.Pid, sig.(syscall.Signal))
		}
	}()
	cmd.Wait()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return cmd.ProcessState.ExitCode()
}

type signalError struct{ sig syscall.Signal }

func (e signalError) Error() string { return e.sig.String() }

// services are the throwaway servers of a run, with their temp dir.
type services struct {
	dir     string
	servers []*server
}

// setup checks the services getenv names and starts the others, printing one
// line per service to out. It returns the environment for the command. Even
// on error, the returned services must be cleaned up.
func setup(ctx context.Context, getenv func(string) string, out io.Writer) (*services, []string, error) {
	s := &services{}
	redisURL, dbURL, clusterURL := getenv("REDIS_URL"), getenv("DATABASE_URL"), getenv("REDIS_CLUSTER_URL")
	if clusterURL != "" {
		if err := reach(ctx, pingRedisCluster, clusterURL); err != nil {
			return s, nil, fmt.Errorf("redis cluster: REDIS_CLUSTER_URL=%s does not answer: %v", redact(clusterURL), err)
		}
		fmt.Fprintf(out, "redis cluster: using REDIS_CLUSTER_URL=%s\n", redact(clusterURL))
	}
	if redisURL != "" {
		if err := reach(ctx, pingRedis, redisURL); err != nil {
			return s, nil, fmt.Errorf("redis: REDIS_URL=%s does not answer: %v", redact(redisURL), err)
		}
		fmt.Fprintf(out, "redis: using REDIS_URL=%s\n", redact(redisURL))
	}
	if dbURL != "" {
		if err := reach(ctx, pingPostgres, dbURL); err != nil {
			return s, nil, fmt.Errorf("postgres: DATABASE_URL=%s does not answer: %v", redact(dbURL), err)
		}
		fmt.Fprintf(out, "postgres: using DATABASE_URL=%s\n", redact(dbURL))
	}
	if redisURL != "" && dbURL != "" && clusterURL != "" {
		return s, nil, nil
	}

	var redisBin, pgBin string
	var redisErr, pgErr error
	if redisURL == "" || clusterURL == "" {
		if redisBin, redisErr = findRedis(); redisErr != nil {
			redisErr = fmt.Errorf("%w, and %s", redisErr, unset(map[string]string{"REDIS_URL": redisURL, "REDIS_CLUSTER_URL": clusterURL}))
		}
	}
	if dbURL == "" {
		if pgBin, pgErr = findPostgres(getenv); pgErr != nil {
			pgErr = fmt.Errorf("%w, and DATABASE_URL is not set", pgErr)
		}
	}
	if redisErr != nil || pgErr != nil {
		return s, nil, installError(redisErr, pgErr)
	}

	dir, err := os.MkdirTemp("", "withsvc-")
	if err != nil {
		return s, nil, err
	}
	s.dir = dir

	// initdb takes a second or two: start both at once.
	type result struct {
		srv  *server
		url  string
		err  error
		took time.Duration
	}
	var rr, pr, cr result
	var clusterServers []*server
	var wg sync.WaitGroup
	if clusterURL == "" {
		wg.Go(func() {
			t := time.Now()
			clusterServers, cr.url, cr.err = startRedisCluster(ctx, redisBin, filepath.Join(dir, "cluster"))
			cr.took = time.Since(t)
		})
	}
	if redisURL == "" {
		wg.Go(func() {
			t := time.Now()
			rr.srv, rr.url, rr.err = startRedis(ctx, redisBin, filepath.Join(dir, "redis"))
			rr.took = time.Since(t)
		})
	}
	if dbURL == "" {
		wg.Go(func() {
			t := time.Now()
			pr.srv, pr.url, pr.err = startPostgres(ctx, pgBin, filepath.Join(dir, "pg"))
			pr.took = time.Since(t)
		})
	}
	wg.Wait()
	for _, r := range []result{rr, pr} {
		if r.srv != nil {
			s.servers = append(s.servers, r.srv)
		}
	}
	s.servers = append(s.servers, clusterServers...)
	if rr.err != nil || pr.err != nil || cr.err != nil {
		return s, nil, errors.Join(rr.err, pr.err, cr.err)
	}

	var env []string
	if rr.url != "" {
		fmt.Fprintf(out, "redis: started throwaway redis-server %s on %s in %.1fs\n",
			redisVersion(redisBin), hostPort(rr.url), rr.took.Seconds())
		env = append(env, "REDIS_URL="+rr.url)
	}
	if cr.url != "" {
		fmt.Fprintf(out, "redis cluster: started a throwaway %d-node cluster on %s in %.1fs\n",
			clusterNodes, strings.NewReplacer("redis://", "", "?addr=", ",", "&addr=", ",").Replace(cr.url), cr.took.Seconds())
		env = append(env, "REDIS_CLUSTER_URL="+cr.url)
	}
	if pr.url != "" {
		fmt.Fprintf(out, "postgres: started throwaway PostgreSQL %s on %s in %.1fs (binaries in %s)\n",
			pgVersion(pgBin), hostPort(pr.url), pr.took.Seconds(), pgBin)
		env = append(env, "DATABASE_URL="+pr.url)
	}
	return s, env, nil
}

// cleanup stops the servers and removes the temp dir.
func (s *services) cleanup(out io.Writer) {
	for i := len(s.servers) - 1; i >= 0; i-- {
		s.servers[i].shutdown()
	}
	if s.dir == "" {
		return
	}
	if err := os.RemoveAll(s.dir); err != nil {
		fmt.Fprintf(out, "withservices: %v\n", err)
		return
	}
	fmt.Fprintf(out, "withservices: stopped the throwaway servers, removed %s\n", s.dir)
}

// reach calls ping on url with a 5s timeout.
func reach(ctx context.Context, ping func(context.Context, string) error, url string) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	return ping(ctx, url)
}

// installError says which packages to install for the missing binaries.
func installError(redisErr, pgErr error) error {
	var missing, apt, brew []string
	if redisErr != nil {
		missing = append(missing, "  redis: "+redisErr.Error())
		apt, brew = append(apt, "redis-server"), append(brew, "redis")
	}
	if pgErr != nil {
		missing = append(missing, "  postgres: "+pgErr.Error())
		apt, brew = append(apt, "postgresql"), append(brew, "postgresql@15")
	}
	return fmt.Errorf("cannot start the throwaway test services:\n%s\n"+
		"Install the missing packages:\n"+
		"  Debian/Ubuntu: sudo apt-get install %s\n"+
		"  macOS:         brew install %s\n"+
		"or point the tests at running servers with REDIS_URL, REDIS_CLUSTER_URL (a Redis Cluster) and DATABASE_URL.",
		strings.Join(missing, "\n"), strings.Join(apt, " "), strings.Join(brew, " "))
}

// unset names the variables of vars that are empty: "X is not set" or
// "X and Y are not set".
func unset(vars map[string]string) string {
	var names []string
	for name, v := range vars {
		if v == "" {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	if len(names) == 1 {
		return names[0] + " is not set"
	}
	return strings.Join(names, " and ") + " are not set"
}

// hostPort is the host:port of a URL.
func hostPort(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return u
	}
	return p.Host
}

// redact hides the password in a URL.
func redact(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return "(unparsable URL)"
	}
	return p.Redacted()
}
