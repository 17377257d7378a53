package scheduler_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
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
	rdb := clusterClient(t, nil)
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
	rdb := clusterClient(t, func(o *redis.ClusterOptions) { o.ReadTimeout = 200 * time.Millisecond })
	ctx := context.Background()
	e, l, _ := openOnCluster(t, rdb, "stall", 0)
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
	rdb := clusterClient(t, func(o *redis.ClusterOptions) {
		o.Dialer = func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return &breakingConn{Conn: c, armed: &armed, script: []byte(scripts.Score.Hash())}, nil
		}
	})
	ctx := context.Background()
	e, l, _ := openOnCluster(t, rdb, "broken", 0)
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

// TestRedisClusterSlotMigration: while Redis Cluster migrates a league's
// slot, a key the scripts find but do not declare (a board) may have moved
// already. A write that meets one is unavailable (retry), not an internal
// error; so is a join, whether Redis redirects it before the script runs
// (some of its declared keys do not exist yet) or the script itself meets
// the moved board, and neither leaves anything written; once the migration
// is done, both succeed on the slot's new node.
func TestRedisClusterSlotMigration(t *testing.T) {
	rdb := clusterClient(t, nil)
	ctx := context.Background()
	e, l, ns := openOnCluster(t, rdb, "migrating", 1)
	for _, p := range []string{"p1", "p2"} {
		_, err := e.Join(ctx, l.ID, league.JoinRequest{Player: p, Name: p})
		testsvc.Must(t, err, "Join %s", p)
	}
	tag := "{" + l.ID + "}"
	slot := rdb.ClusterKeySlot(ctx, tag).Val()
	src, err := rdb.MasterForKey(ctx, tag)
	testsvc.Must(t, err, "the league's node")
	var dst *redis.Client
	var mu sync.Mutex // ForEachMaster calls its function concurrently
	rdb.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error {
		mu.Lock()
		defer mu.Unlock()
		if m.Options().Addr != src.Options().Addr {
			dst = m
		}
		return nil
	})
	srcID, dstID := src.Do(ctx, "cluster", "myid").Val(), dst.Do(ctx, "cluster", "myid").Val()
	boards, err := src.Keys(ctx, ns+":"+tag+":b:*").Result()
	testsvc.Must(t, err, "KEYS")
	if len(boards) != 1 {
		t.Fatalf("boards %v, want one", boards)
	}
	counters, err := src.Keys(ctx, ns+":"+tag+":c:*").Result()
	testsvc.Must(t, err, "KEYS")
	// A league that has run a while holds every key a join declares (one
	// bucket here, so p3's record bucket is p1's): Redis runs p3's join on
	// the old node, and the script meets the moved board.
	prefix := ns + ":" + tag + ":"
	q := strings.TrimPrefix(counters[0], prefix+"c:")
	earlier := strconv.FormatInt(monday.Add(-7*24*time.Hour).Unix(), 10)
	testsvc.Must(t, src.HSet(ctx, prefix+"w:0", "ghost", earlier+"|c|"+q).Err(), "a claimed reward")
	testsvc.Must(t, src.HSet(ctx, prefix+"k:"+q, "ghost", earlier+"|[]").Err(), "a claim")
	testsvc.Must(t, src.XAdd(ctx, &redis.XAddArgs{Stream: prefix + "x", Values: []any{"player", "ghost"}}).Err(), "the claims stream")
	testsvc.Must(t, src.ZAdd(ctx, prefix+"played", redis.Z{Score: 0, Member: q}).Err(), "played")
	host, port, _ := net.SplitHostPort(dst.Options().Addr)
	testsvc.Must(t, dst.Do(ctx, "cluster", "setslot", slot, "importing", srcID).Err(), "IMPORTING")
	testsvc.Must(t, src.Do(ctx, "cluster", "setslot", slot, "migrating", dstID).Err(), "MIGRATING")
	// Whatever happens, the migration is finished: the rest of the slot's
	// keys move, and every master learns the slot's new owner.
	var once sync.Once
	finish := func() {
		once.Do(func() {
			keys, _ := src.ClusterGetKeysInSlot(ctx, int(slot), 1000).Result()
			for _, k := range keys {
				src.Do(ctx, "migrate", host, port, k, 0, 5000)
			}
			rdb.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error {
				return m.Do(ctx, "cluster", "setslot", slot, "node", dstID).Err()
			})
		})
	}
	t.Cleanup(finish)
	testsvc.Must(t, src.Do(ctx, "migrate", host, port, boards[0], 0, 5000).Err(), "MIGRATE the board")

	_, wrote := e.Score(ctx, l.ID, league.ScoreWrite{Player: "p1", Value: 1})
	_, ran := e.Join(ctx, l.ID, league.JoinRequest{Player: "p3", Name: "p3"})
	if ran == nil || !strings.Contains(ran.Error(), "non local key") {
		t.Errorf("the join with every declared key in place: %v, want the script's refusal of the moved board", ran)
	}
	// With one of its declared keys moved too, Redis refuses the join
	// before the script runs.
	testsvc.Must(t, src.Do(ctx, "migrate", host, port, prefix+"played", 0, 5000).Err(), "MIGRATE played")
	_, redirected := e.Join(ctx, l.ID, league.JoinRequest{Player: "p3", Name: "p3"})
	for what, err := range map[string]error{"write": wrote, "join whose script ran": ran, "join Redis redirects": redirected} {
		if league.ErrorCode(err) != league.Unavailable {
			t.Errorf("a %s meeting a moved board: %v, want unavailable", what, err)
		}
	}
	if n := src.HGet(ctx, counters[0], "0").Val(); n != "2" {
		t.Errorf("placement counter %q after the refused joins, want 2", n)
	}

	// Once the migration is done, the engine follows the slot.
	finish()
	r, err := e.Score(ctx, l.ID, league.ScoreWrite{Player: "p1", Value: 1})
	testsvc.Must(t, err, "Score after the migration")
	if r.Score != 1 {
		t.Errorf("score %d after one applied write, want 1", r.Score)
	}
	p, err := e.Join(ctx, l.ID, league.JoinRequest{Player: "p3", Name: "p3"})
	testsvc.Must(t, err, "Join after the migration")
	if p.Slot != 3 {
		t.Errorf("p3 in slot %d, want 3: the refused join took a slot", p.Slot)
	}
}

// busyScript runs for ARGV[1] microseconds.
const busyScript = `local t = redis.call('TIME')
local start = t[1] * 1000000 + t[2]
repeat t = redis.call('TIME') until t[1] * 1000000 + t[2] - start >= tonumber(ARGV[1])
return 0`

// openOnCluster opens an engine on rdb for one weekly league, in a
// namespace of its own that is deleted from every master afterwards, its
// clock an hour into the week of monday; buckets > 0 sets the league's.
func openOnCluster(t *testing.T, rdb *redis.ClusterClient, id string, buckets int) (*league.Engine, *league.League, string) {
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
	return e, l, ns
}

// clusterClient is a client of REDIS_CLUSTER_URL, edited by edit.
func clusterClient(t *testing.T, edit func(*redis.ClusterOptions)) *redis.ClusterClient {
	url := os.Getenv("REDIS_CLUSTER_URL")
	if url == "" {
		t.Fatal("REDIS_CLUSTER_URL is not set: run `make test`, which starts a throwaway three-node cluster")
	}
	opt, err := redis.ParseClusterURL(url)
	testsvc.Must(t, err, "REDIS_CLUSTER_URL")
	if edit != nil {
		edit(opt)
	}
	rdb := redis.NewClusterClient(opt)
	t.Cleanup(func() { rdb.Close() })
	return rdb
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
