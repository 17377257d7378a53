package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/league-engine/league/config"
	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/leaderboard"
	"github.com/league-engine/league/league"
)

func TestConfigCheck(t *testing.T) {
	t.Setenv("DATABASE_URL", "")
	var out bytes.Buffer
	if err := run(context.Background(), []string{"config", "check", "-config", "../../config.yaml"}, &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"league weekly", "league blitz", "score bits", "tier diamond", "min scores 0 to climb, 1 for a reward",
		"every one 168h0m0s long", "no decay", "decay after 3 periods", "config.yaml: ok"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	// A league's cohorts.
	cohorts := filepath.Join(t.TempDir(), "cohorts.yaml")
	os.WriteFile(cohorts, []byte("leagues:\n  - id: x\n    schedule: \"@weekly\"\n    cohorts: [eu, na]\n    tiers: [{id: a}]\n"), 0o600)
	out.Reset()
	testsvc.Must(t, run(context.Background(), []string{"config", "check", "-config", cohorts}, &out), "config check")
	if !strings.Contains(out.String(), "eu, na: a join naming one plays on its tier's boards of it") {
		t.Errorf("cohorts: output lacks them:\n%s", out.String())
	}
	// Periods of a schedule that fires at clock times differ in length.
	uneven := filepath.Join(t.TempDir(), "uneven.yaml")
	os.WriteFile(uneven, []byte("leagues:\n  - id: x\n    schedule: \"*/25 * * * * *\"\n    tiers: [{id: a}]\n"), 0o600)
	out.Reset()
	testsvc.Must(t, run(context.Background(), []string{"config", "check", "-config", uneven}, &out), "config check")
	if !strings.Contains(out.String(), "from 10s to 25s long") {
		t.Errorf("*/25 seconds: output lacks the uneven lengths:\n%s", out.String())
	}
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	os.WriteFile(bad, []byte("leagues:\n  - id: x\n    schedule: \"0 0 * * MON\"\n    tiers: [{id: a, promote: 1.5}]\n"), 0o600)
	err := run(context.Background(), []string{"config", "check", "-config", bad}, &out)
	if err == nil || !strings.Contains(err.Error(), `league "x": tiers[0] (a).promote`) {
		t.Fatalf("bad config: %v", err)
	}
	// A file named without -config is refused, not ignored for the default.
	err = run(context.Background(), []string{"config", "check", bad}, &out)
	if err == nil || !strings.Contains(err.Error(), `unexpected argument "`+bad+`"`) {
		t.Fatalf("config check %s: %v, want the argument refused", bad, err)
	}
}

// TestSettleBoardPlayer settles a real period with leaguectl against the real
// Redis and Postgres, then prints a board and a player.
func TestSettleBoardPlayer(t *testing.T) {
	ns := testsvc.Namespace(t)
	rdb := testsvc.Redis(t, ns)
	_, dsn := testsvc.Postgres(t)
	yaml := fmt.Sprintf(`
redis: {namespace: %s}
leagues:
  - id: quick
    schedule: "*/2 * * * * *"
    board_size: 5
    tiers:
      - {id: low, promote: 0.2, min_promote_score: 1, rewards: [{ranks: "1", items: {gems: 9}}]}
      - {id: high, demote: 0.2}
`, ns)
	path := filepath.Join(t.TempDir(), "config.yaml")
	testsvc.Must(t, os.WriteFile(path, []byte(yaml), 0o600), "write config")
	t.Setenv("REDIS_URL", testsvc.RedisURL())
	t.Setenv("DATABASE_URL", dsn)
	ctx := context.Background()

	cfg, err := config.Parse([]byte(yaml))
	testsvc.Must(t, err, "config")
	e, err := league.Open(ctx, rdb, cfg.Leagues, league.WithNamespace(ns))
	testsvc.Must(t, err, "Open")
	var period league.Period
	for {
		period, _ = e.Current("quick")
		if time.Until(period.End) > time.Second {
			break
		}
		time.Sleep(time.Until(period.End) + 50*time.Millisecond)
	}
	for i := 0; i < 10; i++ {
		id := fmt.Sprint("p", i)
		_, err := e.Join(ctx, "quick", league.JoinRequest{Player: id, Name: "Name" + id})
		testsvc.Must(t, err, "Join")
		_, err = e.Score(ctx, "quick", league.ScoreWrite{Player: id, Value: int64(i)})
		testsvc.Must(t, err, "Score")
	}
	var out bytes.Buffer
	testsvc.Must(t, run(ctx, []string{"board", "-config", path, "-league", "quick", "-board", "low-2"}, &out), "board")
	if !strings.Contains(out.String(), "1     p9") || !strings.Contains(out.String(), "Namep9") {
		t.Fatalf("board output:\n%s", out.String())
	}
	bj := runJSON(t, "board", "-config", path, "-league", "quick", "-board", "low-2", "-o", "json")
	if top := bj["entries"].([]any)[0].(map[string]any); bj["board"] != "low-2" || top["player_id"] != "p9" || top["name"] != "Namep9" || top["rank"] != 1.0 {
		t.Fatalf("board -o json: %v", bj)
	}
	time.Sleep(time.Until(period.End) + 100*time.Millisecond)

	// A database without the schema is refused, not migrated: only
	// leaguectl migrate (and leagued's start) migrate.
	if err := run(ctx, []string{"settle", "-config", path, "-league", "quick", "-period", period.ID()}, &out); err == nil ||
		!strings.Contains(err.Error(), "the database lacks migrations this binary needs (0001_league") {
		t.Fatalf("settle on an unmigrated database: %v", err)
	}
	testsvc.Must(t, run(ctx, []string{"migrate"}, &out), "migrate")
	// Rolling back for an older leagued: the migrations above 1, never 0001
	// (every settlement is in its tables); then forward again.
	var usage usageError
	if err := run(ctx, []string{"migrate", "-down-to", "0"}, &out); !errors.As(err, &usage) {
		t.Fatalf("migrate -down-to 0: %v, want a usage error", err)
	}
	out.Reset()
	testsvc.Must(t, run(ctx, []string{"migrate", "-down-to", "1"}, &out), "migrate -down-to 1")
	if !strings.Contains(out.String(), "rolled back 0002_outcomes_by_player") || strings.Contains(out.String(), "0001") {
		t.Fatalf("migrate -down-to 1:\n%s", out.String())
	}
	out.Reset()
	testsvc.Must(t, run(ctx, []string{"migrate"}, &out), "migrate again")
	if !strings.Contains(out.String(), "applied 0002_outcomes_by_player") {
		t.Fatalf("migrate after -down-to 1:\n%s", out.String())
	}
	if mj := runJSON(t, "migrate", "-o", "json"); len(mj["applied"].([]any)) != 0 || len(mj["rolled_back"].([]any)) != 0 {
		t.Fatalf("migrate -o json on an up-to-date database: %v", mj)
	}
	out.Reset()
	testsvc.Must(t, run(ctx, []string{"settle", "-config", path, "-league", "quick", "-period", period.ID()}, &out), "settle")
	for _, want := range []string{"closed, 10 players to settle", "wrote 10 outcomes", "applied 2 tier moves", "10 players", "2 promoted"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("settle output lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	testsvc.Must(t, run(ctx, []string{"settle", "-config", path, "-league", "quick", "-period", period.ID()}, &out), "settle again")
	if !strings.Contains(out.String(), "settled already, at ") || strings.Contains(out.String(), "players/s") {
		t.Errorf("settling a settled period again:\n%s", out.String())
	}
	if sj := runJSON(t, "settle", "-config", path, "-league", "quick", "-period", period.ID(), "-o", "json"); sj["already_settled"] != true ||
		sj["players"] != 10.0 || len(sj["tiers"].([]any)) != 2 || sj["status"] != "done" {
		t.Errorf("settle -o json, settled already: %v", sj)
	}
	out.Reset()
	testsvc.Must(t, run(ctx, []string{"player", "-config", path, "-league", "quick", "-player", "p9"}, &out), "player")
	for _, want := range []string{"low -> high  low-2", "9 gems   ", "waiting for the next join: 9 gems, for rank 1 in low"} {
		if !strings.Contains(out.String(), want) || strings.Contains(out.String(), "{") {
			t.Fatalf("player output lacks %q (or shows Go syntax):\n%s", want, out.String())
		}
	}
	pj := runJSON(t, "player", "-config", path, "-league", "quick", "-player", "p9", "-o", "json")
	hist := pj["history"].([]any)
	if len(hist) != 1 || hist[0].(map[string]any)["tier_after"] != "high" || len(pj["waiting_rewards"].([]any)) != 1 ||
		pj["standing"].(map[string]any)["tier"] != "high" {
		t.Fatalf("player -o json: %v", pj)
	}
	if err := run(ctx, []string{"board", "-config", path, "-league", "quick", "-board", "nope"}, &out); err == nil {
		t.Fatal("a bad board id was accepted")
	}

	// Redis loses the league: leaguectl does not recreate it, restore does.
	testsvc.Must(t, testsvc.DeleteNamespace(ctx, rdb, ns), "lose the league")
	err = run(ctx, []string{"board", "-config", path, "-league", "quick", "-board", "low-1"}, &out)
	if err == nil || !strings.Contains(err.Error(), "no data in Redis yet") {
		t.Fatalf("board of a lost league: %v", err)
	}
	out.Reset()
	testsvc.Must(t, run(ctx, []string{"player", "-config", path, "-league", "quick", "-player", "p9"}, &out), "player of a lost league")
	if !strings.Contains(out.String(), "note: league \"quick\" has no data in Redis yet") || !strings.Contains(out.String(), "low -> high") {
		t.Fatalf("player output on a lost league:\n%s", out.String())
	}
	out.Reset()
	// A player neither Redis nor Postgres knows: the error alone, not the
	// note as well.
	if err := run(ctx, []string{"player", "-config", path, "-league", "quick", "-player", "nobody"}, &out); err == nil || out.Len() != 0 {
		t.Fatalf("player nobody of a lost league: %v, printed %q; want the error alone", err, out.String())
	}
	// Another deployment's league of the same id in this Redis looks like a
	// changed redis.namespace: restore refuses unless told.
	other := ns + "other"
	testsvc.Must(t, rdb.HSet(ctx, other+":{quick}:meta", "epoch", "x").Err(), "another deployment's league")
	defer testsvc.DeleteNamespace(ctx, rdb, other)
	if err := run(ctx, []string{"restore", "-config", path, "-league", "quick"}, &out); err == nil ||
		!strings.Contains(err.Error(), `under the namespace "`+other+`"`) {
		t.Fatalf("restore beside the league under another namespace: %v", err)
	}
	testsvc.Must(t, run(ctx, []string{"restore", "-config", path, "-league", "quick", "-other-deployments"}, &out), "restore")
	if !strings.Contains(out.String(), "restored league quick: 10 players (10 records written)") {
		t.Fatalf("restore output:\n%s", out.String())
	}
	// restore -o json, on the league lost once more.
	testsvc.Must(t, testsvc.DeleteNamespace(ctx, rdb, ns), "lose the league again")
	rj := runJSON(t, "restore", "-config", path, "-league", "quick", "-other-deployments", "-o", "json")
	if rj["players"] != 10.0 || rj["league"] != "quick" || rj["settled"] != period.ID() {
		t.Fatalf("restore -o json: %v", rj)
	}
	if err := run(ctx, []string{"restore", "-config", path, "-league", "quick"}, &out); err == nil || !strings.Contains(err.Error(), "Redis holds its data") {
		t.Fatalf("a second restore: %v", err)
	}
	if err := run(ctx, []string{"restore", "-config", path}, &out); err == nil || !strings.Contains(err.Error(), "-league is required") {
		t.Fatalf("restore without -league: %v", err)
	}
	e2, err := league.Open(ctx, rdb, cfg.Leagues, league.WithNamespace(ns))
	testsvc.Must(t, err, "Open after the restore")
	for {
		if period, _ = e2.Current("quick"); time.Until(period.End) > 500*time.Millisecond {
			break
		}
		time.Sleep(time.Until(period.End) + 50*time.Millisecond)
	}
	p, err := e2.Join(ctx, "quick", league.JoinRequest{Player: "p9", Name: "p9"})
	testsvc.Must(t, err, "Join after the restore")
	if p.Tier != "high" || len(p.Rewards) != 1 {
		t.Fatalf("p9 after the restore: tier %s rewards %+v, want high with the gems of its rank 1", p.Tier, p.Rewards)
	}
}

// TestCommandLineRefusals: a command line leaguectl cannot read is a usage
// error (exit status 2), a flag given twice included (flag alone would keep
// the last); a value that looks like a flag is a value.
func TestCommandLineRefusals(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "no command"},
		{[]string{"bogus"}, `unknown command "bogus"`},
		{[]string{"config"}, "usage: leaguectl config check"},
		{[]string{"board", "-nope"}, "flag provided but not defined: -nope"},
		{[]string{"board", "-league", "weekly", "-board", "bronze-1", "-league", "blitz"}, "board: -league is given twice"},
		{[]string{"board", "--league=weekly", "-board", "bronze-1", "-league", "blitz"}, "board: -league is given twice"},
		{[]string{"restore", "-league", "weekly", "-other-deployments", "-other-deployments"}, "restore: -other-deployments is given twice"},
		{[]string{"settle", "-league", "weekly", "extra"}, `settle: unexpected argument "extra"`},
		{[]string{"settle"}, "settle: -league is required"},
		{[]string{"restore"}, "restore: -league is required"},
		{[]string{"board", "-league", "weekly"}, "board: -league and -board are required"},
		{[]string{"player", "-league", "weekly"}, "player: -league and -player are required"},
		{[]string{"player", "-league", "weekly", "-player", "p", "-history", "-5"}, "player: -history -5 is outside 1..1000"},
		{[]string{"player", "-league", "weekly", "-player", "p", "-history", "1001"}, "player: -history 1001 is outside 1..1000"},
		{[]string{"player", "-league", "weekly", "-player", "p", "-history", "0"}, "player: -history 0 is outside 1..1000"},
		{[]string{"board", "-league", "weekly", "-board", "bronze-1", "-period", "bad"}, "board: -period:"},
		{[]string{"board", "-league", "weekly", "-board", "bronze"}, "board: -board:"},
		{[]string{"settle", "-league", "weekly", "-period", "bad"}, "settle: -period:"},
	} {
		var out bytes.Buffer
		err := run(context.Background(), c.args, &out)
		var u usageError
		if !errors.As(err, &u) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("leaguectl %q: %v, want a usage error saying %q", c.args, err, c.want)
		}
	}
	fs := flag.NewFlagSet("player", flag.ContinueOnError)
	fs.String("league", "", "")
	fs.String("player", "", "")
	if name := repeatedFlag(fs, []string{"-league", "weekly", "-player", "-league"}); name != "" {
		t.Errorf("the player id -league read as a second -league")
	}
}

func TestVersion(t *testing.T) {
	var out bytes.Buffer
	testsvc.Must(t, run(context.Background(), []string{"version"}, &out), "version")
	if !strings.HasPrefix(out.String(), "league ") || !strings.Contains(out.String(), " go1.") {
		t.Fatalf("version: %q", out.String())
	}
}

// TestConfigCheckShowsKeys: each key by name, role, scope and where its
// secret comes from, never the secret.
func TestConfigCheckShowsKeys(t *testing.T) {
	t.Setenv("DATABASE_URL", "")
	t.Setenv("EU_SECRET", "")
	path := filepath.Join(t.TempDir(), "keys.yaml")
	os.WriteFile(path, []byte(`server:
  max_connections_per_client: 0
  keys:
    - {name: eu, role: game, leagues: [x], secret_env: EU_SECRET}
    - {name: ops, role: admin, secret: ops-secret-0123456789}
leagues:
  - id: x
    schedule: "@weekly"
    tiers: [{id: a}]
`), 0o600)
	var out bytes.Buffer
	testsvc.Must(t, run(context.Background(), []string{"config", "check", "-config", path}, &out), "config check")
	for _, want := range []string{"key eu    game, leagues x, secret from $EU_SECRET", "NOT READABLE HERE: server.keys[0] (eu).secret_env: EU_SECRET is not set",
		"key ops   admin, every league, secret in the file",
		"4096 in all, no cap per client address"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "ops-secret") {
		t.Errorf("a secret printed:\n%s", out.String())
	}
}

// TestLeaderboardAndPrefill: leaguectl prints a rolling board, says it is
// incomplete before any pre-fill, fills it, and then prints it complete.
func TestLeaderboardAndPrefill(t *testing.T) {
	ctx := context.Background()
	path, lb := leaderboardConfig(t, "leaderboards: [{id: votes, periods: [day], rolling: [7d, 24h]}]\n")
	for i, m := range []string{"ann", "ben", "cid"} {
		_, err := lb.Write(ctx, "votes", leaderboard.Write{Member: m, Value: int64(10 * (i + 1))})
		testsvc.Must(t, err, "write")
	}
	var out bytes.Buffer
	testsvc.Must(t, run(ctx, []string{"leaderboard", "-config", path, "-leaderboard", "votes", "-board", "7d"}, &out), "leaderboard")
	if s := out.String(); !strings.Contains(s, "3 members (incomplete") || !strings.Contains(s, "1     cid     30") {
		t.Fatalf("before a pre-fill:\n%s", s)
	}
	out.Reset()
	testsvc.Must(t, run(ctx, []string{"prefill", "-config", path}, &out), "prefill")
	if s := out.String(); strings.Count(s, "leaderboard votes") != 4 || !strings.Contains(s, "24h period") || !strings.Contains(s, "filled now from its buckets") {
		t.Fatalf("prefill:\n%s", s)
	}
	pj := runJSON(t, "prefill", "-config", path, "-o", "json")
	if fs := pj["fills"].([]any); len(fs) != 4 || fs[0].(map[string]any)["leaderboard"] != "votes" {
		t.Fatalf("prefill -o json, filled already: %v", pj)
	}
	out.Reset()
	testsvc.Must(t, run(ctx, []string{"leaderboard", "-config", path, "-leaderboard", "votes", "-board", "7d", "-limit", "1"}, &out), "leaderboard")
	if s := out.String(); strings.Contains(s, "incomplete") || !strings.Contains(s, "3 members") || strings.Contains(s, "ben") {
		t.Fatalf("after the pre-fill:\n%s", s)
	}
	lj := runJSON(t, "leaderboard", "-config", path, "-leaderboard", "votes", "-board", "7d", "-limit", "1", "-o", "json")
	if es := lj["entries"].([]any); lj["size"] != 3.0 || lj["incomplete"] != false || len(es) != 1 || es[0].(map[string]any)["member"] != "cid" {
		t.Fatalf("leaderboard -o json: %v", lj)
	}
	for _, args := range [][]string{
		{"leaderboard", "-config", path, "-leaderboard", "votes", "-board", "7w"},
		{"leaderboard", "-config", path, "-leaderboard", "votes"},
	} {
		var u usageError
		if err := run(ctx, args, &out); !errors.As(err, &u) {
			t.Errorf("%v: %v, want a usage error", args, err)
		}
	}
	for args, want := range map[string][]string{
		`unknown leaderboard "nope"`:       {"prefill", "-config", path, "-leaderboard", "nope"},
		`keeps no 30d board`:               {"leaderboard", "-config", path, "-leaderboard", "votes", "-board", "30d"},
		`limit: 0 is outside 1..1000`:      {"leaderboard", "-config", path, "-leaderboard", "votes", "-board", "day", "-limit", "0"},
		`unknown leaderboard "nope"` + " ": {"leaderboard", "-config", path, "-leaderboard", "nope", "-board", "day"},
	} {
		if err := run(ctx, want, &out); err == nil || !strings.Contains(err.Error(), strings.TrimSpace(args)) {
			t.Errorf("%v: %v, want %q", want, err, args)
		}
	}
}

// TestImport: leaguectl imports a CSV catalog, names show on the board, a
// second import changes nothing, and bad rows import nothing, each listed.
func TestImport(t *testing.T) {
	path, _ := leaderboardConfig(t, "leaderboards: [{id: votes, periods: [all_time], catalog: true}]\n")
	dir := t.TempDir()
	csv := filepath.Join(dir, "members.csv")
	testsvc.Must(t, os.WriteFile(csv, []byte("member,name,avatar,initial_score\nann,Ann,ann.png,40\nben,Ben,,12\n"), 0o600), "write csv")
	ctx := context.Background()
	var out bytes.Buffer
	testsvc.Must(t, run(ctx, []string{"import", "-config", path, "-leaderboard", "votes", "-file", csv}, &out), "import")
	if s := out.String(); s != "leaderboard votes: 2 members imported, 2 changed\n" {
		t.Fatalf("import: %q", s)
	}
	out.Reset()
	testsvc.Must(t, run(ctx, []string{"import", "-config", path, "-leaderboard", "votes", "-file", csv}, &out), "import again")
	if s := out.String(); !strings.Contains(s, "0 changed") {
		t.Fatalf("import again: %q", s)
	}
	if ij := runJSON(t, "import", "-config", path, "-leaderboard", "votes", "-file", csv, "-o", "json"); ij["imported"] != 2.0 || ij["changed"] != 0.0 {
		t.Fatalf("import -o json: %v", ij)
	}
	out.Reset()
	testsvc.Must(t, run(ctx, []string{"leaderboard", "-config", path, "-leaderboard", "votes", "-board", "all_time"}, &out), "board")
	if s := out.String(); !strings.Contains(s, "1     ann     40     Ann") || !strings.Contains(s, "2     ben     12     Ben") {
		t.Fatalf("board after the import:\n%s", s)
	}
	bad := filepath.Join(dir, "bad.csv")
	testsvc.Must(t, os.WriteFile(bad, []byte("member,name,initial_score\ncid,Cid,1\ndan,Dan,lots\ne f,E,\n"), 0o600), "write csv")
	out.Reset()
	if err := run(ctx, []string{"import", "-config", path, "-leaderboard", "votes", "-file", bad}, &out); err == nil ||
		!strings.Contains(err.Error(), "2 problems, so nothing was imported") {
		t.Fatalf("bad rows: %v", err)
	}
	if s := out.String(); !strings.Contains(s, bad+`: row 3.initial_score: "lots" is not a whole number`+"\n") ||
		!strings.Contains(s, bad+": row 4.member: byte 1") {
		t.Fatalf("bad rows: every one is not listed:\n%s", s)
	}
	out.Reset()
	testsvc.Must(t, run(ctx, []string{"leaderboard", "-config", path, "-leaderboard", "votes", "-board", "all_time"}, &out), "board")
	if strings.Contains(out.String(), "cid") {
		t.Fatalf("a refused import wrote its good row:\n%s", out.String())
	}
}

// TestLimits: leaguectl shows an actor's counters, those of every limit
// counting by the dimensions given.
func TestLimits(t *testing.T) {
	ctx := context.Background()
	path, lb := leaderboardConfig(t, `leaderboards:
  - id: votes
    periods: [day]
    limits:
      - {by: [actor], per: day, max: 3}
      - {name: per-candidate, by: [actor, member], per: ever, max: 1}
`)
	for _, m := range []string{"x", "y"} {
		_, err := lb.Write(ctx, "votes", leaderboard.Write{Member: m, Value: 1, Actor: "fan"})
		testsvc.Must(t, err, "vote")
	}
	var out bytes.Buffer
	testsvc.Must(t, run(ctx, []string{"limits", "-config", path, "-leaderboard", "votes", "-actor", "fan"}, &out), "limits")
	if s := out.String(); !strings.Contains(s, "actor-day  actor  2     3") || strings.Contains(s, "per-candidate") {
		t.Fatalf("the actor's counters:\n%s", s)
	}
	out.Reset()
	testsvc.Must(t, run(ctx, []string{"limits", "-config", path, "-leaderboard", "votes", "-actor", "fan", "-member", "x"}, &out), "limits")
	if s := out.String(); !strings.Contains(s, "per-candidate  actor+member  1     1    ever") {
		t.Fatalf("the actor's counters for x:\n%s", s)
	}
	cj := runJSON(t, "limits", "-config", path, "-leaderboard", "votes", "-actor", "fan", "-member", "x", "-o", "json")
	if cs := cj["counters"].([]any); len(cs) != 2 || cs[1].(map[string]any)["limit"] != "per-candidate" || cs[1].(map[string]any)["end"] != "" {
		t.Fatalf("limits -o json: %v", cj)
	}
	var u usageError
	if err := run(ctx, []string{"limits", "-config", path, "-leaderboard", "votes"}, &out); !errors.As(err, &u) {
		t.Fatalf("no dimension: %v", err)
	}
}

// leaderboardConfig writes a config of the leaderboards yaml names, in a
// namespace of the test's own on REDIS_URL, and opens them: the config's
// path and an engine to write with.
func leaderboardConfig(t *testing.T, yaml string) (string, *leaderboard.Engine) {
	t.Helper()
	ns := testsvc.Namespace(t)
	rdb := testsvc.Redis(t, ns)
	yaml = fmt.Sprintf("redis: {namespace: %s}\n", ns) + yaml
	path := filepath.Join(t.TempDir(), "config.yaml")
	testsvc.Must(t, os.WriteFile(path, []byte(yaml), 0o600), "write config")
	t.Setenv("REDIS_URL", testsvc.RedisURL())
	cfg, err := config.Parse([]byte(yaml))
	testsvc.Must(t, err, "config")
	lb, err := leaderboard.Open(context.Background(), rdb, cfg.Leaderboards, leaderboard.WithNamespace(ns))
	testsvc.Must(t, err, "Open")
	return path, lb
}
