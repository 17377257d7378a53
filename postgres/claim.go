package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/league-engine/league/league"
)

// RecordClaims records reward deliveries in one transaction, with a
// reward.claimed event for each delivery recorded now. The first record of
// a delivery stands: the claims recorder may copy a claim twice (it
// acknowledges after storing), and the second copy changes nothing and
// writes no event. A claim needs no reward row: a join can deliver rewards
// settlement has not written.
func (s *Store) RecordClaims(ctx context.Context, claims []league.Claim) error {
	if len(claims) == 0 {
		return nil
	}
	var (
		leagues = make([]string, len(claims))
		earned  = make([]time.Time, len(claims))
		players = make([]string, len(claims))
		periods = make([]*time.Time, len(claims))
		at      = make([]time.Time, len(claims))
		first   = make(map[claimKey]int, len(claims))
	)
	now := time.Now()
	for i, c := range claims {
		switch {
		case c.League == "":
			return invalid(fmt.Sprintf("claims[%d].league", i), "must not be empty")
		case c.Player == "":
			return invalid(fmt.Sprintf("claims[%d].player", i), "must not be empty")
		case c.Earned.IsZero():
			return invalid(fmt.Sprintf("claims[%d].earned", i), "must not be zero")
		}
		leagues[i], earned[i], players[i] = c.League, c.Earned, c.Player
		periods[i], at[i] = nullTime(c.Period), c.At
		if at[i].IsZero() {
			at[i] = now // the event says when, as the row does
		}
		k := claimKey{c.League, c.Earned.Unix(), c.Player}
		if _, dup := first[k]; !dup {
			first[k] = i
		}
	}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		// What RETURNING gives back is what this batch recorded: neither
		// a delivery recorded before nor the second copy of one in it.
		rows, _ := tx.Query(ctx, `INSERT INTO reward_claims (league, period_start, player, claimed_period, claimed_at)
			SELECT league, earned, player, period, at
			FROM unnest($1::text[], $2::timestamptz[], $3::text[], $4::timestamptz[], $5::timestamptz[])
				AS c(league, earned, player, period, at)
			ON CONFLICT (league, period_start, player) DO NOTHING
			RETURNING league, period_start, player`,
			leagues, earned, players, periods, at)
		var (
			k       claimKey
			start   time.Time
			claimed []int
		)
		_, err := pgx.ForEachRow(rows, []any{&k.league, &start, &k.player}, func() error {
			k.earned = start.Unix()
			claimed = append(claimed, first[k])
			return nil
		})
		if err != nil {
			return err
		}
		return claimEvents(ctx, tx, claims, at, claimed)
	})
	return storeError("record claims", err)
}

// claimKey is a claim's primary key (periods start on whole seconds).
type claimKey struct {
	league string
	earned int64
	player string
}
