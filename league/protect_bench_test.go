package league_test

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/league"
	"github.com/league-engine/league/tiers"
)

// BenchmarkDecideProtect reads and decides an ended period of 20,000
// silver players (boards of 100, 20% demoted) with the rules as they are
// and with silver protecting promoted players, every one of whom is in the
// period's set of promotions (the questions settlement asks are the same
// whoever is in it): the cost of protection to settlement's read+decide.
//
//	go test ./league -run '^$' -bench DecideProtect -benchtime 20x
func BenchmarkDecideProtect(b *testing.B) {
	const players = 20000
	for _, protect := range []bool{false, true} {
		b.Run("protect="+strconv.FormatBool(protect), func(b *testing.B) {
			f := newFixture(b, testsvc.Backends[0], func(l *league.League) {
				l.BoardSize, l.EntryTier = 100, "silver"
				ts := l.Ladder.Tiers()
				ts[1].ProtectPromoted = protect
				ld, err := tiers.NewLadder(ts)
				testsvc.Must(b, err, "ladder")
				l.Ladder = ld
			})
			p := f.period()
			ids := make([]any, players)
			pipe := f.rdb.Pipeline()
			for i := range ids {
				id := fmt.Sprintf("player%09d", i)
				ids[i] = id
				if _, err := f.engine.Join(f.ctx, "weekly", league.JoinRequest{Player: id, Name: id}); err != nil {
					b.Fatal(err)
				}
			}
			pipe.SAdd(f.ctx, f.ns+":{weekly}:pp:"+strconv.FormatInt(p.Start.Unix(), 10), ids...)
			_, err := pipe.Exec(f.ctx)
			testsvc.Must(b, err, "SADD")
			f.clock.After(p.End)
			pop, err := f.engine.Close(f.ctx, "weekly", p)
			testsvc.Must(b, err, "Close")
			b.ResetTimer()
			kept := 0
			for range b.N {
				kept = 0
				_, err := f.engine.Decide(f.ctx, "weekly", p, pop, func(d league.DecidedBoard) error {
					for _, o := range d.Outcomes {
						if o.Protected {
							kept++
						}
					}
					return nil
				})
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(players*b.N)/b.Elapsed().Seconds(), "players/s")
			if protect != (kept > 0) {
				b.Fatalf("protect %v: %d players kept", protect, kept)
			}
		})
	}
}
