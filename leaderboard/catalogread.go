package leaderboard

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/league-engine/league/internal/excerpt"
	"github.com/league-engine/league/league"
)

// Reading a catalog back, for the admin API and the console: a page of
// entries at a time, one member's entry, and setting one member's
// multiplier without importing its entry whole.
//
// A member's entry lives in up to three hashes of its shard: the catalog
// (name and metadata), the initial scores (where not 0) and the
// multipliers (where not 1). A page walks each shard's three hashes with
// HSCAN in turn, listing a member under the first hash that has it, and
// reads the whole entry of the members it lists in one pipeline.

// MaxCatalogPage is the most entries one page of a catalog holds.
const MaxCatalogPage = 1000

// catalogScans bounds the HSCAN calls of one page: the hashes after the
// first may hold mostly members it listed already (with a name and an
// initial score), which a page passes over. A page may so end short
// before the last; Next says whether more follow.
const catalogScans = 64

// CatalogPage is a page of a leaderboard's catalog.
type CatalogPage struct {
	// Entries are whole: name, metadata, initial score and multiplier (1
	// where none is set). In no set order (HSCAN's), each member once,
	// but a member imported while an operator pages may be missed or
	// listed twice.
	Entries []CatalogEntry
	// Next is the cursor of the next page, "" after the last. A page
	// before the last may hold fewer entries than asked (even none).
	Next string
}

// catalogCursor is where a catalog page resumes: shard, hash (0 catalog,
// 1 initial, 2 multipliers), HSCAN cursor, and fields of that cursor's
// batch already listed (HSCAN may answer more than asked: a small hash
// whole).
type catalogCursor struct {
	shard, hash int
	scan        uint64
	skip        int
}

func (c catalogCursor) String() string {
	return fmt.Sprintf("%d.%d.%d.%d", c.shard, c.hash, c.scan, c.skip)
}

func parseCatalogCursor(s string, shards int) (catalogCursor, error) {
	var c catalogCursor
	if s == "" {
		return c, nil
	}
	bad := &league.Error{Code: league.Invalid, Field: "cursor", Message: fmt.Sprintf("%q is not a cursor a catalog page gave", excerpt.Of(s))}
	parts := strings.Split(s, ".")
	if len(parts) != 4 {
		return c, bad
	}
	var err error
	ints := []*int{&c.shard, &c.hash, nil, &c.skip}
	for i, p := range parts {
		if i == 2 {
			if c.scan, err = strconv.ParseUint(p, 10, 64); err != nil {
				return c, bad
			}
			continue
		}
		if *ints[i], err = strconv.Atoi(p); err != nil || *ints[i] < 0 {
			return c, bad
		}
	}
	if c.shard >= shards || c.hash > 2 || c.skip > 1_000_000 {
		return c, bad
	}
	return c, nil
}

// Catalog returns a page of up to n entries of leaderboard id's catalog,
// from cursor ("" for the first page; then the Next of the page before).
func (e *Engine) Catalog(ctx context.Context, id, cursor string, n int) (CatalogPage, error) {
	l, err := e.catalogOf(id)
	if err != nil {
		return CatalogPage{}, err
	}
	if n < 1 || n > MaxCatalogPage {
		return CatalogPage{}, &league.Error{Code: league.Invalid, Field: "limit", Message: fmt.Sprintf("%d is outside 1..%d", n, MaxCatalogPage)}
	}
	cur, err := parseCatalogCursor(cursor, l.Shards)
	if err != nil {
		return CatalogPage{}, err
	}
	var members []string
	for scans := 0; len(members) < n && cur.shard < l.Shards && scans < catalogScans; scans++ {
		k := e.shards(l)[cur.shard]
		hashes := []string{k.catalog(), k.catalogInitial(), k.multipliers()}
		pairs, next, err := e.rdb.HScan(ctx, hashes[cur.hash], cur.scan, "", int64(n)).Result()
		if err != nil {
			return CatalogPage{}, league.RedisError("leaderboard catalog", err)
		}
		batch := make([]string, 0, len(pairs)/2)
		for i := 0; i+1 < len(pairs); i += 2 {
			batch = append(batch, pairs[i])
		}
		from := min(cur.skip, len(batch))
		listed := batch[from:]
		// a member the hashes before this one have is listed there
		keep := make([]bool, len(listed))
		for i := range keep {
			keep[i] = true
		}
		if cur.hash > 0 && len(listed) > 0 {
			pipe := e.rdb.Pipeline()
			var in []*redis.SliceCmd
			for _, h := range hashes[:cur.hash] {
				in = append(in, pipe.HMGet(ctx, h, listed...))
			}
			if _, err := pipe.Exec(ctx); err != nil {
				return CatalogPage{}, league.RedisError("leaderboard catalog", err)
			}
			for _, cmd := range in {
				for i, v := range cmd.Val() {
					if v != nil {
						keep[i] = false
					}
				}
			}
		}
		full := false
		for i, m := range listed {
			if !keep[i] {
				continue
			}
			if len(members) == n {
				// the page is full inside this batch: the next one reads it again, past what this one listed
				cur.skip, full = from+i, true
				break
			}
			members = append(members, m)
		}
		if full {
			break
		}
		cur.scan, cur.skip = next, 0
		if next == 0 {
			cur.hash, cur.scan = cur.hash+1, 0
			if cur.hash == 3 {
				cur.shard, cur.hash = cur.shard+1, 0
			}
		}
	}
	page := CatalogPage{}
	if cur.shard < l.Shards {
		page.Next = cur.String()
	}
	page.Entries, _, err = e.catalogEntries(ctx, l, members)
	return page, err
}

// CatalogEntry returns member's entry in leaderboard id's catalog, and
// whether it has one (a name, metadata, an initial score or a
// multiplier). Multiplier is 1 where none is set.
func (e *Engine) CatalogEntry(ctx context.Context, id, member string) (CatalogEntry, bool, error) {
	l, err := e.catalogOf(id)
	if err != nil {
		return CatalogEntry{}, false, err
	}
	if err := CheckMember(member); err != nil {
		return CatalogEntry{}, false, err
	}
	entries, found, err := e.catalogEntries(ctx, l, []string{member})
	if err != nil {
		return CatalogEntry{}, false, err
	}
	return entries[0], found[0], nil
}

// catalogEntries reads members' whole entries: three HMGETs per shard
// holding some of them, in one pipeline.
func (e *Engine) catalogEntries(ctx context.Context, l *Leaderboard, members []string) ([]CatalogEntry, []bool, error) {
	out, found := make([]CatalogEntry, len(members)), make([]bool, len(members))
	if len(members) == 0 {
		return out, found, nil
	}
	at := map[int][]int{} // shard -> positions in members
	for i, m := range members {
		out[i] = CatalogEntry{Member: m, Multiplier: 1}
		s := shardOf(m, l.Shards)
		at[s] = append(at[s], i)
	}
	type reads struct{ entry, initial, mult *redis.SliceCmd }
	cmds := map[int]reads{}
	pipe := e.rdb.Pipeline()
	for s, is := range at {
		ms := make([]string, len(is))
		for n, i := range is {
			ms[n] = members[i]
		}
		k := e.shards(l)[s]
		cmds[s] = reads{pipe.HMGet(ctx, k.catalog(), ms...), pipe.HMGet(ctx, k.catalogInitial(), ms...), pipe.HMGet(ctx, k.multipliers(), ms...)}
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return nil, nil, league.RedisError("leaderboard catalog", err)
	}
	for s, is := range at {
		r := cmds[s]
		for n, i := range is {
			if v, ok := r.entry.Val()[n].(string); ok {
				var cv catalogValue
				if json.Unmarshal([]byte(v), &cv) == nil {
					out[i].Name, out[i].Metadata = cv.Name, cv.Metadata
				}
				found[i] = true
			}
			if v, ok := r.initial.Val()[n].(string); ok {
				out[i].InitialScore, _ = strconv.ParseInt(v, 10, 64)
				found[i] = true
			}
			if v, ok := r.mult.Val()[n].(string); ok {
				if m, err := strconv.ParseInt(v, 10, 64); err == nil {
					out[i].Multiplier = m
				}
				found[i] = true
			}
		}
	}
	return out, found, nil
}

// SetMultiplier sets member's multiplier on leaderboard id's public
// boards (from 1 to MaxMultiplier; 1 is none), leaving the rest of its
// catalog entry as it is, and returns the one it had. As an imported
// multiplier, it counts from the member's next write on.
func (e *Engine) SetMultiplier(ctx context.Context, id, member string, m int64) (previous int64, err error) {
	l, err := e.catalogOf(id)
	if err != nil {
		return 0, err
	}
	if !l.PublicBoards {
		return 0, &league.Error{Code: league.Invalid, Field: "multiplier",
			Message: fmt.Sprintf("leaderboard %q has no public boards to count it on (public_boards: true)", id)}
	}
	if err := CheckMember(member); err != nil {
		return 0, err
	}
	if m < 1 || m > MaxMultiplier {
		return 0, &league.Error{Code: league.Invalid, Field: "multiplier", Message: fmt.Sprintf("%d is not from 1 to %d", m, MaxMultiplier)}
	}
	key := e.memberKeys(l, member).multipliers()
	pipe := e.rdb.TxPipeline() // one key: one slot; the value read is the one replaced
	old := pipe.HGet(ctx, key, member)
	if m == 1 {
		pipe.HDel(ctx, key, member)
	} else {
		pipe.HSet(ctx, key, member, m)
	}
	if _, err := pipe.Exec(ctx); err != nil && err != redis.Nil {
		return 0, league.RedisError("leaderboard multiplier", err)
	}
	previous = 1
	if v, err := old.Int64(); err == nil {
		previous = v
	}
	return previous, nil
}
