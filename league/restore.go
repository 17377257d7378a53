package league

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/league-engine/league/internal/words"
	"github.com/league-engine/league/scripts"
)

// Redis holds the live league, and between periods a copy of what the store
// decided: each player's tier (their record) and the rewards waiting for
// their next join. If Redis loses it (restarted without persistence,
// flushed), the store still has it, and Restore writes it back. What only
// Redis had is gone: the boards of the current period and of periods not yet
// settled, and claims not yet recorded in the store, whose rewards a join
// may deliver again.

// SettledPlayer is what the store knows of a player between periods: what
// Restore needs to serve them again.
type SettledPlayer struct {
	Player     string
	Tier       string    // the tier their latest settled period gave them
	LastPeriod time.Time // start of the last settled period they played
	LastTier   string    // the tier they played it in
	LastBoard  int       // the board they played it on
	// Reward is what they earned in LastPeriod if no join has claimed it,
	// else nil. An earlier reward was claimed by the join of LastPeriod.
	Reward *Reward
}

// RestoreStats is what Restore read and wrote.
type RestoreStats struct {
	Players int // standings read from the store
	Records int // player records written (others were already there)
	Rewards int // rewards written for the next join (others were already there)
	// Unclaimed are the rewards the store holds no claim of, which the next
	// joins deliver: all of them written by this run, or by an earlier run
	// it resumes.
	Unclaimed int
	Settled   time.Time // the settled mark: the newest LastPeriod
	// Finished are periods whose settlement had written its outcomes but
	// not finished its Redis steps: the restore did what those steps do, and
	// marked them done. Lost are periods whose settlement had not written
	// anything: their boards were only in Redis, so their results are gone
	// (the settlement keeps a last error that says so).
	Finished, Lost []time.Time
}

// WithLostCheck makes Open refuse a league Redis holds no data of while
// store has standings for it: Redis lost the league, and starting it afresh
// would put every player back in the entry tier. Restore it first.
func WithLostCheck(store Store) Option {
	return WithAbsentLeagues(func(ctx context.Context, id string) error {
		pop, err := store.Populations(ctx, id)
		if err != nil {
			return err
		}
		players := 0
		for _, n := range pop {
			players += n
		}
		if players > 0 {
			return fmt.Errorf("league %q: Redis holds none of its data under this redis.namespace, but the store has the tiers of %s: "+
				"if redis.namespace changed, revert it (processes still running keep the league under the old one); "+
				"if Redis lost the league (restarted without persistence, flushed), stop every leagued, "+
				"run leaguectl restore -league %s, then start again", id, words.Count(players, "player"), id)
		}
		return nil
	})
}

// WithOtherDeployments tells Restore that other deployments keep leagues
// in this Redis under other namespaces, so a league of the same id there is
// no sign that redis.namespace changed.
func WithOtherDeployments() Option { return func(e *Engine) { e.otherDeployments = true } }

// elsewhere returns the namespaces other than the engine's under which this
// Redis holds lv's league. Every key of a league carries its hash tag, so on
// a cluster they are all on one node.
func (e *Engine) elsewhere(ctx context.Context, lv *live) ([]string, error) {
	node, err := e.leagueNode(ctx, lv)
	if err != nil {
		return nil, err
	}
	suffix := ":{" + lv.ID + "}:meta"
	var others []string
	iter := node.Scan(ctx, 0, "*"+suffix, 1000).Iterator()
	for iter.Next(ctx) {
		if ns := strings.TrimSuffix(iter.Val(), suffix); ns != e.ns {
			others = append(others, ns)
		}
	}
	return others, internal("namespaces", iter.Err())
}

// namespaces names the namespaces of elsewhere for a message, sorted:
// `the namespace "a"`, `the namespaces "a", "b"`.
func namespaces(ns []string) string {
	sort.Strings(ns)
	q := make([]string, len(ns))
	for i, n := range ns {
		q[i] = strconv.Quote(n)
	}
	if len(q) == 1 {
		return "the namespace " + q[0]
	}
	return "the namespaces " + strings.Join(q, ", ")
}

// leagueNode is where SCAN finds the league's keys: the server, or on a
// cluster the node serving the league's hash tag.
func (e *Engine) leagueNode(ctx context.Context, lv *live) (redis.Cmdable, error) {
	if c, ok := e.rdb.(*redis.ClusterClient); ok {
		n, err := c.MasterForKey(ctx, "{"+lv.ID+"}")
		if err != nil {
			return nil, internal("league node", err)
		}
		return n, nil
	}
	return e.rdb, nil
}

// restoreBatch is players per restore.lua call; restorePerTrip calls go in
// one pipeline, as Apply's.
const (
	restoreBatch   = 200
	restorePerTrip = 16
)

// Restore rebuilds league l's data in Redis from the store's standings,
// after Redis lost it. It refuses a league whose data Redis still holds.
// While it runs, the league's meta hash is marked restoring, so no process
// opens the league, and holds a new epoch, so every process opened before
// writes nothing (joins, settlement) and reports not ready until restarted.
// Restore is safe to run again after an interruption, and never replaces a
// record or reward of a later period than the store's. l must have passed
// Init; opts are Open's (the namespace, logger and clock are used).
func Restore(ctx context.Context, rdb redis.UniversalClient, l *League, store Store, opts ...Option) (RestoreStats, error) {
	e, err := newEngine(ctx, rdb, opts)
	if err != nil {
		return RestoreStats{}, err
	}
	lv := e.newLive(l)
	e.leagues[l.ID] = lv
	meta := lv.keys.meta()
	present, restoring, err := e.presence(ctx, lv)
	if err != nil {
		return RestoreStats{}, err
	}
	if present && restoring == "" {
		return RestoreStats{}, Errorf(Conflict, "league %q: Redis holds its data (%s): restore only rebuilds a league Redis lost", l.ID, lv.keys.tiers())
	}
	// A league found under another namespace was likely not lost: the
	// config's redis.namespace changed. Restoring it here would leave two
	// live copies of the league on one store, each settling and rewarding on
	// its own.
	if !e.otherDeployments {
		others, err := e.elsewhere(ctx, lv)
		if err != nil {
			return RestoreStats{}, err
		}
		if len(others) > 0 {
			return RestoreStats{}, Errorf(Conflict, "league %q: Redis holds it under %s, not under %q: "+
				"if redis.namespace changed, revert it; if the move is meant, stop every leagued and delete the old keys first; "+
				"if another deployment keeps a league of this id there, restore with -other-deployments",
				l.ID, namespaces(others), e.ns)
		}
	}
	// The settled periods must be periods of the config's schedule (a
	// schedule read in another zone would place the restored league in
	// periods overlapping them), checked before anything is written.
	// lockUnfinished reads the settlements again, once the restoring mark
	// is set: a settlement begun in between must not go unseen.
	settled, err := store.Settlements(ctx, l.ID, 1000)
	if err != nil {
		return RestoreStats{}, err
	}
	starts := make([]int64, len(settled))
	for i, s := range settled {
		starts[i] = s.Period.Unix()
	}
	if err := e.checkBoundaries(lv, starts, "Postgres"); err != nil {
		return RestoreStats{}, err
	}
	// A new epoch from the start: processes opened before the loss (or a
	// restore) write nothing from here on, and none opens the league until
	// the restoring mark is gone.
	lv.epoch = newEpoch()
	// The boards of the periods up to the current one are gone, and with
	// them who played: decay counts none of those periods as an absence.
	cur, _ := e.current(lv)
	if err := rdb.HSet(ctx, meta, "restoring", time.Now().UTC().Format(time.RFC3339), "epoch", lv.epoch,
		"restored", cur.Start.Unix()).Err(); err != nil {
		return RestoreStats{}, internal("restore", err)
	}
	unfinished, release, err := lockUnfinished(ctx, store, l.ID)
	if err != nil {
		return RestoreStats{}, err
	}
	defer release()
	if err := e.tierCodes(ctx, lv); err != nil {
		return RestoreStats{}, err
	}
	var st RestoreStats
	batch := make([]SettledPlayer, 0, restoreBatch*restorePerTrip)
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		wrote, err := e.restoreBatch(ctx, lv, batch)
		st.Records += wrote[0]
		st.Rewards += wrote[1]
		batch = batch[:0]
		return err
	}
	err = store.EachSettledPlayer(ctx, l.ID, func(s SettledPlayer) error {
		if _, ok := l.Ladder.Index(s.Tier); !ok {
			return fmt.Errorf("league %q: player %q stands in tier %q, which the config no longer has", l.ID, s.Player, s.Tier)
		}
		if _, ok := l.Ladder.Index(s.LastTier); !ok {
			return fmt.Errorf("league %q: player %q last played in tier %q, which the config no longer has", l.ID, s.Player, s.LastTier)
		}
		st.Players++
		if s.Reward != nil {
			st.Unclaimed++
		}
		if s.LastPeriod.After(st.Settled) {
			st.Settled = s.LastPeriod
		}
		batch = append(batch, s)
		if len(batch) == cap(batch) {
			return flush()
		}
		return nil
	})
	if err == nil {
		err = flush()
	}
	if err != nil {
		return st, err
	}
	if !st.Settled.IsZero() {
		if err := e.MarkSettled(ctx, l.ID, Period{Start: st.Settled}); err != nil {
			return st, err
		}
	}
	if err := finishSettlements(ctx, store, l.ID, unfinished, &st); err != nil {
		return st, err
	}
	if err := e.recordLayout(ctx, lv); err != nil {
		return st, err
	}
	if err := rdb.HDel(ctx, meta, "restoring").Err(); err != nil {
		return st, internal("restore", err)
	}
	return st, nil
}

// lockUnfinished takes the lease on every settlement of the league that is
// not done, before Restore reads the standings: a settler still holding one
// (a leagued left running) could otherwise write its outcomes after the
// standings were read, or after the restore declared the period lost. The
// restore refuses instead, and can be run again once every leagued stopped.
func lockUnfinished(ctx context.Context, store Store, id string) ([]time.Time, func(), error) {
	recent, err := store.Settlements(ctx, id, 1000)
	if err != nil {
		return nil, nil, err
	}
	var periods []time.Time
	var releases []func()
	releaseAll := func() {
		for _, r := range releases {
			r()
		}
	}
	for _, s := range recent {
		if s.Status == StatusDone {
			continue
		}
		release, ok, err := store.Lock(ctx, id, s.Period)
		if err == nil && !ok {
			err = Errorf(Conflict, "league %q: period %s is being settled by a running process: stop every leagued, then run the restore again",
				id, Period{Start: s.Period}.ID())
		}
		if err != nil {
			releaseAll()
			return nil, nil, err
		}
		releases = append(releases, release)
		periods = append(periods, s.Period)
	}
	return periods, releaseAll, nil
}

// finishSettlements settles the books of the settlements Redis's loss cut
// short (their leases held by lockUnfinished): no process would ever come
// back to them, since the list of periods waiting for settlement was in
// Redis too.
func finishSettlements(ctx context.Context, store Store, id string, periods []time.Time, st *RestoreStats) error {
	for _, p := range periods {
		s, err := store.Settlement(ctx, id, p)
		if err != nil {
			return err
		}
		switch s.Status {
		case StatusStarted:
			if err := store.Fail(ctx, id, p, "Redis lost the period's boards before this settlement wrote them; the results are gone"); err != nil {
				return err
			}
			st.Lost = append(st.Lost, p)
			continue
		case StatusDone:
			continue
		}
		for from := s.Status; from != StatusDone; {
			to, _ := from.Next()
			if err := store.Advance(ctx, id, p, from, to); err != nil {
				return err
			}
			from = to
		}
		st.Finished = append(st.Finished, p)
	}
	return nil
}

// restoreBatch writes standings with restore.lua, restoreBatch a call.
func (e *Engine) restoreBatch(ctx context.Context, lv *live, all []SettledPlayer) ([2]int, error) {
	var wrote [2]int
	calls := (len(all) + restoreBatch - 1) / restoreBatch
	cmds, err := e.run.Pipeline(ctx, scripts.Restore, calls, func(j int) ([]string, []any) {
		part := all[j*restoreBatch : min((j+1)*restoreBatch, len(all))]
		ks := make([]string, 0, 2*len(part))
		args := make([]any, 0, 4*len(part))
		for _, s := range part {
			ks = append(ks, lv.keys.record(s.Player), lv.keys.reward(s.Player))
			played, _ := lv.Ladder.Index(s.LastTier)
			now, _ := lv.Ladder.Index(s.Tier)
			n := min(max(s.LastBoard-1, 0)*lv.BoardSize+1, maxJoins)
			rec := strconv.Itoa(lv.code[played]) + ":" + strconv.Itoa(n) + ":" + strconv.Itoa(lv.code[now])
			items := ""
			if s.Reward != nil {
				js, _ := json.Marshal(s.Reward)
				items = string(js)
			}
			args = append(args, s.Player, s.LastPeriod.Unix(), rec, items)
		}
		return ks, args
	})
	if err != nil {
		return wrote, internal("restore", err)
	}
	for _, c := range cmds {
		counts, err := c.Int64Slice()
		if err != nil {
			return wrote, internal("restore", err)
		}
		wrote[0] += int(counts[0])
		wrote[1] += int(counts[1])
	}
	return wrote, nil
}
