package console

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/league-engine/league/league"
	"github.com/league-engine/league/tiers"
)

// A player's page: their standing this period, the rewards their next
// join delivers, and their settled periods with the tier of each, as
// GET /v1/leagues/{league}/players/{player_id} answers. The history is the
// store's: a store down or slow leaves that section saying so.

// playerHistory is how many settled periods the page shows.
const playerHistory = 20

type playerView struct {
	League   string
	Player   string
	Standing league.Standing
	Known    bool   // Redis knows the player (else the store's tier)
	TierName string // of Standing.Tier
	Pending  []league.Reward
	History  []historyRow // newest first, as the table
	// HistoryError is why the history could not be read.
	HistoryError string
	Chart        stepChart
	// Mod is where the player stands with the operators (ModError: why it
	// could not be read); Actions are the audit's latest of theirs
	// (ActionsError: why they could not be read).
	Mod          league.PlayerState
	ModError     string
	Actions      []league.Action
	ActionsError string
	// Trail is the latest of the player's audit trail (TrailError: why it
	// could not be read).
	Trail      []league.TrailEntry
	TrailError string
	CSRF       string
	MaxScore   int64
}

// historyRow is a settled period of the player.
type historyRow struct {
	league.HistoryEntry
	Period                league.Period
	Board                 string
	Before, After         string // tier names
	Moved                 string // "promoted", "demoted" or "stayed"
	Claimed, RewardsGiven bool
}

func (c *Console) playerPage(w http.ResponseWriter, r *http.Request, sess *session) {
	c.renderPlayer(w, r, sess, http.StatusOK, view{})
}

// renderPlayer renders the player's page with status and v's notice or
// error (what the moderation form did).
func (c *Console) renderPlayer(w http.ResponseWriter, r *http.Request, sess *session, status int, title view) {
	leagueID, player := r.PathValue("league"), r.PathValue("player")
	title.Title = "Player " + player + " in " + leagueID
	l, err := c.cfg.Engine.League(leagueID)
	if err == nil {
		err = league.CheckPlayerID(player)
	}
	if err != nil {
		c.failure(w, r, "message", sess, title, err)
		return
	}
	v := playerView{League: leagueID, Player: player, CSRF: sess.CSRF, MaxScore: l.MaxScore}
	prof, profErr := c.profile(r.Context(), leagueID, player)
	st, err := c.cfg.Engine.Standing(r.Context(), leagueID, player)
	switch {
	case err == nil:
		v.Known = true
	case errors.Is(err, league.ErrNotFound) && profErr == nil:
		// Redis does not know them (it lost them, or their records
		// expired): the store's tier is theirs, as the API answers.
		cur, cerr := c.cfg.Engine.Current(leagueID)
		if cerr != nil {
			c.failure(w, r, "message", sess, title, cerr)
			return
		}
		st = league.Standing{League: leagueID, Player: player, Period: cur, Tier: prof.Tier}
	default:
		c.failure(w, r, "message", sess, title, err)
		return
	}
	v.Standing, v.TierName = st, tierName(l, st.Tier)
	pending, err := c.cfg.Engine.PendingRewards(r.Context(), leagueID, player)
	if err != nil {
		c.failure(w, r, "message", sess, title, err)
		return
	}
	v.Pending = st.WithEarned(pending)
	switch {
	case profErr == nil:
		v.history(l, prof.History)
	case errors.Is(profErr, league.ErrNotFound):
		v.history(l, nil)
	default:
		v.HistoryError = c.logged(r, profErr)
	}
	if v.Known {
		if v.Mod, _, err = c.cfg.Engine.PlayerModeration(r.Context(), leagueID, player); err != nil {
			v.ModError = c.logged(r, err)
		}
	}
	v.Actions, v.ActionsError = c.playerActions(r, leagueID, player)
	v.Trail, v.TrailError = c.playerTrail(r, leagueID, player)
	title.Data = v
	c.render(w, r, status, "player", sess, title)
}

// profile reads the player's settled history, bounded as settlements are.
func (c *Console) profile(ctx context.Context, leagueID, player string) (league.Profile, error) {
	if c.cfg.Store == nil {
		return league.Profile{}, league.Errorf(league.Unavailable, "this console has no store to read the history from")
	}
	ctx, cancel := context.WithTimeout(ctx, storeTimeout)
	defer cancel()
	return c.cfg.Store.Profile(ctx, leagueID, player, playerHistory)
}

// history fills the table (newest first) and the chart (oldest first) of
// the tier each period was played in.
func (v *playerView) history(l *league.League, hs []league.HistoryEntry) {
	var levels []string
	for _, t := range l.Ladder.Tiers() {
		levels = append(levels, t.Name)
	}
	labels := make([]string, len(hs))
	at := make([]int, len(hs))
	for i, h := range hs {
		p := league.Period{Start: h.Period.UTC()}
		if q, err := l.Schedule.Containing(h.Period); err == nil {
			p = q
		}
		row := historyRow{HistoryEntry: h, Period: p, Board: h.BoardOf().String(),
			Before: tierName(l, h.TierBefore), After: tierName(l, h.TierAfter), Moved: "stayed",
			Claimed: !h.ClaimedAt.IsZero(), RewardsGiven: len(h.Rewards) > 0}
		bi, berr := l.TierIndex(h.TierBefore)
		ai, aerr := l.TierIndex(h.TierAfter)
		switch {
		case berr != nil || aerr != nil:
			if h.TierBefore != h.TierAfter {
				row.Moved = "moved"
			}
		case ai > bi:
			row.Moved = "promoted"
		case ai < bi:
			row.Moved = "demoted"
		}
		v.History = append(v.History, row)
		j := len(hs) - 1 - i
		labels[j] = shortPeriod(p)
		at[j] = -1
		if berr == nil {
			at[j] = bi
		}
	}
	v.Chart = newStepChart("history-chart", "Tier of "+v.Player+" in each settled period", levels, labels, at)
}

// tierName is a tier's name in the league's ladder, or its id when the
// config no longer has it.
func tierName(l *league.League, id string) string {
	if i, err := l.TierIndex(id); err == nil {
		return l.Ladder.Tier(i).Name
	}
	return id
}

// items writes a reward's items: "100 gems, 1 chest".
func items(its []tiers.Item) string {
	out := make([]string, len(its))
	for i, it := range its {
		out[i] = thousands(it.Qty) + " " + it.ID
	}
	return strings.Join(out, ", ")
}

// earnedIn is the period a pending reward was earned in, as its id.
func earnedIn(r league.Reward) string {
	if r.Earned.IsZero() {
		return ""
	}
	return league.Period{Start: r.Earned.UTC()}.ID()
}
