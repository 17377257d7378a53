package postgres_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/league-engine/league/league"
	"github.com/league-engine/league/postgres"
	"github.com/league-engine/league/tiers"
)

// BenchmarkWriteOutcomes measures the store's part of settling a period
// (with its events in the outbox, since migration 0006):
// every player's outcome, 3% of them rewarded, and their standings. The
// product target is settling 1,000,000 players at 100,000 players/s end to
// end, and this write is the largest part of it.
//
// first writes into an empty schema, so every player gets a new standing.
// next writes the following period over the first: 10% of the players are
// new and about a fifth change tier, as in a league that runs week after
// week.
//
// Besides the time, each reports the CPU seconds the write cost this
// process and, when Postgres runs on this Linux host, its server: on a
// machine others load, the elapsed time swings with them, the CPU much
// less.
func BenchmarkWriteOutcomes(b *testing.B) {
	ctx := context.Background()
	for _, players := range []int{100_000, 1_000_000} {
		b.Run(fmt.Sprintf("first/players=%d", players), func(b *testing.B) {
			outcomes, rewards := settledField(players)
			var cpu *cpuMeter
			for b.Loop() {
				b.StopTimer()
				s, _ := newStore(b)
				st := beginBench(b, s, 0, players)
				if cpu == nil {
					cpu = newCPUMeter(b, s)
				}
				b.StartTimer()
				cpu.start()
				if err := s.WriteOutcomes(ctx, st, outcomes, rewards); err != nil {
					b.Fatal(err)
				}
				cpu.stop()
			}
			b.ReportMetric(float64(players)*float64(b.N)/b.Elapsed().Seconds(), "players/s")
			cpu.report(b)
		})
	}
	b.Run("next/players=1000000", func(b *testing.B) {
		const players = 1_000_000
		first, firstRewards := settledField(players)
		outcomes, rewards := nextField(first)
		var cpu *cpuMeter
		for b.Loop() {
			b.StopTimer()
			s, _ := newStore(b)
			if err := s.WriteOutcomes(ctx, beginBench(b, s, 0, players), first, firstRewards); err != nil {
				b.Fatal(err)
			}
			st := beginBench(b, s, 1, players)
			if cpu == nil {
				cpu = newCPUMeter(b, s)
			}
			b.StartTimer()
			cpu.start()
			if err := s.WriteOutcomes(ctx, st, outcomes, rewards); err != nil {
				b.Fatal(err)
			}
			cpu.stop()
		}
		b.ReportMetric(float64(players)*float64(b.N)/b.Elapsed().Seconds(), "players/s")
		cpu.report(b)
	})
}

func beginBench(b testing.TB, s *postgres.Store, week, players int) league.Settlement {
	start := week0.AddDate(0, 0, 7*week)
	st, err := s.BeginSettlement(context.Background(), league.Settlement{League: "bench", Period: start, PeriodEnd: start.AddDate(0, 0, 7)})
	if err != nil {
		b.Fatal(err)
	}
	// The rules recorded with the settlement (migration 0008), as a
	// five-tier ladder with rewards writes them.
	st.Players, st.Rules, st.RulesFP = players, benchRules.RulesJSON(), benchRules.Fingerprint()
	return st
}

var benchRules = func() *tiers.Ladder {
	ts := make([]tiers.Tier, 5)
	for i, id := range []string{"bronze", "silver", "gold", "platinum", "diamond"} {
		ts[i] = tiers.Tier{ID: id, Promote: 1000, Demote: 1000, Rewards: []tiers.Band{
			{From: 1, To: 1, Items: []tiers.Item{{ID: "gems", Qty: 100}, {ID: "chest", Qty: 1}}},
			{From: 2, To: 3, Items: []tiers.Item{{ID: "gems", Qty: 50}}}}}
	}
	ts[0].Demote, ts[4].Promote = 0, 0
	l, err := tiers.NewLadder(ts)
	if err != nil {
		panic(err)
	}
	return l
}()

// settledField is a settled period of n players on boards of 100 across
// five tiers. Player ids are in random order, as joins scatter them over the
// boards.
func settledField(n int) ([]league.Outcome, []league.EarnedReward) {
	ladder := []string{"bronze", "silver", "gold", "platinum", "diamond"}
	field := make([]league.Outcome, n)
	for i := range field {
		field[i] = league.Outcome{Player: fmt.Sprintf("u%016x", splitmix(uint64(i))), TierBefore: ladder[(i/100)%len(ladder)]}
	}
	return rankBoards(field, ladder)
}

// nextField is the period after prev: the first tenth of its players left,
// as many new ones joined in the bottom tier, and everyone plays the tier
// prev gave them.
func nextField(prev []league.Outcome) ([]league.Outcome, []league.EarnedReward) {
	n := len(prev)
	field := make([]league.Outcome, 0, n)
	for _, o := range prev[n/10:] {
		field = append(field, league.Outcome{Player: o.Player, TierBefore: o.TierAfter})
	}
	for i := range n / 10 {
		field = append(field, league.Outcome{Player: fmt.Sprintf("u%016x", splitmix(uint64(n+i))), TierBefore: "bronze"})
	}
	return rankBoards(field, []string{"bronze", "silver", "gold", "platinum", "diamond"})
}

// rankBoards seats the players on boards of 100 in order and ranks each
// board: the top 10 promoted, the bottom 10 demoted (a fifth of the players
// move), the top 3 rewarded (3%).
func rankBoards(field []league.Outcome, ladder []string) ([]league.Outcome, []league.EarnedReward) {
	index := map[string]int{}
	for i, t := range ladder {
		index[t] = i
	}
	rewards := make([]league.EarnedReward, 0, len(field)*3/100)
	for i := range field {
		o := &field[i]
		o.Board, o.Rank = i/100+1, (i*37)%100+1 // 37 is prime to 100: ranks 1..100 on each board
		o.Score = int64(100_000 - o.Rank*37)
		t := index[o.TierBefore]
		o.Move = league.Stayed
		switch {
		case o.Rank <= 10 && t < len(ladder)-1:
			t, o.Move = t+1, league.Promoted
		case o.Rank > 90 && t > 0:
			t, o.Move = t-1, league.Demoted
		}
		o.TierAfter = ladder[t]
		// What the board showed, kept for the archive: every player named
		// (a dozen bytes, as game names run), one in ten with an avatar.
		o.Zone = tiers.Stay
		if o.Rank <= 10 {
			o.Zone = tiers.Promote
		} else if o.Rank > 90 {
			o.Zone = tiers.Demote
		}
		o.Name = "Player " + o.Player[len(o.Player)-5:]
		if o.Rank%10 == 0 {
			o.Avatar = "https://cdn.example/a/" + o.Player[1:9] + ".png"
		}
		if o.Rank <= 3 {
			rewards = append(rewards, league.EarnedReward{Player: o.Player, Tier: o.TierBefore, Rank: o.Rank,
				Items: []tiers.Item{{ID: "gold", Qty: int64(1000 / o.Rank)}, {ID: "chest_" + o.TierBefore, Qty: 1}}})
		}
	}
	return field, rewards
}

// splitmix scrambles i (SplitMix64) into a distinct pseudo-random id.
func splitmix(i uint64) uint64 {
	z := i + 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// BenchmarkArchivedBoard reads one board of a settled period of a million
// players back from the archive: no index leads with the board, so the
// read scans the period's rows (postgres/archive.go).
func BenchmarkArchivedBoard(b *testing.B) {
	ctx := context.Background()
	const players = 1_000_000
	outcomes, rewards := settledField(players)
	s, _ := newStore(b)
	st := beginBench(b, s, 0, players)
	st.Tiers = []league.TierCount{{Tier: "bronze"}, {Tier: "silver"}, {Tier: "gold"}, {Tier: "platinum"}, {Tier: "diamond"}}
	if err := s.WriteOutcomes(ctx, st, outcomes, rewards); err != nil {
		b.Fatal(err)
	}
	if _, err := s.Pool().Exec(ctx, `ANALYZE outcomes, rewards, reward_claims`); err != nil {
		b.Fatal(err)
	}
	id := league.BoardID{Tier: outcomes[0].TierBefore, N: outcomes[0].Board}
	for b.Loop() {
		bd, err := s.ArchivedBoard(ctx, "bench", st.Period, id)
		if err != nil || len(bd.Entries) != 100 {
			b.Fatalf("%v: %d entries", err, len(bd.Entries))
		}
	}
}

// BenchmarkEventFeed reads pages of the outbox after a settlement of a
// million players, each page at a cursor drawn at random among the
// settlement's events: a page of the deliverer's batch (500), and one of
// the feed's largest (1000). It reports the outbox's bytes per player
// (tables, indexes and TOAST).
func BenchmarkEventFeed(b *testing.B) {
	ctx := context.Background()
	const players = 1_000_000
	outcomes, rewards := settledField(players)
	s, _ := newStore(b)
	if err := s.WriteOutcomes(ctx, beginBench(b, s, 0, players), outcomes, rewards); err != nil {
		b.Fatal(err)
	}
	var bytes float64
	if err := s.Pool().QueryRow(ctx, `SELECT pg_total_relation_size('events') +
			coalesce(pg_total_relation_size(to_regclass('event_chunks')), 0)`).Scan(&bytes); err != nil {
		b.Fatal(err)
	}
	for _, limit := range []int{500, 1000} {
		b.Run(fmt.Sprintf("limit=%d", limit), func(b *testing.B) {
			n := uint64(0)
			for b.Loop() {
				n++
				after := int64(splitmix(n) % players)
				evs, err := s.Events(ctx, after, limit, nil)
				if err != nil || len(evs) != limit {
					b.Fatalf("%v: %d events after %d", err, len(evs), after)
				}
			}
			b.ReportMetric(float64(limit)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
			b.ReportMetric(bytes/players, "outbox-B/player")
		})
	}
}
