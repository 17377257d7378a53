package league_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/league-engine/league/inmem"
	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/league"
)

// mod runs a moderation by "ops" that must succeed.
func (f *fixture) mod(player string, action league.ModAction, edit ...func(*league.Moderation)) league.ModResult {
	f.tb.Helper()
	m := league.Moderation{Player: player, Action: action, Actor: "ops", Reason: "test: " + string(action)}
	for _, e := range edit {
		e(&m)
	}
	r, err := f.engine.Moderate(f.ctx, f.league.ID, m)
	if err != nil {
		f.tb.Fatalf("Moderate(%s %s): %v", action, player, err)
	}
	return r
}

// boardOf returns the players of board 1 of the current period, by rank.
func (f *fixture) boardOf(tier string) []string {
	f.tb.Helper()
	b, err := f.engine.Board(f.ctx, f.league.ID, league.Period{}, league.BoardID{Tier: tier, N: 1})
	if err != nil {
		f.tb.Fatalf("Board: %v", err)
	}
	var out []string
	for i, e := range b.Entries {
		if e.Rank != i+1 {
			f.tb.Fatalf("board %v: entry %d has rank %d", out, i, e.Rank)
		}
		out = append(out, e.Player)
	}
	return out
}

func (f *fixture) standing(player string) league.Standing {
	f.tb.Helper()
	s, err := f.engine.Standing(f.ctx, f.league.ID, player)
	if err != nil {
		f.tb.Fatalf("Standing(%s): %v", player, err)
	}
	return s
}

func (f *fixture) waiting() int64 {
	f.tb.Helper()
	n, err := f.engine.WaitingActions(f.ctx, f.league.ID)
	if err != nil {
		f.tb.Fatal(err)
	}
	return n
}

func wantErrCode(t testing.TB, err error, code league.Code, what string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: no error, want %s", what, code)
	}
	if got := league.ErrorCode(err); got != code {
		t.Fatalf("%s: %s (%v), want %s", what, got, err, code)
	}
}

func TestModerateHide(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b testsvc.Backend) {
		f := newFixture(t, b)
		for i, p := range []string{"a", "b", "c", "d"} {
			f.join(p)
			f.score(p, int64(40-10*i))
		}
		r := f.mod("b", league.Hide)
		if !r.Changed || r.Record == nil || r.Record.ID == "" || r.Period != f.period() ||
			r.Before != (league.PlayerState{Board: league.Ranked, Score: 30}) || r.After != (league.PlayerState{Board: league.Hidden, Score: 30}) {
			t.Fatalf("hide: %+v", r)
		}
		if a := r.Record; a.Actor != "ops" || a.Reason != "test: hide" || a.Action != league.Hide || a.Player != "b" ||
			!a.Period.Equal(f.period().Start) || !a.At.Equal(f.clock.Now()) {
			t.Fatalf("hide's record: %+v", a)
		}
		if got := f.boardOf("bronze"); !reflect.DeepEqual(got, []string{"a", "c", "d"}) {
			t.Fatalf("board after hide: %v", got)
		}
		if s := f.standing("c"); s.Rank != 2 || s.BoardSize != 3 || s.Gap != 20 {
			t.Fatalf("c after b hidden: rank %d of %d gap %d, want 2 of 3 gap 20", s.Rank, s.BoardSize, s.Gap)
		}
		if s := f.standing("b"); !s.Joined || s.Moderation != league.Hidden || s.Rank != 0 || s.Score != 30 || s.BoardSize != 3 || s.Board.String() != "bronze-1" {
			t.Fatalf("b's own standing while hidden: %+v", s)
		}
		sts, errs, err := f.engine.Standings(f.ctx, "weekly", []string{"a", "b"})
		if err != nil || errs[0] != nil || errs[1] != nil || sts[1].Moderation != league.Hidden || sts[0].BoardSize != 3 {
			t.Fatalf("Standings: %+v %v %v", sts, errs, err)
		}
		if st, p, err := f.engine.PlayerModeration(f.ctx, "weekly", "b"); err != nil || st != (league.PlayerState{Board: league.Hidden, Score: 30}) || p != f.period() {
			t.Fatalf("PlayerModeration(b): %+v %v %v", st, p, err)
		}

		// The hidden player's writes count nowhere, and change nothing.
		before := f.dump()
		for _, w := range []league.ScoreWrite{{Player: "b", Value: 5}, {Player: "b", Value: 5, RequestID: "r1"}} {
			_, err := f.engine.Score(f.ctx, "weekly", w)
			wantErrCode(t, err, league.Moderated, "a hidden player's write")
			if !errors.Is(err, league.ErrModerated) || !strings.Contains(err.Error(), "hidden") {
				t.Fatalf("a hidden player's write: %v", err)
			}
		}
		if after := f.dump(); !reflect.DeepEqual(before, after) {
			t.Fatalf("a refused write changed Redis:\n%v\n%v", before, after)
		}

		// Again: nothing to do, nothing recorded.
		if r := f.mod("b", league.Hide); r.Changed || r.Record != nil || r.After.Board != league.Hidden {
			t.Fatalf("hide again: %+v", r)
		}
		if n := f.waiting(); n != 1 {
			t.Fatalf("%d actions wait in the audit stream, want 1 (hide, once)", n)
		}
		if after := f.dump(); !reflect.DeepEqual(before, after) {
			t.Fatalf("a second hide changed Redis")
		}

		// Unhide puts the entry back as it was: same score, same tie.
		r = f.mod("b", league.Unhide)
		if !r.Changed || r.After != (league.PlayerState{Board: league.Ranked, Score: 30}) {
			t.Fatalf("unhide: %+v", r)
		}
		if got := f.boardOf("bronze"); !reflect.DeepEqual(got, []string{"a", "b", "c", "d"}) {
			t.Fatalf("board after unhide: %v", got)
		}
		if s := f.score("b", 5); s.Score != 35 || s.Rank != 2 || s.BoardSize != 4 {
			t.Fatalf("b's write after unhide: %+v", s)
		}
		if r := f.mod("b", league.Unhide); r.Changed {
			t.Fatalf("unhide of a ranked player: %+v", r)
		}
		if n := f.waiting(); n != 2 {
			t.Fatalf("%d actions wait, want 2", n)
		}
	})
}

func TestModerateRemoveAndSetScore(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b testsvc.Backend) {
		f := newFixture(t, b)
		for i, p := range []string{"a", "b", "c"} {
			f.join(p)
			f.score(p, int64(10*(i+1)))
		}
		if r := f.mod("a", league.SetScore, func(m *league.Moderation) { m.Score = 50 }); !r.Changed || r.Before.Score != 10 || r.After.Score != 50 {
			t.Fatalf("set-score 50: %+v", r)
		}
		if got := f.boardOf("bronze"); !reflect.DeepEqual(got, []string{"a", "c", "b"}) {
			t.Fatalf("board after set-score: %v", got)
		}
		if r := f.mod("a", league.SetScore, func(m *league.Moderation) { m.Score = 50 }); r.Changed {
			t.Fatalf("set-score to the same score: %+v", r)
		}
		if r := f.mod("a", league.SetScore); !r.Changed || r.After.Score != 0 {
			t.Fatalf("set-score 0: %+v", r)
		}
		if got := f.boardOf("bronze"); !reflect.DeepEqual(got, []string{"c", "b", "a"}) {
			t.Fatalf("board after zeroing a: %v", got)
		}

		before := f.dump()
		for _, m := range []league.Moderation{
			{Player: "a", Action: league.SetScore, Score: f.league.MaxScore + 1},
			{Player: "a", Action: league.SetScore, Score: -1},
			{Player: "a", Action: league.Hide, Score: 3},
			{Player: "a", Action: league.Hide, For: time.Hour},
		} {
			m.Actor, m.Reason = "ops", "bad"
			_, err := f.engine.Moderate(f.ctx, "weekly", m)
			wantErrCode(t, err, league.Invalid, fmt.Sprintf("%+v", m))
		}
		if after := f.dump(); !reflect.DeepEqual(before, after) {
			t.Fatalf("refused moderations changed Redis")
		}

		if r := f.mod("c", league.Remove); !r.Changed || r.After != (league.PlayerState{Board: league.Removed, Score: 30}) {
			t.Fatalf("remove: %+v", r)
		}
		if got := f.boardOf("bronze"); !reflect.DeepEqual(got, []string{"b", "a"}) {
			t.Fatalf("board after remove: %v", got)
		}
		before = f.dump()
		for _, a := range []league.ModAction{league.Unhide, league.Hide, league.SetScore} {
			_, err := f.engine.Moderate(f.ctx, "weekly", league.Moderation{Player: "c", Action: a, Actor: "ops", Reason: "x"})
			wantErrCode(t, err, league.Conflict, string(a)+" of a removed player")
		}
		if r := f.mod("c", league.Remove); r.Changed {
			t.Fatalf("remove again: %+v", r)
		}
		if after := f.dump(); !reflect.DeepEqual(before, after) {
			t.Fatalf("refused moderations of a removed player changed Redis")
		}
		// A removed player's join is their first placement; their writes count nowhere.
		if p := f.join("c"); !p.Rejoined {
			t.Fatalf("join of a removed player: %+v", p)
		}
		_, err := f.engine.Score(f.ctx, "weekly", league.ScoreWrite{Player: "c", Value: 1})
		wantErrCode(t, err, league.Moderated, "a removed player's write")
		// Hidden, then removed: for good.
		f.mod("b", league.Hide)
		if r := f.mod("b", league.Remove); !r.Changed || r.Before.Board != league.Hidden || r.After.Board != league.Removed || r.After.Score != 20 {
			t.Fatalf("remove of a hidden player: %+v", r)
		}
		// set-score of a hidden player sets the score kept for them.
		f.mod("a", league.Hide)
		if r := f.mod("a", league.SetScore, func(m *league.Moderation) { m.Score = 7 }); !r.Changed || r.After != (league.PlayerState{Board: league.Hidden, Score: 7}) {
			t.Fatalf("set-score of a hidden player: %+v", r)
		}
		f.mod("a", league.Unhide)
		if s := f.standing("a"); s.Score != 7 || s.Rank != 1 || s.BoardSize != 1 {
			t.Fatalf("a after unhide: %+v", s)
		}
	})
}

func TestModerateBan(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b testsvc.Backend) {
		f := newFixture(t, b)
		week1 := f.period()
		for i, p := range []string{"a", "b", "c"} {
			f.join(p)
			f.score(p, int64(10*(i+1)))
		}
		r := f.mod("a", league.Ban, func(m *league.Moderation) { m.For = 10 * 24 * time.Hour })
		ends := f.clock.Now().Add(10 * 24 * time.Hour)
		if !r.Changed || r.Before != (league.PlayerState{Board: league.Ranked, Score: 10}) ||
			r.After != (league.PlayerState{Board: league.BannedBy, Score: 10, BannedUntil: ends}) {
			t.Fatalf("ban: %+v", r)
		}
		if got := f.boardOf("bronze"); !reflect.DeepEqual(got, []string{"c", "b"}) {
			t.Fatalf("board after ban: %v", got)
		}
		_, err := f.engine.Join(f.ctx, "weekly", league.JoinRequest{Player: "a", Name: "A"})
		wantErrCode(t, err, league.Banned, "a banned player's join")
		var retry interface{ RetryAfter() time.Duration }
		if !errors.As(err, &retry) || retry.RetryAfter() != 10*24*time.Hour || !strings.Contains(err.Error(), ends.Format(time.RFC3339)) {
			t.Fatalf("the ban's error names no end: %v", err)
		}
		_, err = f.engine.Moderate(f.ctx, "weekly", league.Moderation{Player: "a", Action: league.Unhide, Actor: "ops", Reason: "x"})
		wantErrCode(t, err, league.Conflict, "unhide of a player a ban took off")

		// Banning a banned player again moves the end, and is recorded.
		until := f.clock.Now().Add(20 * 24 * time.Hour)
		if r := f.mod("a", league.Ban, func(m *league.Moderation) { m.Until = until }); !r.Changed || !r.After.BannedUntil.Equal(until) || r.After.Board != league.BannedBy {
			t.Fatalf("ban until: %+v", r)
		}
		if r := f.mod("a", league.Ban, func(m *league.Moderation) { m.Until = until }); r.Changed {
			t.Fatalf("the same ban again: %+v", r)
		}

		// The next period: still banned; b, who has not joined it, can be banned too.
		f.clock.After(week1.End)
		f.settle(week1)
		_, err = f.engine.Join(f.ctx, "weekly", league.JoinRequest{Player: "a", Name: "A"})
		wantErrCode(t, err, league.Banned, "a banned player's join in the next period")
		_, err = f.engine.Moderate(f.ctx, "weekly", league.Moderation{Player: "b", Action: league.Hide, Actor: "ops", Reason: "x"})
		wantErrCode(t, err, league.PeriodClosed, "hide of a player whose period ended")
		if r := f.mod("b", league.Ban, func(m *league.Moderation) { m.For = time.Hour }); !r.Changed || r.After.Board != league.Absent || r.Record.Period != (time.Time{}) {
			t.Fatalf("ban of a player not in the period: %+v", r)
		}
		_, err = f.engine.Join(f.ctx, "weekly", league.JoinRequest{Player: "b", Name: "B"})
		wantErrCode(t, err, league.Banned, "b's join")
		f.clock.Add(61 * time.Minute) // b's ban ends by itself
		if p := f.join("b"); p.Rejoined {
			t.Fatalf("b's join after the ban: %+v", p)
		}
		if st, _, err := f.engine.PlayerModeration(f.ctx, "weekly", "b"); err != nil || !st.BannedUntil.IsZero() || st.Board != league.Ranked {
			t.Fatalf("b after the ban: %+v %v", st, err)
		}

		// Unban: a joins again.
		if r := f.mod("a", league.Unban); !r.Changed || !r.After.BannedUntil.IsZero() || r.After.Board != league.Absent {
			t.Fatalf("unban: %+v", r)
		}
		if r := f.mod("a", league.Unban); r.Changed {
			t.Fatalf("unban again: %+v", r)
		}
		if p := f.join("a"); p.Tier != "bronze" {
			t.Fatalf("a's join after unban: %+v", p)
		}
		// A ban of a player in the period takes them off; unban puts them back.
		f.score("a", 5)
		f.mod("a", league.Ban, func(m *league.Moderation) { m.For = time.Hour })
		if got := f.boardOf("bronze"); !reflect.DeepEqual(got, []string{"b"}) {
			t.Fatalf("board after banning a: %v", got)
		}
		if r := f.mod("a", league.Unban); r.After != (league.PlayerState{Board: league.Ranked, Score: 5}) {
			t.Fatalf("unban of a player in the period: %+v", r)
		}
		if got := f.boardOf("bronze"); !reflect.DeepEqual(got, []string{"a", "b"}) {
			t.Fatalf("board after unbanning a: %v", got)
		}

		// Bad bans write nothing.
		before := f.dump()
		for _, m := range []league.Moderation{
			{Player: "a", Action: league.Ban},
			{Player: "a", Action: league.Ban, For: time.Hour, Until: f.clock.Now().Add(time.Hour)},
			{Player: "a", Action: league.Ban, Until: f.clock.Now().Add(-time.Second)},
			{Player: "a", Action: league.Ban, For: -time.Hour},
			{Player: "a", Action: league.Ban, For: time.Millisecond},
			{Player: "a", Action: league.Ban, For: league.MaxBan + time.Hour},
			{Player: "a", Action: league.Unban, For: time.Hour},
		} {
			m.Actor, m.Reason = "ops", "bad"
			_, err := f.engine.Moderate(f.ctx, "weekly", m)
			wantErrCode(t, err, league.Invalid, fmt.Sprintf("%+v", m))
		}
		if after := f.dump(); !reflect.DeepEqual(before, after) {
			t.Fatalf("refused bans changed Redis")
		}
	})
}

func TestParseBanDuration(t *testing.T) {
	for s, want := range map[string]time.Duration{"90m": 90 * time.Minute, "12h": 12 * time.Hour, "7d": 7 * 24 * time.Hour, "1s": time.Second, "36500d": league.MaxBan} {
		if got, err := league.ParseBanDuration("duration", s); err != nil || got != want {
			t.Errorf("ParseBanDuration(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	for _, s := range []string{"", "0s", "-1h", "1ms", "7", "d", "0d", "-3d", "36501d", "1.5d", "99999999999999999999d", "forever"} {
		if _, err := league.ParseBanDuration("duration", s); league.ErrorCode(err) != league.Invalid || !strings.HasPrefix(err.Error(), "duration: ") {
			t.Errorf("ParseBanDuration(%q): %v, want an invalid duration", s, err)
		}
	}
}

func TestModerateRefusals(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b testsvc.Backend) {
		f := newFixture(t, b)
		week1 := f.period()
		f.join("a")
		f.join("old")
		f.clock.After(week1.End)
		f.settle(week1)
		f.join("a")
		cur := f.period()
		ok := league.Moderation{Player: "a", Action: league.Hide, Actor: "ops", Reason: "why"}
		before := f.dump()
		for _, tc := range []struct {
			league string
			edit   func(*league.Moderation)
			code   league.Code
		}{
			{"nope", nil, league.NotFound},
			{"weekly", func(m *league.Moderation) { m.Player = "" }, league.Invalid},
			{"weekly", func(m *league.Moderation) { m.Player = "has space" }, league.Invalid},
			{"weekly", func(m *league.Moderation) { m.Player = "ghost" }, league.NotFound},
			{"weekly", func(m *league.Moderation) { m.Player = "ghost"; m.Action = league.Ban; m.For = time.Hour }, league.NotFound},
			{"weekly", func(m *league.Moderation) { m.Reason = "" }, league.Invalid},
			{"weekly", func(m *league.Moderation) { m.Reason = "   " }, league.Invalid},
			{"weekly", func(m *league.Moderation) { m.Reason = strings.Repeat("x", league.MaxReasonLen+1) }, league.Invalid},
			{"weekly", func(m *league.Moderation) { m.Actor = "" }, league.Invalid},
			{"weekly", func(m *league.Moderation) { m.Action = "delete" }, league.Invalid},
			{"weekly", func(m *league.Moderation) { m.Player = "old" }, league.PeriodClosed},
			{"weekly", func(m *league.Moderation) { m.Period = week1.ID() }, league.PeriodClosed},
			{"weekly", func(m *league.Moderation) { m.Period = cur.End.Format("20060102T150405Z") }, league.Invalid},
			{"weekly", func(m *league.Moderation) { m.Period = "20261117T000000Z" }, league.NotFound},
			{"weekly", func(m *league.Moderation) { m.Period = "soon" }, league.Invalid},
		} {
			m := ok
			if tc.edit != nil {
				tc.edit(&m)
			}
			_, err := f.engine.Moderate(f.ctx, tc.league, m)
			wantErrCode(t, err, tc.code, fmt.Sprintf("%s %+v", tc.league, m))
		}
		if after := f.dump(); !reflect.DeepEqual(before, after) {
			t.Fatalf("refused moderations changed Redis")
		}
		if r := f.mod("a", league.Hide, func(m *league.Moderation) { m.Period = cur.ID() }); !r.Changed {
			t.Fatalf("hide naming the current period: %+v", r)
		}
	})
}

// TestModerateSettlement: a hidden player is decided nowhere (no outcome,
// no promotion slot, no reward; they keep their tier), and a join that
// decides the period early agrees with the settlement.
func TestModerateSettlement(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b testsvc.Backend) {
		f := newFixture(t, b)
		week1 := f.period()
		for i := 0; i < 10; i++ {
			p := fmt.Sprintf("p%d", i)
			f.join(p)
			f.score(p, int64(100-10*i))
		}
		f.mod("p0", league.Hide)
		f.mod("p5", league.Remove)
		pv, err := f.engine.Preview(f.ctx, "weekly", league.PreviewRequest{Limit: 100})
		testsvc.Must(t, err, "Preview")
		if pv.Summary.Players != 8 || pv.Summary.Moderated != 2 || pv.Summary.Tiers[0].Moderated != 2 || pv.Summary.Tiers[0].After != 9 {
			t.Fatalf("preview: %+v", pv.Summary)
		}

		f.clock.After(week1.End)
		// p0 and p1 join before the settlement: their tiers are decided from
		// the frozen board, as the settlement will decide them.
		early0, early1 := f.join("p0"), f.join("p1")
		if early0.Tier != "bronze" || len(early0.Rewards) != 0 {
			t.Fatalf("hidden p0's early join: %+v", early0)
		}
		// 8 on the board: 20% promotes 1 (p1, rank 1), ranks 1-3 earn gems.
		if early1.Tier != "silver" || len(early1.Rewards) != 1 || early1.Rewards[0].Rank != 1 {
			t.Fatalf("p1's early join: %+v", early1)
		}

		pop, err := f.engine.Close(f.ctx, "weekly", week1)
		testsvc.Must(t, err, "Close")
		var got []string
		counts, err := f.engine.Decide(f.ctx, "weekly", week1, pop, func(b league.DecidedBoard) error {
			for k := range b.Outcomes {
				row := b.Row(k)
				r, rewarded := b.Reward(k)
				got = append(got, fmt.Sprintf("%s:%d:%s:%v", row.Player, row.Rank, row.TierAfter, rewarded && r.Rank == row.Rank))
			}
			return nil
		})
		testsvc.Must(t, err, "Decide")
		want := []string{"p1:1:silver:true", "p2:2:bronze:true", "p3:3:bronze:true", "p4:4:bronze:false",
			"p6:5:bronze:false", "p7:6:bronze:false", "p8:7:bronze:false", "p9:8:bronze:false"}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("decided:\n got %v\nwant %v", got, want)
		}
		if c := counts[0]; c.Players != 8 || c.Moderated != 2 || c.Promoted != 1 || c.Rewarded != 3 {
			t.Fatalf("bronze's counts: %+v", c)
		}
		f.settle(week1)
		if p := f.join("p5"); p.Tier != "bronze" || len(p.Rewards) != 0 {
			t.Fatalf("removed p5's join: %+v", p)
		}
		if p := f.join("p2"); p.Tier != "bronze" || len(p.Rewards) != 1 || p.Rewards[0].Rank != 2 {
			t.Fatalf("p2's join: %+v", p)
		}
	})
}

// failingLog fails every RecordActions while fail is set.
type failingLog struct {
	league.AuditLog
	mu   sync.Mutex
	fail bool
}

func (l *failingLog) RecordActions(ctx context.Context, as []league.Action) error {
	l.mu.Lock()
	fail := l.fail
	l.mu.Unlock()
	if fail {
		return league.Errorf(league.Unavailable, "store down")
	}
	return l.AuditLog.RecordActions(ctx, as)
}

// TestRecordActions: every action reaches the store once, however the
// copies go (a store down, copiers racing, a copier dying after the store
// committed).
func TestRecordActions(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b testsvc.Backend) {
		f := newFixture(t, b)
		store := inmem.New()
		log := &failingLog{AuditLog: store, fail: true}
		for i := 0; i < 12; i++ {
			p := fmt.Sprintf("p%02d", i)
			f.join(p)
			f.mod(p, league.Hide, func(m *league.Moderation) { m.Reason = "reason " + p })
			f.clock.Add(time.Millisecond)
		}
		f.mod("p00", league.Hide) // unchanged: nothing to record
		if _, err := f.engine.RecordActions(f.ctx, "weekly", log); league.ErrorCode(err) != league.Unavailable {
			t.Fatalf("RecordActions with the store down: %v", err)
		}
		if n := f.waiting(); n != 12 {
			t.Fatalf("%d actions wait after a failed copy, want 12", n)
		}
		log.mu.Lock()
		log.fail = false
		log.mu.Unlock()
		// A copier that died after the store committed: its actions are
		// copied again by the next.
		head, err := f.rdb.XRangeN(f.ctx, f.ns+":{weekly}:y", "-", "+", 5).Result()
		testsvc.Must(t, err, "XRANGE")
		var dead []league.Action
		for _, m := range head {
			dead = append(dead, league.Action{League: "weekly", ID: m.ID, At: f.clock.Now(), Actor: "ops",
				Reason: m.Values["reason"].(string), Action: league.Hide, Player: m.Values["player"].(string),
				Before: league.PlayerState{Board: league.Ranked}, After: league.PlayerState{Board: league.Hidden}})
		}
		testsvc.Must(t, store.RecordActions(f.ctx, dead), "the dead copier's commit")

		var wg sync.WaitGroup
		copied := make([]int, 4)
		for i := range copied {
			wg.Add(1)
			go func() {
				defer wg.Done()
				n, err := f.engine.RecordActions(f.ctx, "weekly", log)
				if err != nil {
					t.Errorf("RecordActions: %v", err)
				}
				copied[i] = n
			}()
		}
		wg.Wait()
		if n := f.waiting(); n != 0 {
			t.Fatalf("%d actions wait after the copies", n)
		}
		got, err := store.Actions(f.ctx, league.AuditQuery{League: "weekly", Limit: 100})
		testsvc.Must(t, err, "Actions")
		if len(got) != 12 {
			t.Fatalf("the store has %d actions, want 12 (each once)", len(got))
		}
		for i, a := range got {
			want := fmt.Sprintf("p%02d", 11-i)
			if a.Player != want || a.Reason != "reason "+want || a.Actor != "ops" || a.Before.Board != league.Ranked || a.After.Board != league.Hidden {
				t.Fatalf("action %d: %+v, want %s's hide", i, a, want)
			}
		}
		if n, err := f.engine.RecordActions(f.ctx, "weekly", log); n != 0 || err != nil {
			t.Fatalf("RecordActions with nothing waiting: %d, %v", n, err)
		}

		// An entry that is not moderate.lua's is dropped, not retried for ever.
		testsvc.Must(t, f.rdb.XAdd(f.ctx, &redis.XAddArgs{Stream: f.ns + ":{weekly}:y", Values: []any{"junk", "1"}}).Err(), "XADD")
		f.mod("p03", league.Unhide)
		if n, err := f.engine.RecordActions(f.ctx, "weekly", log); n != 1 || err != nil {
			t.Fatalf("RecordActions past a malformed entry: %d, %v", n, err)
		}
		if n := f.waiting(); n != 0 {
			t.Fatalf("%d entries wait after a malformed one", n)
		}
	})
}

// TestClusterModeration: on Redis Cluster, in leagues over several slots,
// every action, the reads and writes it changes, and the audit stream work
// as on one node: every key they touch shares the league's hash tag.
func TestClusterModeration(t *testing.T) {
	rdb := testsvc.Cluster(t, nil)
	ctx := context.Background()
	ns := testsvc.Namespace(t)
	clock := testsvc.NewClock(monday.Add(time.Hour))
	var leagues []*league.League
	for _, id := range []string{"north", "south", "east"} {
		leagues = append(leagues, testLeague(t, func(l *league.League) { l.ID = id }))
	}
	e, err := league.Open(ctx, rdb, leagues, league.WithNamespace(ns), league.WithClock(clock.Now))
	testsvc.Must(t, err, "Open on the cluster")
	t.Cleanup(func() {
		rdb.ForEachMaster(context.Background(), func(ctx context.Context, m *redis.Client) error {
			return testsvc.DeleteNamespace(ctx, m, ns)
		})
	})
	store := inmem.New()
	for _, l := range leagues {
		for _, p := range []string{"a", "b"} {
			_, err := e.Join(ctx, l.ID, league.JoinRequest{Player: p, Name: p})
			testsvc.Must(t, err, "Join")
		}
		for _, m := range []league.Moderation{
			{Player: "a", Action: league.Hide}, {Player: "a", Action: league.SetScore, Score: 4}, {Player: "a", Action: league.Unhide},
			{Player: "b", Action: league.Ban, For: time.Hour}, {Player: "b", Action: league.Unban}, {Player: "b", Action: league.Remove},
		} {
			m.Actor, m.Reason = "ops", "cluster"
			r, err := e.Moderate(ctx, l.ID, m)
			if err != nil || !r.Changed {
				t.Fatalf("%s: %+v: %+v, %v", l.ID, m, r, err)
			}
		}
		_, err := e.Score(ctx, l.ID, league.ScoreWrite{Player: "b", Value: 1})
		wantErrCode(t, err, league.Moderated, "b's write")
		s, err := e.Standing(ctx, l.ID, "a")
		if err != nil || s.Score != 4 || s.Rank != 1 || s.BoardSize != 1 {
			t.Fatalf("%s: a's standing: %+v, %v", l.ID, s, err)
		}
		if n, err := e.RecordActions(ctx, l.ID, store); n != 6 || err != nil {
			t.Fatalf("%s: RecordActions: %d, %v", l.ID, n, err)
		}
	}
}
