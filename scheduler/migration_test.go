package scheduler_test

import (
	"context"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/league"
)

// slotMigration moves a league's slot from its node (src) to another
// master (dst) by hand, key by key, as redis-cli --cluster reshard does.
type slotMigration struct {
	t        *testing.T
	rdb      *redis.ClusterClient
	src, dst *redis.Client
	slot     int64
	dstID    string
	once     sync.Once
}

// migrate marks the slot of the league's hash tag as migrating to another
// master; whatever the test does, the migration is finished at its end.
func migrate(t *testing.T, rdb *redis.ClusterClient, leagueID string) *slotMigration {
	ctx := context.Background()
	tag := "{" + leagueID + "}"
	m := &slotMigration{t: t, rdb: rdb, slot: rdb.ClusterKeySlot(ctx, tag).Val()}
	var err error
	m.src, err = rdb.MasterForKey(ctx, tag)
	testsvc.Must(t, err, "the league's node")
	var mu sync.Mutex // ForEachMaster calls its function concurrently
	rdb.ForEachMaster(ctx, func(ctx context.Context, c *redis.Client) error {
		mu.Lock()
		defer mu.Unlock()
		if c.Options().Addr != m.src.Options().Addr {
			m.dst = c
		}
		return nil
	})
	srcID := m.src.Do(ctx, "cluster", "myid").Val()
	m.dstID = m.dst.Do(ctx, "cluster", "myid").Val().(string)
	testsvc.Must(t, m.dst.Do(ctx, "cluster", "setslot", m.slot, "importing", srcID).Err(), "IMPORTING")
	testsvc.Must(t, m.src.Do(ctx, "cluster", "setslot", m.slot, "migrating", m.dstID).Err(), "MIGRATING")
	t.Cleanup(m.finish)
	return m
}

// move migrates keys to the new node.
func (m *slotMigration) move(keys ...string) {
	m.t.Helper()
	host, port, _ := net.SplitHostPort(m.dst.Options().Addr)
	for _, k := range keys {
		testsvc.Must(m.t, m.src.Do(context.Background(), "migrate", host, port, k, 0, 5000).Err(), "MIGRATE %s", k)
	}
}

// left returns the keys of the slot still on the old node.
func (m *slotMigration) left() []string {
	keys, err := m.src.ClusterGetKeysInSlot(context.Background(), int(m.slot), 10000).Result()
	testsvc.Must(m.t, err, "GETKEYSINSLOT")
	return keys
}

// finish moves the rest of the slot's keys and tells every master the
// slot's new owner. A key that cannot move (the new node holds one of the
// same name: BUSYKEY) fails the test, and the migration is left for the
// cleanup to undo with the namespace.
func (m *slotMigration) finish() {
	m.once.Do(func() {
		ctx := context.Background()
		host, port, _ := net.SplitHostPort(m.dst.Options().Addr)
		for _, k := range m.left() {
			if err := m.src.Do(ctx, "migrate", host, port, k, 0, 5000).Err(); err != nil {
				m.t.Errorf("MIGRATE %s: %v (the migration cannot finish)", k, err)
				m.src.Do(ctx, "migrate", host, port, k, 0, 5000, "replace")
			}
		}
		m.rdb.ForEachMaster(ctx, func(ctx context.Context, c *redis.Client) error {
			return c.Do(ctx, "cluster", "setslot", m.slot, "node", m.dstID).Err()
		})
	})
}

// TestRedisClusterSlotMigration: while Redis Cluster migrates a league's
// slot, a key the scripts find but do not declare (a board) may have moved
// already. A write that meets one is unavailable (retry), not an internal
// error; so is a join, whether Redis redirects it before the script runs
// (some of its declared keys do not exist yet) or the script itself meets
// the moved board, and neither leaves anything written; once the migration
// is done, both succeed on the slot's new node.
func TestRedisClusterSlotMigration(t *testing.T) {
	rdb := testsvc.Cluster(t, nil)
	ctx := context.Background()
	e, l, ns, _ := openOnCluster(t, rdb, "migrating", 1)
	for _, p := range []string{"p1", "p2"} {
		_, err := e.Join(ctx, l.ID, league.JoinRequest{Player: p, Name: p})
		testsvc.Must(t, err, "Join %s", p)
	}
	prefix := ns + ":{" + l.ID + "}:"
	src, err := rdb.MasterForKey(ctx, "{"+l.ID+"}")
	testsvc.Must(t, err, "the league's node")
	boards, err := src.Keys(ctx, prefix+"b:*").Result()
	testsvc.Must(t, err, "KEYS")
	if len(boards) != 1 {
		t.Fatalf("boards %v, want one", boards)
	}
	counters, err := src.Keys(ctx, prefix+"c:*").Result()
	testsvc.Must(t, err, "KEYS")
	// A league that has run a while holds every key a join declares (one
	// bucket here, so p3's record bucket is p1's): Redis runs p3's join on
	// the old node, and the script meets the moved board.
	q := strings.TrimPrefix(counters[0], prefix+"c:")
	earlier := strconv.FormatInt(monday.Add(-7*24*time.Hour).Unix(), 10)
	testsvc.Must(t, src.HSet(ctx, prefix+"w:0", "ghost", earlier+"|c|"+q).Err(), "a claimed reward")
	testsvc.Must(t, src.HSet(ctx, prefix+"k:"+q, "ghost", earlier+"|[]").Err(), "a claim")
	testsvc.Must(t, src.XAdd(ctx, &redis.XAddArgs{Stream: prefix + "x", Values: []any{"player", "ghost"}}).Err(), "the claims stream")
	testsvc.Must(t, src.ZAdd(ctx, prefix+"played", redis.Z{Score: 0, Member: q}).Err(), "played")
	testsvc.Must(t, src.HSet(ctx, prefix+"ban", "ghost", "0").Err(), "a ban that ended")
	m := migrate(t, rdb, l.ID)
	m.move(boards[0])

	_, wrote := e.Score(ctx, l.ID, league.ScoreWrite{Player: "p1", Value: 1})
	_, ran := e.Join(ctx, l.ID, league.JoinRequest{Player: "p3", Name: "p3"})
	if ran == nil || !strings.Contains(ran.Error(), "non local key") {
		t.Errorf("the join with every declared key in place: %v, want the script's refusal of the moved board", ran)
	}
	// With one of its declared keys moved too, Redis refuses the join
	// before the script runs.
	m.move(prefix + "played")
	_, redirected := e.Join(ctx, l.ID, league.JoinRequest{Player: "p3", Name: "p3"})
	for what, err := range map[string]error{"write": wrote, "join whose script ran": ran, "join Redis redirects": redirected} {
		if league.ErrorCode(err) != league.Unavailable {
			t.Errorf("a %s meeting a moved board: %v, want unavailable", what, err)
		}
	}
	if n := m.src.HGet(ctx, counters[0], "0").Val(); n != "2" {
		t.Errorf("placement counter %q after the refused joins, want 2", n)
	}

	// Once the migration is done, the engine follows the slot.
	m.finish()
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

// TestRedisClusterSlotMigrationOnTheNewNode is the other half: once every
// key a script declares has moved, Redis runs it on the new node (ASK),
// where a key it finds but does not declare may not be yet. A lookup of it
// there sees nothing (a score write failed on a nil score, a standing read
// the board as gone, a returning player was decided as if their board
// were), and a write makes a second copy (a rejoin's name), which stops
// the migration: Redis will not move a key over one of the same name. Each
// must be unavailable with nothing written, and the migration must finish.
func TestRedisClusterSlotMigrationOnTheNewNode(t *testing.T) {
	rdb := testsvc.Cluster(t, nil)
	ctx := context.Background()
	e, l, ns, clock := openOnCluster(t, rdb, "arriving", 1)
	// Week 1: p1 is first of two (100 gems); week 2: p2 has joined, p1 not yet.
	for _, p := range []string{"p1", "p2"} {
		_, err := e.Join(ctx, l.ID, league.JoinRequest{Player: p, Name: p})
		testsvc.Must(t, err, "Join %s", p)
	}
	_, err := e.Score(ctx, l.ID, league.ScoreWrite{Player: "p1", Value: 10})
	testsvc.Must(t, err, "Score")
	clock.Set(monday.Add(7*24*time.Hour + time.Hour))
	_, err = e.Join(ctx, l.ID, league.JoinRequest{Player: "p2", Name: "p2"})
	testsvc.Must(t, err, "Join p2 in week 2")
	_, err = e.Score(ctx, l.ID, league.ScoreWrite{Player: "p2", Value: 5})
	testsvc.Must(t, err, "Score p2 in week 2")

	prefix := ns + ":{" + l.ID + "}:"
	w1, w2 := strconv.FormatInt(monday.Unix(), 10), strconv.FormatInt(monday.Add(7*24*time.Hour).Unix(), 10)
	board1, names1 := prefix+"b:"+w1+":0:1", prefix+"i:"+w1+":0:1"
	board2, names2 := prefix+"b:"+w2+":0:1", prefix+"i:"+w2+":0:1"
	// A join declares the claims stream and the played periods; this league
	// has neither yet (no decay, no claim), and Redis runs no script whose
	// declared keys are only partly on a migrating node.
	testsvc.Must(t, rdb.XAdd(ctx, &redis.XAddArgs{Stream: prefix + "x", Values: []any{"player", "ghost"}}).Err(), "the claims stream")
	testsvc.Must(t, rdb.ZAdd(ctx, prefix+"played", redis.Z{Score: 0, Member: w2}).Err(), "played")
	testsvc.Must(t, rdb.HSet(ctx, prefix+"k:"+w2, "ghost", "[]").Err(), "a claim")

	m := migrate(t, rdb, l.ID)
	stay := map[string]bool{board1: true, names1: true, board2: true, names2: true}
	for _, k := range m.left() {
		if !stay[k] {
			m.move(k)
		}
	}
	if left := m.left(); len(left) != len(stay) {
		t.Fatalf("keys left on the old node: %v, want the four of %v", left, stay)
	}
	_, wrote := e.Score(ctx, l.ID, league.ScoreWrite{Player: "p2", Value: 1})
	_, read := e.Standing(ctx, l.ID, "p2")
	_, renamed := e.Join(ctx, l.ID, league.JoinRequest{Player: "p2", Name: "P2"})
	m.move(board2, names2) // BUSYKEY if the rejoin wrote a copy; p1's week-1 board stays behind
	_, returned := e.Join(ctx, l.ID, league.JoinRequest{Player: "p1", Name: "p1"})
	for what, err := range map[string]error{"score write": wrote, "standing": read, "rejoin": renamed, "returning join": returned} {
		if league.ErrorCode(err) != league.Unavailable {
			t.Errorf("a %s on the new node, a key it needs still on the old: %v, want unavailable", what, err)
		}
	}

	m.finish()
	st, err := e.Standing(ctx, l.ID, "p2")
	testsvc.Must(t, err, "Standing after the migration")
	if st.Score != 5 || st.Rank != 1 {
		t.Errorf("p2 after the migration: score %d rank %d, want 5 and 1: a refused write counted", st.Score, st.Rank)
	}
	p, err := e.Join(ctx, l.ID, league.JoinRequest{Player: "p1", Name: "p1"})
	testsvc.Must(t, err, "p1's join after the migration")
	if len(p.Rewards) != 1 || p.Rewards[0].Items[0].Qty != 100 || p.Slot != 2 {
		t.Errorf("p1 joined week 2 %+v, want slot 2 with week 1's 100 gems", p)
	}
}

// TestRedisClusterSlotMigrationEveryWritePath: score.lua looks a player's
// board up without here() first and asks here() only when the lookup finds
// nothing (a found board is on the node that runs the script). Each of its
// lookups must then fail the write on the slot's new node while the board
// is still on the old one: ZADD XX INCR (an increment whose sums stay
// exact in a double: a max_score small enough), ZSCORE of such an
// increment past max_gain that the league holds, and ZSCORE of every other
// write (best, set, an increment of a league of a larger max_score; the
// test above). Each is unavailable, writes nothing, and is applied (or
// held) once the migration is done.
func TestRedisClusterSlotMigrationEveryWritePath(t *testing.T) {
	for _, c := range []struct {
		name    string
		id      string // a league, and so a slot, of its own: a slot migrated twice in a moment can be left with no owner
		op      league.Operator
		max     int64 // max_score; 0 for the default (too large for ZADD INCR)
		maxGain int64 // with hold
		value   int64 // the write on the new node; 4 before it
		want    int64 // the score once the migration is done and the write sent again
	}{
		{"incr by ZADD INCR", "paths_incr", league.Incr, 1e6, 0, 3, 7},
		{"incr by ZADD INCR past max_gain, held", "paths_incr_held", league.Incr, 1e6, 5, 9, 4},
		{"best", "paths_best", league.Best, 0, 0, 7, 7},
		{"set", "paths_set", league.Set, 0, 0, 2, 2},
		{"incr past max_gain, held", "paths_held", league.Incr, 0, 5, 9, 4},
	} {
		t.Run(c.name, func(t *testing.T) {
			rdb := testsvc.Cluster(t, nil)
			ctx := context.Background()
			ns := testsvc.Namespace(t)
			clock := &testsvc.Clock{}
			clock.Set(monday.Add(time.Hour))
			sched, _ := league.ParseSchedule("0 0 * * MON")
			l := &league.League{ID: c.id, BoardSize: 10, Schedule: sched, Ladder: ladder(t),
				Operator: c.op, MaxScore: c.max, MaxGain: c.maxGain, Hold: c.maxGain > 0, Buckets: 1}
			testsvc.Must(t, l.Init(), "Init")
			e, err := league.Open(ctx, rdb, []*league.League{l}, league.WithNamespace(ns), league.WithClock(clock.Now))
			testsvc.Must(t, err, "Open on the cluster")
			t.Cleanup(func() {
				rdb.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error {
					return testsvc.DeleteNamespace(ctx, m, ns)
				})
			})
			_, err = e.Join(ctx, l.ID, league.JoinRequest{Player: "p1", Name: "p1"})
			testsvc.Must(t, err, "Join")
			_, err = e.Score(ctx, l.ID, league.ScoreWrite{Player: "p1", Value: 4})
			testsvc.Must(t, err, "Score")
			if c.maxGain > 0 {
				// the period's held writes exist: Redis runs no script whose
				// declared keys are missing on a migrating slot
				r, err := e.Score(ctx, l.ID, league.ScoreWrite{Player: "p1", Value: c.value})
				testsvc.Must(t, err, "a held write")
				if r.Held == nil {
					t.Fatalf("a write past max_gain %+v, want held", r)
				}
			}

			prefix := ns + ":{" + l.ID + "}:"
			board := prefix + "b:" + strconv.FormatInt(monday.Unix(), 10) + ":0:1"
			m := migrate(t, rdb, l.ID)
			for _, k := range m.left() {
				if k != board {
					m.move(k)
				}
			}
			if left := m.left(); len(left) != 1 {
				t.Fatalf("keys left on the old node: %v, want the board alone", left)
			}
			_, err = e.Score(ctx, l.ID, league.ScoreWrite{Player: "p1", Value: c.value})
			if league.ErrorCode(err) != league.Unavailable {
				t.Errorf("a write on the new node, the board still on the old: %v, want unavailable", err)
			}
			if n := m.dst.Exists(ctx, board).Val(); n != 0 {
				t.Errorf("the new node holds %d copies of the board after the refused write, want 0", n)
			}

			m.finish()
			r, err := e.Score(ctx, l.ID, league.ScoreWrite{Player: "p1", Value: c.value})
			testsvc.Must(t, err, "Score after the migration")
			if held := r.Held != nil; held != (c.maxGain > 0) {
				t.Errorf("held %v after the migration, want %v", held, c.maxGain > 0)
			}
			if r.Score != c.want {
				t.Errorf("score %d after the migration, want %d", r.Score, c.want)
			}
		})
	}
}
