package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/league-engine/league/league"
)

// RecordClaims records reward deliveries in one statement. The first record
// of a delivery stands: the claims recorder may copy a claim twice (it
// acknowledges after storing), and the second copy changes nothing. A claim
// needs no reward row: a join can deliver rewards settlement has not written.
func (s *Store) RecordClaims(ctx context.Context, claims []league.Claim) error {
	if len(claims) == 0 {
		return nil
	}
	var (
		leagues = make([]string, len(claims))
		earned  = make([]time.Time, len(claims))
		players = make([]string, len(claims))
		periods = make([]*time.Time, len(claims))
		at      = make([]*time.Time, len(claims))
	)
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
		periods[i], at[i] = nullTime(c.Period), nullTime(c.At)
	}
	_, err := s.pool.Exec(ctx, `INSERT INTO reward_claims (league, period_start, player, claimed_period, claimed_at)
		SELECT league, earned, player, period, coalesce(at, now())
		FROM unnest($1::text[], $2::timestamptz[], $3::text[], $4::timestamptz[], $5::timestamptz[])
			AS c(league, earned, player, period, at)
		ON CONFLICT (league, period_start, player) DO NOTHING`,
		leagues, earned, players, periods, at)
	return storeError("record claims", err)
}
