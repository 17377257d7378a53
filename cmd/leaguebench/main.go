// Command leaguebench is the load and benchmark harness: it measures the
// league engine and the leaderboards (through their packages and through
// the HTTP API) and, in the same run against the same Redis at the same
// concurrency, the plain Redis commands each operation costs at the least,
// so the results are ratios that hold on a noisy shared machine.
//
//	REDIS_URL=redis://127.0.0.1:6379/0 go run ./cmd/leaguebench \
//	    -workloads join,score,standing,board,mix -via lib,http -players 10000 -concurrency 32 -duration 10s
//	REDIS_URL=redis://127.0.0.1:6379/0 go run ./cmd/leaguebench \
//	    -workloads lbwrite,lbtop,lbmember -via lib,http -players 10000 -concurrency 32 -duration 10s
//
// It prints a progress line a second and, at the end, markdown tables for
// BENCHMARKS.md. Every run uses a Redis namespace (and Postgres schema) of
// its own and deletes it when done. See -h for the workloads and flags.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"
)

func main() {
	if len(os.Args) == 2 && os.Args[1] == floorServerArg {
		if err := serveFloor(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "leaguebench floor-server:", err)
			os.Exit(1)
		}
		return
	}
	o, err := parseOptions(os.Args[1:], os.Getenv, os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "leaguebench:", err)
		os.Exit(2)
	}
	if err := runMain(o, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "leaguebench:", err)
		os.Exit(1)
	}
}

// runMain runs with signals, the time limit and the profile, and prints the
// report even when the run stopped early.
func runMain(o options, stdout, stderr io.Writer) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	if o.cpuProfile != "" {
		f, err := os.Create(o.cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	rep, err := run(ctx, o, stdout, log)
	rep.write(stdout)
	if o.markdown != "" {
		f, ferr := os.Create(o.markdown)
		if ferr == nil {
			rep.write(f)
			ferr = f.Close()
		}
		err = errors.Join(err, ferr)
	}
	return err
}
