package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/league-engine/league/league"
)

// memoryResult is what n joined players cost Redis, two ways: the growth of
// INFO used_memory (everything, including whatever else the server did
// meanwhile) and the sum of MEMORY USAGE over the namespace's keys (only
// ours, by kind of key).
type memoryResult struct {
	players       int
	buckets       int
	join          time.Duration
	before, after int64
	kinds         map[string]*keyKind
}

// keyKind sums the keys of one kind (keys.go's layout letter).
type keyKind struct {
	keys, bytes int64
	sample      string // a key of the kind, for OBJECT ENCODING
	encoding    string
}

func (m memoryResult) keyBytes() int64 {
	var n int64
	for _, k := range m.kinds {
		n += k.bytes
	}
	return n
}

// kindNames are the kinds the report breaks out; the rest is "other".
var kindNames = map[string]string{"b": "boards", "i": "names", "r": "records"}

// runMemory joins n players to a fresh namespace, all in one period, and
// measures what they cost.
func (b *bench) runMemory(ctx context.Context, n int) error {
	ns := newNamespace()
	defer b.dropNamespace(ns)
	fmt.Fprintf(b.out, "memory: namespace %s, %s players\n", ns, thousands(float64(n)))
	leagues, err := loadLeagues(b.o.configPath, b.o.leagueID, b.o.guards)
	if err != nil {
		return err
	}
	engine, err := league.Open(ctx, b.rdb, leagues, b.engineOptions(ns)...)
	if err != nil {
		return err
	}
	lg, _ := engine.League(b.o.leagueID)
	res := memoryResult{players: n, buckets: lg.Buckets, kinds: map[string]*keyKind{}}
	if res.before, err = usedMemory(ctx, b.rdb); err != nil {
		return err
	}
	lib := libTarget{engine: engine, league: lg.ID}
	ids := newIDSource(ns[len(ns)-3:], 'm')
	res.join, err = load(ctx, "memory: join", n, b.o.loaders, b.out, func(ctx context.Context, w *worker, i int) error {
		id := ids.id(int64(i))
		return lib.join(ctx, w, id, playerName(id))
	})
	if err != nil {
		return err
	}
	if res.after, err = usedMemory(ctx, b.rdb); err != nil {
		return err
	}
	prefix := ns + ":{" + lg.ID + "}:"
	err = scanNamespace(ctx, b.rdb, ns, func(keys []string) error {
		pipe := b.rdb.Pipeline()
		cmds := make([]*redis.IntCmd, len(keys))
		for i, k := range keys {
			cmds[i] = pipe.MemoryUsage(ctx, k, 0) // SAMPLES 0: every element, exact
		}
		if _, err := pipe.Exec(ctx); err != nil && err != redis.Nil {
			return fmt.Errorf("MEMORY USAGE: %w", err)
		}
		for i, k := range keys {
			kind := keyKindOf(prefix, k)
			kk := res.kinds[kind]
			if kk == nil {
				kk = &keyKind{sample: k}
				res.kinds[kind] = kk
			}
			kk.keys++
			kk.bytes += cmds[i].Val()
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, kk := range res.kinds {
		if kk.encoding, err = b.rdb.ObjectEncoding(ctx, kk.sample).Result(); err != nil {
			return fmt.Errorf("OBJECT ENCODING %s: %w", kk.sample, err)
		}
	}
	b.rep.memory = append(b.rep.memory, res)
	fmt.Fprintln(b.out, res.summary())
	return nil
}

// keyKindOf returns the kind of a key: its layout letter (b, i, r...) for
// the kinds the report names, else "other".
func keyKindOf(prefix, key string) string {
	rest, ok := strings.CutPrefix(key, prefix)
	if !ok {
		return "other"
	}
	kind, _, _ := strings.Cut(rest, ":")
	if _, named := kindNames[kind]; named {
		return kind
	}
	return "other"
}

func (m memoryResult) summary() string {
	return fmt.Sprintf("memory: %s players joined in %s; used_memory +%s (%.1f B/player); keys %s (%.1f B/player)",
		thousands(float64(m.players)), m.join.Round(time.Millisecond), bytesIEC(m.after-m.before),
		float64(m.after-m.before)/float64(m.players), bytesIEC(m.keyBytes()), float64(m.keyBytes())/float64(m.players))
}
