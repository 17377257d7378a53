package console

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/league-engine/league/internal/excerpt"
	"github.com/league-engine/league/league"
)

// Moderation on the player's page: a form that hides, unhides, removes,
// sets the score of, bans or unbans the player (league.Engine.Moderate),
// with a required reason and a confirmation box; every action is recorded
// in the audit with the admin key's name, and the page lists the player's
// latest actions.

// playerActionsShown is how many of the player's actions the page lists.
const playerActionsShown = 10

// playerActions reads the audit's latest actions on the player, those
// still waiting in Redis recorded first.
func (c *Console) playerActions(r *http.Request, leagueID, player string) ([]league.Action, string) {
	if c.cfg.Audit == nil {
		return nil, "this console keeps no audit"
	}
	ctx, cancel := context.WithTimeout(r.Context(), storeTimeout)
	defer cancel()
	c.cfg.Engine.RecordActions(ctx, leagueID, c.cfg.Audit) // best effort: the read says if the store is down
	actions, err := c.cfg.Audit.Actions(ctx, league.AuditQuery{League: leagueID, Player: player, Limit: playerActionsShown})
	if err != nil {
		return nil, c.logged(r, err)
	}
	return actions, ""
}

// playerTrailShown is how many lines of the player's audit trail the page
// lists.
const playerTrailShown = 20

// playerTrail reads the latest lines of the player's audit trail (tier
// moves and their causes, rewards and claims, admin actions), or why it
// could not.
func (c *Console) playerTrail(r *http.Request, leagueID, player string) ([]league.TrailEntry, string) {
	trail, ok := c.cfg.Audit.(league.TrailLog)
	if !ok {
		return nil, "this console keeps no audit trail"
	}
	ctx, cancel := context.WithTimeout(r.Context(), storeTimeout)
	defer cancel()
	page, err := trail.Trail(ctx, league.TrailQuery{League: leagueID, Player: player, Limit: playerTrailShown})
	if err != nil {
		return nil, c.logged(r, err)
	}
	if l, err := c.cfg.Engine.League(leagueID); err == nil {
		l.NameMoves(page.Entries)
	}
	return page.Entries, ""
}

// moderate carries out the form's action: POST
// .../players/{player}/moderate with action, reason, score (set-score),
// duration (ban), the period the page showed and the confirmation box.
// The page answers with the player as they now are, saying what was done
// or why nothing was.
func (c *Console) moderate(w http.ResponseWriter, r *http.Request, sess *session) {
	res, err := c.moderation(r, sess)
	if err != nil {
		c.renderPlayer(w, r, sess, c.cfg.Status(err), view{Error: "Nothing was changed: " + league.ErrorMessage(err)})
		return
	}
	c.renderPlayer(w, r, sess, http.StatusOK, view{Notice: c.moderationNotice(r, res)})
}

// moderation checks the form and carries out its action.
func (c *Console) moderation(r *http.Request, sess *session) (league.ModResult, error) {
	leagueID, player := r.PathValue("league"), r.PathValue("player")
	action, err := league.ParseModAction(r.PostFormValue("action"))
	if err != nil {
		return league.ModResult{}, err
	}
	if r.PostFormValue("confirm") != "yes" {
		return league.ModResult{}, &league.Error{Code: league.Invalid, Field: "confirm",
			Message: "tick the box to confirm the action (it is recorded in the audit with your key's name)"}
	}
	period := r.PostFormValue("period")
	if period == "" {
		// The page names the period it showed: an action must not land in
		// the next one, after a rollover, unnoticed.
		return league.ModResult{}, &league.Error{Code: league.Invalid, Field: "period", Message: "missing: the form names the period the page showed"}
	}
	actor := sess.Key
	if actor == "" {
		actor = "console (authentication off)"
	}
	m := league.Moderation{Player: player, Action: action, Actor: actor, Reason: strings.TrimSpace(r.PostFormValue("reason")), Period: period}
	if m.Reason == "" {
		return league.ModResult{}, &league.Error{Code: league.Invalid, Field: "reason", Message: "required: why, as the audit records it"}
	}
	score, dur := strings.TrimSpace(r.PostFormValue("score")), strings.TrimSpace(r.PostFormValue("duration"))
	switch {
	case action == league.SetScore && score == "":
		return league.ModResult{}, &league.Error{Code: league.Invalid, Field: "score", Message: "required for set-score (0 zeroes the score)"}
	case action != league.SetScore && score != "":
		return league.ModResult{}, &league.Error{Code: league.Invalid, Field: "score", Message: "only set-score takes a score: clear the field or choose set-score"}
	case action == league.Ban && dur == "":
		return league.ModResult{}, &league.Error{Code: league.Invalid, Field: "duration", Message: "required for ban: how long, e.g. 12h or 7d"}
	case action != league.Ban && dur != "":
		return league.ModResult{}, &league.Error{Code: league.Invalid, Field: "duration", Message: "only ban takes a duration: clear the field or choose ban"}
	}
	if score != "" {
		n, err := strconv.ParseInt(score, 10, 64)
		if err != nil {
			return league.ModResult{}, &league.Error{Code: league.Invalid, Field: "score", Message: strconv.Quote(excerpt.Of(score)) + " is not a whole number"}
		}
		m.Score = n
	}
	if dur != "" {
		if m.For, err = league.ParseBanDuration("duration", dur); err != nil {
			return league.ModResult{}, err
		}
	}
	res, err := c.cfg.Engine.Moderate(r.Context(), r.PathValue("league"), m)
	if err != nil {
		if league.ErrorCode(err) == league.Internal {
			c.cfg.Logger.Error("console: moderating", "league", leagueID, "player", player, "action", action, "key", sess.Key, "err", err)
		}
		return res, err
	}
	if res.Changed {
		c.cfg.Logger.Info("console: player moderated", "league", leagueID, "period", res.Period.ID(), "player", player,
			"action", action, "id", res.Record.ID, "key", sess.Key)
	}
	return res, nil
}

// moderationNotice says what an action did, and whether the audit holds it.
func (c *Console) moderationNotice(r *http.Request, res league.ModResult) string {
	if !res.Changed {
		return fmt.Sprintf("Nothing to do: player %s is %s already. Nothing was recorded.", res.Player, stateWords(res.After))
	}
	done := fmt.Sprintf("Done: player %s was %s and is now %s.", res.Player, stateWords(res.Before), stateWords(res.After))
	if c.cfg.Audit == nil {
		return done + " The action waits in Redis for an audit."
	}
	if _, err := c.cfg.Engine.RecordActions(r.Context(), res.League, c.cfg.Audit); err != nil {
		return done + " Its record waits in Redis (the store did not take it: " + league.ErrorMessage(err) + "); the scheduler records it within seconds."
	}
	return done + " Recorded in the audit as action " + res.Record.ID + "."
}

// stateWords describes a player's standing with the operators in a few
// words: "ranked with 90", "hidden with 90, banned until ...".
func stateWords(st league.PlayerState) string {
	s := "not in the current period"
	if st.Board != league.Absent {
		s = fmt.Sprintf("%s with %s", st.Board, thousands(st.Score))
	}
	if !st.BannedUntil.IsZero() {
		s += ", banned until " + st.BannedUntil.UTC().Format("2006-01-02 15:04 UTC")
	}
	return s
}
