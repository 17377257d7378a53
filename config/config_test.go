package config

import (
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/league-engine/league/inmem"
	"github.com/league-engine/league/league"
)

func TestLoadRepoConfig(t *testing.T) {
	c, err := Load("../config.yaml")
	if err != nil {
		t.Fatalf("config.yaml: %v", err)
	}
	if len(c.Leagues) != 2 || c.Leagues[0].ID != "weekly" || c.Leagues[1].ID != "blitz" {
		t.Fatalf("leagues %v", c.Leagues)
	}
	w := c.Leagues[0]
	if w.BoardSize != 100 || w.Ladder.Len() != 4 || w.Retention != 14*24*time.Hour || w.MaxScore != 1e9 {
		t.Fatalf("weekly: %+v", w)
	}
	if got := w.Ladder.Rewards(2, 1, 1); len(got) != 2 || got[0].ID != "chest" || got[1].ID != "gems" {
		t.Fatalf("gold rank 1 rewards %v, want chest and gems sorted", got)
	}
	if got := w.Ladder.Rewards(2, 1, 0); got != nil || w.Ladder.Tier(2).MinRewardScore != 1 {
		t.Fatalf("gold rank 1 without a score earned %v (min_reward_score %d)", got, w.Ladder.Tier(2).MinRewardScore)
	}
}

const good = `
leagues:
  - id: lg
    schedule: "0 0 * * MON"
    tiers:
      - {id: low, promote: 0.2}
      - {id: high, demote: 0.2}
`

func TestParseDefaults(t *testing.T) {
	c, err := Parse([]byte(good))
	if err != nil {
		t.Fatal(err)
	}
	l := c.Leagues[0]
	if c.Server.Listen != DefaultListen || c.Server.RequestTimeout != DefaultRequestTimeout ||
		c.Server.MaxConnections != DefaultMaxConnections || c.Server.MaxConnectionsPerClient != DefaultMaxConnectionsPerClient ||
		c.Server.DrainDelay != DefaultDrainDelay || c.Log.Level != slog.LevelInfo || c.Log.JSON || c.Log.Access.Level() != slog.LevelDebug || c.Namespace != DefaultNamespace || c.Settlement.Poll != DefaultPoll ||
		c.Settlement.HistoryLimit != DefaultHistoryLimit ||
		l.BoardSize != 100 || l.EntryTier != "low" || l.Operator != "incr" || l.TieBreak != "join_order" ||
		l.MaxScore != l.Packing().MaxExact || l.Buckets != league.DefaultBuckets || l.TieResolution != time.Second ||
		l.Retention != league.DefaultRetention || l.IdempotencyWindow != league.DefaultIdempotencyWindow {
		t.Fatalf("defaults: %+v %+v", c, l)
	}
}

// TestParseCounts: counts and minimums reach the ladder.
func TestParseCounts(t *testing.T) {
	c, err := Parse([]byte(strings.Replace(strings.Replace(good, "{id: low, promote: 0.2}", "{id: low, promote_count: 10}", 1),
		"{id: high, demote: 0.2}", "{id: high, demote: 0.1, demote_at_least: 2, at_least_from: 5}", 1)))
	if err != nil {
		t.Fatal(err)
	}
	ld := c.Leagues[0].Ladder
	for _, tt := range []struct{ tier, n, promote, demote int }{{0, 100, 10, 0}, {0, 4, 4, 0}, {1, 100, 0, 10}, {1, 5, 0, 2}, {1, 4, 0, 0}} {
		if p, d := ld.Counts(tt.tier, tt.n); p != tt.promote || d != tt.demote {
			t.Errorf("tier %d of %d players: %d up, %d down; want %d, %d", tt.tier, tt.n, p, d, tt.promote, tt.demote)
		}
	}
}

// TestParseProtection: protect_promoted reaches the ladder, and an
// override of the tier without it turns it off for that period.
func TestParseProtection(t *testing.T) {
	c, err := Parse([]byte(strings.Replace(good, "{id: high, demote: 0.2}", "{id: high, demote: 0.2, protect_promoted: true}", 1) +
		"    overrides:\n      - period: 20261228T000000Z\n        tiers: [{id: high, demote: 0.1}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	l := c.Leagues[0]
	if !l.Ladder.Protects(1) || l.Ladder.Protects(0) {
		t.Errorf("protects: low %v, high %v; want only high", l.Ladder.Protects(0), l.Ladder.Protects(1))
	}
	if l.Overrides[0].Ladder.Protects(1) {
		t.Errorf("the override without protect_promoted protects high")
	}
}

// TestParseCohorts: a league's cohorts, in order.
func TestParseCohorts(t *testing.T) {
	c, err := Parse([]byte(strings.Replace(good, "schedule:", "cohorts: [casual, core]\n    schedule:", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Leagues[0].Cohorts; len(got) != 2 || got[0] != "casual" || got[1] != "core" {
		t.Fatalf("cohorts %v", got)
	}
}

// TestParseOverrides: an override's tiers take the moves given for its
// period; the others, and the other fields, stay.
func TestParseOverrides(t *testing.T) {
	c, err := Parse([]byte(good + "    overrides:\n      - period: 20261228T000000Z\n        tiers: [{id: low, promote_count: 1}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	l := c.Leagues[0]
	if len(l.Overrides) != 1 || l.Overrides[0].Period.Format("2006-01-02") != "2026-12-28" {
		t.Fatalf("overrides %+v", l.Overrides)
	}
	if p, _ := l.Overrides[0].Ladder.Counts(0, 100); p != 1 {
		t.Fatalf("the override promotes %d of 100 low players, want 1", p)
	}
	if p, _ := l.Ladder.Counts(0, 100); p != 20 {
		t.Fatalf("the league's own rules promote %d, want 20", p)
	}
}

func TestParseRejects(t *testing.T) {
	tests := []struct {
		name, yaml, want string
	}{
		{"negative ratio", strings.Replace(good, "promote: 0.2", "promote: -0.2", 1), `league "lg": tiers[0] (low).promote: -0.2 is outside 0..1`},
		{"ratio sum", strings.Replace(good, "{id: low, promote: 0.2}", "{id: low, promote: 0.6, demote: 0.5}", 1), `league "lg": tiers[0] (low).promote+demote`},
		{"unknown entry tier", strings.Replace(good, "schedule:", "entry_tier: mid\n    schedule:", 1), `league "lg": entry_tier: unknown tier "mid"`},
		{"board too big", strings.Replace(good, "schedule:", "board_size: 100000\n    schedule:", 1), `league "lg": board_size: 100000 is outside 1..1024`},
		{"board size 0", strings.Replace(good, "schedule:", "board_size: 0\n    schedule:", 1), `league "lg": board_size: 0 is outside 1..1024`},
		{"negative board size", strings.Replace(good, "schedule:", "board_size: -5\n    schedule:", 1), `league "lg": board_size: -5 is outside 1..1024`},
		{"buckets 0", strings.Replace(good, "schedule:", "buckets: 0\n    schedule:", 1), `league "lg": buckets: 0 is outside 1..1048576`},
		{"cohort not an id", strings.Replace(good, "schedule:", "cohorts: [core, Casual]\n    schedule:", 1), `league "lg": cohorts[1]: "Casual" must be 1-32 characters`},
		{"cohort twice", strings.Replace(good, "schedule:", "cohorts: [core, core]\n    schedule:", 1), `league "lg": cohorts[1]: "core" is named twice`},
		{"cohort with a dot", strings.Replace(good, "schedule:", "cohorts: [eu.west]\n    schedule:", 1), `league "lg": cohorts[0]: "eu.west" must be`},
		{"too many cohorts", strings.Replace(good, "schedule:", "cohorts: [c0,c1,c2,c3,c4,c5,c6,c7,c8,c9,c10,c11,c12,c13,c14,c15,c16,c17,c18,c19,c20,c21,c22,c23,c24,c25,c26,c27,c28,c29,c30,c31,c32]\n    schedule:", 1), `league "lg": cohorts: 33 cohorts, at most 32`},
		{"history limit 0", "settlement: {history_limit: 0}\n" + good, "settlement.history_limit: 0 is outside 1..1000"},
		{"keep history an hour", "settlement: {keep_history: 1h}\n" + good, "settlement.keep_history: 1h is shorter than 24h0m0s"},
		{"keep history nonsense", "settlement: {keep_history: half a year}\n" + good, `settlement.keep_history: "half a year" is not a duration`},
		{"retention 0", strings.Replace(good, "schedule:", "retention: 0d\n    schedule:", 1), `league "lg": retention: 0d is shorter than 1s`},
		{"idempotency window 0", strings.Replace(good, "schedule:", "idempotency_window: 0s\n    schedule:", 1), `league "lg": idempotency_window: 0s is shorter than 1s`},
		{"tie resolution 0", strings.Replace(good, "schedule:", "tie_resolution: 0\n    schedule:", 1), `league "lg": tie_resolution: 0 is shorter than 1ms`},
		{"poll 0", "settlement: {poll: 0s}\n" + good, "settlement.poll: 0s is shorter than 1s"},
		{"max score unpackable", strings.Replace(good, "schedule:", "max_score: 100000000000000\n    schedule:", 1), `league "lg": max_score: 100000000000000 does not fit`},
		{"bad cron", strings.Replace(good, `"0 0 * * MON"`, `"0 0 * * FUNDAY"`, 1), `league "lg": schedule:`},
		{"every", strings.Replace(good, `"0 0 * * MON"`, `"@every 1h"`, 1), `@every has no fixed boundaries`},
		{"unknown field", strings.Replace(good, "schedule:", "shedule: x\n    schedule:", 1), `league "lg": shedule: unknown field; the fields there are id, board_size, schedule,`},
		{"unknown tier field", strings.Replace(good, "{id: low, promote: 0.2}", "{id: low, promte: 0.2}", 1), `league "lg": tiers[0] (low).promte: unknown field; the fields there are id, name, promote,`},
		{"unknown top-level field", "serverx: {}\n" + good, `line 1: serverx: unknown field; the fields there are server, log, redis, settlement, tracing, events, leagues`},
		{"unknown server field", "server: {listn: x}\n" + good, `server.listn: unknown field; the fields there are listen, request_timeout, max_connections, max_connections_per_client, drain_delay, h2c, trusted_proxies, keys, api_keys, admin_keys`},
		{"bad trusted proxy", "server: {trusted_proxies: [10.0.0.0/8, proxy.local]}\n" + good, `server.trusted_proxies[1]: "proxy.local" is not an IP address or a CIDR range`},
		{"bad value beside a merge key", "leagues:\n  - &l {id: a, schedule: \"* * * * *\", tiers: [{id: bronze}]}\n  - {<<: *l, id: b, tiers: 5}\n",
			"line 3: cannot unmarshal !!int `5` into []config.tierFile"},
		{"duplicate league", good + `  - id: lg
    schedule: "0 0 * * MON"
    tiers: [{id: a}]
`, `league "lg": id: configured twice`},
		{"duplicate tier", strings.Replace(good, "id: high", "id: low", 1), `"low" appears twice`},
		{"reward past board", strings.Replace(good, "{id: high, demote: 0.2}", "{id: high, rewards: [{ranks: 1-200, items: {gems: 1}}]}", 1), "go past the board size 100"},
		{"bad ranks", strings.Replace(good, "{id: high, demote: 0.2}", "{id: high, rewards: [{ranks: top, items: {gems: 1}}]}", 1), `rewards[0].ranks: "top" is not a rank`},
		{"bad item", strings.Replace(good, "{id: high, demote: 0.2}", "{id: high, rewards: [{ranks: 1, items: {Gems!: 1}}]}", 1), `"Gems!" must be`},
		{"bad operator", strings.Replace(good, "schedule:", "score_operator: add\n    schedule:", 1), `score_operator: "add" is not one of`},
		{"bad duration", strings.Replace(good, "schedule:", "retention: forever\n    schedule:", 1), `league "lg": retention: "forever" is not a duration`},
		{"days past int64", strings.Replace(good, "schedule:", "retention: 999999999d\n    schedule:", 1), `league "lg": retention: 999999999d is too long, at most 106751d`},
		{"days past the parser", strings.Replace(good, "schedule:", "retention: 99999999999999999999d\n    schedule:", 1), `league "lg": retention: 99999999999999999999d is too long`},
		{"days one past the most", strings.Replace(good, "schedule:", "idempotency_window: 106752d\n    schedule:", 1), `league "lg": idempotency_window: 106752d is too long`},
		{"tie resolution in too many days", strings.Replace(good, "schedule:", "tie_resolution: 999999999d\n    schedule:", 1), `league "lg": tie_resolution: 999999999d is too long`},
		{"poll in too many days", "settlement: {poll: 999999999d}\n" + good, "settlement.poll: 999999999d is too long"},
		{"negative days", strings.Replace(good, "schedule:", "retention: -1d\n    schedule:", 1), `league "lg": retention: "-1d" is not a duration`},
		{"short key", "server: {api_keys: [abc]}\n" + good, "server.api_keys[0]: 3 characters; a key is at least 16"},
		{"blank key", "server: {admin_keys: [0123456789abcdef, \"                \"]}\n" + good, "server.admin_keys[1]: character 1 is not printable ASCII"},
		{"api keys first", "server: {api_keys: [short], admin_keys: [alsoshort]}\n" + good, "server.api_keys[0]: 5 characters"},
		{"no leagues", "server: {listen: ':1'}\n", "at least one league"},
		{"too many decimals", strings.Replace(good, "promote: 0.2", "promote: 0.12345", 1), "more than four decimals"},
		{"fraction of a whole number", strings.Replace(good, "schedule:", "board_size: 10.5\n    schedule:", 1), "board_size: 10.5 is not a whole number"},
		{"a whole number as an exponent", strings.Replace(good, "schedule:", "board_size: 1e2\n    schedule:", 1), "board_size: 1e2 is written as a fraction or an exponent; write the whole number 100"},
		{"a whole number with a point", strings.Replace(good, "schedule:", "max_score: 500.0\n    schedule:", 1), "max_score: 500.0 is written as a fraction or an exponent; write the whole number 500"},
		{"a negative max_score", strings.Replace(good, "schedule:", "max_score: -1\n    schedule:", 1), "max_score: -1 is negative"},
		{"max_attempts negative", strings.Replace(good, "schedule:", "max_attempts: -1\n    schedule:", 1), "max_attempts: -1 is negative"},
		{"max_gain over max_score", strings.Replace(good, "schedule:", "max_score: 100\n    max_gain: 101\n    schedule:", 1), "max_gain: 101 is outside 0..max_score (100)"},
		{"a bidirectional override in a tier name", strings.Replace(good, "{id: high, demote: 0.2}", "{id: high, name: \"x\\u202e\", demote: 0.2}", 1), "bidirectional"},
		{"fraction of an item", strings.Replace(good, "{id: high, demote: 0.2}", "{id: high, rewards: [{ranks: 1, items: {gems: 2.5}}]}", 1), "gems: 2.5 is not a whole number"},
		{"unreachable promotion", strings.Replace(strings.Replace(good, "{id: low, promote: 0.2}", "{id: low, promote: 0.2, min_promote_score: 1000}", 1),
			"schedule:", "max_score: 100\n    schedule:", 1), "(low).min_promote_score: 1000 is over max_score 100"},
		{"unreachable reward", strings.Replace(strings.Replace(good, "{id: low, promote: 0.2}", "{id: low, promote: 0.2, min_reward_score: 1000}", 1),
			"schedule:", "max_score: 100\n    schedule:", 1), "(low).min_reward_score: 1000 is over max_score 100"},
		{"negative reward minimum", strings.Replace(good, "{id: low, promote: 0.2}", "{id: low, promote: 0.2, min_reward_score: -1}", 1),
			"min_reward_score: -1 is negative"},
		{"fractional reward minimum", strings.Replace(good, "{id: low, promote: 0.2}", "{id: low, promote: 0.2, min_reward_score: 1.5}", 1),
			"min_reward_score"},
		{"words for a number", strings.Replace(good, "{id: low, promote: 0.2}", "{id: low, promote: 0.2, min_reward_score: abc}", 1),
			`min_reward_score: "abc" is not a number`},
		{"a number past int64", strings.Replace(good, "{id: low, promote: 0.2}", "{id: low, promote: 0.2, min_promote_score: 99999999999999999999}", 1),
			"min_promote_score: 99999999999999999999 is out of range"},
		{"counts overlapping on every board", strings.Replace(strings.Replace(good, "{id: low, promote: 0.2}", "{id: low, promote_count: 60}", 1),
			"{id: high, demote: 0.2}", "{id: mid, promote_count: 60, demote_count: 50}\n      - {id: high, demote: 0.2}", 1),
			"tiers[1] (mid).promote_count+demote_count: 60 + 50 is more than the board size 100"},
		{"a count and a share", strings.Replace(good, "{id: low, promote: 0.2}", "{id: low, promote: 0.2, promote_count: 3}", 1),
			"tiers[0] (low).promote_count: 3 with a promote share"},
		{"a count on the top tier", strings.Replace(good, "{id: high, demote: 0.2}", "{id: high, promote_count: 1, demote: 0.2}", 1),
			"tiers[1] (high).promote: 1 players on the top tier"},
		{"a minimum past the board", strings.Replace(good, "{id: low, promote: 0.2}", "{id: low, promote: 0.2, promote_at_least: 1, at_least_from: 101}", 1),
			"at_least_from (101) must not pass the board size 100"},
		{"protection on the bottom tier", strings.Replace(good, "{id: low, promote: 0.2}", "{id: low, promote: 0.2, protect_promoted: true}", 1),
			`league "lg": tiers[0] (low).protect_promoted: on the bottom tier`},
		{"protection where nobody is demoted", strings.Replace(good, "{id: high, demote: 0.2}", "{id: high, protect_promoted: true}", 1),
			`league "lg": tiers[1] (high).protect_promoted: on a tier that demotes nobody`},
		{"a jump past the top tier", strings.Replace(good, "{id: low, promote: 0.2}", "{id: low, promote: 0.2, jump_top: 1, jump_tiers: 2}", 1),
			"tiers[0] (low).jump_tiers: 2 tiers up from low is past the top tier"},
		{"an override of no period's start", good + "    overrides:\n      - period: 20261229T000000Z\n        tiers: [{id: low, promote_count: 1}]\n", "overrides[0].period: no period of"},
		{"an override of an unknown tier", good + "    overrides:\n      - period: 20261228T000000Z\n        tiers: [{id: mid, promote_count: 1}]\n", `overrides[0].tiers[0].id: "mid" is not one of the league's tiers`},
		{"an override of rewards", good + "    overrides:\n      - period: 20261228T000000Z\n        tiers: [{id: low, rewards: [{ranks: 1, items: {gems: 1}}]}]\n", "an override changes moves only"},
		{"an override past the top", good + "    overrides:\n      - period: 20261228T000000Z\n        tiers: [{id: high, promote: 0.1}]\n", "overrides[0]: tiers[1] (high).promote: 0.1 on the top tier"},
		{"an override given twice", good + "    overrides:\n      - {period: 20261228T000000Z, tiers: [{id: low, promote: 0.1}]}\n      - {period: 20261228T000000Z, tiers: [{id: low, promote: 0.3}]}\n", "overrides[1].period: 20261228T000000Z is overridden twice"},
		{"a negative count", strings.Replace(good, "{id: low, promote: 0.2}", "{id: low, promote_count: -1}", 1),
			"tiers[0] (low).promote_count: -1 is outside 0..10000"},
		{"promote on the top tier", strings.Replace(good, "{id: high, demote: 0.2}", "{id: high, promote: 0.1, demote: 0.2}", 1), "tiers[1] (high).promote: 0.1 on the top tier"},
		{"demote on the bottom tier", strings.Replace(good, "{id: low, promote: 0.2}", "{id: low, promote: 0.2, demote: 0.1}", 1), "tiers[0] (low).demote: 0.1 on the bottom tier"},
		{"listen without a port", "server: {listen: '8080'}\n" + good, `server.listen: "8080" is not host:port`},
		{"listen with a named port", "server: {listen: 'localhost:http'}\n" + good, `port "http" is not a number`},
		{"listen past the ports", "server: {listen: ':65536'}\n" + good, `port "65536" is not a number in 0..65535`},
		{"empty file", "", "the file is empty"},
		{"only comments", "# nothing yet\n", "the file is empty"},
		{"two documents", good + "---\nleagues: []\n", "more than one YAML document"},
		{"tier name with a newline", strings.Replace(good, "{id: high, demote: 0.2}", `{id: high, name: "High\nTier", demote: 0.2}`, 1), `league "lg": tiers[1] (high).name: contains the control character U+000A`},
		{"tier name with a C1 control", strings.Replace(good, "{id: high, demote: 0.2}", `{id: high, name: "High\u0085", demote: 0.2}`, 1), `tiers[1] (high).name: contains the control character U+0085`},
		{"tier name with DEL", strings.Replace(good, "{id: high, demote: 0.2}", `{id: high, name: "High\x7f", demote: 0.2}`, 1), `tiers[1] (high).name: contains the control character U+007F`},
		{"tier name of 65 bytes", strings.Replace(good, "{id: high, demote: 0.2}", "{id: high, name: "+strings.Repeat("é", 32)+"x, demote: 0.2}", 1), `tiers[1] (high).name: is 65 bytes, at most 64`},
		{"tier name of 300 bytes", strings.Replace(good, "{id: high, demote: 0.2}", "{id: high, name: "+strings.Repeat("x", 300)+", demote: 0.2}", 1), `tiers[1] (high).name: is 300 bytes, at most 64`},
		{"tier name empty", strings.Replace(good, "{id: high, demote: 0.2}", `{id: high, name: "", demote: 0.2}`, 1), `league "lg": tiers[1] (high).name: must not be empty`},
		{"tier name of spaces", strings.Replace(good, "{id: high, demote: 0.2}", `{id: high, name: "   ", demote: 0.2}`, 1), `league "lg": tiers[1] (high).name: must show at least one visible character`},
		{"namespace with a newline", "redis: {namespace: \"lg\\nx\"}\n" + good, `redis.namespace: "lg\nx": byte 2 ("\n") is not printable ASCII without spaces, braces or colons`},
		{"namespace of 5000 bytes", "redis: {namespace: " + strings.Repeat("n", 5000) + "}\n" + good, "redis.namespace: is 5000 bytes, at most 64"},
		{"namespace empty", "redis: {namespace: ''}\n" + good, `redis.namespace: must not be empty (leave it out for "league")`},
		{"namespace with a brace", "redis: {namespace: 'a{b'}\n" + good, `byte 1 ("{") is not printable ASCII without spaces, braces or colons`},
		{"namespace not ASCII", "redis: {namespace: 'lé'}\n" + good, `byte 1 ("\xc3") is not printable ASCII`},
		{"null tier", strings.Replace(good, "      - {id: high, demote: 0.2}", "      - {id: high, demote: 0.2}\n      - null", 1), `league "lg": tiers[2] is empty (null)`},
		{"bare dash tier", strings.Replace(good, "      - {id: high, demote: 0.2}", "      -\n      - {id: high, demote: 0.2}", 1), `league "lg": tiers[1] is empty (null)`},
		{"null reward band", strings.Replace(good, "{id: high, demote: 0.2}", "{id: high, rewards: [{ranks: 1, items: {gems: 1}}, ~]}", 1), `league "lg": tiers[1] (high).rewards[1] is empty (null)`},
		{"null league", good + "  - null\n", "leagues[1] is empty (null)"},
		{"null key", "server: {api_keys: [null]}\n" + good, "server.api_keys[0] is empty (null)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.yaml))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestParseYAMLErrorSaysYAMLOnce(t *testing.T) {
	_, err := Parse([]byte("leagues: [\n"))
	if err == nil || !strings.HasPrefix(err.Error(), "yaml: line 1:") {
		t.Fatalf("err %v, want one \"yaml: \" and the line", err)
	}
}

func TestApplyEnv(t *testing.T) {
	c, _ := Parse([]byte(good))
	env := map[string]string{"LISTEN_ADDR": ":9999", "LEAGUE_API_KEYS": "0123456789abcdef, fedcba9876543210"}
	if err := c.ApplyEnv(func(k string) string { return env[k] }); err != nil {
		t.Fatal(err)
	}
	if k := c.Server.Keys; c.Server.Listen != ":9999" || len(k) != 2 || k[1].Name != "api-2" || k[1].Secrets[0] != "fedcba9876543210" || k[1].Admin {
		t.Fatalf("%+v", c.Server)
	}
	if err := c.ApplyEnv(func(k string) string { return map[string]string{"LISTEN_ADDR": "localhost"}[k] }); err == nil ||
		!strings.Contains(err.Error(), "LISTEN_ADDR") || c.Server.Listen != ":9999" {
		t.Fatalf("LISTEN_ADDR=localhost: err %v, listen %q", err, c.Server.Listen)
	}
	for v, want := range map[string]string{
		"short":                            "LEAGUE_ADMIN_KEYS: key 1 of 1: 5 characters",
		"0123456789abcdef,":                "LEAGUE_ADMIN_KEYS: key 2 of 2: empty (a stray comma?)",
		"0123456789abcdef,0123456789abcdé": "LEAGUE_ADMIN_KEYS: key 2 of 2: character 15 is not printable ASCII",
	} {
		env["LEAGUE_ADMIN_KEYS"] = v
		if err := c.ApplyEnv(func(k string) string { return env[k] }); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("LEAGUE_ADMIN_KEYS=%s: %v, want %q", v, err, want)
		}
	}
}

func TestCheckRemovedTiers(t *testing.T) {
	c, _ := Parse([]byte(good))
	l := c.Leagues[0]
	if err := CheckRemovedTiers(l, map[string]int{"low": 5, "high": 1, "gone": 0}); err != nil {
		t.Fatal(err)
	}
	err := CheckRemovedTiers(l, map[string]int{"low": 5, "mid": 3})
	if err == nil || !strings.Contains(err.Error(), "mid (3 players)") {
		t.Fatalf("err %v", err)
	}
}

// TestCheckStore: a config whose ladder lost a tier that settled players
// still hold is refused.
func TestCheckStore(t *testing.T) {
	ctx := t.Context()
	store := inmem.New()
	start := time.Date(2026, 11, 16, 0, 0, 0, 0, time.UTC)
	st, err := store.BeginSettlement(ctx, league.Settlement{League: "lg", Period: start, PeriodEnd: start.AddDate(0, 0, 7)})
	if err != nil {
		t.Fatal(err)
	}
	err = store.WriteOutcomes(ctx, st, []league.Outcome{
		{Player: "a", TierBefore: "low", TierAfter: "mid", Board: 1, Rank: 1, Score: 9},
		{Player: "b", TierBefore: "low", TierAfter: "low", Board: 1, Rank: 2, Score: 1},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := Parse([]byte(good)) // tiers low and high: mid is gone
	err = c.CheckStore(ctx, store)
	if err == nil || !strings.Contains(err.Error(), `league "lg": tiers: tiers this config lacks still hold players: mid (1 player)`) {
		t.Fatalf("CheckStore: %v", err)
	}
	withMid, _ := Parse([]byte(strings.Replace(good, "{id: low, promote: 0.2}", "{id: low, promote: 0.2}\n      - {id: mid}", 1)))
	if err := withMid.CheckStore(ctx, store); err != nil {
		t.Fatalf("CheckStore with mid kept: %v", err)
	}
}

func TestSharedRoundTrips(t *testing.T) {
	c, err := Parse([]byte(good))
	if err != nil || c.SharedRoundTrips != league.DefaultSharedRoundTrips {
		t.Fatalf("default: got %d, %v; want %d", c.SharedRoundTrips, err, league.DefaultSharedRoundTrips)
	}
	for _, n := range []int{0, 1, 64} {
		c, err := Parse([]byte(fmt.Sprintf("redis: {shared_round_trips: %d}\n%s", n, good)))
		if err != nil || c.SharedRoundTrips != n {
			t.Fatalf("shared_round_trips %d: got %d, %v", n, c.SharedRoundTrips, err)
		}
	}
	for yaml, want := range map[string]string{
		"redis: {shared_round_trips: -1}\n": "redis.shared_round_trips: -1 is outside 0..64",
		"redis: {shared_round_trips: 65}\n": "redis.shared_round_trips: 65 is outside 0..64",
		"redis: {autopipeline: true}\n":     "redis.autopipeline: replaced by redis.shared_round_trips",
	} {
		if _, err := Parse([]byte(yaml + good)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want an error saying %q", yaml, err, want)
		}
	}
}

// TestParseDays: the longest whole-day duration a time.Duration holds is
// accepted as it is written, not wrapped round.
func TestParseDays(t *testing.T) {
	c, err := Parse([]byte(strings.Replace(good, "schedule:", "retention: 106751d\n    schedule:", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := c.Leagues[0].Retention, 106751*24*time.Hour; got != want {
		t.Fatalf("retention: got %v, want %v", got, want)
	}
}

// TestParseNames: the names and namespaces the checks must still let through.
func TestParseNames(t *testing.T) {
	long := strings.Repeat("é", 32) // 64 bytes
	c, err := Parse([]byte("redis: {namespace: '" + strings.Repeat("n", 64) + "'}\n" +
		strings.Replace(good, "{id: high, demote: 0.2}", "{id: high, name: "+long+", demote: 0.2}", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Leagues[0].Ladder.Tier(1).Name; got != long {
		t.Fatalf("name: got %q, want %q", got, long)
	}
	if got := c.Leagues[0].Ladder.Tier(0).Name; got != "low" {
		t.Fatalf("name left out: got %q, want the id %q", got, "low")
	}
	if len(c.Namespace) != 64 {
		t.Fatalf("namespace: got %d bytes, want 64", len(c.Namespace))
	}
}

func TestKeepHistory(t *testing.T) {
	for yaml, want := range map[string]time.Duration{"": 0, "settlement: {keep_history: 180d}\n": 180 * 24 * time.Hour} {
		c, err := Parse([]byte(yaml + good))
		if err != nil || c.Settlement.KeepHistory != want {
			t.Errorf("%q: keep_history %v, %v; want %v", yaml, c.Settlement.KeepHistory, err, want)
		}
	}
}
