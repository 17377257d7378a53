package api_test

import (
	"context"
	"fmt"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/league-engine/league/api"
	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/league"
	"github.com/league-engine/league/migrations"
	"github.com/league-engine/league/postgres"
	"github.com/league-engine/league/tiers"
)

// TestArchivedBoardRoute: a settled period's boards, once Redis no longer
// has them, read from Postgres through the same route, as they showed
// before (ranks, names, avatars, scores, zones), with each player's outcome.
func TestArchivedBoardRoute(t *testing.T) {
	pool, url := testsvc.Postgres(t)
	ctx := context.Background()
	_, err := migrations.Apply(ctx, pool)
	testsvc.Must(t, err, "migrations.Apply")
	pg, err := postgres.Open(ctx, url)
	testsvc.Must(t, err, "postgres.Open")
	t.Cleanup(pg.Close)
	f := onRedis(t, withConfig(func(c *api.Config) { c.Store = pg }))

	boards := map[string]bool{}
	for i := range 14 {
		player := fmt.Sprintf("p%02d", i)
		j := f.join(player)
		boards[j["board"].(string)] = true
		if i%3 != 0 {
			f.score(player, int64(i*7%50))
		}
	}
	p := f.period()
	before := map[string]map[string]any{}
	for b := range boards {
		live := f.must("GET", "/v1/leagues/weekly/boards/"+b+"?period="+p.ID(), "")
		if live["source"] != "live" {
			t.Fatalf("%s before expiry: source %v, want live", b, live["source"])
		}
		before[b] = live
	}

	f.clock.After(p.End)
	decided := settle(t, f, pg, p)
	// Redis lets the period's boards go (retention): gone here at once.
	keys, err := f.rdb.Keys(ctx, f.ns+":*").Result()
	testsvc.Must(t, err, "KEYS")
	start := strconv.FormatInt(p.Start.Unix(), 10)
	for _, k := range keys {
		if strings.Contains(k, ":b:"+start+":") || strings.Contains(k, ":i:"+start+":") {
			testsvc.Must(t, f.rdb.Del(ctx, k).Err(), "DEL")
		}
	}

	for b, live := range before {
		arch := f.must("GET", "/v1/leagues/weekly/boards/"+b+"?period="+p.ID(), "")
		if arch["source"] != "archive" {
			t.Fatalf("%s after expiry: source %v, want archive", b, arch["source"])
		}
		for _, k := range []string{"league", "period", "period_end", "board", "tier"} {
			if arch[k] != live[k] {
				t.Errorf("%s: %s is %v, was %v", b, k, arch[k], live[k])
			}
		}
		got, was := arch["entries"].([]any), live["entries"].([]any)
		if len(got) != len(was) {
			t.Fatalf("%s: %d entries, were %d", b, len(got), len(was))
		}
		for i := range got {
			g, w := got[i].(map[string]any), was[i].(map[string]any)
			outcome := g["outcome"].(map[string]any)
			delete(g, "outcome")
			if !reflect.DeepEqual(g, w) {
				t.Errorf("%s entry %d: archive %v, live %v", b, i, g, w)
			}
			o := decided[w["player_id"].(string)]
			rewards := []any{}
			for _, it := range o.rewards {
				rewards = append(rewards, map[string]any{"id": it.ID, "qty": float64(it.Qty)})
			}
			want := map[string]any{"tier_before": o.TierBefore, "tier_after": o.TierAfter, "rewards": rewards}
			if !reflect.DeepEqual(outcome, want) {
				t.Errorf("%s entry %d outcome: got %v, want %v", b, i, outcome, want)
			}
		}
	}

	// The period's audit, a page at a time: every player once, in ladder
	// order, with the claim of a reward a join delivered.
	var claimed string
	for player, o := range decided {
		if o.rewards != nil {
			claimed = player
			testsvc.Must(t, pg.RecordClaims(ctx, []league.Claim{{League: "weekly", Player: player, Earned: p.Start, At: p.End.Add(time.Minute)}}), "RecordClaims")
			break
		}
	}
	seen := map[string]bool{}
	after, pages := "", 0
	for {
		page := f.must("GET", "/v1/admin/leagues/weekly/outcomes?period="+p.ID()+"&limit=5"+after, "")
		pages++
		for _, r := range page["rows"].([]any) {
			row := r.(map[string]any)
			player := row["player_id"].(string)
			o := decided[player]
			if seen[player] || row["board"] != fmt.Sprintf("%s-%d", o.TierBefore, o.Board) || row["rank"] != float64(o.Rank) ||
				row["tier_after"] != o.TierAfter || row["score"] != float64(o.Score) || row["move"] == nil ||
				(len(row["rewards"].([]any)) > 0) != (o.rewards != nil) || (row["claimed_at"] != nil) != (player == claimed) {
				t.Fatalf("page %d row %v; decided %+v", pages, row, o)
			}
			seen[player] = true
		}
		next, ok := page["next"].(string)
		if !ok {
			break
		}
		after = "&after=" + next
	}
	if len(seen) != len(decided) || pages != 3 {
		t.Fatalf("the audit's pages showed %d players in %d pages, want %d in 3", len(seen), pages, len(decided))
	}

	for _, tc := range []struct {
		name, path string
		status     int
		says       string
	}{
		{"audit without a period", "/v1/admin/leagues/weekly/outcomes", http.StatusBadRequest, "period: is required"},
		{"audit of a period never settled", "/v1/admin/leagues/weekly/outcomes?period=20260105T000000Z", http.StatusNotFound, "20260105T000000Z was never settled"},
		{"audit limit 0", "/v1/admin/leagues/weekly/outcomes?period=" + p.ID() + "&limit=0", http.StatusBadRequest, "limit: 0 is outside 1..1000"},
		{"audit after nonsense", "/v1/admin/leagues/weekly/outcomes?period=" + p.ID() + "&after=x", http.StatusBadRequest, "after"},
		{"never settled, in Redis neither", "/v1/leagues/weekly/boards/bronze-1?period=20260105T000000Z", http.StatusNotFound,
			`league "weekly" has no board bronze-1 in period 20260105T000000Z, and period 20260105T000000Z was never settled`},
		{"no such board in the archive", "/v1/leagues/weekly/boards/bronze-9?period=" + p.ID(), http.StatusNotFound,
			"had no board bronze-9 in the settled period " + p.ID()},
		{"not a period", "/v1/leagues/weekly/boards/bronze-1?period=yesterday", http.StatusBadRequest, "period"},
		{"unknown league", "/v1/leagues/nope/boards/bronze-1?period=" + p.ID(), http.StatusNotFound, `"nope"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			key := gameKey
			if strings.HasPrefix(tc.path, "/v1/admin/") {
				key = adminKey
			}
			w := f.do("GET", tc.path, "", key)
			_, msg := errorOf(t, w)
			if w.Code != tc.status || !strings.Contains(msg, tc.says) {
				t.Fatalf("status %d %q, want %d saying %q", w.Code, msg, tc.status, tc.says)
			}
		})
	}
}

// decidedOutcome is what settle decided for a player.
type decidedOutcome struct {
	league.Outcome
	rewards []tiers.Item
}

// settle settles period p into store as the scheduler does.
func settle(t *testing.T, f *fixture, store league.Store, p league.Period) map[string]decidedOutcome {
	t.Helper()
	pop, err := f.engine.Close(f.ctx, "weekly", p)
	testsvc.Must(t, err, "Close")
	st, err := store.BeginSettlement(f.ctx, league.Settlement{League: "weekly", Period: p.Start, PeriodEnd: p.End, StartedAt: time.Now()})
	testsvc.Must(t, err, "BeginSettlement")
	var (
		all      []tiers.Outcome
		outcomes []league.Outcome
		rewards  []league.EarnedReward
		decided  = map[string]decidedOutcome{}
	)
	st.Tiers, err = f.engine.Decide(f.ctx, "weekly", p, pop, func(b league.DecidedBoard) error {
		for k := range b.Outcomes {
			o := decidedOutcome{Outcome: b.Row(k)}
			if r, ok := b.Reward(k); ok {
				rewards = append(rewards, r)
				o.rewards = r.Items
			}
			outcomes = append(outcomes, o.Outcome)
			decided[o.Player] = o
		}
		all = append(all, b.Outcomes...)
		return nil
	})
	testsvc.Must(t, err, "Decide")
	st.Players = len(outcomes)
	testsvc.Must(t, store.WriteOutcomes(f.ctx, st, outcomes, rewards), "WriteOutcomes")
	testsvc.Must(t, f.engine.Apply(f.ctx, "weekly", p, all), "Apply")
	testsvc.Must(t, f.engine.MarkSettled(f.ctx, "weekly", p), "MarkSettled")
	testsvc.Must(t, store.Advance(f.ctx, "weekly", p.Start, league.StatusWritten, league.StatusApplied), "Advance")
	testsvc.Must(t, store.Advance(f.ctx, "weekly", p.Start, league.StatusApplied, league.StatusDone), "Advance")
	return decided
}
