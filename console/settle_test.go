package console_test

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/league-engine/league/api"
	"github.com/league-engine/league/console"
	"github.com/league-engine/league/inmem"
	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/league"
	"github.com/league-engine/league/scheduler"
	"github.com/league-engine/league/tiers"
)

// settleFixture is the console's fixture with the league's clock in the
// test's hands, the real scheduler as the server's settler (unless
// noSettler) and its store.
type settleFixture struct {
	*fixture
	clock *testsvc.Clock
	store *inmem.Store
}

// newSettleFixture builds what newFixture does, with a settler: league
// "weekly", bronze promoting 20% of those with a score to silver, rank 1
// of bronze earning 5 gems.
func newSettleFixture(t *testing.T, noSettler bool) *settleFixture {
	t.Helper()
	ns := testsvc.Namespace(t)
	f := &settleFixture{fixture: &fixture{t: t, ctx: t.Context(), rdb: testsvc.Redis(t, ns), ns: ns},
		clock: testsvc.NewClock(monday.Add(time.Hour)), store: inmem.New()}
	quiet := slog.New(slog.NewTextHandler(&testsvc.Log{}, nil))
	ladder, err := tiers.NewLadder([]tiers.Tier{
		{ID: "bronze", Name: "Bronze", Promote: 2000, MinPromoteScore: 1,
			Rewards: []tiers.Band{{From: 1, To: 1, Items: []tiers.Item{{ID: "gems", Qty: 5}}}}},
		{ID: "silver", Name: "Silver", Demote: 2000},
	})
	testsvc.Must(t, err, "NewLadder")
	sched, err := league.ParseSchedule("0 0 * * MON")
	testsvc.Must(t, err, "ParseSchedule")
	l := &league.League{ID: "weekly", BoardSize: 10, Schedule: sched, Ladder: ladder, MaxScore: 1_000_000}
	testsvc.Must(t, l.Init(), "Init")
	f.engine, err = league.Open(f.ctx, f.rdb, []*league.League{l},
		league.WithNamespace(ns), league.WithClock(f.clock.Now), league.WithLogger(quiet))
	testsvc.Must(t, err, "league.Open")
	cfg := api.Config{Engine: f.engine, Store: f.store, Keys: bothKeys, Logger: quiet,
		Console: &console.Config{Redis: f.rdb, Namespace: ns, Now: f.clock.Now}}
	if !noSettler {
		cfg.Settler = scheduler.New(f.engine, f.store, scheduler.WithLogger(quiet))
	}
	f.server = api.New(cfg)
	f.http = httptest.NewServer(f.server.Handler())
	t.Cleanup(f.http.Close)
	f.client = f.http.Client()
	f.client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return f
}

// play has n players join and player i score i.
func (f *settleFixture) play(n int) {
	f.t.Helper()
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("p%02d", i)
		_, err := f.engine.Join(f.ctx, "weekly", league.JoinRequest{Player: id, Name: id})
		testsvc.Must(f.t, err, "Join")
		_, err = f.engine.Score(f.ctx, "weekly", league.ScoreWrite{Player: id, Value: int64(i)})
		testsvc.Must(f.t, err, "Score")
	}
}

// settlements counts the settlements the store holds.
func (f *settleFixture) settlements() []league.Settlement {
	f.t.Helper()
	sts, err := f.store.Settlements(f.ctx, "weekly", 10)
	testsvc.Must(f.t, err, "Settlements")
	return sts
}

const settleForm = `action="/console/leagues/weekly/settle"`

// TestSettlePageForecast: with no period waiting, the page previews the
// current period as a forecast, shows its players, and offers no form; the
// leagues page links to it.
func TestSettlePageForecast(t *testing.T) {
	f := newSettleFixture(t, false)
	f.play(12)
	cookie := f.signin(adminKey)
	if rep := f.get("/console/", cookie); !strings.Contains(rep.body, `href="/console/leagues/weekly/settle"`) {
		t.Errorf("leagues page lacks the link to the settle page: %s", rep.body)
	}
	rep := f.get("/console/leagues/weekly/settle", cookie)
	for _, want := range []string{"decided as if it ended now", "No ended period waits for settlement.",
		// 12 players on two boards of bronze: 20% promotes 2 of the first, nobody of the second (2 players).
		`<td><code>bronze</code></td><td><code>silver</code></td><td class="num">2</td>`,
		`<td><code>bronze-1</code></td><td class="num">1</td><td>p09</td><td class="num">9</td><td><code>bronze</code></td><td><code>silver</code></td><td>promoted</td><td>gems × 5</td>`,
		`<td><code>gems</code></td><td class="num">10</td><td class="num">2</td>`, "Every player, by tier, board and rank"} {
		if !strings.Contains(rep.body, want) {
			t.Errorf("settle page lacks %q: %s", want, rep.body)
		}
	}
	if rep.status != http.StatusOK || strings.Contains(rep.body, settleForm) {
		t.Errorf("got %d, want 200 and no form to settle the running period", rep.status)
	}
	if rep := f.get("/console/leagues/nope/settle", cookie); rep.status != http.StatusNotFound {
		t.Errorf("settle page of an unknown league: got %d, want 404", rep.status)
	}
	if rep := f.get("/console/leagues/weekly/settle?period=next", cookie); rep.status != http.StatusBadRequest || !strings.Contains(rep.body, "period:") {
		t.Errorf("a malformed period: got %d, want 400 naming it: %s", rep.status, rep.body)
	}
}

// TestSettleNow: once the week ended the page previews it, with the form;
// the form refuses without its confirmation, its token, or for a period
// still running, settling nothing; confirmed, it settles the week as
// previewed, and a second click does nothing.
func TestSettleNow(t *testing.T) {
	f := newSettleFixture(t, false)
	week, err := f.engine.Current("weekly")
	testsvc.Must(t, err, "Current")
	f.play(12)
	f.clock.After(week.End)
	cookie := f.signin(adminKey)
	token := f.csrf(cookie)
	rep := f.get("/console/leagues/weekly/settle", cookie)
	for _, want := range []string{"Preview of period <code>" + firstPeriod + "</code>", "waits for settlement", settleForm,
		`name="period" value="` + firstPeriod + `"`} {
		if !strings.Contains(rep.body, want) {
			t.Fatalf("settle page of the ended week lacks %q: %s", want, rep.body)
		}
	}
	preview, err := f.engine.Preview(f.ctx, "weekly", league.PreviewRequest{Period: firstPeriod})
	testsvc.Must(t, err, "Preview")

	for _, c := range []struct {
		name   string
		form   url.Values
		status int
		says   string
	}{
		{"unconfirmed", url.Values{"csrf": {token}, "period": {firstPeriod}}, http.StatusBadRequest, "Nothing was settled: confirm: tick the box"},
		{"no period", url.Values{"csrf": {token}, "confirm": {"yes"}}, http.StatusBadRequest, "Nothing was settled: period: missing"},
		{"running period", url.Values{"csrf": {token}, "confirm": {"yes"}, "period": {"20261123T000000Z"}}, http.StatusConflict, "has not ended"},
		{"no token", url.Values{"confirm": {"yes"}, "period": {firstPeriod}}, http.StatusForbidden, "security token"},
	} {
		t.Run(c.name, func(t *testing.T) {
			rep := f.post("/console/leagues/weekly/settle", c.form, cookie)
			if rep.status != c.status || !strings.Contains(rep.body, c.says) {
				t.Errorf("got %d, want %d saying %q: %s", rep.status, c.status, c.says, rep.body)
			}
			if n := len(f.settlements()); n != 0 {
				t.Errorf("got %d settlements, want none", n)
			}
		})
	}

	confirmed := url.Values{"csrf": {token}, "confirm": {"yes"}, "period": {firstPeriod}}
	rep = f.post("/console/leagues/weekly/settle", confirmed, cookie)
	if rep.status != http.StatusOK || !strings.Contains(rep.body, "Period "+firstPeriod+" is settled: 12 players.") ||
		!strings.Contains(rep.body, "Status <strong>done</strong>") || !strings.Contains(rep.body, "No ended period waits for settlement.") {
		t.Fatalf("settling: got %d, want 200 with the settlement and nothing left waiting: %s", rep.status, rep.body)
	}
	sts := f.settlements()
	counts := []league.TierCount{preview.Summary.Tiers[0].TierCount, preview.Summary.Tiers[1].TierCount}
	if len(sts) != 1 || sts[0].Status != league.StatusDone || fmt.Sprint(sts[0].Tiers) != fmt.Sprint(counts) {
		t.Fatalf("the store holds %+v, want the week done with the preview's counts %+v", sts, counts)
	}
	rep = f.post("/console/leagues/weekly/settle", confirmed, cookie)
	if rep.status != http.StatusOK || !strings.Contains(rep.body, "was settled already") {
		t.Errorf("second click: got %d, want 200 saying it was settled already: %s", rep.status, rep.body)
	}
}

// TestSettleWithoutSettler: a server without a settler previews, says it
// cannot settle and refuses the form with 503.
func TestSettleWithoutSettler(t *testing.T) {
	f := newSettleFixture(t, true)
	week, err := f.engine.Current("weekly")
	testsvc.Must(t, err, "Current")
	f.play(3)
	f.clock.After(week.End)
	cookie := f.signin(adminKey)
	rep := f.get("/console/leagues/weekly/settle", cookie)
	if !strings.Contains(rep.body, "runs no settler") || strings.Contains(rep.body, settleForm) {
		t.Errorf("settle page without a settler: %s", rep.body)
	}
	rep = f.post("/console/leagues/weekly/settle", url.Values{"csrf": {f.csrf(cookie)}, "confirm": {"yes"}, "period": {firstPeriod}}, cookie)
	if rep.status != http.StatusServiceUnavailable || !strings.Contains(rep.body, "Nothing was settled") {
		t.Errorf("settling without a settler: got %d, want 503: %s", rep.status, rep.body)
	}
}
