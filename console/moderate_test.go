package console_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/league"
)

const modForm = `action="/console/leagues/weekly/players/bob/moderate"`

// TestModerationForm: the player page's form carries out each action with
// its CSRF token, reason and confirmation, shows the result and the audit's
// record; without any of them, or with bad input, it changes nothing and
// says why.
func TestModerationForm(t *testing.T) {
	f := newFixture(t, bothKeys)
	for i, p := range []string{"alice", "bob", "carol"} {
		_, err := f.engine.Join(f.ctx, "weekly", league.JoinRequest{Player: p, Name: p})
		testsvc.Must(t, err, "Join")
		_, err = f.engine.Score(f.ctx, "weekly", league.ScoreWrite{Player: p, Value: int64(30 - 10*i)})
		testsvc.Must(t, err, "Score")
	}
	cookie := f.signin(adminKey)
	token := f.csrf(cookie)
	rep := f.get("/console/leagues/weekly/players/bob", cookie)
	for _, want := range []string{modForm, `name="period" value="` + firstPeriod + `"`, `name="csrf" value="` + token + `"`,
		"ranked with 20", `name="confirm" value="yes" required`, "No action recorded.", "Nothing recorded yet: no settled period"} {
		if !strings.Contains(rep.body, want) {
			t.Fatalf("player page lacks %q: %s", want, rep.body)
		}
	}
	board := func() string {
		b, err := f.engine.Board(f.ctx, "weekly", league.Period{}, league.BoardID{Tier: "bronze", N: 1})
		testsvc.Must(t, err, "Board")
		var ids []string
		for _, e := range b.Entries {
			ids = append(ids, e.Player)
		}
		return strings.Join(ids, ",")
	}
	path := "/console/leagues/weekly/players/bob/moderate"
	form := func(kv ...string) url.Values {
		v := url.Values{"csrf": {token}, "period": {firstPeriod}, "confirm": {"yes"}, "reason": {"aimbot"}}
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i+1] == "" {
				v.Del(kv[i])
			} else {
				v.Set(kv[i], kv[i+1])
			}
		}
		return v
	}
	for _, c := range []struct {
		name   string
		form   url.Values
		status int
		says   string
	}{
		{"unconfirmed", form("action", "hide", "confirm", ""), http.StatusBadRequest, "Nothing was changed: confirm: tick the box"},
		{"no reason", form("action", "hide", "reason", ""), http.StatusBadRequest, "Nothing was changed: reason: required"},
		{"blank reason", form("action", "hide", "reason", "   "), http.StatusBadRequest, "reason: required"},
		{"no action", form(), http.StatusBadRequest, "is not an action"},
		{"unknown action", form("action", "delete"), http.StatusBadRequest, "is not an action"},
		{"score on hide", form("action", "hide", "score", "5"), http.StatusBadRequest, "only set-score takes a score"},
		{"no score", form("action", "set-score"), http.StatusBadRequest, "score: required"},
		{"bad score", form("action", "set-score", "score", "1.5"), http.StatusBadRequest, "not a whole number"},
		{"score past max", form("action", "set-score", "score", "1000001"), http.StatusBadRequest, "max_score"},
		{"no duration", form("action", "ban"), http.StatusBadRequest, "duration: required"},
		{"bad duration", form("action", "ban", "duration", "forever"), http.StatusBadRequest, "not a duration"},
		{"duration on hide", form("action", "hide", "duration", "1h"), http.StatusBadRequest, "only ban takes a duration"},
		{"no period", form("action", "hide", "period", ""), http.StatusBadRequest, "period: missing"},
		{"ended period", form("action", "hide", "period", "20261109T000000Z"), http.StatusConflict, "has ended"},
		{"no token", form("action", "hide", "csrf", ""), http.StatusForbidden, "security token"},
	} {
		t.Run(c.name, func(t *testing.T) {
			rep := f.post(path, c.form, cookie)
			if rep.status != c.status || !strings.Contains(rep.body, c.says) {
				t.Errorf("got %d, want %d saying %q: %s", rep.status, c.status, c.says, rep.body)
			}
			if b := board(); b != "alice,bob,carol" {
				t.Errorf("board %s after a refused form", b)
			}
		})
	}
	if acts, _ := f.store.Actions(f.ctx, league.AuditQuery{League: "weekly", Limit: 10}); len(acts) != 0 {
		t.Fatalf("refused forms recorded %d actions", len(acts))
	}
	// A form from elsewhere, or without a session, changes nothing.
	if rep := f.send("POST", path, form("action", "hide"), cookie, map[string]string{"Origin": "https://evil.example"}); rep.status != http.StatusForbidden {
		t.Fatalf("cross-site form: %d", rep.status)
	}
	if rep := f.post(path, form("action", "hide"), ""); rep.status != http.StatusForbidden {
		t.Fatalf("form without a session: %d", rep.status)
	}

	rep = f.post(path, form("action", "hide"), cookie)
	for _, want := range []string{"Done: player bob was ranked with 20 and is now hidden with 20. Recorded in the audit as action ",
		"Off the board: hidden by an operator", "<td>admin-1</td><td>hide</td>", "<td>aimbot</td>",
		"<td>admin</td><td><code>" + firstPeriod + "</code></td><td>hide by admin-1: ranked -&gt; hidden: aimbot</td>"} {
		if rep.status != http.StatusOK || !strings.Contains(rep.body, want) {
			t.Fatalf("hide: %d, page lacks %q: %s", rep.status, want, rep.body)
		}
	}
	if b := board(); b != "alice,carol" {
		t.Fatalf("board after hiding bob: %s", b)
	}
	if rep := f.post(path, form("action", "hide"), cookie); !strings.Contains(rep.body, "Nothing to do: player bob is hidden with 20 already.") {
		t.Fatalf("hide again: %s", rep.body)
	}
	rep = f.post(path, form("action", "unhide", "reason", "false report"), cookie)
	if !strings.Contains(rep.body, "is now ranked with 20") || board() != "alice,bob,carol" {
		t.Fatalf("unhide: %s", rep.body)
	}
	if rep := f.post(path, form("action", "set-score", "score", "0"), cookie); !strings.Contains(rep.body, "is now ranked with 0") {
		t.Fatalf("set-score 0: %s", rep.body)
	}
	rep = f.post(path, form("action", "ban", "duration", "7d"), cookie)
	if !strings.Contains(rep.body, "is now banned with 0, banned until 2026-11-23 01:00 UTC") {
		t.Fatalf("ban: %s", rep.body)
	}
	if _, err := f.engine.Join(f.ctx, "weekly", league.JoinRequest{Player: "bob", Name: "bob"}); league.ErrorCode(err) != league.Banned {
		t.Fatalf("banned bob's join: %v", err)
	}
	f.post(path, form("action", "unban"), cookie)
	rep = f.post(path, form("action", "remove"), cookie)
	if !strings.Contains(rep.body, "is now removed with 0") {
		t.Fatalf("remove: %s", rep.body)
	}
	if rep := f.post(path, form("action", "unhide"), cookie); rep.status != http.StatusConflict || !strings.Contains(rep.body, "Nothing was changed") {
		t.Fatalf("unhide of a removed player: %d %s", rep.status, rep.body)
	}
	acts, err := f.store.Actions(f.ctx, league.AuditQuery{League: "weekly", Limit: 100})
	testsvc.Must(t, err, "Actions")
	if len(acts) != 6 {
		t.Fatalf("the audit holds %d actions, want 6 (each change once)", len(acts))
	}
	for _, a := range acts {
		if a.Actor != "admin-1" || a.Player != "bob" {
			t.Fatalf("action %+v", a)
		}
	}
}
