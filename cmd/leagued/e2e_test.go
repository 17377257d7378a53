package main_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/league-engine/league/config"
	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/tiers"
)

const (
	apiKey   = "e2e-api-key-0123456789"
	adminKey = "e2e-admin-key-0123456789"
)

// e2eConfig is a league with a fifteen-second cycle: boards of 10, bronze
// promotes 20% of scorers, silver 20% up and down, gold demotes 30%; ranks
// 1-3 of every board earn gems.
const e2eConfig = `
server:
  listen: %s
  api_keys: [%s]
  admin_keys: [%s]
redis:
  namespace: %s
settlement:
  poll: 1s
leagues:
  - id: e2e
    schedule: "*/15 * * * * *"
    board_size: 10
    tiers:
      - id: bronze
        promote: 0.2
        min_promote_score: 1
        rewards: [{ranks: "1", items: {gems: 100}}, {ranks: "2-3", items: {gems: 50}}]
      - id: silver
        promote: 0.2
        demote: 0.2
        rewards: [{ranks: "1", items: {gems: 100}}, {ranks: "2-3", items: {gems: 50}}]
      - id: gold
        demote: 0.3
`

// TestLeaguedEndToEnd builds and starts the real leagued against real Redis
// and Postgres and drives it over HTTP only: 1,000 players join and score,
// the cycle ends, settlement runs, and the next joins see the new tiers and
// receive their rewards exactly once.
func TestLeaguedEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("starts leagued and waits for three fifteen-second cycles")
	}
	bin := build(t)
	// leagued takes no arguments: -h prints its usage, anything else is
	// refused rather than ignored by a service that then starts.
	if out, err := exec.Command(bin, "-h").CombinedOutput(); err != nil || !strings.Contains(string(out), "LEAGUE_CONFIG") {
		t.Fatalf("leagued -h: %v\n%s", err, out)
	}
	var exit *exec.ExitError
	if out, err := exec.Command(bin, "-port", "9000").CombinedOutput(); !errors.As(err, &exit) || exit.ExitCode() != 2 ||
		!strings.Contains(string(out), `unexpected argument "-port"`) {
		t.Fatalf("leagued -port 9000: %v, want exit 2 naming the argument\n%s", err, out)
	}
	ns := testsvc.Namespace(t)
	rdb := testsvc.Redis(t, ns) // cleans the namespace up afterwards
	_, dsn := testsvc.Postgres(t)
	addr := freeAddr(t)
	yaml := fmt.Sprintf(e2eConfig, addr, apiKey, adminKey, ns)
	cfgPath := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(cfgPath, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Parse([]byte(yaml))
	testsvc.Must(t, err, "config")
	ladder := cfg.Leagues[0].Ladder

	var logs bytes.Buffer
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "LEAGUE_CONFIG="+cfgPath, "REDIS_URL="+testsvc.RedisURL(), "DATABASE_URL="+dsn)
	cmd.Stdout, cmd.Stderr = &logs, &logs
	testsvc.Must(t, cmd.Start(), "start leagued")
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		if t.Failed() {
			t.Logf("leagued log:\n%s", logs.String())
		}
	})
	c := &client{t: t, base: "http://" + addr}
	c.waitReady(exited)

	// Start at the top of a cycle so that all 1,000 joins land in one period.
	sched := cfg.Leagues[0].Schedule
	if p := sched.At(time.Now()); time.Until(p.End) < 12*time.Second {
		time.Sleep(time.Until(p.End) + 200*time.Millisecond)
	}
	const n = 1000
	score := func(i int) int64 { return int64(i*7919) % 1000 }
	first := c.joinAll(n)
	period1 := first[0].Period
	c.each(n, func(i int) {
		var res struct {
			Period string `json:"period"`
		}
		c.post("/v1/leagues/e2e/scores", apiKey, map[string]any{
			"player_id": player(i), "value": score(i), "request_id": fmt.Sprint("e2e-", i),
		}, http.StatusOK, &res)
	})
	if left := time.Until(sched.At(time.Now()).End); sched.At(time.Now()).ID() != period1 || left < 0 {
		t.Fatalf("joins and writes outlasted period %s: the machine was too slow for a 15 s cycle", period1)
	}
	for i, j := range first {
		if j.Period != period1 {
			t.Fatalf("player %d joined period %s, the others %s: the machine was too slow for a 15 s cycle", i, j.Period, period1)
		}
	}

	// What settlement must decide: rank each board by score, then join order.
	want := expectedOutcomes(ladder, first, score)
	st := c.waitSettled(period1)
	if st.Players != n {
		t.Fatalf("settled %d players, want %d", st.Players, n)
	}

	second := c.joinAll(n)
	rewarded := 0
	for i, j := range second {
		w := want[player(i)]
		if j.Tier != w.tier {
			t.Fatalf("%s joined %s, want %s", player(i), j.Tier, w.tier)
		}
		if len(j.Rewards) != len(w.rewards) {
			t.Fatalf("%s got rewards %+v, want %v", player(i), j.Rewards, w.rewards)
		}
		if len(j.Rewards) > 0 {
			rewarded++
			if j.Rewards[0].Period != period1 || j.Rewards[0].Items[0].Qty != w.rewards[0].Qty {
				t.Fatalf("%s got %+v, want %v from %s", player(i), j.Rewards, w.rewards, period1)
			}
		}
	}
	if rewarded != 300 {
		t.Fatalf("%d players received rewards, want 300 (ranks 1-3 of 100 boards)", rewarded)
	}
	// A retried join returns the same rewards; the next period's join none.
	top := firstRewarded(second)
	again := c.join(top)
	if !again.Rejoined || len(again.Rewards) != 1 {
		t.Fatalf("retried join of %s: %+v", top, again)
	}
	c.waitSettled(second[0].Period)
	third := c.join(top)
	for _, r := range third.Rewards {
		if r.Period == period1 {
			t.Fatalf("%s got the rewards of %s again: %+v", top, period1, third.Rewards)
		}
	}
	var profile struct {
		History []struct {
			Period    string  `json:"period"`
			ClaimedAt *string `json:"claimed_at"`
		} `json:"history"`
	}
	c.get("/v1/leagues/e2e/players/"+top, apiKey, http.StatusOK, &profile)
	claimed := false
	for _, h := range profile.History {
		if h.Period == period1 && h.ClaimedAt != nil && *h.ClaimedAt != "" {
			claimed = true
		}
	}
	if !claimed {
		t.Fatalf("profile of %s does not show the %s rewards claimed: %+v", top, period1, profile)
	}

	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("leagued exited with %v after SIGTERM", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("leagued did not stop within 30 s of SIGTERM")
	}

	// Redis loses the league while Postgres keeps its tiers: leagued refuses
	// to start it afresh (every player would be back in bronze).
	testsvc.Must(t, testsvc.DeleteNamespace(t.Context(), rdb, ns), "lose the league")
	restart := exec.Command(bin)
	restart.Env = cmd.Env
	out, err := restart.CombinedOutput()
	if !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.Contains(string(out), "Redis holds none of its data") ||
		!strings.Contains(string(out), "leaguectl restore -league e2e") {
		t.Fatalf("leagued on a Redis that lost the league: %v\n%s", err, out)
	}
}

func player(i int) string { return fmt.Sprintf("e2e%05d", i) }

type joined struct {
	Period   string `json:"period"`
	Tier     string `json:"tier"`
	Board    string `json:"board"`
	Slot     int    `json:"slot"`
	Rejoined bool   `json:"rejoined"`
	Rewards  []struct {
		Period string       `json:"period"`
		Rank   int          `json:"rank"`
		Items  []tiers.Item `json:"items"`
	} `json:"rewards"`
}

type expected struct {
	tier    string
	rewards []tiers.Item
}

// expectedOutcomes ranks every board by score, then slot (join order), and
// applies the ladder's rules, independently of the server.
func expectedOutcomes(ladder *tiers.Ladder, js []joined, score func(int) int64) map[string]expected {
	boards := map[string][]int{}
	for i, j := range js {
		boards[j.Board] = append(boards[j.Board], i)
	}
	out := map[string]expected{}
	for _, members := range boards {
		sort.Slice(members, func(a, b int) bool {
			sa, sb := score(members[a]), score(members[b])
			if sa != sb {
				return sa > sb
			}
			return js[members[a]].Slot < js[members[b]].Slot
		})
		tier, _ := ladder.Index(js[members[0]].Tier)
		for r, i := range members {
			z := ladder.Zone(tier, r+1, len(members), score(i))
			out[player(i)] = expected{ladder.Tier(ladder.Next(tier, z, r+1)).ID, ladder.Rewards(tier, r+1, score(i))}
		}
	}
	return out
}

func firstRewarded(js []joined) string {
	for i, j := range js {
		if len(j.Rewards) > 0 {
			return player(i)
		}
	}
	return ""
}

type client struct {
	t    *testing.T
	base string
	http http.Client
}

func (c *client) do(method, path, key string, body any, want int, out any) {
	c.t.Helper()
	var rd bytes.Buffer
	if body != nil {
		json.NewEncoder(&rd).Encode(body)
	}
	req, _ := http.NewRequest(method, c.base+path, &rd)
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		c.t.Errorf("%s %s: %v", method, path, err)
		return
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	buf.ReadFrom(resp.Body)
	if resp.StatusCode != want {
		c.t.Errorf("%s %s: status %d, want %d: %s", method, path, resp.StatusCode, want, buf.String())
		return
	}
	if out != nil {
		if err := json.Unmarshal(buf.Bytes(), out); err != nil {
			c.t.Errorf("%s %s: %v in %s", method, path, err, buf.String())
		}
	}
}

func (c *client) post(path, key string, body any, want int, out any) {
	c.t.Helper()
	c.do(http.MethodPost, path, key, body, want, out)
}

func (c *client) get(path, key string, want int, out any) {
	c.t.Helper()
	c.do(http.MethodGet, path, key, nil, want, out)
}

func (c *client) join(id string) joined {
	c.t.Helper()
	var j joined
	c.post("/v1/leagues/e2e/join", apiKey, map[string]any{"player_id": id, "name": "name " + id}, http.StatusOK, &j)
	return j
}

// each runs fn(0..n-1) on 50 goroutines.
func (c *client) each(n int, fn func(i int)) {
	var wg sync.WaitGroup
	work := make(chan int)
	for g := 0; g < 50; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				fn(i)
			}
		}()
	}
	for i := 0; i < n; i++ {
		work <- i
	}
	close(work)
	wg.Wait()
	if c.t.Failed() {
		c.t.FailNow()
	}
}

func (c *client) joinAll(n int) []joined {
	out := make([]joined, n)
	c.each(n, func(i int) { out[i] = c.join(player(i)) })
	return out
}

func (c *client) waitReady(exited chan error) {
	c.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-exited:
			c.t.Fatalf("leagued exited at start: %v", err)
		default:
		}
		if resp, err := c.http.Get(c.base + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	c.t.Fatal("leagued not ready after 30 s")
}

type settlement struct {
	Period  string `json:"period"`
	Status  string `json:"status"`
	Players int    `json:"players"`
}

// waitSettled waits until the admin API reports period settled.
func (c *client) waitSettled(period string) settlement {
	c.t.Helper()
	deadline := time.Now().Add(40 * time.Second)
	for time.Now().Before(deadline) {
		var list struct {
			Settlements []settlement `json:"settlements"`
		}
		c.get("/v1/admin/leagues/e2e/settlements", adminKey, http.StatusOK, &list)
		for _, s := range list.Settlements {
			if s.Period == period && s.Status == "done" {
				return s
			}
		}
		time.Sleep(250 * time.Millisecond)
	}
	c.t.Fatalf("period %s not settled within 40 s", period)
	return settlement{}
}

// build builds leagued into a temp dir and returns its path.
func build(t *testing.T) string {
	bin := filepath.Join(t.TempDir(), "leagued")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func freeAddr(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	testsvc.Must(t, err, "listen")
	defer l.Close()
	return l.Addr().String()
}
