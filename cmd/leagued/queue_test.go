package main_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/leaderboard"
)

const queueConfig = `
server:
  listen: %s
redis:
  namespace: %s
leaderboards:
  - id: peak
    periods: [all_time]
    shards: 3
    queue: {max_lag: 1000000, batch: 50, claim_after: 1s}
`

// TestQueueSurvivesKill: two leagued replicas serve a queued leaderboard
// and drain its queue; during a burst of writes one is killed with
// SIGKILL, mid-batch, and started again. Every write answered 202 is
// applied exactly once: the board's sum is the count of accepted writes.
func TestQueueSurvivesKill(t *testing.T) {
	bin := build(t)
	ns := testsvc.Namespace(t)
	rdb := testsvc.Redis(t, ns)
	start := func(addr string) (*exec.Cmd, *bytes.Buffer, chan error) {
		path := filepath.Join(t.TempDir(), "config.yaml")
		testsvc.Must(t, os.WriteFile(path, []byte(fmt.Sprintf(queueConfig, addr, ns)), 0o600), "config")
		var logs bytes.Buffer
		cmd := exec.Command(bin)
		cmd.Env = append(os.Environ(), "LEAGUE_CONFIG="+path, "REDIS_URL="+testsvc.RedisURL(), "DATABASE_URL=")
		cmd.Stdout, cmd.Stderr = &logs, &logs
		testsvc.Must(t, cmd.Start(), "start leagued")
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		t.Cleanup(func() {
			cmd.Process.Kill()
			if t.Failed() {
				t.Logf("leagued %s log:\n%s", addr, logs.String())
			}
		})
		(&client{t: t, base: "http://" + addr}).waitReady(exited)
		return cmd, &logs, exited
	}
	addrs := []string{freeAddr(t), freeAddr(t)}
	victim, _, exited := start(addrs[0])
	start(addrs[1])

	var accepted atomic.Int64
	var wg sync.WaitGroup
	stop := time.Now().Add(4 * time.Second)
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; time.Now().Before(stop); i++ {
				// the surviving replica takes the writes; both drain
				body := fmt.Sprintf(`{"member":"m%d","value":1}`, (w*31+i)%200)
				resp, err := http.Post("http://"+addrs[1]+"/v1/leaderboards/peak/scores", "application/json", strings.NewReader(body))
				if err != nil {
					t.Error(err)
					return
				}
				resp.Body.Close()
				if resp.StatusCode == http.StatusAccepted {
					accepted.Add(1)
				}
			}
		}()
	}
	time.Sleep(1500 * time.Millisecond)
	var pending int64
	for _, key := range []string{ns + ":lb:{peak}:queue", ns + ":lb:{peak:1}:queue", ns + ":lb:{peak:2}:queue"} {
		if p, err := rdb.XPending(context.Background(), key, "apply").Result(); err == nil {
			pending += p.Count
		}
	}
	testsvc.Must(t, victim.Process.Signal(syscall.SIGKILL), "kill -9")
	<-exited
	time.Sleep(500 * time.Millisecond)
	start(addrs[0])
	wg.Wait()

	e, err := leaderboard.Open(context.Background(), rdb, []*leaderboard.Leaderboard{peak(t)}, leaderboard.WithNamespace(ns))
	testsvc.Must(t, err, "Open")
	deadline := time.Now().Add(30 * time.Second)
	for {
		lag, err := e.Lag(context.Background(), "peak")
		testsvc.Must(t, err, "Lag")
		if lag == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d writes still waiting after 30 s", lag)
		}
		time.Sleep(100 * time.Millisecond)
	}
	b, err := e.Top(context.Background(), "peak", leaderboard.AllTime, "", 0, 1000)
	testsvc.Must(t, err, "Top")
	var sum int64
	for _, en := range b.Entries {
		sum += en.Score
	}
	if sum != accepted.Load() || accepted.Load() < 1000 {
		t.Fatalf("%d writes accepted, %d applied", accepted.Load(), sum)
	}
	t.Logf("%d writes accepted and applied once across a kill -9 (%d entries were taken, not yet applied, when it came)", sum, pending)
}

func peak(t *testing.T) *leaderboard.Leaderboard {
	l := &leaderboard.Leaderboard{ID: "peak", Kinds: []leaderboard.Kind{leaderboard.AllTime}, Shards: 3,
		Queue: &leaderboard.QueuePolicy{MaxLag: 1000000, Batch: 50, ClaimAfter: time.Second}}
	testsvc.Must(t, l.Init(), "Init")
	return l
}
