package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/league-engine/league/config"
	"github.com/league-engine/league/events"
	"github.com/league-engine/league/internal/connect"
	"github.com/league-engine/league/internal/words"
	"github.com/league-engine/league/postgres"
)

const eventsUsage = `usage:
  leaguectl events dead [-webhook W] [-limit N]     each webhook's delivery, then its dead events (DATABASE_URL)
  leaguectl events replay [-webhook W] ID | -all    deliver dead events again, now`

// openOutbox loads the config and opens the outbox in DATABASE_URL (no
// Redis: events live in Postgres only).
func openOutbox(ctx context.Context, path string) (*config.Config, *postgres.Store, func(), error) {
	cfg, err := config.Load(path)
	if err != nil {
		return nil, nil, nil, err
	}
	dsn := os.Getenv("DATABASE_URL")
	if dsn == "" {
		return nil, nil, nil, fmt.Errorf("DATABASE_URL is not set: events are kept in Postgres")
	}
	store, closeStore, err := connect.Store(ctx, dsn, false, quiet())
	if err != nil {
		return nil, nil, nil, err
	}
	return cfg, store.(*postgres.Store), closeStore, nil // a DATABASE_URL always opens Postgres
}

// checkWebhook refuses a -webhook the config does not name.
func checkWebhook(cmd string, cfg *config.Config, name string) error {
	if name == "" {
		return nil
	}
	var names []string
	for _, w := range cfg.Events.Webhooks {
		if w.Name == name {
			return nil
		}
		names = append(names, w.Name)
	}
	configured := "none is configured"
	if len(names) > 0 {
		configured = "configured: " + strings.Join(names, ", ")
	}
	return usageError{fmt.Errorf("events %s: -webhook %q: no such webhook in the config (%s)", cmd, name, configured)}
}

// eventsDead prints each webhook's delivery progress and its dead events.
func eventsDead(ctx context.Context, args []string, out io.Writer) error {
	fs, path := flags("events dead")
	webhook := fs.String("webhook", "", "this webhook's only (default: every webhook)")
	limit := fs.Int("limit", 100, "the most dead events to list, oldest first (0: all)")
	pr := output(fs, out)
	if err := parse(fs, args); err != nil {
		return err
	}
	if *limit < 0 {
		return usageError{fmt.Errorf("events dead: -limit %d is negative (0 lists all)", *limit)}
	}
	cfg, store, closeStore, err := openOutbox(ctx, *path)
	if err != nil {
		return err
	}
	defer closeStore()
	if err := checkWebhook("dead", cfg, *webhook); err != nil {
		return err
	}
	j := deadJSON{Webhooks: []webhookProgressJSON{}, Dead: []deadEventJSON{}}
	var hooks []hookProgress
	for _, h := range cfg.Events.Webhooks {
		if *webhook != "" && h.Name != *webhook {
			continue
		}
		p, err := store.Progress(ctx, h.Name)
		if err != nil {
			return err
		}
		hooks = append(hooks, hookProgress{h.Name, h.Redacted(), p})
		j.Webhooks = append(j.Webhooks, webhookProgressJSON{Name: h.Name, URL: h.Redacted(), Known: p.Known, ScannedTo: p.ScannedTo,
			Retrying: p.Retrying, Held: p.Held, Dead: p.Dead, OldestWaiting: timeJSON(p.Oldest)})
	}
	dead, err := store.DeadLetters(ctx, *webhook, *limit)
	if err != nil {
		return err
	}
	for _, d := range dead {
		j.Dead = append(j.Dead, deadEventJSON{Event: d.Event.ID, Webhook: d.Webhook, Type: string(d.Event.Type), League: d.Event.League,
			Player: d.Event.Player, Period: events.PeriodID(d.Event.Period), Attempts: d.Attempts, Died: timeJSON(d.Since),
			Holding: d.Holding, LastError: d.LastError})
	}
	return pr.print(func() error { return deadText(out, len(cfg.Events.Webhooks) == 0, hooks, dead) }, j)
}

// deadJSON is events dead -o json.
type deadJSON struct {
	Webhooks []webhookProgressJSON `json:"webhooks"`
	Dead     []deadEventJSON       `json:"dead"` // oldest first
}

type webhookProgressJSON struct {
	Name          string `json:"name"`
	URL           string `json:"url"`   // redacted
	Known         bool   `json:"known"` // false: no deliverer has started it yet
	ScannedTo     int64  `json:"scanned_to"`
	Retrying      int    `json:"retrying"`
	Held          int    `json:"held"`
	Dead          int    `json:"dead"`
	OldestWaiting string `json:"oldest_waiting"` // when the oldest event waiting for a retry was written; "": none
}

type deadEventJSON struct {
	Event     int64  `json:"event_id"`
	Webhook   string `json:"webhook"`
	Type      string `json:"type"`
	League    string `json:"league"`
	Player    string `json:"player_id"`
	Period    string `json:"period"`
	Attempts  int    `json:"attempts"`
	Died      string `json:"died_at"`
	Holding   int    `json:"holding"` // the player's later events held behind it
	LastError string `json:"last_error"`
}

// hookProgress is a webhook's delivery progress.
type hookProgress struct {
	name, url string
	events.Progress
}

// deadText prints events dead as text.
func deadText(out io.Writer, none bool, hooks []hookProgress, dead []events.DeadLetter) error {
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	if none {
		fmt.Fprintln(w, "no webhooks configured (events.webhooks)")
	}
	now := time.Now()
	for _, p := range hooks {
		if !p.Known {
			fmt.Fprintf(w, "webhook %s\t%s: no deliverer has started it yet\n", p.name, p.url)
			continue
		}
		lag := "no event waits for a retry"
		if !p.Oldest.IsZero() {
			lag = fmt.Sprintf("the oldest event waiting was written %s ago", now.Sub(p.Oldest).Round(time.Second))
		}
		fmt.Fprintf(w, "webhook %s\t%s: scanned to event %d; %d retried, %d held behind them or a dead one, %d dead; %s\n",
			p.name, p.url, p.ScannedTo, p.Retrying, p.Held, p.Dead, lag)
	}
	if len(dead) == 0 {
		fmt.Fprintln(w, "no dead events")
		return w.Flush()
	}
	fmt.Fprintf(w, "%s, oldest first (leaguectl events replay ID | -all delivers them again):\n", words.Count(len(dead), "dead event"))
	fmt.Fprintln(w, "event\twebhook\ttype\tleague\tplayer\tperiod\tattempts\tdied\tholding\tlast error")
	for _, d := range dead {
		player := d.Event.Player
		if player == "" {
			player = "-"
		}
		fmt.Fprintf(w, "%d\t%s\t%s\t%s\t%s\t%s\t%d\t%s\t%d\t%s\n", d.Event.ID, d.Webhook, d.Event.Type, d.Event.League, player,
			events.PeriodID(d.Event.Period), d.Attempts, d.Since.Format(time.RFC3339), d.Holding, oneLine(d.LastError, 80))
	}
	return w.Flush()
}

// eventsReplay makes dead events due again.
func eventsReplay(ctx context.Context, args []string, out io.Writer) error {
	fs, path := flags("events replay")
	webhook := fs.String("webhook", "", "to this webhook only (default: to every webhook it is dead to)")
	all := fs.Bool("all", false, "every dead event")
	pr := output(fs, out)
	// The event id may come before or after the flags.
	var id string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		id, args = args[0], args[1:]
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if rest := fs.Args(); len(rest) > 0 {
		if id != "" || len(rest) > 1 {
			return usageError{fmt.Errorf("events replay: one event id, or -all\n%s", eventsUsage)}
		}
		id = rest[0]
	}
	if name := repeatedFlag(fs, args); name != "" {
		return usageError{fmt.Errorf("events replay: -%s is given twice", name)}
	}
	var n int64
	switch {
	case *all && id != "":
		return usageError{fmt.Errorf("events replay: an event id or -all, not both")}
	case !*all && id == "":
		return usageError{fmt.Errorf("events replay: name the event (its id, from leaguectl events dead), or -all\n%s", eventsUsage)}
	case id != "":
		var err error
		if n, err = strconv.ParseInt(id, 10, 64); err != nil || n < 1 {
			return usageError{fmt.Errorf("events replay: %q is not an event id (a whole number from 1, as leaguectl events dead lists them)", id)}
		}
	}
	cfg, store, closeStore, err := openOutbox(ctx, *path)
	if err != nil {
		return err
	}
	defer closeStore()
	if err := checkWebhook("replay", cfg, *webhook); err != nil {
		return err
	}
	replayed, err := store.Replay(ctx, *webhook, n)
	if err != nil {
		return err
	}
	to := "every webhook"
	if *webhook != "" {
		to = "webhook " + *webhook
	}
	switch {
	case replayed == 0 && n != 0:
		return fmt.Errorf("event %d is not dead to %s: nothing replayed (leaguectl events dead lists the dead ones)", n, to)
	}
	return pr.print(func() error {
		if replayed == 0 {
			_, err := fmt.Fprintf(out, "no dead events to %s: nothing replayed\n", to)
			return err
		}
		_, err := fmt.Fprintf(out, "replayed %s to %s: the deliverer sends each again now, attempts counted afresh, and the player's events held behind it follow once it is delivered\n",
			words.Count(replayed, "dead event"), to)
		return err
	}, replayJSON{Replayed: replayed, Webhook: *webhook, Event: n})
}

// replayJSON is events replay -o json.
type replayJSON struct {
	Replayed int    `json:"replayed"` // dead events made due again
	Webhook  string `json:"webhook"`  // "": every webhook each was dead to
	Event    int64  `json:"event_id"` // 0: -all
}

// oneLine shortens s to n characters on one line.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		s = s[:n-3] + "..."
	}
	return s
}
