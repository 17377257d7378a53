package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"strings"
	"testing"
)

// runJSON runs leaguectl and decodes its stdout as one JSON document:
// nothing before it, nothing after.
func runJSON(t *testing.T, args ...string) map[string]any {
	t.Helper()
	var out bytes.Buffer
	if err := run(context.Background(), args, &out); err != nil {
		t.Fatalf("leaguectl %q: %v", args, err)
	}
	dec := json.NewDecoder(&out)
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("leaguectl %q: stdout is no JSON document: %v", args, err)
	}
	if dec.More() {
		t.Fatalf("leaguectl %q: stdout holds more than one JSON document", args)
	}
	return doc
}

// dataCommands are the commands that print data: each must take -o.
var dataCommands = []string{"config check", "preview", "board", "player", "leaderboard", "limits", "simulate", "held",
	"audit", "trail", "moderated", "events dead", "version", "restore", "settle", "prune", "hide", "unhide", "remove", "set-score", "ban", "unban",
	"prefill", "import", "migrate", "events replay"}

// TestHelpEveryCommand: every command answers -h and `help <command>` with
// its summary, its flags and an example, having opened nothing; the
// commands that print data take -o.
func TestHelpEveryCommand(t *testing.T) {
	t.Setenv("REDIS_URL", "")
	t.Setenv("DATABASE_URL", "")
	data := map[string]bool{}
	for _, n := range dataCommands {
		data[n] = true
	}
	for i := range commands {
		c := &commands[i]
		t.Run(c.name, func(t *testing.T) {
			args := append(strings.Fields(c.name), "-h")
			var h, viaHelp bytes.Buffer
			if err := run(context.Background(), args, &h); err != nil {
				t.Fatalf("leaguectl %q: %v", args, err)
			}
			if err := run(context.Background(), append([]string{"help"}, strings.Fields(c.name)...), &viaHelp); err != nil {
				t.Fatalf("leaguectl help %s: %v", c.name, err)
			}
			if h.String() != viaHelp.String() {
				t.Errorf("-h and help differ:\n%s\n---\n%s", h.String(), viaHelp.String())
			}
			for _, want := range []string{c.summary, "example:\n  leaguectl " + c.name} {
				if !strings.Contains(h.String(), want) {
					t.Errorf("help lacks %q:\n%s", want, h.String())
				}
			}
			fs := flagsOf(c)
			fs.VisitAll(func(f *flag.Flag) {
				if !strings.Contains(h.String(), "-"+f.Name) {
					t.Errorf("help lacks -%s:\n%s", f.Name, h.String())
				}
			})
			if got := fs.Lookup("o") != nil; got != data[c.name] {
				t.Errorf("takes -o: got %v, want %v", got, data[c.name])
			}
		})
	}
}

// TestOutputJSON: the commands that need only the config print one JSON
// document with -o json (the others are checked against Redis and
// Postgres in their own tests); -o text is the default.
func TestOutputJSON(t *testing.T) {
	t.Setenv("DATABASE_URL", "")
	cc := runJSON(t, "config", "check", "-config", "../../config.yaml", "-o", "json")
	leagues := cc["leagues"].([]any)
	if cc["ok"] != true || len(leagues) < 2 || leagues[0].(map[string]any)["id"] != "weekly" ||
		leagues[0].(map[string]any)["tiers"].([]any)[0].(map[string]any)["min_promote_score"] == nil {
		t.Errorf("config check -o json: %v", cc)
	}
	sim := runJSON(t, "simulate", "-config", "../../config.yaml", "-players", "500", "-periods", "3", "-o", "json")
	rows := sim["rows"].([]any)
	if sim["league"] != "weekly" || len(rows) != 3 || rows[2].(map[string]any)["period"] != 3.0 ||
		len(rows[0].(map[string]any)["population"].([]any)) != len(sim["tiers"].([]any)) {
		t.Errorf("simulate -o json: %v", sim)
	}
	if v := runJSON(t, "version", "-o", "json"); !strings.HasPrefix(v["go"].(string), "go1.") || v["version"] == "" {
		t.Errorf("version -o json: %v", v)
	}
	sim3 := []string{"simulate", "-config", "../../config.yaml", "-players", "500", "-periods", "3"}
	var text, dflt bytes.Buffer
	if err := run(context.Background(), append(sim3, "-o", "text"), &text); err != nil {
		t.Fatal(err)
	}
	if err := run(context.Background(), sim3, &dflt); err != nil {
		t.Fatal(err)
	}
	cut := func(s string) string { _, rest, _ := strings.Cut(s, "\n"); return rest } // the first line holds the time taken
	if cut(text.String()) != cut(dflt.String()) || !strings.Contains(text.String(), "promoted") {
		t.Errorf("-o text is not the default:\n%s\n---\n%s", text.String(), dflt.String())
	}
}

// TestBadOutputRefused: -o other than text or json is a usage error,
// refused before anything is opened.
func TestBadOutputRefused(t *testing.T) {
	t.Setenv("REDIS_URL", "")
	t.Setenv("DATABASE_URL", "")
	for _, n := range dataCommands {
		args := append(strings.Fields(n), "-o", "yaml")
		var out bytes.Buffer
		err := run(context.Background(), args, &out)
		var u usageError
		if !errors.As(err, &u) || !strings.Contains(err.Error(), `-o "yaml": text or json`) {
			t.Errorf("leaguectl %q: %v, want a usage error", args, err)
		}
	}
}

// TestUnknownCommandSuggests: a mistyped command gets the list and the
// nearest names.
func TestUnknownCommandSuggests(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"boadr"}, `unknown command "boadr"; did you mean board?`},
		{[]string{"simulat"}, "did you mean simulate?"},
		{[]string{"verison"}, "did you mean version?"},
		{[]string{"compleiton"}, "did you mean completion?"},
		{[]string{"events", "daed"}, `events: unknown command "daed"`},
		{[]string{"events", "daed"}, "did you mean dead?"},
		{[]string{"help", "bord"}, "did you mean board?"},
		{[]string{"zzzzzz"}, "commands:\n  config check"},
		{[]string{"completion", "tcsh"}, "bash, zsh or fish"},
	} {
		var out bytes.Buffer
		err := run(context.Background(), c.args, &out)
		var u usageError
		if !errors.As(err, &u) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("leaguectl %q: %v, want a usage error saying %q", c.args, err, c.want)
		}
	}
	for _, args := range [][]string{{"events", "-h"}, {"help", "events"}} {
		var out bytes.Buffer
		if err := run(context.Background(), args, &out); err != nil || !strings.Contains(out.String(), "events replay") {
			t.Errorf("leaguectl %q: %v, printed %q; want the group's commands", args, err, out.String())
		}
	}
	var out bytes.Buffer
	err := run(context.Background(), []string{"zzzzzz"}, &out)
	if err == nil || strings.Contains(err.Error(), "did you mean") {
		t.Errorf("leaguectl zzzzzz: %v, want no suggestion", err)
	}
}

// TestCompletion: the bash script completes every command and each of its
// flags; zsh wraps it; fish names them too.
func TestCompletion(t *testing.T) {
	script := map[string]string{}
	for _, sh := range []string{"bash", "zsh", "fish"} {
		var out bytes.Buffer
		if err := run(context.Background(), []string{"completion", sh}, &out); err != nil {
			t.Fatalf("completion %s: %v", sh, err)
		}
		script[sh] = out.String()
	}
	bash := script["bash"]
	if !strings.Contains(bash, "complete -F _leaguectl leaguectl") || !strings.Contains(script["zsh"], "bashcompinit") {
		t.Fatalf("completion scripts lack their hook:\n%s", bash)
	}
	for i := range commands {
		c := &commands[i]
		first, sub, _ := strings.Cut(c.name, " ")
		flags := completionFlags(c)
		if !strings.Contains(bash, " "+first) || !strings.Contains(bash, sub) {
			t.Errorf("bash: %s not completed", c.name)
		}
		line := ""
		for _, l := range strings.Split(bash, "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), `"`+c.name+`")`) {
				line = l
			}
		}
		if line == "" {
			t.Errorf("bash: no flags case for %s", c.name)
		}
		for _, f := range flags {
			if !strings.Contains(line, " "+f+" ") && !strings.Contains(line, `"`+f+" ") && !strings.Contains(line, " "+f+`"`) && !strings.Contains(line, `"`+f+`"`) {
				t.Errorf("bash: %s's flag %s not completed: %s", c.name, f, line)
			}
			if !strings.Contains(script["fish"], "-o "+f[1:]) {
				t.Errorf("fish: %s's flag %s not completed", c.name, f)
			}
		}
	}
	if n := strings.Count(script["fish"], "' -a events\n"); n != 1 {
		t.Errorf("fish: the events group offered %d times, want once", n)
	}
	for _, w := range []string{"help", "completion", "json"} {
		if !strings.Contains(bash, w) {
			t.Errorf("bash lacks %s", w)
		}
	}
}

// TestProgressOnStderr: simulate's progress goes to stderr, only with
// -progress when stderr is no terminal, and never into -o json's stdout.
func TestProgressOnStderr(t *testing.T) {
	var stderr bytes.Buffer
	saved := progress
	progress = &stderr
	defer func() { progress = saved }()
	args := []string{"simulate", "-config", "../../config.yaml", "-players", "500", "-periods", "2", "-o", "json"}
	runJSON(t, args...)
	if stderr.Len() != 0 {
		t.Errorf("progress without -progress on no terminal: %q", stderr.String())
	}
	runJSON(t, append(args, "-progress")...)
	if !strings.Contains(stderr.String(), "simulate weekly: 500 players, 2 periods: done in ") {
		t.Errorf("progress with -progress: %q", stderr.String())
	}
}
