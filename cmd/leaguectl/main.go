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
//	leaguectl prune [-league L] -older-than 180d [-dry-run]
//	leaguectl version
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

const usage = `usage: leaguectl <command> [flags]

commands:
  config check   validate a config file and print each league's tiers and score bit budget
  migrate        apply the database migrations (DATABASE_URL); -down-to N rolls back those above N
  settle         settle a period now (REDIS_URL, DATABASE_URL): -league L [-period P]
  preview        what settling a period would do, nothing written (REDIS_URL): -league L [-period P] [-limit N] [-after ROW]
  board          print a sub-board (REDIS_URL): -league L -board gold-3 [-period P]
  player         print a player's standing and history (REDIS_URL, DATABASE_URL): -league L -player ID
  restore        rebuild a league Redis lost from Postgres (REDIS_URL, DATABASE_URL): -league L
  leaderboard    print a leaderboard's board (REDIS_URL): -leaderboard L -board 7d [-period P] [-offset N] [-limit N]
  prefill        fill rolling boards now (REDIS_URL): [-leaderboard L]
  import         import a leaderboard's catalog (REDIS_URL): -leaderboard L -file members.csv|members.json
  limits         show rate-limit counters (REDIS_URL): -leaderboard L [-actor A] [-member M] [-channel C] [-terminal T],
                 or a league's: -league L [-player ID] [-key NAME]
  simulate       play seasons of a league's rules on made-up players (config only): [-league L] [-players N]
                 [-periods K] [-seed S] [-svg FILE]
  held           list a league's held score writes (REDIS_URL): -league L [-period P]; decide one: -approve ID | -reject ID
  hide           take a player off their board this period, kept for analysis (REDIS_URL, DATABASE_URL to record
                 it at once): -league L -player ID -reason WHY [-as NAME] [-period P]
  unhide         put a hidden player back on their board: as hide
  remove         take a player off their board for the rest of the period, for good: as hide
  set-score      set (or zero) a player's score this period: as hide, and -score N
  ban            refuse a player's joins (and take them off their board this period): as hide, and -for 7d | -until T
  unban          lift a ban: as hide
  correct        zero or remove a player of a settled period and re-decide their board, once (REDIS_URL,
                 DATABASE_URL): -league L -period P -player ID -zero|-remove -reason WHY [-as NAME]
  audit          print the admin actions, newest first (REDIS_URL, DATABASE_URL): -league L [-player ID] [-period P]
                 [-limit N] [-before ID]
  moderated      list the players taken off a period's boards (REDIS_URL): -league L [-period P]
  events         webhook delivery (DATABASE_URL): dead [-webhook W] lists each webhook's progress and dead events;
                 replay [-webhook W] ID | -all delivers dead events again
  export         stream a settled period's boards and outcomes (DATABASE_URL): -league L -period P
                 [-format csv|ndjson] [-out FILE]; progress on stderr
  prune          delete settled history older than an age, keeping unclaimed rewards (DATABASE_URL):
                 -older-than 180d (default: settlement.keep_history) [-league L] [-dry-run] [-batch N]
  version        print the build (module version, VCS revision, Go)
`

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
		return usageError{fmt.Errorf("no command\n%s", usage)}
	}
	switch cmd, rest := args[0], args[1:]; cmd {
	case "config":
		if len(rest) == 0 || rest[0] != "check" {
			return usageError{fmt.Errorf("usage: leaguectl config check [-config config.yaml]")}
		}
		return configCheck(ctx, rest[1:], out)
	case "migrate":
		return migrate(ctx, rest, out)
	case "settle":
		return settle(ctx, rest, out)
	case "preview":
		return preview(ctx, rest, out)
	case "board":
		return board(ctx, rest, out)
	case "player":
		return player(ctx, rest, out)
	case "restore":
		return restore(ctx, rest, out)
	case "leaderboard":
		return leaderboardBoard(ctx, rest, out)
	case "prefill":
		return prefill(ctx, rest, out)
	case "import":
		return importCatalog(ctx, rest, out)
	case "limits":
		return limits(ctx, rest, out)
	case "simulate":
		return simulate(ctx, rest, out)
	case "held":
		return held(ctx, rest, out)
	case "hide", "unhide", "remove", "set-score", "ban", "unban":
		return moderate(ctx, league.ModAction(cmd), rest, out)
	case "correct":
		return correct(ctx, rest, out)
	case "audit":
		return audit(ctx, rest, out)
	case "moderated":
		return offBoards(ctx, rest, out)
	case "events":
		return eventsCmd(ctx, rest, out)
	case "export":
		return export(ctx, rest, out)
	case "prune":
		return prune(ctx, rest, out)
	case "version", "-version", "--version":
		if len(rest) > 0 {
			return usageError{fmt.Errorf("version takes no arguments")}
		}
		fmt.Fprintln(out, buildinfo.Read())
		return nil
	case "help", "-h", "--help":
		fmt.Fprint(out, usage)
		return nil
	default:
		return usageError{fmt.Errorf("unknown command %q\n%s", cmd, usage)}
	}
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
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("%s: unexpected argument %q (the command takes flags only, e.g. -config FILE)", fs.Name(), fs.Arg(0))}
	}
	if name := repeatedFlag(fs, args); name != "" {
		return usageError{fmt.Errorf("%s: -%s is given twice", fs.Name(), name)}
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
