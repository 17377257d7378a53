package postgres

import (
	"context"
	"encoding/json"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/league-engine/league/events"
	"github.com/league-engine/league/league"
)

// RecordDecays records the tier moves absence decay made, with a
// player.decayed event for each one recorded now, in one transaction. The
// first record of a (league, period, player) stands: the claims recorder
// may copy a decay twice, and the second copy writes nothing.
func (s *Store) RecordDecays(ctx context.Context, decays []league.Decay) error {
	if len(decays) == 0 {
		return nil
	}
	n := len(decays)
	var (
		leagues, players, from, to = make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		periods, at                = make([]time.Time, n), make([]time.Time, n)
		absent                     = make([]int32, n)
		data                       = make([]string, n)
	)
	if err := league.CheckDecays(decays); err != nil {
		return err
	}
	for i, d := range decays {
		js, err := json.Marshal(events.DecayData{From: d.From, To: d.To, Absent: d.Absent})
		if err != nil {
			return err
		}
		leagues[i], players[i], from[i], to[i] = d.League, d.Player, d.From, d.To
		periods[i], at[i], absent[i], data[i] = d.Period, d.At, int32(d.Absent), string(js)
		if d.At.IsZero() {
			at[i] = time.Now()
		}
	}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		// RETURNING gives back what this batch recorded: the events are of
		// those rows only.
		rows, _ := tx.Query(ctx, `INSERT INTO decays (league, period_start, player, tier_before, tier_after, absent, at)
			SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::text[], $4::text[], $5::text[], $6::int[], $7::timestamptz[])
			ON CONFLICT (league, period_start, player) DO NOTHING
			RETURNING league, period_start, player`,
			leagues, periods, players, from, to, absent, at)
		type key struct {
			league string
			period int64
			player string
		}
		index := make(map[key]int, n)
		for i := range decays {
			if k := (key{leagues[i], periods[i].Unix(), players[i]}); index[k] == 0 {
				index[k] = i + 1
			}
		}
		var (
			k      key
			start  time.Time
			stored []int
		)
		if _, err := pgx.ForEachRow(rows, []any{&k.league, &start, &k.player}, func() error {
			k.period = start.Unix()
			stored = append(stored, index[k]-1)
			return nil
		}); err != nil || len(stored) == 0 {
			return err
		}
		slices.Sort(stored) // events in the stream's order
		if err := lockOutbox(ctx, tx); err != nil {
			return err
		}
		el, ep, epl, ed := make([]string, len(stored)), make([]time.Time, len(stored)), make([]string, len(stored)), make([]string, len(stored))
		for j, i := range stored {
			el[j], ep[j], epl[j], ed[j] = leagues[i], periods[i], players[i], data[i]
		}
		_, err := tx.Exec(ctx, `INSERT INTO events (type, league, period_start, player, data)
			SELECT $1, league, period, player, data
			FROM unnest($2::text[], $3::timestamptz[], $4::text[], $5::jsonb[]) WITH ORDINALITY AS d(league, period, player, data, n)
			ORDER BY n`, string(events.PlayerDecayed), el, ep, epl, ed)
		return err
	})
	return storeError("record decays", err)
}
