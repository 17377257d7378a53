package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/user"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/league-engine/league/internal/words"
	"github.com/league-engine/league/league"
)

// moderate carries out one moderation action (league.Engine.Moderate) and
// records it in the audit: at once with DATABASE_URL, else leagued's
// scheduler copies it from Redis within seconds.
func moderate(ctx context.Context, action league.ModAction, args []string, out io.Writer) error {
	cmd := string(action)
	fs, path := flags(cmd)
	id := fs.String("league", "", "league id (required)")
	pid := fs.String("player", "", "player id (required)")
	reason := fs.String("reason", "", "why, as the audit records it (required)")
	as := fs.String("as", defaultActor(), "who acts, as the audit records it")
	period := fs.String("period", "", "the period meant (default: the current one; any other is refused)")
	var score *int64
	var dur, until *string
	switch action {
	case league.SetScore:
		score = fs.Int64("score", -1, "the new score, 0 to the league's max_score (required; 0 zeroes it)")
	case league.Ban:
		dur = fs.String("for", "", "how long, from now: 90m, 12h, 7d (this or -until)")
		until = fs.String("until", "", "when the ban ends, RFC 3339 (this or -for)")
	}
	pr := output(fs, out)
	if err := parse(fs, args); err != nil {
		return err
	}
	switch {
	case *id == "" || *pid == "":
		return usageError{fmt.Errorf("%s: -league and -player are required", cmd)}
	case strings.TrimSpace(*reason) == "":
		return usageError{fmt.Errorf("%s: -reason is required: why, as the audit records it", cmd)}
	case score != nil && !given(fs, "score"):
		return usageError{fmt.Errorf("%s: -score is required (0 zeroes the score)", cmd)}
	case dur != nil && (*dur == "") == (*until == ""):
		return usageError{fmt.Errorf("%s: give -for or -until", cmd)}
	}
	if err := checkPeriodFlag(cmd, *period); err != nil {
		return err
	}
	m := league.Moderation{Player: *pid, Action: action, Actor: *as, Reason: *reason, Period: *period}
	if score != nil {
		m.Score = *score
	}
	if dur != nil && *dur != "" {
		d, err := league.ParseBanDuration("for", *dur)
		if err != nil {
			return usageError{fmt.Errorf("%s: -%v", cmd, err)}
		}
		m.For = d
	}
	if until != nil && *until != "" {
		t, err := time.Parse(time.RFC3339, *until)
		if err != nil {
			return usageError{fmt.Errorf("%s: -until %q is not a time in RFC 3339, e.g. 2026-12-01T00:00:00Z", cmd, *until)}
		}
		m.Until = t
	}
	withStore := os.Getenv("DATABASE_URL") != ""
	e, err := open(ctx, *path, withStore)
	if err != nil {
		return err
	}
	defer e.close()
	res, err := e.engine.Moderate(ctx, *id, m)
	if err != nil {
		return err
	}
	j := moderationJSON{League: res.League, Period: res.Period.ID(), Player: res.Player, Action: cmd, Changed: res.Changed,
		Before: stateJSONOf(res.Before), After: stateJSONOf(res.After)}
	// Recorded in the audit now with DATABASE_URL; else the action waits
	// in Redis, and leagued's scheduler records it within seconds.
	var recordErr error
	if res.Changed {
		j.ActionID, j.Actor, j.Recorded = res.Record.ID, res.Record.Actor, "waiting"
		if audit, _ := e.store.(league.AuditLog); audit != nil {
			if _, recordErr = e.engine.RecordActions(ctx, *id, audit); recordErr == nil {
				j.Recorded = "audit"
			}
		}
	}
	return pr.print(func() error {
		fmt.Fprintf(out, "league %s period %s: player %s: %s -> %s\n", res.League, res.Period.ID(), res.Player,
			describeState(res.Before), describeState(res.After))
		switch {
		case !res.Changed:
			fmt.Fprintln(out, "  nothing changed (it was so already): nothing recorded")
		case recordErr != nil:
			fmt.Fprintf(out, "  action %s is done; it waits in Redis for the audit (recording it failed: %s): leagued records it within seconds\n",
				res.Record.ID, league.ErrorMessage(recordErr))
		case j.Recorded == "waiting":
			fmt.Fprintf(out, "  action %s waits in Redis for the audit: leagued records it within seconds (set DATABASE_URL to record it now)\n", res.Record.ID)
		default:
			fmt.Fprintf(out, "  recorded in the audit as action %s, by %s\n", res.Record.ID, res.Record.Actor)
		}
		return nil
	}, j)
}

// moderationJSON is hide, unhide, remove, set-score, ban and unban's -o json.
type moderationJSON struct {
	League   string    `json:"league"`
	Period   string    `json:"period"`
	Player   string    `json:"player_id"`
	Action   string    `json:"action"`
	Changed  bool      `json:"changed"` // false: it was so already, nothing recorded
	Before   stateJSON `json:"before"`
	After    stateJSON `json:"after"`
	ActionID string    `json:"action_id"`
	Actor    string    `json:"actor"`
	Recorded string    `json:"recorded"` // audit: in Postgres now; waiting: in Redis, leagued records it; "": nothing changed
}

// defaultActor is leaguectl's name in the audit: the user running it.
func defaultActor() string {
	name := os.Getenv("USER")
	if u, err := user.Current(); err == nil && u.Username != "" {
		name = u.Username
	}
	if name == "" {
		name = "unknown"
	}
	return "leaguectl:" + name
}

// describeState writes a player's state: "hidden, score 90, banned until
// 2026-12-01T00:00:00Z".
func describeState(st league.PlayerState) string {
	s := string(st.Board)
	if st.Board == league.Absent {
		s = "not in the period"
	} else {
		s += fmt.Sprintf(", score %d", st.Score)
	}
	if !st.BannedUntil.IsZero() {
		s += ", banned until " + st.BannedUntil.UTC().Format(time.RFC3339)
	}
	return s
}

// audit prints a page of a league's admin actions, newest first.
func audit(ctx context.Context, args []string, out io.Writer) error {
	fs, path := flags("audit")
	id := fs.String("league", "", "league id (required)")
	pid := fs.String("player", "", "only this player's actions")
	period := fs.String("period", "", "only the actions done in this period")
	limit := fs.Int("limit", 50, fmt.Sprintf("actions in the page, 1..%d", league.MaxAuditPage))
	before := fs.String("before", "", "the page holds the actions older than this id (a page's last)")
	pr := output(fs, out)
	if err := parse(fs, args); err != nil {
		return err
	}
	switch {
	case *id == "":
		return usageError{fmt.Errorf("audit: -league is required")}
	case *limit < 1 || *limit > league.MaxAuditPage:
		return usageError{fmt.Errorf("audit: -limit %d is outside 1..%d", *limit, league.MaxAuditPage)}
	}
	if *before != "" {
		if _, _, ok := league.ParseActionID(*before); !ok {
			return usageError{fmt.Errorf("audit: -before %q is not an action id (<ms>-<n>)", *before)}
		}
	}
	if err := checkPeriodFlag("audit", *period); err != nil {
		return err
	}
	e, err := open(ctx, *path, true)
	if err != nil {
		return err
	}
	defer e.close()
	log, ok := e.store.(league.AuditLog)
	if !ok {
		return fmt.Errorf("audit: the store keeps no audit")
	}
	q := league.AuditQuery{League: *id, Player: *pid, Limit: *limit, Before: *before}
	if *period != "" {
		p, err := e.engine.PeriodOf(*id, *period)
		if err != nil {
			return err
		}
		q.Period = p.Start
	}
	// Actions left waiting in Redis first, so the page holds every one.
	if _, err := e.engine.RecordActions(ctx, *id, log); err != nil {
		return err
	}
	actions, err := log.Actions(ctx, q)
	if err != nil {
		return err
	}
	j := auditJSON{League: *id, Actions: []actionJSON{}}
	for _, a := range actions {
		aj := actionJSON{ID: a.ID, At: timeJSON(a.At), Actor: a.Actor, Action: string(a.Action), Player: a.Player,
			Before: stateJSONOf(a.Before), After: stateJSONOf(a.After), Reason: a.Reason}
		if !a.Period.IsZero() {
			aj.Period = league.Period{Start: a.Period}.ID()
		}
		j.Actions = append(j.Actions, aj)
	}
	if len(actions) == *limit {
		j.Next = actions[len(actions)-1].ID
	}
	return pr.print(func() error {
		fmt.Fprintf(out, "league %s: %s, newest first\n", *id, words.Count(len(actions), "action"))
		if len(actions) == 0 {
			return nil
		}
		w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
		fmt.Fprintln(w, "id\tat\tby\taction\tplayer\tperiod\tbefore\tafter\treason")
		for _, a := range actions {
			p := "-"
			if !a.Period.IsZero() {
				p = league.Period{Start: a.Period}.ID()
			}
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", a.ID, a.At.UTC().Format("2006-01-02T15:04:05.000Z"), a.Actor, a.Action,
				a.Player, p, describeState(a.Before), describeState(a.After), oneLine(a.Reason, 500)) // a reason is at most 500 bytes: kept whole, on its row
		}
		if err := w.Flush(); err != nil {
			return err
		}
		if j.Next != "" {
			fmt.Fprintf(out, "more: -before %s\n", j.Next)
		}
		return nil
	}, j)
}

// auditJSON is audit -o json: a page of actions, newest first.
type auditJSON struct {
	League  string       `json:"league"`
	Actions []actionJSON `json:"actions"`
	Next    string       `json:"next_before"` // -before for the next page; "": none
}

type actionJSON struct {
	ID     string    `json:"id"`
	At     string    `json:"at"`
	Actor  string    `json:"actor"`
	Action string    `json:"action"`
	Player string    `json:"player_id"`
	Period string    `json:"period"` // "": a ban's, of no period
	Before stateJSON `json:"before"`
	After  stateJSON `json:"after"`
	Reason string    `json:"reason"`
}

type stateJSON struct {
	Board       string `json:"board"` // ranked, hidden, removed, absent...
	Score       int64  `json:"score"`
	BannedUntil string `json:"banned_until"`
}

func stateJSONOf(st league.PlayerState) stateJSON {
	return stateJSON{Board: string(st.Board), Score: st.Score, BannedUntil: timeJSON(st.BannedUntil)}
}

// offBoards lists the players operators took off a period's boards.
func offBoards(ctx context.Context, args []string, out io.Writer) error {
	fs, path := flags("moderated")
	id := fs.String("league", "", "league id (required)")
	period := fs.String("period", "", "period id (default: the current period)")
	pr := output(fs, out)
	if err := parse(fs, args); err != nil {
		return err
	}
	if *id == "" {
		return usageError{fmt.Errorf("moderated: -league is required")}
	}
	if err := checkPeriodFlag("moderated", *period); err != nil {
		return err
	}
	e, err := open(ctx, *path, false)
	if err != nil {
		return err
	}
	defer e.close()
	p, list, err := e.engine.OffBoards(ctx, *id, *period)
	if err != nil {
		return err
	}
	j := moderatedJSON{League: *id, Period: p.ID(), Players: []offBoardJSON{}}
	for _, o := range list {
		j.Players = append(j.Players, offBoardJSON{Player: o.Player, State: string(o.State), Board: o.Board.String(), Score: o.Score})
	}
	return pr.print(func() error {
		fmt.Fprintf(out, "league %s period %s: %s taken off the boards (settlement skips them)\n", *id, p.ID(), words.Count(len(list), "player"))
		if len(list) == 0 {
			return nil
		}
		w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
		fmt.Fprintln(w, "player\tstate\tboard\tscore kept")
		for _, o := range list {
			fmt.Fprintf(w, "%s\t%s\t%s\t%d\n", o.Player, o.State, o.Board, o.Score)
		}
		return w.Flush()
	}, j)
}

// moderatedJSON is moderated -o json.
type moderatedJSON struct {
	League  string         `json:"league"`
	Period  string         `json:"period"`
	Players []offBoardJSON `json:"players"`
}

type offBoardJSON struct {
	Player string `json:"player_id"`
	State  string `json:"state"`
	Board  string `json:"board"`
	Score  int64  `json:"score"` // kept for them
}
