package league

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/league-engine/league/scripts"
	"github.com/league-engine/league/tiers"
)

// JoinRequest is a player opening the league.
type JoinRequest struct {
	Player string
	Name   string
	Avatar string // an avatar id or short code, not a URL
	// Cohort places the player on their tier's boards of that cohort, one
	// of the league's Cohorts ("": the tier's shared boards; cohort.go).
	// The period's first join decides: a retry keeps its placement.
	Cohort string
}

// Placement is where a join put the player.
type Placement struct {
	League string
	Period Period
	Tier   string
	Board  BoardID
	Slot   int // 1-based: the player's join order on the board
	// Rewards earned in earlier periods, delivered by this join. A retried
	// join of the same period returns them again; no later join does.
	Rewards []Reward
	// Rejoined reports that the player had already joined this period: the
	// placement is the first one.
	Rejoined bool
	// Upcoming reports a join in the league's join_cutoff: the player is
	// placed in the next period, which starts at Period.Start; their score
	// writes count from then.
	Upcoming bool
}

// Reward is what a player earned by their rank in a settled period.
type Reward struct {
	Earned time.Time    `json:"-"` // start of the period it was earned in
	Tier   string       `json:"tier"`
	Rank   int          `json:"rank"`
	Items  []tiers.Item `json:"items"`
}

// Join places the player in their tier's current sub-board, or returns their
// placement if they joined this period already. The player's tier is the one
// their last settled period gave them (new players: the league's entry
// tier); if settlement has not reached their last period yet, the engine
// decides from that period's frozen board with the same rules settlement
// uses. One round trip to Redis, two while a period's settlement is pending.
func (e *Engine) Join(ctx context.Context, leagueID string, req JoinRequest) (Placement, error) {
	lv, err := e.live(leagueID)
	if err != nil {
		return Placement{}, err
	}
	if err := CheckPlayerID(req.Player); err != nil {
		return Placement{}, err
	}
	if err := checkText("name", req.Name, MaxNameLen, true); err != nil {
		return Placement{}, err
	}
	if err := checkText("avatar", req.Avatar, MaxAvatarLen, false); err != nil {
		return Placement{}, err
	}
	cohort, err := lv.cohortIndex(req.Cohort)
	if err != nil {
		return Placement{}, err
	}
	p, prev := e.joinTarget(lv, e.now())
	var d *decision
	for attempt := 0; attempt < 5; attempt++ {
		reply, err := e.runJoin(ctx, lv, p, prev, req, cohort, d)
		if err != nil {
			return Placement{}, internal("join", err)
		}
		switch scripts.Status(reply[0].(int64)) {
		case scripts.OK, scripts.Existing:
			pl, err := e.placement(ctx, lv, p, req.Player, reply)
			pl.Upcoming = lv.JoinCutoff > 0 && p.Start.After(e.now())
			return pl, err
		case scripts.Playing:
			reply[0] = int64(scripts.Existing)
			return e.placement(ctx, lv, prev, req.Player, reply)
		case scripts.WrongPeriod:
			e.redisSaid(lv, reply[1].(int64))
			p, prev = e.joinTarget(lv, time.UnixMilli(reply[1].(int64)))
			d = nil
		case scripts.Closed:
			return Placement{}, Errorf(PeriodClosed, "period %s of league %q is closed for settlement", p.ID(), lv.ID)
		case scripts.NeedTier:
			if d, err = e.decideJoin(ctx, lv, p, req.Player, reply); err != nil {
				return Placement{}, err
			}
		case scripts.Retry, scripts.OtherRules:
			d = nil
		case scripts.Lost:
			return Placement{}, lv.lostError()
		case scripts.Full:
			return Placement{}, Errorf(Unavailable, "league %q placed %d players in one tier this period, the most it can", lv.ID, maxJoins)
		case scripts.Banned:
			return Placement{}, lv.banned(req.Player, time.UnixMilli(reply[1].(int64)).UTC(), e.clock.Now())
		default:
			return Placement{}, internal("join", fmt.Errorf("unexpected reply %v", reply))
		}
	}
	return Placement{}, internal("join", fmt.Errorf("no placement after 5 attempts for %q", req.Player))
}

// decision is the caller's half of a join that needed one: the tier decided
// in Go, the record it was decided from, and any rewards computed from the
// frozen board.
type decision struct {
	tier    int // tier code
	from    string
	earned  int64 // start of the period the rewards are from, 0 for none
	rewards string
	rules   string // fingerprint of the ladder rules the board was read under; "" if none was
	decay   *Decay // the tier move absence decay made, recorded with the placement; nil if none
}

func (e *Engine) runJoin(ctx context.Context, lv *live, p, prev Period, req JoinRequest, cohort int, d *decision) ([]any, error) {
	k := lv.keys
	pk := lv.Packing()
	decay := "0"
	if lv.DecayAfter > 0 {
		decay = strconv.Itoa(playedKept(lv))
	}
	args := []any{
		e.clock.Arg(), p.Start.Unix(), p.End.Unix(), k.prefix,
		req.Player, req.Name + profileSep + req.Avatar,
		lv.BoardSize, pk.SlotBits, pk.TimeBits, pk.Unit,
		lv.code[lv.entry], prev.Start.Unix(), decay,
		"", "", "", "", lv.epoch, "", string(lv.Operator), "",
		"", "", "",
	}
	if lv.JoinCutoff > 0 && e.now().Before(p.Start) {
		// a join in the cutoff: p is the next period, opened early
		args[20] = p.Start.Add(-lv.JoinCutoff).UnixMilli()
	}
	if d != nil {
		args[13], args[14], args[18] = d.tier, d.from, d.rules
		if d.earned != 0 {
			args[15], args[16] = d.earned, d.rewards
		}
		if d.decay != nil {
			args[21], args[22], args[23] = d.decay.From, d.decay.To, d.decay.Absent
		}
	}
	ks := []string{
		k.counters(p.Start.Unix()), k.record(req.Player), k.reward(req.Player),
		k.claimed(p.Start.Unix()), k.meta(), k.periods(), k.claims(), k.played(), k.bans(),
	}
	if lv.ranks != "" {
		// promotion protection (protect.go): only leagues with it pay for it
		ks, args = append(ks, k.promoted(p.Start.Unix())), append(args, lv.ranks)
	}
	if lv.cohortMaps != nil {
		// cohorts (cohort.go): only leagues with them pay for them
		if lv.ranks == "" {
			args = append(args, "")
		}
		args = append(args, lv.codeTiers, lv.cohortMaps[cohort])
	}
	return e.run.Run(ctx, scripts.Join, false, ks, args...).Slice()
}

// lookup is where a record's board has the player: rank 0 if the board is
// gone, offBoard if an operator took the player off it.
type lookup struct {
	rank, size int
	score      int64
}

// offBoard is the rank of a lookup (and of join.lua's and standing.lua's
// replies) that found the player taken off their board by an operator
// (moderate.go): settlement skips them, so they keep their tier.
const offBoard = -2

// decideJoin turns a NeedTier reply {4, record, rank, size, score, settled,
// rules} into a decision, made under the rules the record's period is
// decided under (ours when none are recorded yet: the script then records
// them with the join, or has the join decide again if another process
// recorded other rules first).
func (e *Engine) decideJoin(ctx context.Context, lv *live, p Period, player string, reply []any) (*decision, error) {
	raw, _ := reply[1].(string)
	rec, ok := decodeRecord(raw)
	if !ok {
		return nil, internal("join", fmt.Errorf("bad record %q", raw))
	}
	if rec.start >= p.Start.Unix() || (reply[5].(int64) < rec.start && !lv.startsPeriod(rec.start)) {
		// Joined a period that starts no earlier than this one (which
		// Redis's clock says is current), or an unsettled one this schedule
		// does not start: a process reads the schedule otherwise (Open
		// refuses that when Redis shows it). Deciding it could settle a
		// period that has not ended.
		return nil, Errorf(Unavailable, "league %q: player %q last joined period %s, which does not end before this period %s: "+
			"processes disagree on the schedule's boundaries; give every process the same schedule (with its CRON_TZ)",
			lv.ID, player, Period{Start: rec.startTime()}.ID(), p.ID())
	}
	look := lookup{rank: int(reply[2].(int64)), size: int(reply[3].(int64))}
	if look.rank > 0 {
		packed, err := strconv.ParseFloat(reply[4].(string), 64)
		if err != nil {
			return nil, internal("join", err)
		}
		look.score, _ = lv.Packing().Unpack(packed)
	}
	ladder, fp := lv.Ladder, ""
	if look.rank > 0 {
		fp, _ = reply[6].(string)
		var err error
		if ladder, err = e.ladderFor(ctx, lv, fp, rec.start); err != nil {
			return nil, err
		}
		if fp == "" {
			_, fp = lv.ladderAt(rec.start)
		}
	}
	tier, reward, decay, err := e.resolve(ctx, lv, ladder, player, rec, look, reply[5].(int64), p)
	if err != nil {
		return nil, err
	}
	d := &decision{tier: lv.code[tier], from: raw, rules: fp, decay: decay}
	if reward != nil {
		js, err := json.Marshal(reward)
		if err != nil {
			return nil, internal("join", err)
		}
		d.earned, d.rewards = rec.start, string(js)
	}
	return d, nil
}

// resolve decides the ladder index a player with this record joins period p
// in, and the rewards of their record's period when settlement has not
// applied it yet (so nobody delivered them). It is settlement's decision for
// that player, made early: the same tiers.Ladder functions, under the same
// rules (ladder, see decideJoin), on the same frozen board.
//
// A record naming a tier this config does not have (another process's newer
// config added it) is refused: deciding without that tier would drop the
// player to another. The Decay is the move absence decay made, if any.
func (e *Engine) resolve(ctx context.Context, lv *live, ladder *tiers.Ladder, player string, rec record, look lookup,
	settled int64, p Period) (int, *Reward, *Decay, error) {
	for _, code := range []int{rec.tier, rec.next} {
		if _, known := lv.index[code]; !known && code != noTier {
			tier, _ := e.tierID(ctx, lv, code)
			return 0, nil, nil, lv.unknownTier(player, tier)
		}
	}
	played := lv.index[rec.tier]
	tier := played
	var reward *Reward
	switch {
	case rec.next != noTier:
		tier = lv.index[rec.next]
	case settled >= rec.start:
		// settled and not moved: stayed
	case look.rank == offBoard:
		// taken off the board by an operator: settlement skips them, and
		// they stay
	case look.rank > 0:
		// decided as settlement will: in the merged ranking when the board
		// is merged with another (min_board_size), and kept by promotion
		// protection
		board, _ := placement(rec.n, lv.BoardSize)
		m, err := e.mergeOf(ctx, lv, ladder, rec.start, rec.tier, board, &look.score)
		if err != nil {
			return 0, nil, nil, err
		}
		rank := m.rank(look.rank)
		z, err := e.protect(ctx, lv, ladder, rec.start, played, ladder.Zone(played, rank, m.size(look.size), look.score), player)
		if err != nil {
			return 0, nil, nil, err
		}
		tier = ladder.Next(played, z, rank)
		if items := ladder.Rewards(played, rank, look.score); items != nil {
			reward = &Reward{Earned: rec.startTime(), Tier: ladder.Tier(played).ID, Rank: rank, Items: items}
		}
	default:
		e.log.Warn("league: last period neither settled nor on Redis; keeping the player's tier",
			"league", lv.ID, "period", rec.startTime())
	}
	if lv.DecayAfter > 0 {
		from := rec.startTime()
		if lv.restored.After(from) {
			// Who played the periods Redis lost is not known: none of them
			// counts as an absence (see Restore).
			from = lv.restored
		}
		absent, err := e.absence(ctx, lv, from, p)
		if err != nil {
			return 0, nil, nil, err
		}
		if after := lv.Ladder.AfterAbsence(tier, absent, lv.DecayAfter); after != tier {
			decay := &Decay{League: lv.ID, Player: player, Period: p.Start, From: lv.Ladder.Tier(tier).ID,
				To: lv.Ladder.Tier(after).ID, Absent: absent}
			return after, reward, decay, nil
		}
	}
	return tier, reward, nil, nil
}

// placement builds the result of a {0|1, tier, n, rewards} reply.
// The join stands even in a tier this process's config lacks (another
// process's newer config added it): the reply names it from Redis.
func (e *Engine) placement(ctx context.Context, lv *live, p Period, player string, reply []any) (Placement, error) {
	tier, known := e.tierID(ctx, lv, int(reply[1].(int64)))
	if !known {
		// Once per tier: every join into it would say the same.
		if _, warned := lv.warned.LoadOrStore(tier, true); !warned {
			e.log.Warn("league: a join placed a player in a tier this config lacks; restart with the config that has it",
				"league", lv.ID, "tier", tier)
		}
	}
	board, slot := placement(int(reply[2].(int64)), lv.BoardSize)
	rewards, err := parseDelivered(reply[3].(string))
	if err != nil {
		return Placement{}, internal("join", err)
	}
	id := BoardID{Tier: tier, N: board}
	if known {
		id = lv.boardID(int(reply[1].(int64)), board)
	}
	return Placement{
		League: lv.ID, Period: p, Tier: tier, Board: id, Slot: slot,
		Rewards: rewards, Rejoined: scripts.Status(reply[0].(int64)) == scripts.Existing,
	}, nil
}

// parseDelivered parses the delivered rewards of a join: lines of
// "<earned start>|<reward JSON>".
func parseDelivered(s string) ([]Reward, error) {
	if s == "" {
		return nil, nil
	}
	var out []Reward
	for _, line := range strings.Split(s, "\n") {
		start, js, ok := strings.Cut(line, "|")
		sec, err := strconv.ParseInt(start, 10, 64)
		if !ok || err != nil {
			return nil, fmt.Errorf("bad delivered reward %q", line)
		}
		var r Reward
		if err := json.Unmarshal([]byte(js), &r); err != nil {
			return nil, fmt.Errorf("bad delivered reward %q: %v", line, err)
		}
		r.Earned = time.Unix(sec, 0).UTC()
		out = append(out, r)
	}
	return out, nil
}

// absence counts the periods strictly between the one starting at from and
// p that somebody played: a period nobody joined (the service was down, the
// league paused) is nobody's absence. Only when the schedule alone allows a
// decay does it ask Redis, which keeps the latest periods played
// (playedKept: enough to drop a player from the top tier to the bottom).
func (e *Engine) absence(ctx context.Context, lv *live, from time.Time, p Period) (int, error) {
	last, err := lv.Schedule.Containing(from)
	if err != nil {
		return 0, nil
	}
	if lv.Schedule.Between(last, p, lv.DecayAfter) < lv.DecayAfter {
		return 0, nil
	}
	n, err := e.rdb.ZCount(ctx, lv.keys.played(), "("+strconv.FormatInt(last.Start.Unix(), 10),
		"("+strconv.FormatInt(p.Start.Unix(), 10)).Result()
	if err != nil {
		return 0, internal("absence", err)
	}
	return int(n), nil
}

// playedKept is how many of the latest periods played join.lua keeps: an
// absence of that many drops any player to the bottom tier.
func playedKept(lv *live) int { return lv.DecayAfter*lv.Ladder.Len() + 1 }
