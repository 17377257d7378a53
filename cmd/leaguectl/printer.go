package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// printer prints a command's result as text (the default) or, with -o
// json, as one JSON document on stdout: the same data, with stable
// snake_case field names, for scripts. parseFlags refuses any other -o.
type printer struct {
	format *string
	out    io.Writer
}

// output gives a command that prints data its -o flag.
func output(fs *flag.FlagSet, out io.Writer) *printer {
	return &printer{format: fs.String("o", "text", "output: text, or json (one document, snake_case fields)"), out: out}
}

// json reports whether -o json was given: a command that builds its text
// line by line checks it to skip lines it would only throw away.
func (p *printer) json() bool { return *p.format == "json" }

// print writes v as JSON with -o json, else runs text.
func (p *printer) print(text func() error, v any) error {
	if !p.json() {
		return text()
	}
	enc := json.NewEncoder(p.out)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// timeJSON writes a time as RFC 3339 in UTC, "" for the zero time (a JSON
// null would make every reader check two types).
func timeJSON(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// progressFlag gives a long command its -progress flag: progress lines go
// to stderr when it is a terminal, or when -progress asks for them (a log
// file, say). Never to stdout, which -o json keeps for the result.
func progressFlag(fs *flag.FlagSet) *bool {
	return fs.Bool("progress", false, "print progress to stderr even when it is not a terminal (a terminal gets it anyway)")
}

// showProgress reports whether to print progress: asked, or stderr is a
// terminal.
func showProgress(asked bool) bool {
	if asked {
		return true
	}
	if f, ok := progress.(*os.File); ok {
		st, err := f.Stat()
		return err == nil && st.Mode()&os.ModeCharDevice != 0
	}
	return false
}

// ticker prints "\r<what>: <elapsed>" on stderr every interval while a
// long step with no count of its own runs (a restore, a simulation), so an
// operator sees it is alive; stop ends the line. Off, it prints nothing.
type ticker struct {
	stop func()
}

const progressEvery = 500 * time.Millisecond

func startTicker(on bool, what string) *ticker {
	if !on {
		return &ticker{stop: func() {}}
	}
	began := time.Now()
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(progressEvery)
		defer t.Stop()
		for {
			select {
			case <-done:
				fmt.Fprintf(progress, "\r%s: done in %s\n", what, time.Since(began).Round(time.Millisecond))
				return
			case <-t.C:
				fmt.Fprintf(progress, "\r%s: %s", what, time.Since(began).Round(100*time.Millisecond))
			}
		}
	}()
	var once sync.Once
	return &ticker{stop: func() { once.Do(func() { close(done); wg.Wait() }) }}
}
