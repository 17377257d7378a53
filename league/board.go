package league

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/league-engine/league/internal/excerpt"
	"github.com/league-engine/league/scripts"
	"github.com/league-engine/league/tiers"
)

// BoardID names a sub-board within a period: its tier, its cohort ("" for
// the tier's shared boards; cohort.go) and its number (1-based). Its text
// form is "<tier>-<n>", e.g. "gold-3", or "<tier>.<cohort>-<n>", e.g.
// "gold.core-3".
type BoardID struct {
	Tier   string
	Cohort string
	N      int
}

func (b BoardID) String() string { return cohortID(b.Tier, b.Cohort) + "-" + strconv.Itoa(b.N) }

// ParseBoardID parses "<tier>-<n>" or "<tier>.<cohort>-<n>": ids (1-32 of
// a-z, 0-9 and _, as the config allows) and a board number written plainly
// from 1, so that each board has one id ("bronze-01" and "bronze-+1" are
// refused, not read as bronze-1).
func ParseBoardID(s string) (BoardID, error) {
	i := strings.LastIndexByte(s, '-')
	tier, cohort, _ := strings.Cut(s[:max(i, 0)], cohortSep)
	isID := func(id string) bool {
		return len(id) <= 32 && strings.Trim(id, "abcdefghijklmnopqrstuvwxyz0123456789_") == ""
	}
	if i <= 0 || tier == "" || !isID(tier) || !isID(cohort) || strings.HasSuffix(s[:i], cohortSep) {
		return BoardID{}, fieldError("board", "%q is not <tier>-<number> or <tier>.<cohort>-<number>, e.g. gold-3", excerpt.Of(s))
	}
	num := s[i+1:]
	n, err := strconv.Atoi(num)
	if err != nil || n < 1 || num[0] < '1' || num[0] > '9' {
		return BoardID{}, fieldError("board", "%q does not end in a board number from 1, e.g. gold-3", excerpt.Of(s))
	}
	return BoardID{Tier: tier, Cohort: cohort, N: n}, nil
}

// Board is a sub-board's ranking.
type Board struct {
	League  string
	Period  Period
	ID      BoardID
	Entries []Entry
	// MergedWith is the board this one is decided with (min_board_size):
	// the entries' zones are those of both boards' players ranked together.
	// nil when decided alone.
	MergedWith *BoardID
}

// Entry is one ranked player of a board.
type Entry struct {
	Rank   int
	Player string
	Name   string
	Avatar string
	Score  int64
	// Zone is where the rank falls under the tier's ratios and the board's
	// current size (tiers.Ladder.Zone, the rule settlement applies).
	Zone tiers.Zone
	// Protected reports a player of the demotion ranks whom promotion
	// protection keeps in the tier: Zone is Stay (protect.go).
	Protected bool
}

// BoardCount is how many sub-boards a tier's players fill in a period:
// joins fill board 1 up to BoardSize, then board 2, and so on (placement),
// so a tier of n players has boards 1 to BoardCount(n).
func (l *League) BoardCount(players int) int {
	if players <= 0 {
		return 0
	}
	n, _ := placement(players, l.BoardSize)
	return n
}

// Board returns every entry of a sub-board of the given period (the zero
// Period means the current one). One round trip: the sorted set, and the
// names hash pipelined with it unless the engine's name cache has it (see
// nameCache: a rename shows within seconds).
func (e *Engine) Board(ctx context.Context, leagueID string, period Period, id BoardID) (Board, error) {
	lv, err := e.live(leagueID)
	if err != nil {
		return Board{}, err
	}
	if period.IsZero() {
		period, _ = e.current(lv)
	}
	idx, err := lv.TierIndex(id.Tier)
	if err != nil {
		if e.playedElsewhere(ctx, lv, period, id.Tier) {
			return Board{}, Errorf(Unavailable, "league %q: tier %q is not in this process's config "+
				"(a config adding it is rolling out): restart this process with it, or retry on one that has it", lv.ID, id.Tier)
		}
		return Board{}, err
	}
	code, err := lv.boardCode(id)
	if err != nil {
		return Board{}, err
	}
	start := period.Start.Unix()
	zs, nm, epoch, err := e.boardEntries(ctx, lv, lv.keys.board(start, code, id.N), lv.keys.names(start, code, id.N))
	if err != nil {
		return Board{}, internal("board", err)
	}
	if epoch != lv.epoch {
		return Board{}, lv.lostError() // the board read may be another tier's under new codes
	}
	if len(zs) == 0 {
		return Board{}, Errorf(NotFound, "league %q has no board %s in period %s", lv.ID, id, period.ID())
	}
	b := Board{League: lv.ID, Period: period, ID: id, Entries: make([]Entry, len(zs))}
	ladder, _ := lv.ladderAt(start)
	m, others, err := e.boardMerge(ctx, lv, ladder, start, code, id.N)
	if err != nil {
		return Board{}, err
	}
	b.MergedWith = m.board(lv, code, id.N)
	for i, z := range zs {
		player := z.Member.(string)
		name, avatar, _ := strings.Cut(nm[player], profileSep)
		score, _ := lv.Packing().Unpack(z.Score)
		rank, size := i+1, len(zs)
		for _, o := range others {
			rank, size = rank+tiers.MergedAhead(o.scores, score, o.earlier), size+len(o.scores)
		}
		b.Entries[i] = Entry{
			Rank: i + 1, Player: player, Name: name, Avatar: avatar, Score: score,
			Zone: ladder.Zone(idx, rank, size, score),
		}
	}
	if err := e.protectEntries(ctx, lv, ladder, start, idx, b.Entries); err != nil {
		return Board{}, err
	}
	return b, nil
}

// playedElsewhere reports whether a tier this config lacks has players in
// period p: another process's config added it, so its boards are there but
// this process cannot label them (unavailable, not unknown). A tier added
// and rolled back before anyone played it is unknown again.
func (e *Engine) playedElsewhere(ctx context.Context, lv *live, p Period, tier string) bool {
	code, err := e.rdb.HGet(ctx, lv.keys.tiers(), tier).Result()
	if err != nil {
		return false
	}
	n, _ := e.rdb.HGet(ctx, lv.keys.counters(p.Start.Unix()), code).Int()
	return n > 0
}

// boardEntries reads a board's sorted set and its names, from the name cache
// when it knows every member, and the league's epoch in the same round trip:
// the keys were built with this process's tier codes, which a restore may
// have handed to other tiers.
func (e *Engine) boardEntries(ctx context.Context, lv *live, board, names string) ([]redis.Z, map[string]string, string, error) {
	if nm, ok := e.names.get(names); ok {
		pipe := e.rdb.Pipeline()
		zr := pipe.ZRevRangeWithScores(ctx, board, 0, -1)
		er := pipe.HGet(ctx, lv.keys.meta(), "epoch")
		if _, err := pipe.Exec(ctx); err != nil && err != redis.Nil {
			return nil, nil, "", err
		}
		known := true
		for _, z := range zr.Val() {
			if _, ok := nm[z.Member.(string)]; !ok {
				known = false
				break
			}
		}
		if known {
			return zr.Val(), nm, er.Val(), nil
		}
	}
	pipe := e.rdb.Pipeline()
	zr := pipe.ZRevRangeWithScores(ctx, board, 0, -1)
	hr := pipe.HGetAll(ctx, names)
	er := pipe.HGet(ctx, lv.keys.meta(), "epoch")
	if _, err := pipe.Exec(ctx); err != nil && err != redis.Nil {
		return nil, nil, "", err
	}
	if len(zr.Val()) > 0 && er.Val() == lv.epoch {
		e.names.put(names, hr.Val())
	}
	return zr.Val(), hr.Val(), er.Val(), nil
}

// Standing is where a player stands in the current period.
type Standing struct {
	League string
	Player string
	Period Period
	// Joined reports whether the player joined the current period. If not,
	// Tier is the tier a join would place them in and the rest is zero.
	Joined    bool
	Tier      string
	Board     BoardID
	Rank      int
	Score     int64
	BoardSize int
	// Gap is the score the player needs to draw level with the player just
	// above; 0 at rank 1.
	Gap  int64
	Zone tiers.Zone
	// MergedWith is the board the player's board is decided with
	// (min_board_size; ScoreResult.MergedWith); nil when decided alone.
	MergedWith *BoardID
	// Protected reports a player of the demotion ranks whom promotion
	// protection keeps in the tier: Zone is Stay (protect.go).
	Protected bool
	// Earned, for a player who has not joined the current period, is the
	// reward of their last period that a join would deliver, decided from
	// its frozen board because settlement has not reached it yet (nil when
	// none): not among the pending rewards until settlement writes it.
	Earned *Reward
	// Moderation is set when an operator took the player off their board
	// this period (Engine.Moderate): hidden, removed or banned. Rank is
	// then 0, Zone means nothing (the API answers null), Score is the
	// score kept for them and BoardSize the players still on the board.
	Moderation BoardState
}

// WithEarned returns pending (PendingRewards) with s.Earned added unless it
// is there already: every reward the player's next join delivers.
func (s Standing) WithEarned(pending []Reward) []Reward {
	if s.Earned == nil || slices.ContainsFunc(pending, func(r Reward) bool { return r.Earned.Equal(s.Earned.Earned) }) {
		return pending
	}
	return append(pending, *s.Earned)
}

// Standing returns the player's standing in the current period: one round
// trip to Redis. A player who never joined the league is NotFound.
func (e *Engine) Standing(ctx context.Context, leagueID, player string) (Standing, error) {
	lv, err := e.live(leagueID)
	if err != nil {
		return Standing{}, err
	}
	if err := CheckPlayerID(player); err != nil {
		return Standing{}, err
	}
	p, _ := e.current(lv)
	ks, args := e.standingArgs(lv, player)
	reply, err := e.run.Run(ctx, scripts.Standing, true, ks, args...).Slice()
	if err != nil {
		return Standing{}, internal("standing", err)
	}
	s, err := e.standing(ctx, lv, p, player, reply)
	if err == nil && s.Zone == tiers.Demote && lv.ranks != "" {
		out, errs := []Standing{s}, []error{nil}
		e.protectStandings(ctx, lv, out, errs)
		return out[0], errs[0]
	}
	return s, err
}

// Standings returns several players' standings in one round trip (a
// pipeline). errs[i] is the error of players[i].
func (e *Engine) Standings(ctx context.Context, leagueID string, players []string) ([]Standing, []error, error) {
	lv, err := e.live(leagueID)
	if err != nil {
		return nil, nil, err
	}
	if len(players) > MaxBatch {
		return nil, nil, fieldError("players", "%d players, at most %d", len(players), MaxBatch)
	}
	out := make([]Standing, len(players))
	errs := make([]error, len(players))
	var valid []int
	for i, pl := range players {
		if errs[i] = CheckPlayerID(pl); errs[i] == nil {
			valid = append(valid, i)
		}
	}
	if len(valid) == 0 {
		return out, errs, nil
	}
	p, _ := e.current(lv)
	cmds, err := e.run.Pipeline(ctx, scripts.Standing, len(valid), func(j int) ([]string, []any) {
		return e.standingArgs(lv, players[valid[j]])
	})
	if err != nil {
		return nil, nil, internal("standings", err)
	}
	for j, i := range valid {
		reply, err := cmds[j].Slice()
		if err != nil {
			errs[i] = internal("standing", err)
			continue
		}
		out[i], errs[i] = e.standing(ctx, lv, p, players[i], reply)
	}
	e.protectStandings(ctx, lv, out, errs)
	return out, errs, nil
}

func (e *Engine) standingArgs(lv *live, player string) ([]string, []any) {
	return []string{lv.keys.record(player), lv.keys.meta()},
		[]any{player, lv.keys.prefix, lv.BoardSize, lv.epoch}
}

// standing interprets a standing.lua reply.
func (e *Engine) standing(ctx context.Context, lv *live, p Period, player string, reply []any) (Standing, error) {
	if len(reply) == 0 {
		return Standing{}, Errorf(NotFound, "player %q has never joined league %q", player, lv.ID)
	}
	if status, ok := reply[0].(int64); ok && scripts.Status(status) == scripts.Lost {
		return Standing{}, lv.lostError()
	}
	rec, ok := decodeRecord(reply[0].(string))
	if !ok {
		return Standing{}, internal("standing", fmt.Errorf("bad record %q", reply[0]))
	}
	look := lookup{rank: int(reply[1].(int64)), size: int(reply[2].(int64))}
	var packed float64
	if look.rank > 0 {
		packed, _ = strconv.ParseFloat(reply[3].(string), 64)
		look.score, _ = lv.Packing().Unpack(packed)
	}
	var off moderatedEntry
	if len(reply) > 6 {
		var ok bool
		if off, ok = parseModerated(reply[6]); !ok {
			return Standing{}, internal("standing", fmt.Errorf("bad moderation entry %q", reply[6]))
		}
		look.rank = offBoard
	}
	if rec.start > p.Start.Unix() {
		// Joined a period this process's clock has not reached: it runs
		// behind Redis's (by less than the skew it last measured). That
		// period is the current one.
		if q, err := lv.periodOf(rec.start); err == nil {
			p = q
		}
	}
	s := Standing{League: lv.ID, Player: player, Period: p}
	if rec.start != p.Start.Unix() {
		// Not joined this period: the tier a join would give them, under
		// the rules their period is decided under if it is not settled.
		settled := reply[5].(int64)
		ladder := lv.Ladder
		if look.rank > 0 && settled < rec.start {
			var err error
			if ladder, err = e.periodLadder(ctx, lv, rec.start); err != nil {
				return Standing{}, err
			}
		}
		tier, earned, _, err := e.resolve(ctx, lv, ladder, player, rec, look, settled, p)
		if err != nil {
			return Standing{}, err
		}
		s.Tier, s.Earned = lv.Ladder.Tier(tier).ID, earned
		return s, nil
	}
	idx, ok := lv.index[rec.tier]
	if !ok {
		tier, _ := e.tierID(ctx, lv, rec.tier)
		return Standing{}, lv.unknownTier(player, tier)
	}
	board, _ := placement(rec.n, lv.BoardSize)
	if look.rank == offBoard {
		s.Joined, s.Tier = true, lv.Ladder.Tier(idx).ID
		s.Board = lv.boardID(rec.tier, board)
		s.Score, _ = lv.Packing().Unpack(off.packed)
		s.BoardSize, s.Moderation = look.size, off.state
		return s, nil
	}
	if look.rank < 1 {
		// A join writes the record and the board entry together, and the
		// running period's board does not expire: Redis lost it (evicted,
		// deleted by hand). Rank 0 of a board of 0 would be made up.
		return Standing{}, internal("standing", fmt.Errorf("player %q joined period %s but is not on their board %s",
			player, p.ID(), lv.boardID(rec.tier, board)))
	}
	s.Joined, s.Tier = true, lv.Ladder.Tier(idx).ID
	s.Board = lv.boardID(rec.tier, board)
	s.Rank, s.Score, s.BoardSize = look.rank, look.score, look.size
	if above, ok := reply[4].(string); ok && above != "" {
		f, _ := strconv.ParseFloat(above, 64)
		a, _ := lv.Packing().Unpack(f)
		s.Gap = a - s.Score
	}
	ladder, _ := lv.ladderAt(p.Start.Unix())
	m, err := e.mergeOf(ctx, lv, ladder, p.Start.Unix(), rec.tier, board, &s.Score)
	if err != nil {
		return Standing{}, err
	}
	// protectStandings may keep a Demote
	s.Zone, s.MergedWith = ladder.Zone(idx, m.rank(s.Rank), m.size(s.BoardSize), s.Score), m.board(lv, rec.tier, board)
	return s, nil
}

// Populations returns how many players joined each tier (by id) in a period
// (the zero Period means the current one).
func (e *Engine) Populations(ctx context.Context, leagueID string, period Period) (map[string]int, error) {
	seqs, err := e.Sequences(ctx, leagueID, period)
	if err != nil {
		return nil, err
	}
	out := make(map[string]int, len(seqs))
	for _, q := range seqs {
		out[q.Tier] += q.Players
	}
	return out, nil
}

// Sequence is a run of boards of one period filling one after another: a
// tier's shared boards, or its boards of one cohort (cohort.go).
type Sequence struct {
	Tier    string
	Cohort  string // "" for the shared boards
	Players int    // joined
	Boards  int
}

// Sequences returns every tier's runs of boards in a period (the zero
// Period means the current one), in ladder order and within a tier in tie
// order (the shared boards, then cohorts by name), each tier's shared
// boards even when empty, a cohort's only when it holds players.
func (e *Engine) Sequences(ctx context.Context, leagueID string, period Period) ([]Sequence, error) {
	lv, err := e.live(leagueID)
	if err != nil {
		return nil, err
	}
	if period.IsZero() {
		period, _ = e.current(lv)
	}
	pipe := e.rdb.Pipeline()
	counts := pipe.HGetAll(ctx, lv.keys.counters(period.Start.Unix()))
	epoch := pipe.HGet(ctx, lv.keys.meta(), "epoch")
	if _, err := pipe.Exec(ctx); err != nil && err != redis.Nil {
		return nil, internal("populations", err)
	}
	if epoch.Val() != lv.epoch {
		return nil, lv.lostError() // the counts are keyed by tier codes a restore may have reassigned
	}
	m := counts.Val()
	var out []Sequence
	for i := 0; i < lv.Ladder.Len(); i++ {
		for k, code := range lv.tierCodesOf(i) {
			n, _ := strconv.Atoi(m[strconv.Itoa(code)])
			if k == 0 || n > 0 {
				out = append(out, Sequence{Tier: lv.Ladder.Tier(i).ID, Cohort: lv.cohortName(code), Players: n, Boards: lv.BoardCount(n)})
			}
		}
	}
	return out, nil
}

// PendingRewards returns the rewards settlement left for the player that no
// join has delivered yet.
func (e *Engine) PendingRewards(ctx context.Context, leagueID, player string) ([]Reward, error) {
	lv, err := e.live(leagueID)
	if err != nil {
		return nil, err
	}
	if err := CheckPlayerID(player); err != nil {
		return nil, err
	}
	v, err := e.rdb.HGet(ctx, lv.keys.reward(player), player).Result()
	if err == redis.Nil {
		return nil, nil
	}
	if err != nil {
		return nil, internal("pending rewards", err)
	}
	start, state, rest := splitReward(v)
	if state != "p" {
		return nil, nil
	}
	return parseDelivered(start + "|" + rest)
}

// splitReward splits a reward bucket value "<start>|<state>|<rest>".
func splitReward(v string) (start, state, rest string) {
	start, v, _ = strings.Cut(v, "|")
	state, rest, _ = strings.Cut(v, "|")
	return start, state, rest
}
