// Command leaguectl is the operator's tool.
//
//	leaguectl config check [-config config.yaml]
//	leaguectl migrate [-down-to N]
//	leaguectl settle -league L [-period P]
//	leaguectl preview -league L [-period P] [-limit N] [-after ROW]
//	leaguectl board -league L -board gold-3 [-period P]
//	leaguectl player -league L -player ID
//	leaguectl restore -league L
//	leaguectl hide|unhide|remove -league L -player ID -reason WHY
//	leaguectl set-score -league L -player ID -score N -reason WHY
//	leaguectl ban -league L -player ID -for 7d|-until T -reason WHY
//	leaguectl unban -league L -player ID -reason WHY
//	leaguectl audit -league L [-player ID] [-period P]
//	leaguectl moderated -league L [-period P]
//	leaguectl events dead [-webhook W] | replay [-webhook W] ID|-all
//	leaguectl export -league L -period P [-format csv|ndjson] [-out FILE]
//	leaguectl settlement verify -league L -period P
//	leaguectl prune [-league L] -older-than 180d [-dry-run]
//	leaguectl version
//	leaguectl help [command]
//	leaguectl completion bash|zsh|fish
//
// Every command but export takes -o json; `leaguectl help` lists the
// commands (commands.go holds the table).
//
// It reads the same configuration and environment as leagued (LEAGUE_CONFIG,
// REDIS_URL, DATABASE_URL) and talks to Redis and Postgres directly, so it
// works with or without a running leagued: settle takes the same lease as
// leagued's scheduler, so the two never settle a period twice.
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
	"strings"
	"syscall"

	"github.com/redis/go-redis/v9"

	"github.com/league-engine/league/config"
	"github.com/league-engine/league/internal/buildinfo"
	"github.com/league-engine/league/internal/connect"
	"github.com/league-engine/league/league"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return // -h: the command's flags are printed
		}
		fmt.Fprintln(os.Stderr, "leaguectl:", err)
		var u usageError
		if errors.As(err, &u) {
			os.Exit(2) // as flag's own usage errors do
		}
		os.Exit(1)
	}
}

// usageError is a command line leaguectl cannot read, told apart by its
// exit status (2) from a command that ran and failed (1).
type usageError struct{ error }

func (e usageError) Unwrap() error { return e.error }

func run(ctx context.Context, args []string, out io.Writer) error {
	if len(args) == 0 {
		return unknown(args)
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		return help(args[1:], out)
	case "completion":
		return completion(args[1:], out)
	case "-version", "--version":
		args = append([]string{"version"}, args[1:]...)
	}
	c, rest := lookup(args)
	if c == nil {
		if len(args) == 2 && len(group(args[0])) > 0 && isHelp(args[1]) {
			return help(args[:1], out) // events -h: the group's commands
		}
		return unknown(args)
	}
	err := c.run(ctx, rest, out)
	var h helpRequest
	if errors.As(err, &h) {
		printHelp(out, c, h.fs)
		return nil
	}
	return err
}

func isHelp(arg string) bool {
	return arg == "-h" || arg == "-help" || arg == "--help" || arg == "help"
}

// version prints the build.
func version(_ context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	p := output(fs, out)
	if err := parse(fs, args); err != nil {
		return err
	}
	i := buildinfo.Read()
	return p.print(func() error {
		_, err := fmt.Fprintln(out, i)
		return err
	}, versionJSON{Version: i.Version, Revision: i.Revision, Time: i.Time, Modified: i.Modified, Go: i.Go})
}

type versionJSON struct {
	Version  string `json:"version"`
	Revision string `json:"revision"`
	Time     string `json:"time"`
	Modified bool   `json:"modified"`
	Go       string `json:"go"`
}

// flags returns a FlagSet for a command with the -config flag every command
// takes.
func flags(name string) (*flag.FlagSet, *string) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	path := os.Getenv("LEAGUE_CONFIG")
	if path == "" {
		path = "config.yaml"
	}
	return fs, fs.String("config", path, "config file (LEAGUE_CONFIG)")
}

// parse parses a command's flags and refuses arguments left over: a file
// name given without -config would otherwise be ignored, and the command
// would run on the default config and report it fine.
// A flag given twice is refused too: flag keeps the last, and
// `-league weekly -league blitz` would act on blitz without a word.
func parse(fs *flag.FlagSet, args []string) error {
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("%s: unexpected argument %q (the command takes flags only, e.g. -config FILE)", fs.Name(), fs.Arg(0))}
	}
	if name := repeatedFlag(fs, args); name != "" {
		return usageError{fmt.Errorf("%s: -%s is given twice", fs.Name(), name)}
	}
	return nil
}

// parseFlags parses flags as parse does, arguments left over allowed: -h
// is answered with the command's help, an error reads as a usage error
// (flag prints nothing itself: main prints it, once), and -o must be text
// or json.
func parseFlags(fs *flag.FlagSet, args []string) error {
	fs.Usage = func() {}
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return helpRequest{fs}
		}
		return usageError{fmt.Errorf("%w (leaguectl help %s)", err, fs.Name())}
	}
	if f := fs.Lookup("o"); f != nil {
		if v := f.Value.String(); v != "text" && v != "json" {
			return usageError{fmt.Errorf("%s: -o %q: text or json", fs.Name(), v)}
		}
	}
	return nil
}

// given reports whether the command line set the flag (0 given is not 0
// left out).
func given(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// repeatedFlag returns the first flag args give twice, reading them as
// flag.Parse does (which has accepted them): -name, --name, -name=value, or
// -name value for a flag that is not boolean.
func repeatedFlag(fs *flag.FlagSet, args []string) string {
	seen := map[string]bool{}
	for i := 0; i < len(args) && args[i] != "--"; i++ {
		name, _, hasValue := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(args[i], "-"), "-"), "=")
		f := fs.Lookup(name)
		if f == nil {
			return ""
		}
		if seen[name] {
			return name
		}
		seen[name] = true
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); !hasValue && (!ok || !b.IsBoolFlag()) {
			i++ // its value
		}
	}
	return ""
}

// env is what a command opened: the config, Redis, the engine on it (unless
// the command asked for none) and, if asked for, the store.
type env struct {
	cfg    *config.Config
	rdb    redis.UniversalClient
	engine *league.Engine
	store  league.Store
	close  func()
}

// open loads the config and connects to REDIS_URL (required: leaguectl has
// no use for an empty in-process Redis), opens the engine and, with
// needStore, connects to DATABASE_URL.
func open(ctx context.Context, path string, needStore bool) (*env, error) {
	e, err := connectAll(ctx, path, needStore)
	if err != nil {
		return nil, err
	}
	// leaguectl never creates a league's data in Redis: after Redis lost it,
	// that would hide the loss from leagued's check at start.
	skip := league.WithAbsentLeagues(func(context.Context, string) error { return league.SkipAbsent })
	if e.engine, err = league.Open(ctx, e.rdb, e.cfg.Leagues, league.WithNamespace(e.cfg.Namespace), league.WithLogger(quiet()), skip); err != nil {
		e.close()
		return nil, err
	}
	return e, nil
}

// connectAll is open without the engine.
func connectAll(ctx context.Context, path string, needStore bool) (*env, error) {
	cfg, err := config.Load(path)
	if err != nil {
		return nil, err
	}
	url := os.Getenv("REDIS_URL")
	if url == "" {
		return nil, fmt.Errorf("REDIS_URL is not set: leaguectl works on the Redis leagued uses (an embedded leagued has no Redis to share; use its HTTP API)")
	}
	rdb, _, closeRedis, err := connect.Redis(ctx, url, quiet())
	if err != nil {
		return nil, err
	}
	e := &env{cfg: cfg, rdb: rdb, close: closeRedis}
	if needStore {
		dsn := os.Getenv("DATABASE_URL")
		if dsn == "" {
			closeRedis()
			return nil, fmt.Errorf("DATABASE_URL is not set")
		}
		store, closeStore, err := connect.Store(ctx, dsn, false, quiet())
		if err != nil {
			closeRedis()
			return nil, err
		}
		e.store = store
		e.close = func() { closeStore(); closeRedis() }
	}
	return e, nil
}

// configured returns the config's league with this id, or nil.
func (e *env) configured(id string) *league.League {
	for _, l := range e.cfg.Leagues {
		if l.ID == id {
			return l
		}
	}
	return nil
}

// quiet is the log of leaguectl's connections: warnings and errors only.
func quiet() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
}
