package api

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/league-engine/league/internal/excerpt"
	"github.com/league-engine/league/league"
)

// Moderation (league.Engine.Moderate): POST
// /v1/admin/leagues/{league}/players/{player_id}/{hide|unhide|remove|
// set-score|ban|unban}, and the audit of what operators did, GET
// .../audit. Each action is recorded with the name of the admin key that
// made it; the reply says whether the audit holds it yet (it waits in
// Redis when the store could not take it, and the scheduler records it).

// moderationRequest is the body: {"reason", "score", "duration", "until",
// "period"}.
type moderationRequest struct {
	reason, duration, until, period *string
	score                           *int64
}

func (req *moderationRequest) decode(d *decoder) error {
	return d.object("body", func(field []byte) error {
		switch string(field) {
		case "reason":
			return d.string("reason", &req.reason)
		case "duration":
			return d.string("duration", &req.duration)
		case "until":
			return d.string("until", &req.until)
		case "period":
			return d.string("period", &req.period)
		case "score":
			if req.score != nil {
				return invalid("score", "given twice")
			}
			raw, err := d.number("score")
			if err != nil {
				return err
			}
			if string(raw) == "null" {
				return nil
			}
			v, err := scoreValue("score", raw)
			if err != nil {
				return err
			}
			req.score = &v
			return nil
		}
		return unknownField("", field)
	})
}

// moderation builds the engine's request, refusing fields the action does
// not take.
func (req *moderationRequest) moderation(action league.ModAction, player, actor string) (league.Moderation, error) {
	m := league.Moderation{Player: player, Action: action, Actor: actor, Reason: optionalString(req.reason),
		Period: optionalString(req.period)}
	if req.reason == nil {
		return m, invalid("reason", "required: why, as the audit records it")
	}
	switch {
	case action == league.SetScore && req.score == nil:
		return m, invalid("score", "required: the player's new score (0 zeroes it)")
	case action != league.SetScore && req.score != nil:
		return m, invalid("score", "only set-score takes a score")
	case action != league.Ban && (req.duration != nil || req.until != nil):
		return m, invalid("duration", "only ban takes a duration or an end (until)")
	case action == league.Ban && req.duration == nil && req.until == nil:
		return m, invalid("duration", "required: how long the ban lasts, e.g. 12h or 7d (or until, when it ends)")
	case req.duration != nil && req.until != nil:
		return m, invalid("duration", "give a duration or an end (until), not both")
	}
	if req.score != nil {
		m.Score = *req.score
	}
	if req.duration != nil {
		d, err := league.ParseBanDuration("duration", *req.duration)
		if err != nil {
			return m, err
		}
		m.For = d
	}
	if req.until != nil {
		t, err := time.Parse(time.RFC3339, *req.until)
		if err != nil {
			return m, invalid("until", "%q is not a time in RFC 3339, e.g. 2026-12-01T00:00:00Z", excerpt.Of(*req.until))
		}
		m.Until = t.UTC()
	}
	return m, nil
}

// actorOf is who an action is recorded as: the admin key's name, or
// "anonymous" on a server without keys (which serves loopback only).
func actorOf(caller *Key) string {
	if caller == nil || caller.Name == "" {
		return "anonymous"
	}
	return caller.Name
}

// moderate serves one action's route.
func (s *Server) moderate(action league.ModAction) endpoint {
	return func(r *http.Request, caller *Key) (reply, error) {
		leagueID, player := r.PathValue("league"), r.PathValue("player_id")
		if _, err := s.engine.League(leagueID); err != nil {
			return nil, s.redisErr(err)
		}
		if err := league.CheckPlayerID(player); err != nil {
			return nil, err
		}
		var req moderationRequest
		if err := decodeBody(r, false, req.decode); err != nil {
			return nil, err
		}
		m, err := req.moderation(action, player, actorOf(caller))
		if err != nil {
			return nil, err
		}
		res, err := s.engine.Moderate(r.Context(), leagueID, m)
		if err != nil {
			return nil, s.redisErr(err)
		}
		body := newModerationBody(res)
		if res.Changed {
			s.log.Info("api: player moderated", "league", leagueID, "period", res.Period.ID(), "player", player,
				"action", action, "id", res.Record.ID, "key", caller.Name)
			body.Recorded = s.recordActions(r.Context(), leagueID)
		}
		return marshal{body}, nil
	}
}

// recordActions copies the league's actions waiting in Redis to the audit
// log, and reports whether it did. A failure leaves them waiting, for the
// scheduler's next copy: the action stands either way.
func (s *Server) recordActions(ctx context.Context, leagueID string) bool {
	if s.audit == nil {
		return false
	}
	if _, err := s.engine.RecordActions(ctx, leagueID, s.audit); err != nil {
		s.postgresErr(err)
		s.log.Warn("api: an admin action waits in Redis for the audit: recording it failed; the scheduler retries",
			"league", leagueID, "err", err)
		return false
	}
	return true
}

// playerStateBody is a player's standing with the operators.
type playerStateBody struct {
	State       league.BoardState `json:"state"`
	Score       *int64            `json:"score"`        // null when absent from the period
	BannedUntil *string           `json:"banned_until"` // null when not banned
}

func newPlayerStateBody(st league.PlayerState) playerStateBody {
	b := playerStateBody{State: st.Board}
	if st.Board != league.Absent && st.Board != "" {
		v := st.Score
		b.Score = &v
	}
	if !st.BannedUntil.IsZero() {
		at := rfc3339(st.BannedUntil)
		b.BannedUntil = &at
	}
	return b
}

// moderationBody is the reply of an action.
type moderationBody struct {
	League   string           `json:"league"`
	Period   string           `json:"period"`
	PlayerID string           `json:"player_id"`
	Action   league.ModAction `json:"action"`
	Changed  bool             `json:"changed"`
	Before   playerStateBody  `json:"before"`
	After    playerStateBody  `json:"after"`
	ActionID *string          `json:"action_id"` // null when nothing changed
	Recorded bool             `json:"recorded"`
}

func newModerationBody(res league.ModResult) moderationBody {
	b := moderationBody{League: res.League, Period: res.Period.ID(), PlayerID: res.Player, Action: res.Action,
		Changed: res.Changed, Before: newPlayerStateBody(res.Before), After: newPlayerStateBody(res.After)}
	if res.Record != nil {
		id := res.Record.ID
		b.ActionID = &id
	}
	return b
}

// actionBody is an action of the audit.
type actionBody struct {
	ID       string           `json:"id"`
	At       string           `json:"at"`
	Actor    string           `json:"actor"`
	Action   league.ModAction `json:"action"`
	PlayerID string           `json:"player_id"`
	Period   *string          `json:"period"` // null: a ban of a player not in the period
	Reason   string           `json:"reason"`
	Before   playerStateBody  `json:"before"`
	After    playerStateBody  `json:"after"`
}

func newActionBody(a league.Action) actionBody {
	b := actionBody{ID: a.ID, At: rfc3339Milli(a.At), Actor: a.Actor, Action: a.Action, PlayerID: a.Player, Reason: a.Reason,
		Before: newPlayerStateBody(a.Before), After: newPlayerStateBody(a.After)}
	if !a.Period.IsZero() {
		p := league.Period{Start: a.Period}.ID()
		b.Period = &p
	}
	return b
}

// Audit page sizes of GET .../audit?limit=.
const defaultAuditPage = 100

// auditRoute serves GET .../audit?player=&period=&limit=&before=: the league's
// admin actions, newest first, a page at a time. Actions still waiting in
// Redis are recorded first, so the page holds every action done.
func (s *Server) auditRoute(r *http.Request, _ *Key) (reply, error) {
	leagueID := r.PathValue("league")
	if _, err := s.engine.League(leagueID); err != nil {
		return nil, s.redisErr(err)
	}
	q := league.AuditQuery{League: leagueID, Limit: defaultAuditPage}
	if v, given := queryParam(r, "player"); given {
		if err := league.CheckPlayerID(v); err != nil {
			return nil, &league.Error{Code: league.Invalid, Field: "player", Message: league.ErrorMessage(err)}
		}
		q.Player = v
	}
	if v, given := queryParam(r, "period"); given {
		p, err := s.engine.PeriodOf(leagueID, v)
		if err != nil {
			return nil, err
		}
		q.Period = p.Start
	}
	if v, given := queryParam(r, "limit"); given {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > league.MaxAuditPage {
			return nil, invalid("limit", "%q is not a number from 1 to %d", excerpt.Of(v), league.MaxAuditPage)
		}
		q.Limit = n
	}
	if v, given := queryParam(r, "before"); given {
		if _, _, ok := league.ParseActionID(v); !ok {
			return nil, invalid("before", "%q is not an action's id (<ms>-<n>), as a page's next gives it", excerpt.Of(v))
		}
		q.Before = v
	}
	if s.audit == nil {
		return nil, league.Errorf(league.Unavailable, "this server keeps no audit (its store is not an audit log)")
	}
	s.recordActions(r.Context(), leagueID)
	actions, err := s.audit.Actions(r.Context(), q)
	if err != nil {
		return nil, s.postgresErr(err)
	}
	out := struct {
		League  string       `json:"league"`
		Actions []actionBody `json:"actions"`
		Next    *string      `json:"next"` // null: the last page
	}{League: leagueID, Actions: make([]actionBody, len(actions))}
	for i, a := range actions {
		out.Actions[i] = newActionBody(a)
	}
	if len(actions) == q.Limit {
		next := actions[len(actions)-1].ID
		out.Next = &next
	}
	return marshal{out}, nil
}

// rfc3339Milli writes t in UTC with its milliseconds: actions a moment
// apart keep their order on the page.
func rfc3339Milli(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z07:00") }
