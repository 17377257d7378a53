package client_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/league-engine/league/client"
)

// TestRoundTrip drives the service through the client: join, score,
// standing and board of a league, then a leaderboard's write and reads.
func TestRoundTrip(t *testing.T) {
	ctx := context.Background()
	c := client.New(baseURL, gameKey)

	p, err := c.Join(ctx, "cup", client.JoinRequest{PlayerID: "rt/1", Name: "Round Trip", Avatar: "a1"})
	if err != nil {
		t.Fatal(err)
	}
	if p.League != "cup" || p.Tier != "bronze" || p.Slot < 1 || p.Rejoined {
		t.Fatalf("got placement %+v, want a first join to bronze", p)
	}
	again, err := c.Join(ctx, "cup", client.JoinRequest{PlayerID: "rt/1", Name: "Round Trip"})
	if err != nil || !again.Rejoined || again.Board != p.Board {
		t.Fatalf("got %+v, %v; want the same placement, rejoined", again, err)
	}
	if core, err := c.Join(ctx, "cup", client.JoinRequest{PlayerID: "rt/core", Name: "Core", Cohort: "core"}); err != nil ||
		core.Board != "bronze.core-1" {
		t.Fatalf("a join in cohort core: %+v, %v; want board bronze.core-1", core, err)
	}
	r, err := c.Score(ctx, "cup", client.ScoreWrite{PlayerID: "rt/1", Value: 40, RequestID: "rt-write-1"})
	if err != nil || r.Score != 40 || r.Rank != 1 || r.Board != p.Board || r.Replayed {
		t.Fatalf("got %+v, %v; want score 40, rank 1", r, err)
	}
	replay, err := c.Score(ctx, "cup", client.ScoreWrite{PlayerID: "rt/1", Value: 40, RequestID: "rt-write-1"})
	if err != nil || !replay.Replayed || replay.Score != 40 {
		t.Fatalf("got %+v, %v; want the first write's result, replayed", replay, err)
	}
	pl, err := c.Player(ctx, "cup", "rt/1") // a slash travels path-escaped
	if err != nil || pl.PlayerID != "rt/1" || !pl.Joined || pl.Score != 40 || pl.Board == nil || *pl.Board != p.Board {
		t.Fatalf("got %+v, %v; want rt/1 joined with 40", pl, err)
	}
	st, err := c.Standings(ctx, "cup", []string{"rt/1", "rt-never", "bad id"})
	if err != nil || len(st) != 3 {
		t.Fatalf("got %+v, %v; want 3 standings", st, err)
	}
	if st[0].Err != nil || st[0].Score != 40 || !errors.Is(st[1].Err, client.ErrNotFound) || !errors.Is(st[2].Err, client.ErrInvalid) {
		t.Fatalf("got %+v; want rt/1 with 40, rt-never not found, an invalid id failed", st)
	}
	b, err := c.Board(ctx, "cup", p.Board, "")
	if err != nil || len(b.Entries) == 0 || b.Entries[0].PlayerID != "rt/1" || b.Entries[0].Name != "Round Trip" || b.Period != p.Period {
		t.Fatalf("got board %+v, %v; want rt/1 at the top", b, err)
	}
	b, err = c.Board(ctx, "cup", p.Board, p.Period)
	if err != nil || b.Period != p.Period {
		t.Fatalf("got board %+v, %v of period %s", b, err, p.Period)
	}
	ls, err := c.Leagues(ctx)
	if err != nil || len(ls) != 2 || ls[0].ID != "cup" || ls[1].ID != "weekly" {
		t.Fatalf("got leagues %+v, %v; want cup, weekly", ls, err)
	}
	l, err := c.League(ctx, "cup")
	if err != nil || l.MaxScore != 1000 || len(l.Tiers) != 2 || l.CurrentPeriod.ID != p.Period {
		t.Fatalf("got league %+v, %v", l, err)
	}
	if len(l.Cohorts) != 1 || l.CohortPopulations["bronze"]["core"] < 1 {
		t.Fatalf("got cohorts %v with %v, want core with rt/core", l.Cohorts, l.CohortPopulations)
	}

	w, err := c.Write(ctx, "wins", client.LeaderboardWrite{Member: "w1", Value: 7})
	if err != nil || w.Member != "w1" || len(w.Boards) != 2 || w.Boards[0].Score != 7 || w.RequestID == "" {
		t.Fatalf("got %+v, %v; want w1 with 7 on 2 boards", w, err)
	}
	batch, err := c.WriteBatch(ctx, "wins", []client.LeaderboardWrite{{Member: "w2", Value: 9}, {Member: "w3", Value: 5000}})
	if err != nil || len(batch) != 2 || batch[0].Err != nil || !errors.Is(batch[1].Err, client.ErrOverflow) {
		t.Fatalf("got %+v, %v; want w2 written and w3 overflowing", batch, err)
	}
	top, err := c.Top(ctx, "wins", "all_time", client.BoardQuery{Limit: 10, View: "raw"})
	if err != nil || top.Size != 2 || top.Entries[0].Member != "w2" || top.Entries[1].Member != "w1" {
		t.Fatalf("got top %+v, %v; want w2, w1", top, err)
	}
	around, err := c.Around(ctx, "wins", "day", "w1", client.BoardQuery{Limit: 1})
	if err != nil || len(around.Entries) != 2 || around.Entries[1].Rank != 2 {
		t.Fatalf("got around %+v, %v; want w2 then w1 at rank 2", around, err)
	}
	m, err := c.Member(ctx, "wins", "w1", "")
	if err != nil || len(m.Boards) != 2 || m.Boards[0].Rank != 2 || m.Boards[0].Gap == nil || *m.Boards[0].Gap != 2 {
		t.Fatalf("got member %+v, %v; want rank 2, gap 2", m, err)
	}
	ms, err := c.Members(ctx, "wins", []string{"w2", "bad id"}, []string{"day"}, "raw")
	if err != nil || len(ms) != 2 || ms[0].Boards[0].Rank != 1 || !errors.Is(ms[1].Err, client.ErrInvalid) {
		t.Fatalf("got members %+v, %v", ms, err)
	}
	across, err := c.WriteMany(ctx, []client.LeaderboardsWrite{
		{Leaderboard: "wins", LeaderboardWrite: client.LeaderboardWrite{Member: "w1", Value: 1}},
		{Leaderboard: "peak", LeaderboardWrite: client.LeaderboardWrite{Member: "rt-k", Value: 1}},
	})
	if err != nil || across[0].Leaderboard != "wins" || across[0].Boards[0].Score != 8 || across[1].Leaderboard != "peak" || across[1].Queued == nil {
		t.Fatalf("got %+v, %v; want w1 at 8 on wins, rt-k queued on peak", across, err)
	}
	lbs, err := c.Leaderboards(ctx)
	if err != nil || len(lbs) != 4 {
		t.Fatalf("got %d leaderboards, %v; want 4", len(lbs), err)
	}
	lb, err := c.Leaderboard(ctx, "peak")
	if err != nil || lb.Queue == nil || lb.Queue.MaxLag != 1000 {
		t.Fatalf("got %+v, %v; want peak's queue", lb, err)
	}
}

// Errors the service answers carry its code and status, comparable with
// errors.Is.
func TestErrorCodes(t *testing.T) {
	ctx := context.Background()
	c := client.New(baseURL, gameKey)
	for _, id := range []string{"ec-1", "ec-2"} {
		if _, err := c.Join(ctx, "cup", client.JoinRequest{PlayerID: id, Name: "E"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Score(ctx, "cup", client.ScoreWrite{PlayerID: "ec-2", Value: 1, RequestID: "ec-write-1"}); err != nil {
		t.Fatal(err)
	}
	_, errNotJoined := c.Score(ctx, "cup", client.ScoreWrite{PlayerID: "ec-none", Value: 1})
	_, errOverflow := c.Score(ctx, "cup", client.ScoreWrite{PlayerID: "ec-1", Value: 1001})
	_, errConflict := c.Score(ctx, "cup", client.ScoreWrite{PlayerID: "ec-1", Value: 1, RequestID: "ec-write-1"}) // ec-2's id
	_, errNotFound := c.Board(ctx, "cup", "bronze-999", "")
	_, errUnauthorized := client.New(baseURL, "wrong-key-0123456789").Leagues(ctx)
	_, errForbidden := c.Settlements(ctx, "cup", 0)
	_, errInvalid := c.Top(ctx, "wins", "day", client.BoardQuery{Limit: 5000})
	admin := client.New(baseURL, adminKey)
	_, errPeriodClosed := admin.Moderate(ctx, "cup", "ec-1", client.ActionHide, client.Moderation{Reason: "test", Period: "20200106T000000Z"})
	if _, err := admin.Moderate(ctx, "cup", "ec-1", client.ActionHide, client.Moderation{Reason: "test"}); err != nil {
		t.Fatal(err)
	}
	_, errModerated := c.Score(ctx, "cup", client.ScoreWrite{PlayerID: "ec-1", Value: 1})
	if _, err := admin.Moderate(ctx, "cup", "ec-2", client.ActionBan, client.Moderation{Reason: "test", Duration: "1h"}); err != nil {
		t.Fatal(err)
	}
	_, errBanned := c.Join(ctx, "cup", client.JoinRequest{PlayerID: "ec-2", Name: "E"})
	if _, err := c.Write(ctx, "capped", client.LeaderboardWrite{Member: "m", Value: 1, Actor: "ec"}); err != nil {
		t.Fatal(err)
	}
	// sent once: a minute before midnight, the limit's Retry-After is short
	// enough to wait for, and the retry would pass in the new day
	_, errRateLimited := client.New(baseURL, gameKey, client.WithRetries(1)).Write(ctx, "capped", client.LeaderboardWrite{Member: "m", Value: 1, Actor: "ec"})
	for _, tc := range []struct {
		name   string
		err    error
		want   *client.Error
		status int
	}{
		{"not joined", errNotJoined, client.ErrNotJoined, http.StatusConflict},
		{"overflow", errOverflow, client.ErrOverflow, http.StatusUnprocessableEntity},
		{"request id of another player", errConflict, client.ErrConflict, http.StatusConflict},
		{"unknown board", errNotFound, client.ErrNotFound, http.StatusNotFound},
		{"unknown key", errUnauthorized, client.ErrUnauthorized, http.StatusUnauthorized},
		{"game key on an admin route", errForbidden, client.ErrForbidden, http.StatusForbidden},
		{"limit out of range", errInvalid, client.ErrInvalid, http.StatusBadRequest},
		{"a period not the current one", errPeriodClosed, client.ErrPeriodClosed, http.StatusConflict},
		{"a hidden player's write", errModerated, client.ErrModerated, http.StatusForbidden},
		{"a banned player's join", errBanned, client.ErrBanned, http.StatusForbidden},
		{"past a rate limit", errRateLimited, client.ErrRateLimited, http.StatusTooManyRequests},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var e *client.Error
			if !errors.Is(tc.err, tc.want) || !errors.As(tc.err, &e) || e.Status != tc.status || e.Message == "" {
				t.Fatalf("got %v, want %s (%d)", tc.err, tc.want.Code, tc.status)
			}
			for _, other := range []*client.Error{client.ErrInternal, client.ErrUnavailable} {
				if errors.Is(tc.err, other) {
					t.Errorf("%v is %s too", tc.err, other.Code)
				}
			}
		})
	}
	var e *client.Error
	if errors.As(errInvalid, &e); e.Field != "limit" {
		t.Errorf("got field %q of %q, want limit", e.Field, e.Message)
	}
	// Retry-After reaches the caller.
	for _, err := range []error{errBanned, errRateLimited} {
		if errors.As(err, &e); e.RetryAfter <= 0 {
			t.Errorf("%v: got Retry-After %v, want the ban's or the day's end", err, e.RetryAfter)
		}
	}
}

// The client refuses what the API would, before sending.
func TestCheckedBeforeSending(t *testing.T) {
	f := &flaky{}
	c := serve(t, f)
	ctx := context.Background()
	big := make([]client.ScoreWrite, client.MaxBatch+1)
	for _, tc := range []struct {
		field string
		err   error
	}{
		{"player_id", func() error { _, err := c.Score(ctx, "cup", client.ScoreWrite{PlayerID: ""}); return err }()},
		{"player_id", func() error { _, err := c.Player(ctx, "cup", ".."); return err }()},
		{"request_id", func() error {
			_, err := c.Score(ctx, "cup", client.ScoreWrite{PlayerID: "a", RequestID: string(make([]byte, 65))})
			return err
		}()},
		{"league", func() error { _, err := c.League(ctx, ""); return err }()},
		{"writes", func() error { _, err := c.ScoreBatch(ctx, "cup", big); return err }()},
		{"member", func() error { _, err := c.Write(ctx, "wins", client.LeaderboardWrite{Member: "a b"}); return err }()},
	} {
		var e *client.Error
		if !errors.As(tc.err, &e) || !errors.Is(tc.err, client.ErrInvalid) || e.Field != tc.field || e.Status != 0 {
			t.Errorf("got %v, want invalid %s", tc.err, tc.field)
		}
	}
	if n := f.calls.Load(); n != 0 {
		t.Errorf("sent %d requests, want none", n)
	}
}

// The admin routes, through the client.
func TestAdmin(t *testing.T) {
	ctx := context.Background()
	admin := client.New(baseURL, adminKey)
	c := client.New(baseURL, gameKey)
	if _, err := c.Join(ctx, "cup", client.JoinRequest{PlayerID: "ad-1", Name: "A"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Score(ctx, "cup", client.ScoreWrite{PlayerID: "ad-1", Value: 3}); err != nil {
		t.Fatal(err)
	}
	// the outbox's feed answers (nothing settled here yet), a game key is
	// refused it, and a period never settled has no archived outcomes
	if page, err := admin.Events(ctx, 0, 10); err != nil || page.Next < 0 {
		t.Fatalf("events: %+v, %v", page, err)
	}
	if _, err := c.Events(ctx, 0, 10); !errors.Is(err, client.ErrForbidden) {
		t.Fatalf("events with a game key: %v, want forbidden", err)
	}
	if _, err := admin.Outcomes(ctx, "cup", "20200106T000000Z", "", 10); !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("outcomes of a period never settled: %v, want not found", err)
	}
	score := int64(11)
	m, err := admin.Moderate(ctx, "cup", "ad-1", client.ActionSetScore, client.Moderation{Reason: "restored", Score: &score})
	if err != nil || !m.Changed || m.After.Score == nil || *m.After.Score != 11 || m.ActionID == nil {
		t.Fatalf("got %+v, %v; want the score set to 11", m, err)
	}
	page, err := admin.Audit(ctx, "cup", client.AuditQuery{Player: "ad-1", Limit: 10})
	if err != nil || len(page.Actions) != 1 || page.Actions[0].Action != client.ActionSetScore || page.Actions[0].Reason != "restored" {
		t.Fatalf("got audit %+v, %v", page, err)
	}
	trail, err := admin.Trail(ctx, "cup", client.TrailQuery{Player: "ad-1", Limit: 10})
	if err != nil || len(trail.Entries) != 1 || trail.Entries[0].Kind != "admin" || trail.Entries[0].Action == nil ||
		trail.Entries[0].Action.Reason != "restored" || trail.Next != nil {
		t.Fatalf("got trail %+v, %v", trail, err)
	}
	if _, err := admin.Trail(ctx, "cup", client.TrailQuery{}); !errors.Is(err, client.ErrInvalid) {
		t.Fatalf("a trail of nobody and no period: %v, want invalid", err)
	}
	limit := 5
	pv, err := admin.Preview(ctx, "cup", client.PreviewQuery{Limit: &limit})
	if err != nil || pv.Final || pv.Summary.Players == 0 || len(pv.Rows) == 0 {
		t.Fatalf("got preview %+v, %v", pv, err)
	}
	if _, err := admin.Settlements(ctx, "cup", 5); err != nil {
		t.Fatal(err)
	}
	if h, err := admin.HeldWrites(ctx, "cup", ""); err != nil || len(h.Held) != 0 {
		t.Fatalf("got held %+v, %v; want none", h, err)
	}
	if _, err := admin.ApproveHeld(ctx, "cup", 1); !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("approving no held write: got %v, want not_found", err)
	}
	if _, err := admin.RejectHeld(ctx, "cup", 1, ""); !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("rejecting no held write: got %v, want not_found", err)
	}
	if _, err := admin.Settle(ctx, "cup", pv.Period); !errors.Is(err, client.ErrConflict) {
		t.Fatalf("settling the current period: got %v, want conflict (it has not ended)", err)
	}

	imp, err := admin.ImportCatalog(ctx, "wins", []client.CatalogEntry{{Member: "w1", Name: "Winner", Metadata: map[string]any{"flag": "fr"}}})
	if err != nil || imp.Entries != 1 {
		t.Fatalf("got %+v, %v", imp, err)
	}
	_, err = admin.ImportCatalog(ctx, "wins", []client.CatalogEntry{{Member: "ok"}, {Member: "bad id"}, {Member: "bad id 2"}})
	var e *client.Error
	if !errors.As(err, &e) || e.Code != "invalid" || len(e.Problems) != 2 || e.Problems[0].Entry != "entries[1]" {
		t.Fatalf("got %v (%+v), want 2 problems listed", err, e)
	}
	imp, err = admin.ImportCatalogCSV(ctx, "wins", []byte("member,name\nw2,Second\n"))
	if err != nil || imp.Entries != 1 {
		t.Fatalf("CSV: got %+v, %v", imp, err)
	}
	entry, err := admin.CatalogEntry(ctx, "wins", "w1")
	if err != nil || entry.Name != "Winner" || entry.Metadata["flag"] != "fr" || entry.Leaderboard != "wins" {
		t.Fatalf("got %+v, %v", entry, err)
	}
	cat, err := admin.Catalog(ctx, "wins", "", 100)
	if err != nil || len(cat.Entries) != 2 {
		t.Fatalf("got catalog %+v, %v; want w1 and w2", cat, err)
	}
	mul, err := admin.SetMultiplier(ctx, "wins", "w1", 3)
	if err != nil || mul.Multiplier != 3 || mul.Previous != 1 {
		t.Fatalf("got %+v, %v", mul, err)
	}
	if _, err := admin.Limits(ctx, "wins", 0); err != nil {
		t.Fatal(err)
	}
}

// TestScoreWithoutRank: NoRank sends ?rank=false, and the result has no
// rank; a batch asks for none when every write does.
func TestScoreWithoutRank(t *testing.T) {
	ctx := context.Background()
	c := client.New(baseURL, gameKey)
	for _, p := range []string{"nr-1", "nr-2"} {
		if _, err := c.Join(ctx, "cup", client.JoinRequest{PlayerID: p, Name: p}); err != nil {
			t.Fatal(err)
		}
	}
	r, err := c.Score(ctx, "cup", client.ScoreWrite{PlayerID: "nr-1", Value: 3, NoRank: true})
	if err != nil || r.Score != 3 || r.Rank != 0 || r.BoardSize != 0 || r.Zone != "" || r.Board == "" {
		t.Fatalf("got %+v, %v; want score 3 on a board, no rank, size or zone", r, err)
	}
	rs, err := c.ScoreBatch(ctx, "cup", []client.ScoreWrite{{PlayerID: "nr-1", Value: 1, NoRank: true}, {PlayerID: "nr-2", Value: 1, NoRank: true}})
	if err != nil || len(rs) != 2 || rs[0].Err != nil || rs[0].Score != 4 || rs[0].Rank != 0 || rs[1].Rank != 0 {
		t.Fatalf("got %+v, %v; want nr-1 at 4 and nr-2 at 1, no ranks", rs, err)
	}
	rs, err = c.ScoreBatch(ctx, "cup", []client.ScoreWrite{{PlayerID: "nr-1", Value: 1, NoRank: true}, {PlayerID: "nr-2", Value: 1}})
	if err != nil || len(rs) != 2 || rs[0].Rank < 1 || rs[1].Rank < 1 {
		t.Fatalf("got %+v, %v; want ranks: not every write asked for none", rs, err)
	}
}
