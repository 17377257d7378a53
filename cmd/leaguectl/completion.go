package main

import (
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
)

// completion prints a shell completion script, made from the command table
// and each command's FlagSet: a new command or flag is completed as soon
// as it exists.
//
//	source <(leaguectl completion bash)
//	source <(leaguectl completion zsh)
//	leaguectl completion fish | source
func completion(args []string, out io.Writer) error {
	if len(args) != 1 {
		return usageError{fmt.Errorf("usage: leaguectl completion bash|zsh|fish")}
	}
	switch args[0] {
	case "bash":
		_, err := io.WriteString(out, bashCompletion())
		return err
	case "zsh":
		// zsh runs the bash function through its bashcompinit: one script
		// to keep right, not two.
		_, err := io.WriteString(out, "#compdef leaguectl\nautoload -U +X bashcompinit && bashcompinit\n"+bashCompletion())
		return err
	case "fish":
		_, err := io.WriteString(out, fishCompletion())
		return err
	}
	return usageError{fmt.Errorf("completion: %q: bash, zsh or fish%s", args[0], didYouMean(args[0], []string{"bash", "zsh", "fish"}))}
}

// completionFlags returns a command's flags as the shell types them
// (-league), sorted.
func completionFlags(c *command) []string {
	var names []string
	flagsOf(c).VisitAll(func(f *flag.Flag) { names = append(names, "-"+f.Name) })
	sort.Strings(names)
	return names
}

// firstWords returns the words that start a command line: each command's
// first word once, and the builtins.
func firstWords() []string {
	var words []string
	seen := map[string]bool{}
	for _, c := range commands {
		w, _, _ := strings.Cut(c.name, " ")
		if !seen[w] {
			seen[w] = true
			words = append(words, w)
		}
	}
	for _, b := range builtins {
		words = append(words, b.name)
	}
	return words
}

func bashCompletion() string {
	var b strings.Builder
	b.WriteString(`# bash completion for leaguectl: source <(leaguectl completion bash)
_leaguectl() {
    local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}"
    local cmd="${COMP_WORDS[1]}" flags=""
    if [ "$COMP_CWORD" -eq 1 ]; then
        COMPREPLY=($(compgen -W "`)
	b.WriteString(strings.Join(firstWords(), " "))
	b.WriteString(`" -- "$cur"))
        return
    fi
    if [ "$prev" = "-o" ]; then
        COMPREPLY=($(compgen -W "text json" -- "$cur"))
        return
    fi
    case "$cmd" in
`)
	groups := map[string]bool{}
	for _, c := range commands {
		first, _, ok := strings.Cut(c.name, " ")
		if !ok || groups[first] {
			continue
		}
		groups[first] = true
		fmt.Fprintf(&b, `    %s)
        if [ "$COMP_CWORD" -eq 2 ]; then
            COMPREPLY=($(compgen -W "%s" -- "$cur"))
            return
        fi
        cmd="$cmd ${COMP_WORDS[2]}";;
`, first, strings.Join(group(first), " "))
	}
	var names []string
	for _, c := range commands {
		names = append(names, c.name)
	}
	fmt.Fprintf(&b, `    help)
        COMPREPLY=($(compgen -W "%s" -- "$cur"))
        return;;
    completion)
        COMPREPLY=($(compgen -W "bash zsh fish" -- "$cur"))
        return;;
    esac
    case "$cmd" in
`, strings.Join(firstWords()[:len(firstWords())-len(builtins)], " "))
	for i := range commands {
		c := &commands[i]
		fmt.Fprintf(&b, "    %q) flags=%q;;\n", c.name, strings.Join(completionFlags(c), " "))
	}
	b.WriteString(`    esac
    case "$cur" in
        -*) COMPREPLY=($(compgen -W "$flags" -- "$cur"));;
        *) COMPREPLY=($(compgen -f -- "$cur"));;
    esac
}
complete -F _leaguectl leaguectl
`)
	return b.String()
}

func fishCompletion() string {
	var b strings.Builder
	b.WriteString("# fish completion for leaguectl: leaguectl completion fish | source\ncomplete -c leaguectl -f\n")
	firsts := strings.Join(firstWords(), " ")
	groups := map[string]bool{}
	for _, c := range commands {
		first, sub, ok := strings.Cut(c.name, " ")
		if !ok {
			fmt.Fprintf(&b, "complete -c leaguectl -n 'not __fish_seen_subcommand_from %s' -a %s -d %s\n", firsts, c.name, fishQuote(c.summary))
			continue
		}
		if !groups[first] {
			groups[first] = true
			fmt.Fprintf(&b, "complete -c leaguectl -n 'not __fish_seen_subcommand_from %s' -a %s\n", firsts, first)
		}
		fmt.Fprintf(&b, "complete -c leaguectl -n '__fish_seen_subcommand_from %s; and not __fish_seen_subcommand_from %s' -a %s -d %s\n",
			first, strings.Join(group(first), " "), sub, fishQuote(c.summary))
	}
	for _, bi := range builtins {
		fmt.Fprintf(&b, "complete -c leaguectl -n 'not __fish_seen_subcommand_from %s' -a %s -d %s\n", firsts, bi.name, fishQuote(bi.summary))
	}
	fmt.Fprintf(&b, "complete -c leaguectl -n '__fish_seen_subcommand_from completion' -a 'bash zsh fish'\n")
	for i := range commands {
		c := &commands[i]
		cond := "__fish_seen_subcommand_from " + c.name
		if first, sub, ok := strings.Cut(c.name, " "); ok {
			cond = "__fish_seen_subcommand_from " + first + "; and __fish_seen_subcommand_from " + sub
		}
		flagsOf(c).VisitAll(func(f *flag.Flag) {
			// -o: fish's old-style option, a single dash and a long name,
			// as Go's flag package reads them.
			arg := ""
			if f.Name == "o" {
				arg = " -x -a 'text json'"
			} else if bf, ok := f.Value.(interface{ IsBoolFlag() bool }); !ok || !bf.IsBoolFlag() {
				arg = " -r"
			}
			fmt.Fprintf(&b, "complete -c leaguectl -n '%s' -o %s%s -d %s\n", cond, f.Name, arg, fishQuote(f.Usage))
		})
	}
	return b.String()
}

// fishQuote quotes s for fish, on one line.
func fishQuote(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}
