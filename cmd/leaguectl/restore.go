package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/league-engine/league/internal/words"
	"github.com/league-engine/league/league"
)

// restore rebuilds a league's data in Redis from the store after Redis lost
// it: each player's tier and the rewards waiting for their next join.
func restore(ctx context.Context, args []string, out io.Writer) error {
	fs, path := flags("restore")
	id := fs.String("league", "", "league id (required)")
	others := fs.Bool("other-deployments", false, "other deployments keep leagues in this Redis under other namespaces: a league of this id there is theirs")
	pr := output(fs, out)
	showProg := progressFlag(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if *id == "" {
		return usageError{fmt.Errorf("restore: -league is required")}
	}
	e, err := connectAll(ctx, *path, true)
	if err != nil {
		return err
	}
	defer e.close()
	l := e.configured(*id)
	if l == nil {
		return fmt.Errorf("restore: league %q is not in %s", *id, *path)
	}
	if err := e.cfg.CheckStore(ctx, e.store); err != nil {
		return err
	}
	began := time.Now()
	opts := []league.Option{league.WithNamespace(e.cfg.Namespace), league.WithLogger(quiet())}
	if *others {
		opts = append(opts, league.WithOtherDeployments())
	}
	// Restore reports no count as it goes: the ticker says it is alive.
	tick := startTicker(showProgress(*showProg), "restore "+l.ID)
	st, err := league.Restore(ctx, e.rdb, l, e.store, opts...)
	tick.stop()
	if err != nil {
		return err
	}
	took := time.Since(began)
	j := restoreJSON{League: l.ID, Players: st.Players, Records: st.Records, Unclaimed: st.Unclaimed, Rewards: st.Rewards,
		Finished: periodIDs(st.Finished), Lost: periodIDs(st.Lost), TookMS: took.Milliseconds()}
	if !st.Settled.IsZero() {
		j.Settled = league.Period{Start: st.Settled}.ID()
	}
	return pr.print(func() error { return restoreText(out, l.ID, st, took) }, j)
}

// restoreJSON is restore -o json. Every leagued must be restarted after a
// restore, as the text says.
type restoreJSON struct {
	League    string   `json:"league"`
	Players   int      `json:"players"`           // standings read from the store
	Records   int      `json:"records_written"`   // player records written
	Unclaimed int      `json:"unclaimed_rewards"` // rewards waiting for the next join
	Rewards   int      `json:"rewards_written"`
	Settled   string   `json:"settled"`  // the last settled period; "": none
	Finished  []string `json:"finished"` // periods whose settlement the restore finished
	Lost      []string `json:"lost"`     // periods whose results were only in Redis
	TookMS    int64    `json:"took_ms"`
}

func periodIDs(starts []time.Time) []string {
	ids := []string{}
	for _, p := range starts {
		ids = append(ids, league.Period{Start: p}.ID())
	}
	return ids
}

func restoreText(out io.Writer, id string, st league.RestoreStats, took time.Duration) error {
	settled := "none"
	if !st.Settled.IsZero() {
		settled = league.Period{Start: st.Settled}.ID()
	}
	fmt.Fprintf(out, "restored league %s: %s (%s written), %s waiting for the next join (%d written), settled up to %s; took %s\n",
		id, words.Count(st.Players, "player"), words.Count(st.Records, "record"), words.Count(st.Unclaimed, "reward"), st.Rewards,
		settled, took.Round(time.Millisecond))
	for _, p := range st.Finished {
		fmt.Fprintf(out, "period %s: its settlement had written its outcomes but not finished; the restore finished it\n", league.Period{Start: p}.ID())
	}
	for _, p := range st.Lost {
		fmt.Fprintf(out, "period %s: its settlement had not written its outcomes; its boards were only in Redis, and its results are lost\n", league.Period{Start: p}.ID())
	}
	_, err := fmt.Fprintln(out, "restart every leagued now: a process started before the restore refuses joins until it is restarted")
	return err
}
