package leaderboard_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/leaderboard"
	"github.com/league-engine/league/league"
)

// TestRedisCluster: writes, pages, windows and members on Redis Cluster,
// several leaderboards over its slots (a leaderboard's keys share a hash
// tag, so each script runs on one node).
func TestRedisCluster(t *testing.T) {
	rdb := testsvc.Cluster(t, nil)
	ns := testsvc.Namespace(t)
	ctx := context.Background()
	var boards []*leaderboard.Leaderboard
	for i := range 6 {
		boards = append(boards, newLeaderboard(t, func(l *leaderboard.Leaderboard) {
			l.ID = fmt.Sprintf("lb%d", i)
			l.Windows = []leaderboard.Window{{N: 30, Unit: leaderboard.Day}, {N: 24, Unit: leaderboard.Hour}}
			l.Catalog = true
		}))
	}
	clock := testsvc.NewClock(start)
	e, err := leaderboard.Open(ctx, rdb, boards, leaderboard.WithNamespace(ns), leaderboard.WithClock(clock.Now))
	testsvc.Must(t, err, "Open")
	t.Cleanup(func() {
		rdb.ForEachMaster(context.Background(), func(ctx context.Context, m *redis.Client) error {
			return testsvc.DeleteNamespace(ctx, m, ns)
		})
	})
	for _, l := range boards {
		for i := range 20 {
			_, err := e.Write(ctx, l.ID, leaderboard.Write{Member: fmt.Sprintf("m%02d", i), Value: int64(i + 1), RequestID: fmt.Sprintf("r%d", i)})
			testsvc.Must(t, err, "write to %s", l.ID)
		}
		top, err := e.Top(ctx, l.ID, leaderboard.AllTime, "", 0, 3)
		testsvc.Must(t, err, "top of %s", l.ID)
		if got := entries(top.Entries); got != "1.m19=20 2.m18=19 3.m17=18 " || top.Size != 20 {
			t.Errorf("%s: %s (size %d)", l.ID, got, top.Size)
		}
		around, err := e.Around(ctx, l.ID, leaderboard.Day, "", "m00", 1)
		testsvc.Must(t, err, "around in %s", l.ID)
		if got := entries(around.Entries); got != "19.m01=2 20.m00=1 " {
			t.Errorf("%s around m00: %s", l.ID, got)
		}
		st, err := e.Member(ctx, l.ID, "m10")
		testsvc.Must(t, err, "member in %s", l.ID)
		if st[0].Rank != 10 || st[0].Gap != 1 {
			t.Errorf("%s: m10 %+v", l.ID, st[0])
		}
		// Rolling boards: written before any pre-fill (each write read its
		// 29 and 23 buckets), then filled, on the leaderboard's node.
		fills, err := e.PreFill(ctx, l.ID)
		testsvc.Must(t, err, "pre-fill %s", l.ID)
		if len(fills) != 4 || !fills[3].Filled {
			t.Errorf("%s: fills %+v", l.ID, fills)
		}
		// the catalog, and several members at once
		_, err = e.Import(ctx, l.ID, []leaderboard.CatalogEntry{{Member: "m19", Name: "Nineteen", InitialScore: 100}})
		testsvc.Must(t, err, "import into %s", l.ID)
		top, err = e.Top(ctx, l.ID, leaderboard.AllTime, "", 0, 1)
		testsvc.Must(t, err, "top of %s", l.ID)
		if top.Entries[0].Name != "Nineteen" || top.Entries[0].Score != 120 {
			t.Errorf("%s after the import: %+v", l.ID, top.Entries)
		}
		sts, errs, err := e.Members(ctx, l.ID, []string{"m01", "m02"}, []leaderboard.Kind{leaderboard.Day, "30d"})
		testsvc.Must(t, err, "members of %s", l.ID)
		if errs[0] != nil || sts[1][1].Score != 3 || sts[0][0].Rank != 19 {
			t.Errorf("%s members: %+v %v", l.ID, sts, errs)
		}
		for _, k := range []leaderboard.Kind{"30d", "24h"} {
			b, err := e.Top(ctx, l.ID, k, "", 0, 3)
			testsvc.Must(t, err, "top of %s %s", l.ID, k)
			if got := entries(b.Entries); got != "1.m19=20 2.m18=19 3.m17=18 " || b.Size != 20 || b.Incomplete {
				t.Errorf("%s %s: %s (size %d, incomplete %v)", l.ID, k, got, b.Size, b.Incomplete)
			}
		}
	}
	// one batch over every leaderboard, so over every node
	var many []leaderboard.BoardWrite
	for _, l := range boards {
		many = append(many, leaderboard.BoardWrite{Leaderboard: l.ID, Write: leaderboard.Write{Member: "zz", Value: 7}})
	}
	res, errs, err := e.WriteMany(ctx, many)
	testsvc.Must(t, err, "WriteMany")
	for i, err := range errs {
		testsvc.Must(t, err, "write %d of the batch", i)
		if res[i].Boards[0].Score != 7 {
			t.Errorf("write %d of the batch: %+v", i, res[i])
		}
	}
	// a sharded leaderboard: its shards' hash tags spread over the nodes,
	// and each read that ranks asks every one of them
	spread := newLeaderboard(t, func(l *leaderboard.Leaderboard) {
		l.ID, l.Shards, l.Participants = "spread", 6, []leaderboard.Kind{leaderboard.Day}
		l.Catalog, l.PublicBoards = true, true
	})
	se, err := leaderboard.Open(ctx, rdb, []*leaderboard.Leaderboard{spread}, leaderboard.WithNamespace(ns), leaderboard.WithClock(clock.Now))
	testsvc.Must(t, err, "Open")
	for i := range 20 {
		_, err := se.Write(ctx, "spread", leaderboard.Write{Member: fmt.Sprintf("m%02d", i), Value: int64(i + 1), Actor: fmt.Sprint(i % 4)})
		testsvc.Must(t, err, "write to spread")
	}
	top, err := se.Top(ctx, "spread", leaderboard.AllTime, "", 0, 3)
	testsvc.Must(t, err, "top of spread")
	around, err := se.Around(ctx, "spread", leaderboard.Day, "", "m10", 2)
	testsvc.Must(t, err, "around in spread")
	if got, want := entries(top.Entries)+"| "+entries(around.Entries), "1.m19=20 2.m18=19 3.m17=18 | 8.m12=13 9.m11=12 10.m10=11 11.m09=10 12.m08=9 "; got != want ||
		around.Size != 20 || around.Participants != 4 {
		t.Errorf("spread: got %s (size %d, %d participants), want %s", got, around.Size, around.Participants, want)
	}
	sts, failed, err := se.Members(ctx, "spread", []string{"m10", "m19", "nobody"}, nil)
	testsvc.Must(t, errors.Join(append(failed, err)...), "members of spread")
	if st := sts[0][0]; st.Rank != 10 || st.Gap != 1 || sts[1][0].Rank != 1 || sts[1][0].Gap != -1 || sts[2][0].Rank != 0 {
		t.Errorf("spread members: %+v", sts)
	}
	// its catalog: each entry in its member's shard, on its node; a
	// multiplier read by the write there; names merged from every node
	var cat []leaderboard.CatalogEntry
	for i := range 20 {
		cat = append(cat, leaderboard.CatalogEntry{Member: fmt.Sprintf("m%02d", i), Name: fmt.Sprintf("M%d", i), Multiplier: int64(1 + i%2)})
	}
	_, err = se.Import(ctx, "spread", cat)
	testsvc.Must(t, err, "import into spread")
	_, err = se.Write(ctx, "spread", leaderboard.Write{Member: "m01", Value: 20, Actor: "x"})
	testsvc.Must(t, err, "write to spread")
	pub, err := se.Public().Top(ctx, "spread", leaderboard.AllTime, "", 0, 3)
	testsvc.Must(t, err, "public top of spread")
	if got, want := named(pub.Entries), "1.m01=42:M1 2.m19=20:M19 3.m18=19:M18 "; got != want {
		t.Errorf("spread's public board: got %s, want %s", got, want)
	}
	// its catalog read back in pages from every node; a multiplier set
	// on the member's node
	listed, cursor := 0, ""
	for page := 0; page == 0 || cursor != ""; page++ {
		p, err := se.Catalog(ctx, "spread", cursor, 7)
		testsvc.Must(t, err, "catalog page %d of spread", page)
		listed, cursor = listed+len(p.Entries), p.Next
	}
	if listed != 20 {
		t.Errorf("spread's catalog pages list %d entries, want 20", listed)
	}
	if prev, err := se.SetMultiplier(ctx, "spread", "m01", 3); prev != 2 || err != nil {
		t.Errorf("SetMultiplier on spread: %d, %v; want 2 before", prev, err)
	}
	// 64 racing writers against a limit of 5, on the cluster
	limited := newLeaderboard(t, func(l *leaderboard.Leaderboard) {
		l.ID = "capped"
		l.Limits = []leaderboard.Limit{{By: []leaderboard.Dimension{leaderboard.OfMember}, Per: leaderboard.PerDay, Max: 5}}
	})
	ce, err := leaderboard.Open(ctx, rdb, []*leaderboard.Leaderboard{limited}, leaderboard.WithNamespace(ns), leaderboard.WithClock(clock.Now))
	testsvc.Must(t, err, "Open")
	var accepted atomic.Int64
	var wg sync.WaitGroup
	for i := range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := ce.Write(ctx, "capped", leaderboard.Write{Member: "x", Value: 1, Actor: fmt.Sprint(i)}); err == nil {
				accepted.Add(1)
			} else if league.ErrorCode(err) != league.RateLimited {
				t.Errorf("write: %v", err)
			}
		}()
	}
	wg.Wait()
	if accepted.Load() != 5 {
		t.Errorf("64 racing writers against a limit of 5 on the cluster: %d accepted", accepted.Load())
	}
	if log, err := ce.Refusals(ctx, "capped", 100); err != nil || len(log) != 59 || log[0].Limit != "member-day" {
		t.Errorf("the refusals log of the racing writers: %d logged (%v); want 59", len(log), err)
	}
	// one voter racing over a leaderboard of 6 shards: their limit is
	// taken on its shard's node, each vote written on its candidate's, and
	// a vote refused there (one a candidate) gives its unit back. Never
	// more than 5; maybe fewer (a vote refused while another held a unit
	// it gave back stays refused), but every unit not given back is a vote
	// on the board, and later votes get those given back.
	voters := newLeaderboard(t, func(l *leaderboard.Leaderboard) {
		l.ID, l.Shards = "voters", 6
		l.Limits = []leaderboard.Limit{
			{By: []leaderboard.Dimension{leaderboard.OfActor}, Per: leaderboard.PerDay, Max: 5},
			{By: []leaderboard.Dimension{leaderboard.OfActor, leaderboard.OfMember}, Per: leaderboard.PerDay, Max: 1},
		}
	})
	ve, err := leaderboard.Open(ctx, rdb, []*leaderboard.Leaderboard{voters}, leaderboard.WithNamespace(ns), leaderboard.WithClock(clock.Now))
	testsvc.Must(t, err, "Open")
	accepted.Store(0)
	for i := range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := ve.Write(ctx, "voters", leaderboard.Write{Member: fmt.Sprintf("c%d", i%8), Value: 1, Actor: "fan"}); err == nil {
				accepted.Add(1)
			} else if league.ErrorCode(err) != league.RateLimited {
				t.Errorf("write: %v", err)
			}
		}()
	}
	wg.Wait()
	cs, err := ve.Counters(ctx, "voters", leaderboard.Write{Actor: "fan"})
	testsvc.Must(t, err, "Counters")
	if n := accepted.Load(); n > 5 || n < 1 || len(cs) != 1 || cs[0].Used != n {
		t.Errorf("64 racing votes of one voter allowed 5, on the cluster: %d accepted, counters %+v", n, cs)
	}
	for i := accepted.Load(); i < 5; i++ {
		_, err := ve.Write(ctx, "voters", leaderboard.Write{Member: fmt.Sprintf("late%d", i), Value: 1, Actor: "fan"})
		testsvc.Must(t, err, "a vote within the limit after the race")
	}
	if _, err := ve.Write(ctx, "voters", leaderboard.Write{Member: "late9", Value: 1, Actor: "fan"}); league.ErrorCode(err) != league.RateLimited {
		t.Errorf("a sixth vote: %v", err)
	}
	top, err = ve.Top(ctx, "voters", leaderboard.AllTime, "", 0, 100)
	testsvc.Must(t, err, "top of voters")
	if top.Size != 5 {
		t.Errorf("voters: %d candidates voted for, want 5: %s", top.Size, entries(top.Entries))
	}
}

// TestRedisClusterSpread: a leaderboard over 16 shards on the three-node
// cluster: its shards land on every master, and on identical writes from
// many members its pages, participants, limit counters and rolling board
// (pre-filled in every shard across a bucket boundary, and after one that
// passed unfilled) read exactly as an unsharded twin's.
func TestRedisClusterSpread(t *testing.T) {
	rdb := testsvc.Cluster(t, nil)
	ns := testsvc.Namespace(t)
	ctx := context.Background()
	t.Cleanup(func() {
		rdb.ForEachMaster(context.Background(), func(ctx context.Context, m *redis.Client) error {
			return testsvc.DeleteNamespace(ctx, m, ns)
		})
	})
	var boards []*leaderboard.Leaderboard
	for _, id := range []string{"one", "many"} {
		boards = append(boards, newLeaderboard(t, func(l *leaderboard.Leaderboard) {
			l.ID, l.Shards = id, 1
			if id == "many" {
				l.Shards = 16
			}
			l.Kinds = []leaderboard.Kind{leaderboard.Day, leaderboard.AllTime}
			l.Windows = []leaderboard.Window{{N: 3, Unit: leaderboard.Hour}}
			l.Participants = []leaderboard.Kind{leaderboard.Day}
			l.Limits = []leaderboard.Limit{{By: []leaderboard.Dimension{leaderboard.OfMember}, Per: leaderboard.PerDay, Max: 1000}}
		}))
	}
	hour0 := start.Truncate(time.Hour)
	clock := testsvc.NewClock(hour0.Add(time.Second))
	e, err := leaderboard.Open(ctx, rdb, boards, leaderboard.WithNamespace(ns), leaderboard.WithClock(clock.Now))
	testsvc.Must(t, err, "Open")
	f := &fixture{tb: t, ctx: ctx, ns: ns, clock: clock, engine: e}
	r := rand.New(rand.NewPCG(16, 3))
	write := func(n int) {
		t.Helper()
		ws := make([]leaderboard.Write, n)
		for i := range ws {
			ws[i] = leaderboard.Write{Member: fmt.Sprintf("m%03d", r.IntN(400)), Value: int64(1 + r.IntN(4)), Actor: fmt.Sprintf("a%d", r.IntN(300))}
		}
		writeTwins(t, f, ws)
	}
	same := func(when string, k leaderboard.Kind) (incomplete bool) {
		t.Helper()
		for _, page := range [][2]int{{0, leaderboard.MaxPage}, {0, 10}, {123, 50}} {
			one, err := e.Top(ctx, "one", k, "", page[0], page[1])
			testsvc.Must(t, err, "Top one %s", k)
			many, err := e.Top(ctx, "many", k, "", page[0], page[1])
			testsvc.Must(t, err, "Top many %s", k)
			if got, want := entries(many.Entries), entries(one.Entries); got != want || many.Size != one.Size ||
				many.Participants != one.Participants || many.Incomplete != one.Incomplete || len(one.Entries) == 0 {
				t.Fatalf("%s, %s page %v: sharded %d members, %d participants (incomplete %v), unsharded %d, %d (%v); entries differ at %q",
					when, k, page, many.Size, many.Participants, many.Incomplete, one.Size, one.Participants, one.Incomplete, firstDifference(got, want))
			}
			incomplete = one.Incomplete
		}
		return incomplete
	}
	write(2000)
	for _, k := range []leaderboard.Kind{leaderboard.Day, leaderboard.AllTime, "3h"} {
		same("after 2000 writes", k)
	}
	for m := range 400 {
		w := leaderboard.Write{Member: fmt.Sprintf("m%03d", m)}
		one, err := e.Counters(ctx, "one", w)
		testsvc.Must(t, err, "Counters one")
		many, err := e.Counters(ctx, "many", w)
		testsvc.Must(t, err, "Counters many")
		if len(many) != 1 || many[0].Used != one[0].Used {
			t.Fatalf("counters of %s: sharded %+v, unsharded %+v", w.Member, many, one)
		}
	}

	// every master holds some of the shards: each shard's keys are under
	// its own hash tag, {many} or {many:<s>}
	var mu sync.Mutex
	tags := map[string]bool{}
	perMaster := map[string]int{}
	err = rdb.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error {
		held := map[string]bool{}
		iter := m.Scan(ctx, 0, ns+":lb:{many*", 1000).Iterator()
		for iter.Next(ctx) {
			key := iter.Val()
			held[key[strings.Index(key, "{"):strings.Index(key, "}")+1]] = true
		}
		mu.Lock()
		defer mu.Unlock()
		perMaster[m.Options().Addr] = len(held)
		for tag := range held {
			tags[tag] = true
		}
		return iter.Err()
	})
	testsvc.Must(t, err, "scan the masters")
	if len(perMaster) != 3 || len(tags) != 16 {
		t.Fatalf("shards by master: %v, %d shards in all; want 3 masters and 16 shards", perMaster, len(tags))
	}
	for addr, n := range perMaster {
		if n == 0 {
			t.Errorf("master %s holds none of the 16 shards (by master: %v)", addr, perMaster)
		}
	}

	// Rolling boards: pre-filled in every shard, then read past the
	// boundary; then two boundaries pass unfilled, and each shard fills
	// from its buckets.
	fill := func(when, method string, added bool) {
		t.Helper()
		one, err := e.PreFill(ctx, "one")
		testsvc.Must(t, err, "pre-fill one")
		many, err := e.PreFill(ctx, "many")
		testsvc.Must(t, err, "pre-fill many")
		if got, want := fmt.Sprintf("%+v", many), fmt.Sprintf("%+v", one); got != want {
			t.Fatalf("%s: the sharded pre-fill reported\n%s\nthe unsharded one\n%s", when, got, want)
		}
		if len(one) != 2 || one[0].Method != method || (one[0].Added > 0) != added || !one[1].Filled || one[1].Method != "previous" {
			t.Fatalf("%s: %+v; want the current board filled from its %s (members added: %v) and the next from it", when, one, method, added)
		}
	}
	rolling := func(when string, incomplete bool) {
		t.Helper()
		if got := same(when, "3h"); got != incomplete {
			t.Fatalf("%s: the 3h board reads incomplete %v, want %v", when, got, incomplete)
		}
	}
	fill("in the first hour", "buckets", false) // its writers are on it
	rolling("in the first hour, filled", false)
	clock.Set(hour0.Add(time.Hour + time.Second))
	rolling("past the boundary, filled ahead", false)
	write(300)
	rolling("past the boundary, after writes", false)
	clock.Set(hour0.Add(2*time.Hour + time.Second))
	rolling("past a boundary unfilled", true)
	write(300)
	clock.Set(hour0.Add(3*time.Hour + time.Second))
	rolling("past two boundaries unfilled", true)
	fill("past two boundaries unfilled", "buckets", true)
	rolling("past two boundaries, filled", false)
}
