package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/league-engine/league/events"
)

func TestEventsSection(t *testing.T) {
	file := filepath.Join(t.TempDir(), "hook-secret")
	if err := os.WriteFile(file, []byte("old-hook-secret-0123\nnew-hook-secret-0123\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Parse([]byte(`
events:
  webhooks:
    - {name: game, url: "https://game.example.com/league?k=1", secret: game-secret-0123456789}
    - name: rewards
      url: http://10.0.0.7:8080/rewards
      secret_env: REWARDS_SECRET
      types: [reward.granted, reward.claimed]
      leagues: [lg]
      timeout: 2s
      max_attempts: 3
      concurrency: 32
    - {name: ops, url: "https://ops.example.com/x", secret_file: ` + file + `}
` + good))
	if err != nil {
		t.Fatal(err)
	}
	hooks := c.Events.Webhooks
	if len(hooks) != 3 {
		t.Fatalf("webhooks %+v", hooks)
	}
	game, rewards := hooks[0], hooks[1]
	if game.Name != "game" || game.URL != "https://game.example.com/league?k=1" || !slices.Equal(game.Secrets, []string{"game-secret-0123456789"}) ||
		game.Types != nil || game.Leagues != nil || game.Timeout != 0 || game.MaxAttempts != 0 || game.Concurrency != 0 {
		t.Fatalf("game %+v", game)
	}
	if d := game.WithDefaults(); d.Timeout != events.DefaultTimeout || d.MaxAttempts != events.DefaultMaxAttempts || d.Concurrency != events.DefaultConcurrency {
		t.Fatalf("game's defaults %+v", d)
	}
	if !slices.Equal(rewards.Types, []events.Type{events.RewardGranted, events.RewardClaimed}) || !slices.Equal(rewards.Leagues, []string{"lg"}) ||
		rewards.Timeout != 2*time.Second || rewards.MaxAttempts != 3 || rewards.Concurrency != 32 {
		t.Fatalf("rewards %+v", rewards)
	}
	if err := c.ApplyEnv(func(string) string { return "" }); err == nil ||
		!strings.Contains(err.Error(), "events.webhooks[1] (rewards).secret_env: REWARDS_SECRET is not set") {
		t.Fatalf("REWARDS_SECRET unset: %v", err)
	}
	env := map[string]string{"REWARDS_SECRET": "rewards-secret-0123456789"}
	if err := c.ApplyEnv(func(k string) string { return env[k] }); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c.Events.Webhooks[1].Secrets, []string{"rewards-secret-0123456789"}) ||
		!slices.Equal(c.Events.Webhooks[2].Secrets, []string{"old-hook-secret-0123", "new-hook-secret-0123"}) ||
		c.Events.SecretFrom(0) != "" || c.Events.SecretFrom(1) != "$REWARDS_SECRET" || c.Events.SecretFrom(2) != "file "+file {
		t.Fatalf("secrets %+v", c.Events.Webhooks)
	}
	if c, err := Parse([]byte(good)); err != nil || c.Events.Webhooks != nil {
		t.Fatalf("no events section: %+v %v", c, err)
	}
}

// TestEventsRejects: a bad webhook is refused at load, the message naming
// the webhook and the field.
func TestEventsRejects(t *testing.T) {
	const ok = `url: "https://x.example.com/h", secret: hook-secret-0123456789`
	for _, tt := range []struct{ name, yaml, want string }{
		{"ftp url", `{name: a, url: "ftp://x.example.com/h", secret: hook-secret-0123456789}`,
			`events.webhooks[0] (a).url: "ftp://x.example.com/h" is not an http:// or https:// URL`},
		{"no scheme", `{name: a, url: "x.example.com/h", secret: hook-secret-0123456789}`, `events.webhooks[0] (a).url: "x.example.com/h" is not an http:// or https://`},
		{"no url", `{name: a, secret: hook-secret-0123456789}`, "events.webhooks[0] (a).url: required"},
		{"no host", `{name: a, url: "https:///h", secret: hook-secret-0123456789}`, "events.webhooks[0] (a).url: \"https:///h\" names no host"},
		{"password hidden", `{name: a, url: "mailto://u:hunter2pw@x", secret: hook-secret-0123456789}`, `"mailto://u:xxxxx@x" is not an http`},
		{"no secret", `{name: a, url: "https://x.example.com/h"}`, "events.webhooks[0] (a).secret: required"},
		{"two secrets", `{name: a, ` + ok + `, secret_env: X}`, "events.webhooks[0] (a).secret, secret_env, secret_file: give one"},
		{"short secret", `{name: a, url: "https://x.example.com/h", secret: abc}`, "events.webhooks[0] (a).secret: 3 characters; a secret is at least 16"},
		{"no name", `{` + ok + `}`, `events.webhooks[0].name: "" is not`},
		{"bad name", `{name: "a b", ` + ok + `}`, `events.webhooks[0] (a b).name: "a b" is not`},
		{"unknown type", `{name: a, ` + ok + `, types: [player.moved]}`, `events.webhooks[0] (a).types: "player.moved" is not an event type: period.closed, player.promoted`},
		{"no types", `{name: a, ` + ok + `, types: []}`, "events.webhooks[0] (a).types: an empty list takes nothing"},
		{"unknown league", `{name: a, ` + ok + `, leagues: [nope]}`, `events.webhooks[0] (a).leagues: no league "nope" in this config`},
		{"zero timeout", `{name: a, ` + ok + `, timeout: 0s}`, "events.webhooks[0] (a).timeout: 0s is shorter than 1ms"},
		{"zero attempts", `{name: a, ` + ok + `, max_attempts: 0}`, "events.webhooks[0] (a).max_attempts: 0 is outside 1..1000"},
		{"too concurrent", `{name: a, ` + ok + `, concurrency: 1000}`, "events.webhooks[0] (a).concurrency: 1000 is outside 1..256"},
		{"unknown field", `{name: a, ` + ok + `, retries: 3}`, "retries"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte("events:\n  webhooks:\n    - " + tt.yaml + "\n" + good))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error containing %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "hunter2pw") {
				t.Fatalf("the error shows the URL's password: %v", err)
			}
		})
	}
	_, err := Parse([]byte("events:\n  webhooks:\n    - {name: a, " + ok + "}\n    - {name: a, " + ok + "}\n" + good))
	if err == nil || !strings.Contains(err.Error(), `events.webhooks[1] (a).name: "a" is also the name of events.webhooks[0]`) {
		t.Fatalf("two webhooks named a: %v", err)
	}
}
