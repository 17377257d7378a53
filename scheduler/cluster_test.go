package scheduler_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/league-engine/league/inmem"
	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/league"
	"github.com/league-engine/league/scheduler"
	"github.com/league-engine/league/scripts"
)

// TestRedisCluster runs a season on Redis Cluster, and a restore after the
// cluster lost it: every script's keys share the league's hash slot, so the
// engine, settlement and Restore run unchanged.
func TestRedisCluster(t *testing.T) {
	rdb := testsvc.Cluster(t, nil)
	ctx := context.Background()
	ns := testsvc.Namespace(t)
	c := &testsvc.Clock{}
	c.Set(monday.Add(3600e9))
	leagues := clusterLeagues(t, "north", "south", "east") // three leagues, likely three slots
	e, err := league.Open(ctx, rdb, leagues, league.WithNamespace(ns), league.WithClock(c.Now))
	testsvc.Must(t, err, "Open on the cluster")
	t.Cleanup(func() {
		rdb.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error {
			return testsvc.DeleteNamespace(ctx, m, ns)
		})
	})
	week, _ := e.Current("north")
	for _, l := range leagues {
		for i := 0; i < 30; i++ {
			id := fmt.Sprintf("p%02d", i)
			_, err := e.Join(ctx, l.ID, league.JoinRequest{Player: id, Name: id})
			testsvc.Must(t, err, "Join")
			_, err = e.Score(ctx, l.ID, league.ScoreWrite{Player: id, Value: int64(100 - i), RequestID: "r" + id})
			testsvc.Must(t, err, "Score")
		}
		_, errs, err := e.ScoreBatch(ctx, l.ID, []league.ScoreWrite{{Player: "p01", Value: 1}, {Player: "p02", Value: 1}})
		testsvc.Must(t, err, "ScoreBatch")
		testsvc.Must(t, errs[0], "batch write")
		b, err := e.Board(ctx, l.ID, league.Period{}, league.BoardID{Tier: "bronze", N: 1})
		testsvc.Must(t, err, "Board")
		if len(b.Entries) != 10 || b.Entries[0].Player != "p00" {
			t.Fatalf("%s board %+v", l.ID, b.Entries)
		}
	}
	c.After(week.End)
	store := inmem.New()
	s := scheduler.New(e, store)
	for _, l := range leagues {
		st, err := s.SettleNow(ctx, l.ID, week.Start)
		testsvc.Must(t, err, "SettleNow %s", l.ID)
		if st.Players != 30 || st.Tiers[0].Promoted != 6 {
			t.Fatalf("%s settlement %+v", l.ID, st)
		}
	}
	// The cluster loses every league; Restore rebuilds them, each on its slot.
	rdb.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error {
		return testsvc.DeleteNamespace(ctx, m, ns)
	})
	for _, l := range leagues {
		st, err := league.Restore(ctx, rdb, l, store, league.WithNamespace(ns))
		testsvc.Must(t, err, "Restore %s", l.ID)
		if st.Players != 30 || st.Rewards != 9 { // ranks 1-3 of three boards
			t.Fatalf("%s restore %+v", l.ID, st)
		}
	}
	e, err = league.Open(ctx, rdb, leagues, league.WithNamespace(ns), league.WithClock(c.Now))
	testsvc.Must(t, err, "Open after the restore")
	for _, l := range leagues {
		p, err := e.Join(ctx, l.ID, league.JoinRequest{Player: "p00", Name: "p00"})
		testsvc.Must(t, err, "Join after settlement")
		if p.Tier != "silver" || len(p.Rewards) != 1 {
			t.Fatalf("%s: p00 joined %+v", l.ID, p)
		}
	}
}

// TestRedisClusterStalledWriteNeverSentTwice: the cluster client retries a
// command whose reply timed out too (on the same node, then another), and
// the node runs every copy once it answers again. The engine's round trips
// end with the read timeout, so a write is sent once: its caller is told it
// is unavailable, and it counts once.
func TestRedisClusterStalledWriteNeverSentTwice(t *testing.T) {
	rdb := testsvc.Cluster(t, func(o *redis.ClusterOptions) { o.ReadTimeout = 200 * time.Millisecond })
	ctx := context.Background()
	e, l, _, _ := openOnCluster(t, rdb, "stall", 0)
	_, err := e.Join(ctx, l.ID, league.JoinRequest{Player: "p1", Name: "p1"})
	testsvc.Must(t, err, "Join")

	// A script keeps the league's node busy for most of a second: what
	// arrives meanwhile waits in its sockets and runs when it is done, even
	// from a connection the client has closed since.
	node, err := rdb.MasterForKey(ctx, "{"+l.ID+"}")
	testsvc.Must(t, err, "the league's node")
	patient := redis.NewClient(&redis.Options{Addr: node.Options().Addr, ReadTimeout: 10 * time.Second, MaxRetries: -1})
	defer patient.Close()
	busy := make(chan error, 1)
	go func() { busy <- patient.Eval(ctx, busyScript, nil, 800_000).Err() }()
	time.Sleep(50 * time.Millisecond) // the script has started
	_, wrote := e.Score(ctx, l.ID, league.ScoreWrite{Player: "p1", Value: 1})
	testsvc.Must(t, <-busy, "the busy script")
	st, err := e.Standing(ctx, l.ID, "p1")
	testsvc.Must(t, err, "Standing")
	if st.Score != 1 {
		t.Fatalf("score %d after one write of 1 on a busy node (answered %v)", st.Score, wrote)
	}
	if league.ErrorCode(wrote) != league.Unavailable {
		t.Fatalf("a write on a busy node: %v, want unavailable", wrote)
	}
}

// TestRedisClusterBrokenConnectionNeverResendsAWrite: go-redis's cluster
// client sends a command again after its connection broke, up to
// MaxRedirects times whatever MaxRetries says, though Redis may have run it.
// Here the connection breaks once Redis has run the write and answered; the
// engine's write is not sent again, and its caller hears it may have landed.
func TestRedisClusterBrokenConnectionNeverResendsAWrite(t *testing.T) {
	var armed atomic.Bool
	rdb := testsvc.Cluster(t, func(o *redis.ClusterOptions) {
		o.Dialer = func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return &breakingConn{Conn: c, armed: &armed, script: []byte(scripts.Score.Hash())}, nil
		}
	})
	ctx := context.Background()
	e, l, _, _ := openOnCluster(t, rdb, "broken", 0)
	_, err := e.Join(ctx, l.ID, league.JoinRequest{Player: "p1", Name: "p1"})
	testsvc.Must(t, err, "Join")

	armed.Store(true)
	_, wrote := e.Score(ctx, l.ID, league.ScoreWrite{Player: "p1", Value: 1})
	if armed.Load() {
		t.Fatal("the write's connection never broke")
	}
	st, err := e.Standing(ctx, l.ID, "p1")
	testsvc.Must(t, err, "Standing")
	if st.Score != 1 {
		t.Fatalf("score %d after one write of 1 whose connection broke (answered %v)", st.Score, wrote)
	}
	if league.ErrorCode(wrote) != league.Unavailable {
		t.Fatalf("a write whose connection broke: %v, want unavailable", wrote)
	}
}

// breakingConn, once armed, lets the next reply to a call of script reach
// it, drops that reply and closes: Redis ran the call, the client hears EOF.
type breakingConn struct {
	net.Conn
	armed  *atomic.Bool
	script []byte
	sent   bool // the last write carried a call of script
}

func (c *breakingConn) Write(p []byte) (int, error) {
	c.sent = bytes.Contains(p, c.script)
	return c.Conn.Write(p)
}

func (c *breakingConn) Read(p []byte) (int, error) {
	if c.sent && c.armed.CompareAndSwap(true, false) {
		_, _ = c.Conn.Read(p)
		c.Conn.Close()
		return 0, io.EOF
	}
	return c.Conn.Read(p)
}

// busyScript runs for ARGV[1] microseconds.
const busyScript = `local t = redis.call('TIME')
local start = t[1] * 1000000 + t[2]
repeat t = redis.call('TIME') until t[1] * 1000000 + t[2] - start >= tonumber(ARGV[1])
return 0`

// openOnCluster opens an engine on rdb for one weekly league, in a
// namespace of its own that is deleted from every master afterwards, on a
// clock set an hour into the week of monday; buckets > 0 sets the league's.
func openOnCluster(t *testing.T, rdb *redis.ClusterClient, id string, buckets int) (*league.Engine, *league.League, string, *testsvc.Clock) {
	ctx := context.Background()
	ns := testsvc.Namespace(t)
	c := &testsvc.Clock{}
	c.Set(monday.Add(time.Hour))
	l := clusterLeagues(t, id)[0]
	if buckets > 0 {
		l.Buckets = buckets
	}
	e, err := league.Open(ctx, rdb, []*league.League{l}, league.WithNamespace(ns), league.WithClock(c.Now))
	testsvc.Must(t, err, "Open on the cluster")
	t.Cleanup(func() {
		rdb.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error {
			return testsvc.DeleteNamespace(ctx, m, ns)
		})
	})
	return e, l, ns, c
}

// clusterLeagues are weekly leagues with the test ladder.
func clusterLeagues(t *testing.T, ids ...string) []*league.League {
	sched, _ := league.ParseSchedule("0 0 * * MON")
	var leagues []*league.League
	for _, id := range ids {
		l := &league.League{ID: id, BoardSize: 10, Schedule: sched, Ladder: ladder(t)}
		testsvc.Must(t, l.Init(), "Init")
		leagues = append(leagues, l)
	}
	return leagues
}
