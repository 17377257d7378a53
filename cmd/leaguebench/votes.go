package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/league-engine/league/internal/keyspace"
	"github.com/league-engine/league/leaderboard"
)

// Votes and rate limits (issue #21):
//
//	lbvote     a vote as config.yaml's votes leaderboard takes one: 1 to a
//	           candidate (one of voteCandidates) from an actor (one of
//	           -players), channel and terminal picked at random, with a
//	           fresh request id, on hour, day, week, month and all time,
//	           adding the actor to the day's participants of the
//	           leaderboard and of the candidate (2 HyperLogLogs), and
//	           checking and consuming the first n of voteLimits: a row per
//	           -limits (leaderboard "vote_<n>"), so the rows differ by the
//	           limits alone
//	lbvotemem  not live: -players votes, one from each of as many actors,
//	           through a leaderboard of a day board and 4 limits per day
//	           (by actor, actor+member, actor+channel, member); Redis bytes
//	           per actor of the limits' counters
//
// Every limit's maximum is voteMax, which no run reaches: a refusal would
// write nothing and be cheaper than a vote.

const (
	voteCandidates = 100
	voteMax        = int64(1) << 40
	maxVoteLimits  = 12
)

// voteBy are the limits' dimensions, in the order voteLimits takes them.
var voteBy = [][]leaderboard.Dimension{
	{leaderboard.OfActor},
	{leaderboard.OfActor, leaderboard.OfMember},
	{leaderboard.OfActor, leaderboard.OfChannel},
	{leaderboard.OfMember},
}

var (
	voteChannels  = []string{"web", "partner_x"}
	voteTerminals = []string{"pc", "mobile"}
)

// voteLimits returns n limits: the 4 of voteBy per minute, then per day,
// then ever (12 in all).
func voteLimits(n int, pers ...leaderboard.Per) []leaderboard.Limit {
	if len(pers) == 0 {
		pers = []leaderboard.Per{leaderboard.PerMinute, leaderboard.PerDay, leaderboard.PerEver}
	}
	out := make([]leaderboard.Limit, n)
	for i := range out {
		out[i] = leaderboard.Limit{By: voteBy[i%len(voteBy)], Per: pers[i/len(voteBy)], Max: voteMax}
	}
	return out
}

func voteLeaderboardID(limits int) string { return "vote_" + strconv.Itoa(limits) }

// voteLeaderboards returns lbvote's leaderboards, one per count of limits.
func voteLeaderboards(limits []int) ([]*leaderboard.Leaderboard, error) {
	var out []*leaderboard.Leaderboard
	for _, n := range limits {
		l := &leaderboard.Leaderboard{
			ID:           voteLeaderboardID(n),
			Kinds:        []leaderboard.Kind{leaderboard.Hour, leaderboard.Day, leaderboard.Week, leaderboard.Month, leaderboard.AllTime},
			Operator:     leaderboard.Incr,
			Order:        leaderboard.Descending,
			TieBreak:     leaderboard.ByMember,
			Participants: []leaderboard.Kind{leaderboard.Day},
			Limits:       voteLimits(n),
		}
		if err := l.Init(); err != nil {
			return nil, fmt.Errorf("leaderboard %s: %w", l.ID, err)
		}
		out = append(out, l)
	}
	return out, nil
}

// voters are lbvote's actors and candidates.
type voters struct {
	actors, candidates []string
}

func newVoters(tag string, actors int) *voters {
	v := &voters{actors: make([]string, actors), candidates: make([]string, voteCandidates)}
	src, cands := newIDSource(tag, 'a'), newIDSource(tag, 'c')
	for i := range v.actors {
		v.actors[i] = src.id(int64(i))
	}
	for i := range v.candidates {
		v.candidates[i] = cands.id(int64(i))
	}
	return v
}

func (v *voters) vote(p *population, w *worker) leaderboard.Write {
	return leaderboard.Write{
		Member:    v.candidates[w.rng.IntN(len(v.candidates))],
		Value:     1,
		RequestID: p.requests.fresh(),
		Actor:     v.actors[w.rng.IntN(len(v.actors))],
		Channel:   voteChannels[w.rng.IntN(len(voteChannels))],
		Terminal:  voteTerminals[w.rng.IntN(len(voteTerminals))],
	}
}

var errNoVoters = errors.New("no voters: the fixture did not make lbvote's actors")

func lbVoteOp(t target, p *population, limits int) op {
	lib, ok := t.(libTarget)
	id := voteLeaderboardID(limits)
	return func(ctx context.Context, w *worker) (int, error) {
		if !ok {
			return 0, errLibOnly
		}
		if p.voters == nil {
			return 0, errNoVoters
		}
		_, err := lib.boards.Write(ctx, id, p.voters.vote(p, w))
		return one(err)
	}
}

// voteMemory is what one lbvotemem run measured.
type voteMemory struct {
	actors        int
	write         time.Duration
	before, after int64 // INFO used_memory around the votes
	limits        []limitMemory
}

// limitMemory is the MEMORY USAGE of one limit's counters.
type limitMemory struct {
	name    string
	keys    int   // counters: one per actor, or per candidate
	sampled int   // of which measured
	bytes   int64 // summed over sampled
}

func (m limitMemory) perKey() float64 { return float64(m.bytes) / float64(m.sampled) }

// total is the limit's counters' bytes, the sample's mean times its keys.
func (m limitMemory) total() float64 { return m.perKey() * float64(m.keys) }

func (r voteMemory) keyBytes() float64 {
	var sum float64
	for _, m := range r.limits {
		sum += m.total()
	}
	return sum
}

const voteMemSample = 1000

// runVoteMemory measures lbvotemem at n actors.
func (b *bench) runVoteMemory(ctx context.Context, n int) error {
	ns := newNamespace()
	defer b.dropNamespace(ns)
	fmt.Fprintf(b.out, "lbvotemem: namespace %s, %s votes from as many actors, 4 limits per day\n", ns, thousands(float64(n)))
	l := &leaderboard.Leaderboard{ID: "votemem", Kinds: []leaderboard.Kind{leaderboard.Day}, Operator: leaderboard.Incr,
		Order: leaderboard.Descending, TieBreak: leaderboard.ByMember, Limits: voteLimits(4, leaderboard.PerDay)}
	if err := l.Init(); err != nil {
		return err
	}
	e, err := leaderboard.Open(ctx, b.rdb, []*leaderboard.Leaderboard{l}, b.leaderboardOptions(ns)...)
	if err != nil {
		return err
	}
	v := newVoters(ns[len(ns)-3:], n)
	vote := func(i int) leaderboard.Write {
		return leaderboard.Write{Member: v.candidates[i%voteCandidates], Value: 1, Actor: v.actors[i],
			Channel: voteChannels[i%len(voteChannels)], Terminal: voteTerminals[i%len(voteTerminals)]}
	}
	day := l.Calendar.At(leaderboard.Day, time.Now()).Start
	res := voteMemory{actors: n}
	if res.before, err = usedMemory(ctx, b.rdb); err != nil {
		return err
	}
	const chunk = leaderboard.MaxBatch
	res.write, err = load(ctx, "votes", (n+chunk-1)/chunk, min(b.o.loaders, 16), b.out, func(ctx context.Context, w *worker, c int) error {
		batch := make([]leaderboard.Write, 0, chunk)
		for i := c * chunk; i < min((c+1)*chunk, n); i++ {
			batch = append(batch, vote(i))
		}
		_, errs, err := e.WriteBatch(ctx, l.ID, batch)
		if err != nil {
			return err
		}
		return errors.Join(errs...)
	})
	if err != nil {
		return err
	}
	if res.after, err = usedMemory(ctx, b.rdb); err != nil {
		return err
	}
	if now := l.Calendar.At(leaderboard.Day, time.Now()).Start; !now.Equal(day) {
		return errors.New("a new day began during the votes: run again")
	}
	fmt.Fprintf(b.out, "  wrote %s votes in %s (%s/s)\n", thousands(float64(n)), res.write.Round(time.Millisecond), thousands(float64(n)/res.write.Seconds()))

	// The counters' keys as lb_write.lua names them (limit.go's limitCounter).
	prefix := keyspace.Prefix(ns, keyspace.Leaderboard, l.ID)
	start := strconv.FormatInt(day.UnixMilli(), 10)
	for _, lim := range l.Limits {
		m := limitMemory{name: lim.Name, keys: n}
		perActor := lim.By[0] == leaderboard.OfActor
		if !perActor {
			m.keys = min(n, voteCandidates)
		}
		step := max(m.keys/voteMemSample, 1)
		for i := 0; i < m.keys; i += step {
			key := prefix + "rl:" + lim.Name + ":" + start
			for _, d := range lim.By {
				w := vote(i)
				key += " " + map[leaderboard.Dimension]string{leaderboard.OfActor: w.Actor, leaderboard.OfMember: w.Member, leaderboard.OfChannel: w.Channel}[d]
			}
			bytes, err := b.rdb.MemoryUsage(ctx, key, 0).Result()
			if err != nil {
				return fmt.Errorf("MEMORY USAGE %q: %w", key, err)
			}
			m.bytes += bytes
			m.sampled++
		}
		res.limits = append(res.limits, m)
	}
	b.rep.votes = append(b.rep.votes, res)
	fmt.Fprintf(b.out, "lbvotemem: %s actors; used_memory +%s (%.1f B an actor); the counters' keys %.1f B an actor (MEMORY USAGE, sampled)\n",
		thousands(float64(n)), bytesIEC(res.after-res.before), float64(res.after-res.before)/float64(n), res.keyBytes()/float64(n))
	return nil
}

var voteMemoryColumns = []column[limitMemory]{
	{"limit (per day)", false, func(m limitMemory) string { return m.name }},
	{"counters", true, func(m limitMemory) string { return thousands(float64(m.keys)) }},
	{"sampled", true, func(m limitMemory) string { return thousands(float64(m.sampled)) }},
	{"B/counter", true, func(m limitMemory) string { return fmt.Sprintf("%.1f", m.perKey()) }},
	{"total", true, func(m limitMemory) string { return bytesIEC(int64(m.total())) }},
}
