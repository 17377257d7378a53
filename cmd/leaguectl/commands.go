package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/league-engine/league/league"
)

// command is one row of leaguectl's command table: the usage, help, the
// dispatch and the shell completion are all read from it, so none of them
// can name a command or a flag the others do not.
type command struct {
	name    string // "board", or two words for a group: "config check", "events dead"
	summary string // one line: what it does and what it needs (REDIS_URL, DATABASE_URL)
	example string
	run     func(ctx context.Context, args []string, out io.Writer) error
}

// commands is the table, in the order usage lists them. help, completion
// and version are leaguectl's own and listed after these.
var commands = []command{
	{"config check", "validate a config file and print each league's tiers and score bit budget (DATABASE_URL: check removed tiers are empty)",
		"leaguectl config check -config config.yaml -o json", configCheck},
	{"migrate", "apply the database migrations (DATABASE_URL); -down-to N rolls back those above N",
		"leaguectl migrate -down-to 3", migrate},
	{"settle", "settle a period now, with progress lines (REDIS_URL, DATABASE_URL)",
		"leaguectl settle -league weekly -period 20261116T000000Z", settle},
	{"preview", "what settling a period would do, nothing written (REDIS_URL)",
		"leaguectl preview -league weekly -limit 20 -after bronze-3:17", preview},
	{"board", "print a sub-board (REDIS_URL)",
		"leaguectl board -league weekly -board gold-3 -o json", board},
	{"player", "print a player's standing and history (REDIS_URL, DATABASE_URL)",
		"leaguectl player -league weekly -player alice -history 10", player},
	{"restore", "rebuild a league Redis lost from Postgres (REDIS_URL, DATABASE_URL; leagued stopped)",
		"leaguectl restore -league weekly -progress", restore},
	{"leaderboard", "print a page of a leaderboard's board (REDIS_URL)",
		"leaguectl leaderboard -leaderboard kills -board 7d -limit 20", leaderboardBoard},
	{"prefill", "fill rolling boards now, after downtime; safe beside leagued (REDIS_URL)",
		"leaguectl prefill -leaderboard kills", prefill},
	{"import", "import a leaderboard's catalog from a .csv or .json file (REDIS_URL)",
		"leaguectl import -leaderboard kills -file members.csv", importCatalog},
	{"limits", "show rate-limit counters of a leaderboard's actor/member/channel/terminal, or a league's player or key (REDIS_URL)",
		"leaguectl limits -league weekly -player alice", limits},
	{"simulate", "play seasons of a league's rules on made-up players (the config only)",
		"leaguectl simulate -league weekly -players 100000 -periods 20 -svg tiers.svg", simulate},
	{"held", "list a league's held score writes, or decide one with -approve ID | -reject ID (REDIS_URL)",
		"leaguectl held -league weekly -approve 3", held},
	{"hide", "take a player off their board this period, kept for analysis (REDIS_URL; DATABASE_URL records it at once)",
		`leaguectl hide -league weekly -player bob -reason "aimbot, ticket 812"`, moderation(league.Hide)},
	{"unhide", "put a hidden player back on their board (as hide)",
		`leaguectl unhide -league weekly -player bob -reason "appeal granted"`, moderation(league.Unhide)},
	{"remove", "take a player off their board for the rest of the period, for good (as hide)",
		`leaguectl remove -league weekly -player bob -reason "chargeback"`, moderation(league.Remove)},
	{"set-score", "set (or zero) a player's score this period (as hide)",
		`leaguectl set-score -league weekly -player bob -score 0 -reason "exploit"`, moderation(league.SetScore)},
	{"ban", "refuse a player's joins, and take them off their board this period (as hide)",
		`leaguectl ban -league weekly -player bob -for 7d -reason "aimbot"`, moderation(league.Ban)},
	{"unban", "lift a ban (as hide)",
		`leaguectl unban -league weekly -player bob -reason "appeal granted"`, moderation(league.Unban)},
	{"audit", "print the admin actions, newest first (REDIS_URL, DATABASE_URL)",
		"leaguectl audit -league weekly -player bob -limit 50", audit},
	{"trail", "print the audit trail of a player or a period: tier moves and their causes, rewards, claims, admin actions (REDIS_URL, DATABASE_URL)",
		"leaguectl trail -league weekly -player bob -limit 50", trail},
	{"moderated", "list the players taken off a period's boards (REDIS_URL)",
		"leaguectl moderated -league weekly -o json", offBoards},
	{"events dead", "each webhook's delivery progress, then its dead events (DATABASE_URL)",
		"leaguectl events dead -webhook game -limit 100", eventsDead},
	{"events replay", "deliver a dead event (ID) or every one (-all) again, now (DATABASE_URL)",
		"leaguectl events replay 1042", eventsReplay},
	{"correct", "zero or remove a player of a settled period and re-decide their board, once (REDIS_URL, DATABASE_URL)",
		"leaguectl correct -league weekly -period 20261116T000000Z -player bob -remove -reason \"aimbot, ticket 812\"", correct},
	{"settlement verify", "re-decide a settled period from what Postgres recorded; print every difference, exit 1 if any (DATABASE_URL)",
		"leaguectl settlement verify -league weekly -period 20261116T000000Z", verifySettlement},
	{"export", "stream a settled period's boards and outcomes as CSV or NDJSON; progress on stderr (DATABASE_URL)",
		"leaguectl export -league weekly -period 20261116T000000Z -format csv -out weekly.csv", export},
	{"prune", "delete settled history older than an age, keeping unclaimed rewards (DATABASE_URL)",
		"leaguectl prune -older-than 180d -dry-run", prune},
	{"version", "print the build: module version, VCS revision, Go",
		"leaguectl version -o json", version},
}

// builtins are leaguectl's words that are no command of the table.
var builtins = []struct{ name, summary string }{
	{"help", "help [command]: the commands, or one command's flags and an example"},
	{"completion", "completion bash|zsh|fish: print a shell completion script"},
}

func moderation(a league.ModAction) func(context.Context, []string, io.Writer) error {
	return func(ctx context.Context, args []string, out io.Writer) error { return moderate(ctx, a, args, out) }
}

// lookup finds the command args start with, and the args left after its
// name. A group's first word alone (config, events) finds nothing.
func lookup(args []string) (*command, []string) {
	for i := range commands {
		c := &commands[i]
		words := strings.Fields(c.name)
		if len(args) >= len(words) && strings.Join(args[:len(words)], " ") == c.name {
			return c, args[len(words):]
		}
	}
	return nil, args
}

// groups returns the commands named first-word plus another.
func group(first string) []string {
	var names []string
	for _, c := range commands {
		if w, rest, ok := strings.Cut(c.name, " "); ok && w == first {
			names = append(names, rest)
		}
	}
	return names
}

// usageText is the list of commands, from the table.
func usageText() string {
	var b strings.Builder
	b.WriteString("usage: leaguectl <command> [flags]   (leaguectl help <command>: its flags and an example)\n\ncommands:\n")
	for _, c := range commands {
		fmt.Fprintf(&b, "  %-14s %s\n", c.name, c.summary)
	}
	for _, c := range builtins {
		fmt.Fprintf(&b, "  %-14s %s\n", c.name, c.summary)
	}
	b.WriteString("\ncommands that print data take -o json (one JSON document; NDJSON for streams) or -o text (the default)\n")
	return b.String()
}

// helpRequest is parse's answer to -h: the command's FlagSet, which run
// prints as the command's help (and completion reads for its flags).
type helpRequest struct{ fs *flag.FlagSet }

func (helpRequest) Error() string { return "help requested" }
func (helpRequest) Unwrap() error { return flag.ErrHelp }

// flagsOf returns a command's flags: the command is run with -h, which
// every command answers before it opens anything.
func flagsOf(c *command) *flag.FlagSet {
	err := c.run(context.Background(), []string{"-h"}, io.Discard)
	var h helpRequest
	if errors.As(err, &h) {
		return h.fs
	}
	return flag.NewFlagSet(c.name, flag.ContinueOnError) // a command without flags
}

// printHelp writes a command's summary, flags with their defaults, and an
// example.
func printHelp(w io.Writer, c *command, fs *flag.FlagSet) {
	fmt.Fprintf(w, "leaguectl %s: %s\n\nusage: leaguectl %s [flags]\n\nflags:\n", c.name, c.summary, c.name)
	fs.SetOutput(w)
	fs.PrintDefaults()
	fmt.Fprintf(w, "\nexample:\n  %s\n", c.example)
}

// help runs `leaguectl help [command]`.
func help(args []string, out io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(out, usageText())
		return nil
	}
	c, rest := lookup(args)
	if c == nil && len(args) == 1 && len(group(args[0])) > 0 {
		// a group: its commands
		fmt.Fprintf(out, "usage: leaguectl %s %s [flags]\n\n", args[0], strings.Join(group(args[0]), "|"))
		for _, c := range commands {
			if strings.HasPrefix(c.name, args[0]+" ") {
				fmt.Fprintf(out, "  %-14s %s\n", c.name, c.summary)
			}
		}
		return nil
	}
	if c == nil || len(rest) > 0 {
		return unknown(args)
	}
	printHelp(out, c, flagsOf(c))
	return nil
}

// unknown is the usage error for a command line that names no command: the
// list, and the nearest names by edit distance.
func unknown(args []string) error {
	if len(args) == 0 {
		return usageError{fmt.Errorf("no command\n%s", usageText())}
	}
	if subs := group(args[0]); len(subs) > 0 {
		name := args[0]
		if len(args) == 1 {
			return usageError{fmt.Errorf("usage: leaguectl %s %s [flags]%s", name, strings.Join(subs, "|"), didYouMean("", nil))}
		}
		return usageError{fmt.Errorf("%s: unknown command %q: usage: leaguectl %s %s [flags]%s", name, args[1], name,
			strings.Join(subs, "|"), didYouMean(args[1], subs))}
	}
	var names []string
	for _, c := range commands {
		names = append(names, c.name)
	}
	for _, c := range builtins {
		names = append(names, c.name)
	}
	return usageError{fmt.Errorf("unknown command %q%s\n%s", args[0], didYouMean(args[0], names), usageText())}
}

// didYouMean suggests the names nearest to typed (at most two edits, or a
// name it starts), nearest first: "; did you mean board?".
func didYouMean(typed string, names []string) string {
	if typed == "" {
		return ""
	}
	type near struct {
		name string
		d    int
	}
	var found []near
	for _, n := range names {
		first, _, _ := strings.Cut(n, " ")
		d := min(distance(typed, n), distance(typed, first))
		if strings.HasPrefix(n, typed) && len(typed) >= 2 {
			d = min(d, 1)
		}
		if d <= 2 && d < len(typed) {
			found = append(found, near{n, d})
		}
	}
	if len(found) == 0 {
		return ""
	}
	sort.SliceStable(found, func(i, j int) bool { return found[i].d < found[j].d })
	var s []string
	for _, f := range found[:min(3, len(found))] {
		s = append(s, f.name)
	}
	return "; did you mean " + strings.Join(s, " or ") + "?"
}

// distance is the Levenshtein distance of a and b, in bytes (command names
// are ASCII).
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
