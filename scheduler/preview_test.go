package scheduler_test

import (
	"errors"
	"fmt"
	"math/rand"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/league"
	"github.com/league-engine/league/tiers"
)

// TestPreviewIsWhatSettlementWrites: random boards (a random board size,
// players, scores with many ties, a first week settled so that the second
// spreads over the tiers). The ended second week's preview, read in pages
// of a random size, writes nothing to the store; the settlement that
// follows records the preview's counts, and every player's outcome and
// reward in the store is the preview's row.
func TestPreviewIsWhatSettlementWrites(t *testing.T) {
	forEachStore(t, func(t *testing.T, k storeKind) {
		seed := time.Now().UnixNano()
		t.Logf("seed %d", seed)
		rng := rand.New(rand.NewSource(seed))
		f := newFixture(t, k, 5+rng.Intn(40))
		s := f.scheduler()
		week1 := f.period()
		players := 300 + rng.Intn(500)
		f.playRandom(rng, "p", 0, players)
		f.clock.After(week1.End)
		f.settleNow(s)

		// Week 2: most come back, some newcomers join.
		week2 := f.period()
		f.playRandom(rng, "p", players/4, players+rng.Intn(100))
		f.clock.After(week2.End)
		before := f.storeState("p00000")
		limit := 1 + rng.Intn(200)
		var rows []league.PreviewRow
		var summary league.PreviewSummary
		after := ""
		for {
			p, err := f.engine.Preview(f.ctx, "weekly", league.PreviewRequest{Period: week2.ID(), After: after, Limit: limit})
			testsvc.Must(t, err, "Preview after %q", after)
			if !p.Final {
				t.Fatal("the ended week's preview is not final")
			}
			rows, summary = append(rows, p.Rows...), p.Summary
			if p.Next == nil {
				break
			}
			after = p.Next.String()
		}
		if got := f.storeState("p00000"); !reflect.DeepEqual(got, before) {
			t.Fatalf("the preview changed the store:\n got %+v\nwant %+v", got, before)
		}
		if len(rows) != summary.Players {
			t.Fatalf("%d rows in the pages of %d, %d players in the summary", len(rows), limit, summary.Players)
		}

		st := f.settleNow(s)
		counts := make([]league.TierCount, len(summary.Tiers))
		for i, tp := range summary.Tiers {
			counts[i] = tp.TierCount
		}
		if st.Players != summary.Players || !reflect.DeepEqual(st.Tiers, counts) {
			t.Fatalf("settlement recorded %d players %+v; the preview said %d %+v", st.Players, st.Tiers, summary.Players, counts)
		}
		written := f.outcomes(week2, rows)
		for i, r := range rows {
			h := written[i]
			if h.TierBefore != r.From || h.TierAfter != r.To || h.Board != r.Board.N || h.Rank != r.Rank ||
				h.Score != r.Score || !reflect.DeepEqual(h.Rewards, r.Rewards) {
				t.Errorf("%s: settlement wrote %+v, the preview said %+v", r.Player, h, r)
			}
		}
	})
}

// playRandom has players prefix<from>..prefix<to-1> join the current period
// and write a random score from a small range (ties are many), some none.
func (f *fixture) playRandom(rng *rand.Rand, prefix string, from, to int) {
	f.t.Helper()
	scores := make([]int64, to)
	for i := range scores {
		scores[i] = int64(rng.Intn(30)) - 5 // below 0: writes nothing
	}
	var wg sync.WaitGroup
	errs := make([]error, to)
	for g := 0; g < 16; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := from + g; i < to; i += 16 {
				id := fmt.Sprintf("%s%05d", prefix, i)
				_, errs[i] = f.engine.Join(f.ctx, "weekly", league.JoinRequest{Player: id, Name: id})
				if errs[i] == nil && scores[i] > 0 {
					_, errs[i] = f.engine.Score(f.ctx, "weekly", league.ScoreWrite{Player: id, Value: scores[i]})
				}
			}
		}()
	}
	wg.Wait()
	testsvc.Must(f.t, errors.Join(errs...), "play")
}

// storeState is what the store says of the league and of one player, to
// show that a call wrote nothing to it.
type storeState struct {
	Settlements []league.Settlement
	Populations map[string]int
	Profile     league.Profile
}

func (f *fixture) storeState(player string) storeState {
	f.t.Helper()
	var s storeState
	var err error
	s.Settlements, err = f.store.Settlements(f.ctx, "weekly", 100)
	testsvc.Must(f.t, err, "Settlements")
	s.Populations, err = f.store.Populations(f.ctx, "weekly")
	testsvc.Must(f.t, err, "Populations")
	s.Profile, err = f.store.Profile(f.ctx, "weekly", player, 100)
	testsvc.Must(f.t, err, "Profile")
	return s
}

// outcomes returns what the store holds of period p for each row's player.
func (f *fixture) outcomes(p league.Period, rows []league.PreviewRow) []league.HistoryEntry {
	f.t.Helper()
	out := make([]league.HistoryEntry, len(rows))
	errs := make([]error, len(rows))
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(rows); i += 8 {
				pr, err := f.store.Profile(f.ctx, "weekly", rows[i].Player, 2)
				if err != nil {
					errs[i] = err
					continue
				}
				errs[i] = fmt.Errorf("%s has no outcome of %s", rows[i].Player, p.ID())
				for _, h := range pr.History {
					if h.Period.Equal(p.Start) {
						out[i], errs[i] = h, nil
						if len(h.Rewards) == 0 {
							out[i].Rewards = []tiers.Item(nil) // the preview's nil: none
						}
					}
				}
			}
		}()
	}
	wg.Wait()
	testsvc.Must(f.t, errors.Join(errs...), "outcomes")
	return out
}
