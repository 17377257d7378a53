package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/league-engine/league/events"
	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/league"
	"github.com/league-engine/league/postgres"
)

const eventsConfig = `
events:
  webhooks:
    - {name: game, url: "https://u:hunter2pw@game.example.com/hook", secret_env: HOOK_SECRET, types: [player.promoted, reward.claimed]}
    - {name: shop, url: "http://10.0.0.7/x", secret: shop-secret-0123456789, max_attempts: 3, concurrency: 2, timeout: 2s}
leagues:
  - id: weekly
    schedule: "@weekly"
    tiers: [{id: low, promote: 0.5}, {id: high, demote: 0.5}]
`

// TestEventsDeadAndReplay: leaguectl events dead shows each webhook's
// progress and its dead events; replay makes one, or all, due again, and
// says when there is nothing to replay.
func TestEventsDeadAndReplay(t *testing.T) {
	_, dsn := testsvc.Postgres(t)
	path := filepath.Join(t.TempDir(), "config.yaml")
	testsvc.Must(t, os.WriteFile(path, []byte(eventsConfig), 0o600), "write config")
	t.Setenv("DATABASE_URL", dsn)
	t.Setenv("HOOK_SECRET", "hook-secret-0123456789")
	ctx := context.Background()
	var out bytes.Buffer
	testsvc.Must(t, run(ctx, []string{"migrate"}, &out), "migrate")
	s, err := postgres.Open(ctx, dsn)
	testsvc.Must(t, err, "postgres.Open")
	defer s.Close()

	_, err = s.StartWebhook(ctx, "game")
	testsvc.Must(t, err, "StartWebhook")
	week := time.Date(2026, 11, 16, 0, 0, 0, 0, time.UTC)
	testsvc.Must(t, s.RecordClaims(ctx, []league.Claim{
		{League: "weekly", Player: "ann", Earned: week, At: time.Now()},
		{League: "weekly", Player: "bob", Earned: week, At: time.Now()},
		{League: "weekly", Player: "ann", Earned: week.AddDate(0, 0, 7), At: time.Now()},
	}), "RecordClaims")
	testsvc.Must(t, s.Scanned(ctx, "game", 0, 3, []events.Waiting{
		{EventID: 1, Lane: "weekly ann", State: events.Dead, Attempts: 20, LastError: "HTTP 500: boom\nat line 2"},
		{EventID: 2, Lane: "weekly bob", State: events.Dead, Attempts: 20, LastError: "no answer within 10s"},
		{EventID: 3, Lane: "weekly ann", State: events.Held},
	}), "Scanned")

	out.Reset()
	testsvc.Must(t, run(ctx, []string{"events", "dead", "-config", path}, &out), "events dead")
	t.Logf("leaguectl events dead:\n%s", out.String())
	for _, want := range []string{
		"webhook game  https://u:xxxxx@game.example.com/hook: scanned to event 3; 0 retried, 1 held behind them or a dead one, 2 dead",
		"webhook shop  http://10.0.0.7/x: no deliverer has started it yet",
		"2 dead events, oldest first",
		"1      game     reward.claimed  weekly  ann     20261116T000000Z  20        ",
		"1        HTTP 500: boom at line 2",
		"2      game     reward.claimed  weekly  bob",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("events dead lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "hunter2pw") {
		t.Errorf("events dead shows the URL's password:\n%s", out.String())
	}
	dj := runJSON(t, "events", "dead", "-config", path, "-o", "json")
	if ds, ws := dj["dead"].([]any), dj["webhooks"].([]any); len(ds) != 2 || len(ws) != 2 || ds[0].(map[string]any)["event_id"] != 1.0 ||
		ws[0].(map[string]any)["scanned_to"] != 3.0 || strings.Contains(fmt.Sprint(dj), "hunter2pw") {
		t.Errorf("events dead -o json: %v", dj)
	}
	out.Reset()
	testsvc.Must(t, run(ctx, []string{"events", "dead", "-config", path, "-webhook", "shop"}, &out), "events dead -webhook shop")
	if !strings.Contains(out.String(), "no dead events") || strings.Contains(out.String(), "webhook game") {
		t.Errorf("events dead -webhook shop:\n%s", out.String())
	}

	out.Reset()
	testsvc.Must(t, run(ctx, []string{"events", "replay", "1", "-config", path}, &out), "events replay 1")
	if !strings.Contains(out.String(), "replayed 1 dead event to every webhook") {
		t.Errorf("events replay 1: %s", out.String())
	}
	if due, _ := s.Due(ctx, "game", 10); len(due) != 1 || due[0].Event.ID != 1 || due[0].Attempts != 0 {
		t.Fatalf("after replay, due: %+v", due)
	}
	if err := run(ctx, []string{"events", "replay", "-config", path, "1"}, &out); err == nil || !strings.Contains(err.Error(), "event 1 is not dead to every webhook") {
		t.Fatalf("replaying an event not dead: %v", err)
	}
	out.Reset()
	testsvc.Must(t, run(ctx, []string{"events", "replay", "-all", "-webhook", "game", "-config", path}, &out), "events replay -all")
	if !strings.Contains(out.String(), "replayed 1 dead event to webhook game") {
		t.Errorf("events replay -all: %s", out.String())
	}
	out.Reset()
	testsvc.Must(t, run(ctx, []string{"events", "replay", "-all", "-config", path}, &out), "events replay -all again")
	if !strings.Contains(out.String(), "no dead events to every webhook: nothing replayed") {
		t.Errorf("events replay -all with none dead: %s", out.String())
	}
	if rj := runJSON(t, "events", "replay", "-all", "-config", path, "-o", "json"); rj["replayed"] != 0.0 || rj["event_id"] != 0.0 {
		t.Errorf("events replay -all -o json: %v", rj)
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"events"}, "usage:"},
		{[]string{"events", "bogus"}, `events: unknown command "bogus"`},
		{[]string{"events", "replay", "-config", path}, "name the event"},
		{[]string{"events", "replay", "1", "-all", "-config", path}, "an event id or -all, not both"},
		{[]string{"events", "replay", "x", "-config", path}, `"x" is not an event id`},
		{[]string{"events", "replay", "0", "-config", path}, `"0" is not an event id`},
		{[]string{"events", "replay", "1", "2", "-config", path}, "one event id, or -all"},
		{[]string{"events", "replay", "1", "-webhook", "a", "-webhook", "b", "-config", path}, "-webhook is given twice"},
		{[]string{"events", "replay", "1", "-webhook", "nope", "-config", path}, `-webhook "nope": no such webhook in the config (configured: game, shop)`},
		{[]string{"events", "dead", "-webhook", "nope", "-config", path}, `-webhook "nope": no such webhook`},
		{[]string{"events", "dead", "-limit", "-1", "-config", path}, "-limit -1 is negative"},
		{[]string{"events", "dead", "extra", "-config", path}, `unexpected argument "extra"`},
	} {
		err := run(ctx, c.args, &out)
		var u usageError
		if !errors.As(err, &u) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("leaguectl %q: %v, want a usage error saying %q", c.args, err, c.want)
		}
	}
	t.Setenv("DATABASE_URL", "")
	if err := run(ctx, []string{"events", "dead", "-config", path}, &out); err == nil || !strings.Contains(err.Error(), "DATABASE_URL is not set") {
		t.Fatalf("events dead without DATABASE_URL: %v", err)
	}

	// config check lists the webhooks, never their secrets or passwords.
	out.Reset()
	testsvc.Must(t, run(ctx, []string{"config", "check", "-config", path}, &out), "config check")
	for _, want := range []string{
		"webhook game  https://u:xxxxx@game.example.com/hook: [player.promoted reward.claimed], every league; 8 deliveries at a time, each within 10s; dead after 20 attempts; secret from $HOOK_SECRET",
		"webhook shop  http://10.0.0.7/x: every type, every league; 2 deliveries at a time, each within 2s; dead after 3 attempts; secret in the file",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("config check lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "shop-secret") || strings.Contains(out.String(), "hunter2pw") {
		t.Errorf("config check shows a secret:\n%s", out.String())
	}
}
