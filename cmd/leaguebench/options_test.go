package main

import (
	"io"
	"slices"
	"strings"
	"testing"
)

func TestOptions(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	local := map[string]string{"REDIS_URL": "redis://127.0.0.1:6379/0"}
	cases := []struct {
		name    string
		args    []string
		env     map[string]string
		wantErr string
	}{
		{"defaults", nil, local, ""},
		{"lists", []string{"-players", "100k,1m", "-concurrency", "16,32", "-workloads", "settle,memory"},
			map[string]string{"REDIS_URL": "redis://localhost:6379", "DATABASE_URL": "postgres://127.0.0.1/test"}, ""},
		{"no redis", nil, nil, "REDIS_URL is required"},
		{"settle needs postgres", []string{"-workloads", "settle"}, local, "settle needs DATABASE_URL"},
		{"unknown workload", []string{"-workloads", "scores"}, local, `unknown "scores"`},
		{"leaderboards", []string{"-workloads", "lbwrite,lbtop,lbmember", "-leaderboard", "points"}, local, ""},
		{"rolling", []string{"-workloads", "lbroll,lbwindow,lbscheme3,lbfill", "-windows", "7d, 30d,24h"}, local, ""},
		{"bad window", []string{"-windows", "7w"}, local, `-windows: "7w" is not a rolling window`},
		{"window twice", []string{"-windows", "7d,7d"}, local, "-windows: 7d is listed twice"},
		{"votes", []string{"-workloads", "lbvote,lbvotemem", "-limits", "0, 1,4,12"}, local, ""},
		{"too many limits", []string{"-limits", "13"}, local, `-limits: "13" is not a count of limits from 0 to 12`},
		{"bad limits", []string{"-limits", "four"}, local, `-limits: "four" is not a count`},
		{"limits twice", []string{"-limits", "4,4"}, local, "-limits: 4 is listed twice"},
		{"no limits", []string{"-limits", ","}, local, "-limits: empty"},
		{"guards", []string{"-workloads", "score", "-guards", "limits"}, local, ""},
		{"unknown guards", []string{"-guards", "all"}, local, `-guards: unknown "all"; known: config,none,limits`},
		{"no window", []string{"-windows", ","}, local, "-windows: empty"},
		{"no rounds", []string{"-rounds", "0"}, local, "-rounds must be 1 or more"},
		{"rounds too short", []string{"-duration", "1s", "-rounds", "20"}, local, "at least 100ms"},
		{"bad players", []string{"-players", "ten"}, local, "not a whole number"},
		{"negative rate", []string{"-rate", "5k,-1"}, local, `-rate: "-1" is not a number >= 0`},
		{"bad rate", []string{"-rate", "fast"}, local, `-rate: "fast" is not a number >= 0`},
		{"remote redis", nil, map[string]string{"REDIS_URL": "redis://10.0.0.5:6379"}, "not a loopback address"},
		{"remote postgres", []string{"-workloads", "settle"},
			map[string]string{"REDIS_URL": "redis://127.0.0.1:6379", "DATABASE_URL": "postgres://db.example.com/x"}, "not a loopback address"},
		{"remote http", []string{"-http", "http://192.168.1.2:8080"}, local, "not a loopback address"},
		{"shards", []string{"-workloads", "lbshards,lbshardwrite,lbqueue", "-shards", "16", "-burst", "30s", "-burst-factor", "5", "-drainers", "1"}, local, ""},
		{"one shard", []string{"-shards", "1"}, local, "-shards must be 2..1024"},
		{"no burst", []string{"-burst-factor", "0"}, local, "-burst, -burst-factor and -drainers must be positive"},
		{"local cluster", nil, map[string]string{"REDIS_URL": "redis://127.0.0.1:6379", "REDIS_CLUSTER_URL": "redis://127.0.0.1:7000?addr=127.0.0.1:7001"}, ""},
		{"remote cluster", nil, map[string]string{"REDIS_URL": "redis://127.0.0.1:6379", "REDIS_CLUSTER_URL": "redis://127.0.0.1:7000?addr=10.0.0.5:7001"}, "REDIS_CLUSTER_URL: 10.0.0.5 is not a loopback address"},
		{"remote allowed", []string{"-allow-remote", "-http", "http://192.168.1.2:8080"}, map[string]string{"REDIS_URL": "redis://10.0.0.5:6379"}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o, err := parseOptions(c.args, env(c.env), io.Discard)
			if err == nil {
				err = checkTargets(o)
			}
			switch {
			case c.wantErr == "" && err != nil:
				t.Fatalf("got error %v, want none", err)
			case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
				t.Fatalf("got error %v, want one saying %q", err, c.wantErr)
			}
		})
	}
	o, _ := parseOptions([]string{"-players", "100k,1m", "-rate", "0,5000,10.5k"}, env(local), io.Discard)
	if !slices.Equal(o.players, []int{100000, 1000000}) {
		t.Errorf("-players 100k,1m: got %v, want [100000 1000000]", o.players)
	}
	if !slices.Equal(o.rates, []float64{0, 5000, 10500}) {
		t.Errorf("-rate 0,5000,10.5k: got %v, want [0 5000 10500]", o.rates)
	}
	// The key for a leagued with keys: -api-key, else LEAGUE_API_KEY.
	keyed := map[string]string{"REDIS_URL": "redis://127.0.0.1:6379/0", "LEAGUE_API_KEY": "from-env"}
	if o, _ := parseOptions(nil, env(keyed), io.Discard); o.apiKey != "from-env" {
		t.Errorf("LEAGUE_API_KEY: got key %q, want from-env", o.apiKey)
	}
	if o, _ := parseOptions([]string{"-api-key", "from-flag"}, env(keyed), io.Discard); o.apiKey != "from-flag" {
		t.Errorf("-api-key beside LEAGUE_API_KEY: got key %q, want the flag's", o.apiKey)
	}
	if o, _ := parseOptions(nil, env(local), io.Discard); o.apiKey != "" {
		t.Errorf("no key given: got %q, want none", o.apiKey)
	}
	// -leaderboard names the leaderboard at -http: config.yaml's by default.
	if o, _ := parseOptions(nil, env(local), io.Discard); o.leaderboardID != "kills" {
		t.Errorf("no -leaderboard: got %q, want kills", o.leaderboardID)
	}
	if o, _ := parseOptions([]string{"-leaderboard", "points"}, env(local), io.Discard); o.leaderboardID != "points" {
		t.Errorf("-leaderboard points: got %q", o.leaderboardID)
	}
	if o, _ := parseOptions(nil, env(local), io.Discard); !slices.Equal(o.rates, []float64{0}) {
		t.Errorf("no -rate: got %v, want one closed-loop row [0]", o.rates)
	}
}
