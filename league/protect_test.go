package league_test

import (
	"context"
	"fmt"
	"math/rand"
	"reflect"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/league"
	"github.com/league-engine/league/tiers"
)

// protectLadder: bronze promotes its top 2 (with a score); silver, which
// protects promoted players, promotes its top 1 and demotes its bottom 2;
// gold, which does not, demotes its bottom 1.
func protectLadder(protect bool) func(*league.League) {
	return func(l *league.League) {
		ld, err := tiers.NewLadder([]tiers.Tier{
			{ID: "bronze", Name: "Bronze", PromoteCount: 2, MinPromoteScore: 1},
			{ID: "silver", Name: "Silver", PromoteCount: 1, DemoteCount: 2, ProtectPromoted: protect},
			{ID: "gold", Name: "Gold", DemoteCount: 1},
		})
		if err != nil {
			panic(err) // a fixed ladder: a test bug
		}
		l.Ladder = ld
	}
}

// protectWeeks plays the weeks that set up TestPromotionProtection, and
// returns the third, running:
//
//	week 1: a0..a9 in bronze; a0 and a1 are promoted to silver.
//	week 2: silver holds a0 and a1 (1 promoted, 1 demoted on a board of
//	        2): a0 rises to gold; a1, promoted into silver, is kept there.
//	        In bronze a2 and a3 are promoted to silver.
//	week 3: gold holds a0 (promoted into it); silver holds a2 (ranked 1),
//	        a1 (2: not promoted into silver this time) and a3 (3, promoted).
func protectWeeks(t *testing.T, f *fixture) league.Period {
	t.Helper()
	week1 := f.period()
	for i := range 10 {
		id := fmt.Sprintf("a%d", i)
		f.join(id)
		f.score(id, int64(100-i))
	}
	f.clock.After(week1.End)
	f.settle(week1)

	week2 := f.period()
	for i := range 10 {
		f.join(fmt.Sprintf("a%d", i))
	}
	f.score("a0", 50)
	f.score("a1", 40)
	for i := 2; i < 10; i++ {
		f.score(fmt.Sprintf("a%d", i), int64(100-i))
	}
	if st := standing(t, f, "a1"); st.Zone != tiers.Stay || !st.Protected {
		t.Fatalf("week 2, a1 (promoted into silver, ranked last): zone %s, protected %v; want stay, protected", st.Zone, st.Protected)
	}
	f.clock.After(week2.End)
	out := outcomesByPlayer(f.settle(week2))
	if o := out["a1"]; o.TierAfter != 1 || !o.Protected || o.Zone != tiers.Stay {
		t.Fatalf("week 2, a1: %+v; want kept in silver", o)
	}

	week3 := f.period()
	for _, id := range []string{"a0", "a1", "a2", "a3"} {
		f.join(id)
	}
	f.score("a0", 5)
	f.score("a2", 30)
	f.score("a1", 20)
	f.score("a3", 10)
	return week3
}

func outcomesByPlayer(os []tiers.Outcome) map[string]tiers.Outcome {
	m := map[string]tiers.Outcome{}
	for _, o := range os {
		m[o.Player] = o
	}
	return m
}

func standing(t *testing.T, f *fixture, player string) league.Standing {
	t.Helper()
	st, err := f.engine.Standing(f.ctx, f.league.ID, player)
	testsvc.Must(t, err, "Standing %s", player)
	return st
}

// TestPromotionProtection: in a tier that protects, a player promoted into
// it and ranked last is shown as staying (board, standing, score reply) and
// stays at settlement; the player above them in the same demotion zone,
// not promoted into the tier, is demoted; a player promoted into a tier
// that does not protect is demoted. Zones shown just before the close are
// the outcomes written.
func TestPromotionProtection(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b testsvc.Backend) {
		f := newFixture(t, b, protectLadder(true))
		week3 := protectWeeks(t, f)

		want := map[string]struct {
			zone      tiers.Zone
			protected bool
			after     string
		}{
			"a2": {tiers.Promote, false, "gold"},
			"a1": {tiers.Demote, false, "bronze"}, // in the zone, not promoted into silver
			"a3": {tiers.Stay, true, "silver"},    // in the zone, promoted into silver
			"a0": {tiers.Demote, false, "silver"}, // promoted into gold, which does not protect
		}
		shown := map[string]tiers.Zone{}
		for _, id := range []string{"silver-1", "gold-1"} {
			bid, err := league.ParseBoardID(id)
			testsvc.Must(t, err, "ParseBoardID")
			bd, err := f.engine.Board(f.ctx, f.league.ID, league.Period{}, bid)
			testsvc.Must(t, err, "Board %s", id)
			for _, e := range bd.Entries {
				w := want[e.Player]
				if e.Zone != w.zone || e.Protected != w.protected {
					t.Errorf("board %s, %s: zone %s, protected %v; want %s, %v", id, e.Player, e.Zone, e.Protected, w.zone, w.protected)
				}
				shown[e.Player] = e.Zone
			}
		}
		for id, w := range want {
			if st := standing(t, f, id); st.Zone != w.zone || st.Protected != w.protected {
				t.Errorf("standing of %s: zone %s, protected %v; want %s, %v", id, st.Zone, st.Protected, w.zone, w.protected)
			}
		}
		ids := []string{"a0", "a1", "a2", "a3", "bad id"}
		sts, errs, err := f.engine.Standings(f.ctx, f.league.ID, ids)
		testsvc.Must(t, err, "Standings")
		for k, id := range ids[:4] {
			if w := want[id]; errs[k] != nil || sts[k].Zone != w.zone || sts[k].Protected != w.protected {
				t.Errorf("standings, %s: zone %s, protected %v, err %v; want %s, %v", id, sts[k].Zone, sts[k].Protected, errs[k], w.zone, w.protected)
			}
		}
		if errs[4] == nil {
			t.Errorf("standings of a bad player id: no error")
		}
		if r := f.score("a3", 1); r.Zone != tiers.Stay || !r.Protected || r.Rank != 3 {
			t.Errorf("a3's score reply: rank %d, zone %s, protected %v; want rank 3, stay, protected", r.Rank, r.Zone, r.Protected)
		}
		if r := f.score("a1", 1); r.Zone != tiers.Demote || r.Protected {
			t.Errorf("a1's score reply: zone %s, protected %v; want demote, not protected", r.Zone, r.Protected)
		}

		rs, errs, err := f.engine.ScoreBatch(f.ctx, f.league.ID, []league.ScoreWrite{
			{Player: "a2", Value: 1}, {Player: "a3", Value: 1}, {Player: "nobody", Value: 1}, {Player: "a1", Value: 1}, {Player: "a0", Value: 1}})
		testsvc.Must(t, err, "ScoreBatch")
		for k, id := range []string{"a2", "a3", "", "a1", "a0"} {
			if id == "" {
				if errs[k] == nil {
					t.Errorf("batch write %d of a player who never joined: no error", k)
				}
				continue
			}
			if w := want[id]; errs[k] != nil || rs[k].Zone != w.zone || rs[k].Protected != w.protected {
				t.Errorf("batch reply of %s: zone %s, protected %v, err %v; want %s, %v", id, rs[k].Zone, rs[k].Protected, errs[k], w.zone, w.protected)
			}
		}

		f.clock.After(week3.End)
		out := outcomesByPlayer(f.settle(week3))
		for id, w := range want {
			o := out[id]
			if o.Zone != shown[id] || o.Protected != w.protected || f.league.Ladder.Tier(o.TierAfter).ID != w.after {
				t.Errorf("settled %s: zone %s (shown %s), protected %v, to %s; want protected %v, to %s",
					id, o.Zone, shown[id], o.Protected, f.league.Ladder.Tier(o.TierAfter).ID, w.protected, w.after)
			}
		}
		// A protected player is protected once: a3, who stayed, plays
		// week 4 in silver as anyone who stayed.
		if p := f.join("a3"); p.Tier != "silver" {
			t.Errorf("a3 joined week 4 in %s, want silver", p.Tier)
		}
		if n := f.rdb.Exists(f.ctx, f.ns+":{weekly}:pp:"+fmt.Sprint(f.period().Start.Unix())).Val(); n != 0 {
			t.Errorf("a join of a player who stayed recorded a promotion")
		}
	})
}

// TestPromotionProtectionDecidedAtJoin: a join deciding the player's tier
// from the frozen board, before settlement, keeps a protected player in
// their tier as settlement then does, and the preview says so too.
func TestPromotionProtectionDecidedAtJoin(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b testsvc.Backend) {
		f := newFixture(t, b, protectLadder(true))
		week3 := protectWeeks(t, f)
		f.clock.After(week3.End)
		preview, err := f.engine.Preview(f.ctx, f.league.ID, league.PreviewRequest{Period: week3.ID(), Limit: 100})
		testsvc.Must(t, err, "Preview")
		previewed := map[string]string{}
		for _, r := range preview.Rows {
			previewed[r.Player] = r.To
		}
		joined := map[string]string{}
		for _, id := range []string{"a0", "a1", "a2", "a3"} {
			joined[id] = f.join(id).Tier
		}
		want := map[string]string{"a0": "silver", "a1": "bronze", "a2": "gold", "a3": "silver"}
		if !reflect.DeepEqual(joined, want) || !reflect.DeepEqual(previewed, want) {
			t.Errorf("joined in %v, previewed %v; want %v", joined, previewed, want)
		}
		settled := map[string]string{}
		for _, o := range f.settle(week3) {
			settled[o.Player] = f.league.Ladder.Tier(o.TierAfter).ID
		}
		if !reflect.DeepEqual(settled, want) {
			t.Errorf("settled %v, want %v", settled, want)
		}
	})
}

// TestPromotionProtectionUnderOldRules: a period whose rules were recorded
// by a process without protection (rules recorded before the field
// existed) settles under them: the promoted player is demoted, by an
// engine whose own config protects.
func TestPromotionProtectionUnderOldRules(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b testsvc.Backend) {
		f := newFixture(t, b, protectLadder(true))
		week3 := protectWeeks(t, f)
		f.clock.After(week3.End)
		old := f.openReplica(protectLadder(false))
		_, err := old.Close(f.ctx, f.league.ID, week3) // records its rules with the period
		testsvc.Must(t, err, "Close by the process without protection")
		out := outcomesByPlayer(f.settle(week3))
		if o := out["a3"]; o.Protected || f.league.Ladder.Tier(o.TierAfter).ID != "bronze" {
			t.Errorf("a3 under rules without protection: %+v; want demoted to bronze", o)
		}
	})
}

// TestNoProtectionWritesNothing: a league without the rule records no
// promotions.
func TestNoProtectionWritesNothing(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b testsvc.Backend) {
		f := newFixture(t, b, protectLadder(false))
		week1 := f.period()
		for i := range 10 {
			id := fmt.Sprintf("a%d", i)
			f.join(id)
			f.score(id, int64(100-i))
		}
		f.clock.After(week1.End)
		f.settle(week1)
		if p := f.join("a0"); p.Tier != "silver" {
			t.Fatalf("a0 joined %s, want silver", p.Tier)
		}
		keys, err := f.rdb.Keys(f.ctx, f.ns+":*pp:*").Result()
		testsvc.Must(t, err, "Keys")
		if len(keys) != 0 {
			t.Errorf("promotions recorded without protection: %v", keys)
		}
	})
}

// TestProtectedZonesShownAreSettled: for random boards over several weeks
// of a ladder whose upper tiers protect promoted players, the zones every
// board shows just before the close (and who it shows as protected) are
// the outcomes settlement writes.
func TestProtectedZonesShownAreSettled(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b testsvc.Backend) {
		f := newFixture(t, b, func(l *league.League) {
			ts := l.Ladder.Tiers()
			ts[1].ProtectPromoted, ts[2].ProtectPromoted = true, true
			ld, err := tiers.NewLadder(ts)
			testsvc.Must(t, err, "ladder")
			l.Ladder = ld
		})
		rng := rand.New(rand.NewSource(11))
		protected := 0
		for week := 0; week < 5; week++ {
			p := f.period()
			for i := range 60 {
				id := fmt.Sprintf("p%02d", i)
				if week > 0 && rng.Intn(5) == 0 {
					continue // sits this week out
				}
				f.join(id)
				f.score(id, rng.Int63n(50))
			}
			type shown struct {
				zone      tiers.Zone
				protected bool
			}
			live := map[string]shown{}
			pop, err := f.engine.Populations(f.ctx, f.league.ID, league.Period{})
			testsvc.Must(t, err, "Populations")
			for tier, n := range pop {
				for k := 1; k <= f.league.BoardCount(n); k++ {
					bd, err := f.engine.Board(f.ctx, f.league.ID, league.Period{}, league.BoardID{Tier: tier, N: k})
					testsvc.Must(t, err, "Board %s-%d", tier, k)
					for _, e := range bd.Entries {
						live[e.Player] = shown{e.Zone, e.Protected}
					}
				}
			}
			f.clock.After(p.End)
			outcomes := f.settle(p)
			if len(outcomes) != len(live) {
				t.Fatalf("week %d: %d shown, %d settled", week, len(live), len(outcomes))
			}
			for _, o := range outcomes {
				if s := live[o.Player]; s.zone != o.Zone || s.protected != o.Protected {
					t.Errorf("week %d, %s: shown %s (protected %v), settled %s (protected %v)", week, o.Player, s.zone, s.protected, o.Zone, o.Protected)
				}
				if o.Protected {
					protected++
				}
			}
		}
		if protected == 0 {
			t.Fatal("nobody was protected in 5 weeks: the test proves nothing")
		}
	})
}

// TestPromotionProtectionReadBack: the store keeps a protected player as
// the stay the board showed; verifying the settled period from its rows
// finds no difference, and correcting the board (the rank 1 zeroed, which
// moves the protected player up a rank, still in the demotion zone) keeps
// them in their tier.
func TestPromotionProtectionReadBack(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b testsvc.Backend) {
		f := newFixture(t, b, protectLadder(true))
		week3 := protectWeeks(t, f)
		f.clock.After(week3.End)
		pop, err := f.engine.Close(f.ctx, f.league.ID, week3)
		testsvc.Must(t, err, "Close")
		var boards []league.RecordedBoard
		var silver []league.RecordedOutcome
		counts, err := f.engine.Decide(f.ctx, f.league.ID, week3, pop, func(d league.DecidedBoard) error {
			rb := league.RecordedBoard{ID: d.ID, Rewards: map[string]league.EarnedReward{}}
			for k := range d.Outcomes {
				rb.Outcomes = append(rb.Outcomes, d.Row(k))
				if d.ID.Tier == "silver" {
					silver = append(silver, league.RecordedOutcome{Outcome: d.Row(k)})
				}
			}
			boards = append(boards, rb)
			return nil
		})
		testsvc.Must(t, err, "Decide")
		ladder, err := f.engine.PeriodLadder(f.ctx, f.league.ID, week3)
		testsvc.Must(t, err, "PeriodLadder")
		if v := league.Verify(ladder, boards, nil, counts); len(v.Differences) != 0 || v.Outcomes != 4 {
			t.Errorf("verifying the settled rows: %d outcomes, differences %+v", v.Outcomes, v.Differences)
		}
		changes, err := league.Redecide(ladder, silver, nil, "a2", league.CorrectZero)
		testsvc.Must(t, err, "Redecide")
		found := false
		for _, c := range changes {
			if c.Player == "a3" {
				found = true
				if c.After.Rank != 2 || c.After.Zone != "stay" || c.After.TierAfter != "silver" {
					t.Errorf("a3 after the correction: %+v; want rank 2, kept in silver", c.After)
				}
			}
			if c.Player == "a2" && c.After.TierAfter != "bronze" {
				t.Errorf("a2, zeroed, not promoted into silver: %+v; want demoted", c.After)
			}
		}
		if !found {
			t.Errorf("the correction did not move a3: %+v", changes)
		}
	})
}

// TestPromotionProtectionByOverride: a league whose own rules do not
// protect, with overrides that do for weeks 2 and 3, records promotions
// and keeps the promoted players in those weeks.
func TestPromotionProtectionByOverride(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b testsvc.Backend) {
		f := newFixture(t, b, func(l *league.League) {
			protectLadder(false)(l)
			with := testLeague(t, protectLadder(true)).Ladder
			l.Overrides = []league.Override{{Period: monday.AddDate(0, 0, 7), Ladder: with}, {Period: monday.AddDate(0, 0, 14), Ladder: with}}
		})
		week3 := protectWeeks(t, f)
		if st := standing(t, f, "a3"); st.Zone != tiers.Stay || !st.Protected {
			t.Errorf("a3 in week 3: zone %s, protected %v; want stay, protected", st.Zone, st.Protected)
		}
		f.clock.After(week3.End)
		if o := outcomesByPlayer(f.settle(week3))["a3"]; !o.Protected || o.TierAfter != 1 {
			t.Errorf("a3 settled: %+v; want kept in silver", o)
		}
	})
}

// TestClusterPromotionProtection: on Redis Cluster, in leagues over several
// slots, the join that records a promotion and the live and settled zones
// that ask for it reach the league's slot (the set shares its hash tag).
func TestClusterPromotionProtection(t *testing.T) {
	rdb := testsvc.Cluster(t, nil)
	ctx := context.Background()
	ns := testsvc.Namespace(t)
	clock := testsvc.NewClock(monday.Add(time.Hour))
	var leagues []*league.League
	for _, id := range []string{"north", "south", "east"} {
		leagues = append(leagues, testLeague(t, protectLadder(true), func(l *league.League) { l.ID = id }))
	}
	e, err := league.Open(ctx, rdb, leagues, league.WithNamespace(ns), league.WithClock(clock.Now))
	testsvc.Must(t, err, "Open on the cluster")
	t.Cleanup(func() {
		rdb.ForEachMaster(context.Background(), func(ctx context.Context, m *redis.Client) error {
			return testsvc.DeleteNamespace(ctx, m, ns)
		})
	})
	settle := func(id string, p league.Period) map[string]tiers.Outcome {
		pop, err := e.Close(ctx, id, p)
		testsvc.Must(t, err, "Close")
		var all []tiers.Outcome
		_, err = e.Decide(ctx, id, p, pop, func(b league.DecidedBoard) error { all = append(all, b.Outcomes...); return nil })
		testsvc.Must(t, err, "Decide")
		testsvc.Must(t, e.Apply(ctx, id, p, all), "Apply")
		testsvc.Must(t, e.MarkSettled(ctx, id, p), "MarkSettled")
		return outcomesByPlayer(all)
	}
	play := func(id string, scores map[string]int64) {
		for player, v := range scores {
			_, err := e.Join(ctx, id, league.JoinRequest{Player: player, Name: player})
			testsvc.Must(t, err, "Join")
			_, err = e.Score(ctx, id, league.ScoreWrite{Player: player, Value: v})
			testsvc.Must(t, err, "Score")
		}
	}
	week1, err := e.Current("north")
	testsvc.Must(t, err, "Current")
	for _, l := range leagues {
		play(l.ID, map[string]int64{"a0": 100, "a1": 90, "a2": 80, "a3": 70, "a4": 60})
	}
	clock.After(week1.End)
	for _, l := range leagues {
		settle(l.ID, week1)
	}
	week2, err := e.Current("north")
	testsvc.Must(t, err, "Current")
	for _, l := range leagues {
		play(l.ID, map[string]int64{"a0": 50, "a1": 40}) // both promoted into silver: a1 ranked in the demotion zone
		st, err := e.Standing(ctx, l.ID, "a1")
		testsvc.Must(t, err, "Standing")
		if st.Tier != "silver" || st.Zone != tiers.Stay || !st.Protected {
			t.Errorf("%s: a1 in %s, zone %s, protected %v; want silver, stay, protected", l.ID, st.Tier, st.Zone, st.Protected)
		}
	}
	clock.After(week2.End)
	for _, l := range leagues {
		if o := settle(l.ID, week2)["a1"]; !o.Protected || o.TierAfter != 1 {
			t.Errorf("%s: a1 settled %+v; want kept in silver", l.ID, o)
		}
	}
}
