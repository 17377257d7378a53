package config

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/league-engine/league/leaderboard"
)

func TestServerSection(t *testing.T) {
	c, err := Parse([]byte(`
server:
  request_timeout: 750ms
  max_connections: 0
  max_connections_per_client: 10
  drain_delay: 0s
  h2c: true
  trusted_proxies: [10.0.0.0/8, 192.168.1.7, "::ffff:172.16.0.1", "fd00::1/64"]
  keys:
    - {name: eu-game, role: game, leagues: [lg], secret_env: EU_KEY}
    - {name: ops, role: admin, secret: ops-secret-0123456789}
  api_keys: [legacy-secret-0123456789]
log: {format: json, level: warn, access: "off"}
` + good))
	if err != nil {
		t.Fatal(err)
	}
	s := c.Server
	if s.RequestTimeout != 750*time.Millisecond || s.MaxConnections != 0 || s.MaxConnectionsPerClient != 10 ||
		s.DrainDelay != 0 || !s.H2C || !c.Log.JSON || c.Log.Level != slog.LevelWarn || c.Log.Access != nil {
		t.Fatalf("%+v %+v", s, c.Log)
	}
	if got := fmt.Sprint(s.TrustedProxies); got != "[10.0.0.0/8 192.168.1.7/32 172.16.0.1/32 fd00::/64]" {
		t.Fatalf("trusted proxies %s", got)
	}
	if err := c.ApplyEnv(func(string) string { return "" }); err == nil || !strings.Contains(err.Error(), "server.keys[0] (eu-game).secret_env: EU_KEY is not set") {
		t.Fatalf("EU_KEY unset: %v", err)
	}
	env := map[string]string{"EU_KEY": "eu-old-0123456789ab, eu-new-0123456789ab", "LEAGUE_ADMIN_KEYS": "env-admin-0123456789"}
	if err := c.ApplyEnv(func(k string) string { return env[k] }); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, k := range c.Server.Keys {
		names = append(names, k.Name)
	}
	if !slices.Equal(names, []string{"eu-game", "ops", "api-1", "admin-1"}) {
		t.Fatalf("keys %v", names)
	}
	eu, ops := c.Server.Keys[0], c.Server.Keys[1]
	if eu.Admin || !slices.Equal(eu.Leagues, []string{"lg"}) || !slices.Equal(eu.Secrets, []string{"eu-old-0123456789ab", "eu-new-0123456789ab"}) ||
		!ops.Admin || ops.Leagues != nil || c.Server.SecretFrom(0) != "$EU_KEY" || c.Server.SecretFrom(1) != "" {
		t.Fatalf("eu %+v, ops %+v", eu, ops)
	}
}

func TestServerSectionRejects(t *testing.T) {
	for _, tt := range []struct{ name, yaml, want string }{
		{"zero timeout", "server: {request_timeout: 0s}", "server.request_timeout: 0s is shorter than 1ms"},
		{"negative cap", "server: {max_connections: -1}", "server.max_connections: -1 is negative; 0 is no cap"},
		{"fractional cap", "server: {max_connections_per_client: 1.5}", "max_connections_per_client: 1.5 is not a whole number"},
		{"key without a name", "server: {keys: [{role: game, secret: abcdefghijklmnop}]}", `server.keys[0].name: "" is not`},
		{"key name with a colon", "server: {keys: [{name: 'a:b', role: game, secret: abcdefghijklmnop}]}", `server.keys[0] (a:b).name: "a:b" is not`},
		{"key without a role", "server: {keys: [{name: a, secret: abcdefghijklmnop}]}", "server.keys[0] (a).role: required"},
		{"unknown role", "server: {keys: [{name: a, role: root, secret: abcdefghijklmnop}]}", `role: "root" is neither game nor admin`},
		{"unknown league", "server: {keys: [{name: a, role: game, leagues: [nope], secret: abcdefghijklmnop}]}", `server.keys[0] (a).leagues: no league "nope" in this config`},
		{"empty scope", "server: {keys: [{name: a, role: game, leagues: [], secret: abcdefghijklmnop}]}", "leagues: an empty list opens nothing"},
		{"no secret", "server: {keys: [{name: a, role: game}]}", "secret_file or secret_env: required"},
		{"two secrets", "server: {keys: [{name: a, role: game, secret: abcdefghijklmnop, secret_env: X}]}", "secret, secret_env, secret_file: give one"},
		{"env and file", "server: {keys: [{name: a, role: game, secret_file: /x, secret_env: X}]}", "secret, secret_env, secret_file: give one"},
		{"short secret", "server: {keys: [{name: a, role: game, secret: abc}]}", "server.keys[0] (a).secret: 3 characters"},
		{"same name", "server: {keys: [{name: a, role: game, secret: abcdefghijklmnop}, {name: a, role: admin, secret: bbcdefghijklmnop}]}",
			`server.keys[1] (a).name: "a" is also the name of server.keys[0] (a)`},
		{"same secret", "server: {keys: [{name: a, role: game, secret: abcdefghijklmnop}, {name: b, role: admin, secret: abcdefghijklmnop}]}",
			`server keys "a" and "b" have the same secret`},
		{"name of an unnamed key", "server: {keys: [{name: api-1, role: game, secret: abcdefghijklmnop}], api_keys: [bbcdefghijklmnop]}",
			`server.api_keys[0]: its name "api-1" is taken by server.keys[0] (api-1)`},
		{"log format", "log: {format: xml}", `log.format: "xml" is neither text nor json`},
		{"log level", "log: {level: loud}", `log.level: "loud" is not a level`},
		{"access level", "log: {access: verbose}", `log.access: "verbose" is not a level: debug, info, warn or error, or off`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.yaml + "\n" + good))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestSecretEnvRejects(t *testing.T) {
	c, err := Parse([]byte("server: {keys: [{name: a, role: game, secret_env: K}, {name: b, role: game, secret: bbcdefghijklmnop}]}\n" + good))
	if err != nil {
		t.Fatal(err)
	}
	for v, want := range map[string]string{
		"short":                              "server.keys[0] (a).secret_env: K: secret 1 of 1: 5 characters",
		"abcdefghijklmnop,b,c":               "K: holds 3 secrets; one, or two while rotating",
		"bbcdefghijklmnop":                   `server keys "a" and "b" have the same secret`,
		"abcdefghijklmnop, abcdefghijklmnoq": "",
	} {
		err := c.ApplyEnv(func(k string) string { return map[string]string{"K": v}[k] })
		if (want == "" && err != nil) || (want != "" && (err == nil || !strings.Contains(err.Error(), want))) {
			t.Errorf("K=%s: %v, want %q", v, err, want)
		}
	}
}

// TestSecretFile: a key's secret read from a file, again at every load (a
// rotation without a restart: leagued reloads on SIGHUP).
func TestSecretFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "eu.secret")
	c, err := Parse([]byte("server: {keys: [{name: eu, role: game, secret_file: " + path + "}]}\n" + good))
	if err != nil {
		t.Fatal(err)
	}
	none := func(string) string { return "" }
	if err := c.ApplyEnv(none); err == nil || !strings.Contains(err.Error(), "server.keys[0] (eu).secret_file: "+path) {
		t.Fatalf("missing file: %v", err)
	}
	for content, want := range map[string][]string{
		"old-secret-0123456789\n":                        {"old-secret-0123456789"},
		"old-secret-0123456789\nnew-secret-0123456789\n": {"old-secret-0123456789", "new-secret-0123456789"},
		" old-secret-0123456789, new-secret-0123456789 ": {"old-secret-0123456789", "new-secret-0123456789"},
	} {
		os.WriteFile(path, []byte(content), 0o600)
		if err := c.ApplyEnv(none); err != nil || !slices.Equal(c.Server.Keys[0].Secrets, want) {
			t.Errorf("file %q: %v %v, want %v", content, err, c.Server.Keys[0].Secrets, want)
		}
	}
	for content, want := range map[string]string{
		"":                                    "secret 1 of 1: empty",
		"short\n":                             "secret 1 of 1: 5 characters",
		"a-secret-0123456789,":                "secret 2 of 2: empty (a stray comma?)",
		"a-secret-0123456789\nb\nc-secret-01": "holds 3 secrets",
	} {
		os.WriteFile(path, []byte(content), 0o600)
		if err := c.ApplyEnv(none); err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "a-secret") {
			t.Errorf("file %q: %v, want %q (and no secret quoted)", content, err, want)
		}
	}
	if got := c.Server.SecretFrom(0); got != "file "+path {
		t.Errorf("SecretFrom: %q", got)
	}
}

func TestLeaderboardsSection(t *testing.T) {
	c, err := Parse([]byte(`
server:
  keys:
    - {name: votes, role: game, leagues: [lg], leaderboards: [kills], secret: votes-secret-0123456789}
leaderboards:
  - id: kills
    periods: [all_time, day, week]
    time_zone: Europe/Paris
    week_start: sunday
    score_operator: best
    order: ascending
    tie_break: first_reached
    tie_resolution: 1s
    retention: {day: 3d}
    idempotency_window: 1m
` + good))
	if err != nil {
		t.Fatal(err)
	}
	l := c.Leaderboards[0]
	if l.ID != "kills" || len(l.Kinds) != 3 || l.Kinds[0] != "day" || l.Calendar.Loc.String() != "Europe/Paris" ||
		l.Calendar.WeekStart != time.Sunday || l.Operator != "best" || l.Order != "ascending" || l.TieBreak != "first_reached" ||
		l.Retention["day"] != 72*time.Hour || l.Retention["week"] != 56*24*time.Hour || l.IdempotencyWindow != time.Minute {
		t.Fatalf("%+v", l)
	}
	if k := c.Server.Keys[0]; !slices.Equal(k.Leaderboards, []string{"kills"}) || !slices.Equal(k.Leagues, []string{"lg"}) {
		t.Fatalf("key %+v", k)
	}
	// Leaderboards alone are a config.
	if _, err := Parse([]byte("leaderboards: [{id: a, periods: [day]}]\n")); err != nil {
		t.Fatalf("leaderboards without leagues: %v", err)
	}
	// Rolling windows, with or without periodic boards.
	c, err = Parse([]byte("leaderboards: [{id: a, periods: [day], rolling: [30d, 24h, 7d], retention: {7d: 3d}, carry_over: {day: 10%}, archive: {top: 100}, channels: [web], " +
		"limits: [{by: [actor, member], per: day, max: 5, extra: {channel: {web: 2}}}]}, {id: b, rolling: [1h]}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []leaderboard.Kind{"day", "24h", "7d", "30d"}
	if l := c.Leaderboards[0]; !slices.Equal(l.Boards(), want) || l.Retention["7d"] != 72*time.Hour || l.Retention["30d"] != 48*time.Hour || l.CarryOver["day"] != 10 ||
		l.Archive.Top != 100 || !slices.Equal(l.Archive.Kinds, []leaderboard.Kind{"day"}) ||
		len(l.Limits) != 1 || l.Limits[0].Name != "actor-member-day" || l.Limits[0].Extra["channel"]["web"] != 2 || l.Channels[0] != "web" {
		t.Fatalf("rolling: boards %v, retention %v", l.Boards(), l.Retention)
	}
}

func TestLeaderboardsRejects(t *testing.T) {
	for _, tt := range []struct{ name, yaml, want string }{
		{"bad id", "leaderboards: [{id: A, periods: [day]}]", `leaderboard "A": id: "A" is not`},
		{"no periods", "leaderboards: [{id: a}]", `leaderboard "a": periods: at least one`},
		{"unknown period", "leaderboards: [{id: a, periods: [year]}]", `leaderboard "a": periods: "year" is not a kind of board`},
		{"twice", "leaderboards: [{id: a, periods: [day, day]}]", "periods: day is listed twice"},
		{"zone", "leaderboards: [{id: a, periods: [day], time_zone: Local}]", `leaderboard "a": time_zone "Local"`},
		{"week start", "leaderboards: [{id: a, periods: [week], week_start: funday}]", `week_start "funday"`},
		{"operator", "leaderboards: [{id: a, periods: [day], score_operator: max}]", `score_operator: "max" is not incr, decr, best or set`},
		{"order", "leaderboards: [{id: a, periods: [day], order: up}]", `order: "up" is not descending or ascending`},
		{"tie break", "leaderboards: [{id: a, periods: [day], tie_break: random}]", `tie_break: "random" is not member_id or first_reached`},
		{"max score", "leaderboards: [{id: a, periods: [all_time], tie_break: first_reached, max_score: 9007199254740991}]",
			"max_score: 9007199254740991 does not pack exactly: first_reached at 1s, all_time 32 time bits leaves scores up to 2097151"},
		{"retention of a board it lacks", "leaderboards: [{id: a, periods: [day], retention: {hour: 1d}}]", "retention: hour is not a periodic board"},
		{"retention too short", "leaderboards: [{id: a, periods: [day], retention: {day: 0s}}]", "retention.day: 0s is shorter than 1s"},
		{"same id", "leaderboards: [{id: a, periods: [day]}, {id: a, periods: [day]}]", `leaderboard "a": id: configured twice`},
		{"archive all time", "leaderboards: [{id: a, periods: [day, all_time], archive: {periods: [all_time]}}]", "archive.periods: all_time is not a periodic board"},
		{"archive nothing", "leaderboards: [{id: a, periods: [all_time], archive: {}}]", "archive: the leaderboard has no periodic board to archive"},
		{"archive top", "leaderboards: [{id: a, periods: [day], archive: {top: -1}}]", "archive.top: -1 is negative"},
		{"archive rolling", "leaderboards: [{id: a, periods: [day], rolling: [7d], archive: {periods: [7d]}}]", "archive.periods: 7d is not a periodic board"},
		{"public boards without a catalog", "leaderboards: [{id: a, periods: [day], public_boards: true}]", "public_boards: the multipliers of public boards are a catalog's: set catalog: true"},
		{"limit dimension", "leaderboards: [{id: a, periods: [day], limits: [{by: [voter], per: day, max: 1}]}]", `limits[0].by: "voter" is not actor, member, channel or terminal`},
		{"limit window", "leaderboards: [{id: a, periods: [day], limits: [{by: [actor], per: fortnight, max: 1}]}]", `limits[0].per: "fortnight" is not second, minute`},
		{"limit max", "leaderboards: [{id: a, periods: [day], limits: [{by: [actor], per: day}]}]", "limits[0].max: required"},
		{"limit names", "leaderboards: [{id: a, periods: [day], limits: [{by: [actor], per: day, max: 1}, {by: [actor], per: day, max: 2}]}]", `limits[1].name: "actor-day" is the name of another limit`},
		{"limit extra", "leaderboards: [{id: a, periods: [day], limits: [{by: [actor], per: day, max: 1, extra: {actor: {x: 1}}}]}]", "extra allowances go by channel or terminal"},
		{"carry over kind", "leaderboards: [{id: a, periods: [day], carry_over: {week: 10%}}]", "carry_over: week is not a periodic board of this leaderboard"},
		{"carry over all time", "leaderboards: [{id: a, periods: [all_time], carry_over: {all_time: 10%}}]", "carry_over: all_time is not a periodic board"},
		{"carry over share", "leaderboards: [{id: a, periods: [day], carry_over: {day: 10}}]", `carry_over.day: "10" is not a share in percent`},
		{"carry over too much", "leaderboards: [{id: a, periods: [day], carry_over: {day: 150%}}]", "carry_over.day: 150% is not a share from 1% to 100%"},
		{"rolling window", "leaderboards: [{id: a, rolling: [7w]}]", `leaderboard "a": rolling: "7w" is not a rolling window: N days or N hours`},
		{"rolling too long", "leaderboards: [{id: a, rolling: [745h]}]", `rolling: "745h" is not a rolling window`},
		{"rolling twice", "leaderboards: [{id: a, rolling: [7d, 7d]}]", "rolling: 7d is listed twice"},
		{"rolling best", "leaderboards: [{id: a, rolling: [7d], score_operator: best}]", "rolling: rolling boards are sums, so they go with score_operator incr or decr, not best"},
		{"rolling retention", "leaderboards: [{id: a, rolling: [7d], retention: {30d: 1d}}]", "retention: 30d is not a rolling window of this leaderboard"},
		{"key scope", "server: {keys: [{name: k, role: game, leaderboards: [b], secret: abcdefghijklmnop}]}\nleaderboards: [{id: a, periods: [day]}]",
			`server.keys[0] (k).leaderboards: no leaderboard "b" in this config`},
		{"nothing", "server: {}", "at least one league or leaderboard"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.yaml + "\n"))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err %v, want it to contain %q", err, tt.want)
			}
		})
	}
}
