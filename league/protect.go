package league

import (
	"context"

	"github.com/redis/go-redis/v9"

	"github.com/league-engine/league/tiers"
)

// Promotion protection (tiers.Tier.ProtectPromoted): a player promoted into
// a tier that protects is not demoted in the first period they play there.
//
// Who was promoted is decided once, at the join: join.lua compares the tier
// it places the player in (settlement's outcome, a join's early decision,
// after any decay) with the tier of the period their record says they last
// played, by the ladder positions promotionRanks gives it, and adds a player
// placed higher to the period's set (keys.promoted). Every zone the engine
// shows or decides for that period (a board read, a standing, a score
// write's reply, a join deciding early from the frozen board, the preview,
// settlement) asks that set, and only for players ranked in the demotion
// zone of a tier that protects, once per call (protectEntries for a board,
// protectShown for the replies of a call, promotedOnBoards for a pipeline of
// final boards, protect for one early decision): what the screens show is
// what settlement does, and a league without the rule never asks nor
// writes. A player promoted more than a period ago and back only now is
// protected in the period they play: protection is for their first period
// in the tier, whenever they play it.
//
// The store keeps who was protected as what the board showed: a stay in
// the demotion ranks of a tier that protects (protectedAtClose), which is
// what verifying and correcting a settled period read back.

// promotionRanks is join.lua's ARGV[25]: one byte per tier code, the code's
// ladder position + 1 (0 for a code this config lacks), so the script can
// tell a promotion from a demotion; "" when no ladder of the league (its
// own or an override's) protects, and joins then record nothing.
func promotionRanks(lv *live) string {
	if !protectsAny(lv.Ladder) {
		found := false
		for _, o := range lv.overrides {
			found = found || protectsAny(o.Ladder)
		}
		if !found {
			return ""
		}
	}
	top := 0
	for c := range lv.index {
		top = max(top, c)
	}
	b := make([]byte, top+1)
	for c, i := range lv.index { // tier and cohort codes
		b[c] = byte(i + 1) // a ladder has at most tiers.MaxTiers tiers
	}
	return string(b)
}

func protectsAny(ld *tiers.Ladder) bool {
	for i := range ld.Len() {
		if ld.Protects(i) {
			return true
		}
	}
	return false
}

// protect applies promotion protection to zone z of player in tier idx of
// the period starting at start, decided under ladder (a join deciding early
// from the frozen board): it asks Redis only for a Demote in a tier that
// protects.
func (e *Engine) protect(ctx context.Context, lv *live, ladder *tiers.Ladder, start int64, idx int, z tiers.Zone, player string) (tiers.Zone, error) {
	if z != tiers.Demote || !ladder.Protects(idx) {
		return z, nil
	}
	promoted, err := e.rdb.SIsMember(ctx, lv.keys.promoted(start), player).Result()
	if err != nil {
		return z, internal("promotion protection", err)
	}
	return ladder.Protect(idx, z, promoted), nil
}

// shown is a zone a reply shows (a score write's, a standing's), for
// protectShown to apply promotion protection to.
type shown struct {
	start     int64 // the period's
	tier      string
	player    string
	zone      *tiers.Zone
	protected *bool
	err       *error // set when the question fails
}

// protectShown applies promotion protection to the zones of several
// replies: one round trip for those ranked in the demotion zone of a tier
// that protects, none when there are none. A zone it cannot decide gets an
// error instead (a score write stands: its retry with the same request id
// replays it).
func (e *Engine) protectShown(ctx context.Context, lv *live, zs []shown) {
	type ask struct {
		shown
		ladder *tiers.Ladder
		idx    int
		cmd    *redis.BoolCmd
	}
	var asks []ask
	var pipe redis.Pipeliner
	for _, z := range zs {
		if *z.err != nil || *z.zone != tiers.Demote {
			continue
		}
		ladder, _ := lv.ladderAt(z.start)
		idx, ok := lv.Ladder.Index(z.tier)
		if !ok || !ladder.Protects(idx) {
			continue
		}
		if pipe == nil {
			pipe = e.rdb.Pipeline()
		}
		asks = append(asks, ask{shown: z, ladder: ladder, idx: idx, cmd: pipe.SIsMember(ctx, lv.keys.promoted(z.start), z.player)})
	}
	if pipe == nil {
		return
	}
	if _, err := pipe.Exec(ctx); err != nil {
		for _, a := range asks {
			*a.err = internal("promotion protection", err)
		}
		return
	}
	for _, a := range asks {
		kept := a.ladder.Protect(a.idx, *a.zone, a.cmd.Val())
		*a.zone, *a.protected = kept, kept != *a.zone
	}
}

// protectResults is protectShown of score writes' results (writes[i] got
// results[i], unless errs[i] is set).
func (e *Engine) protectResults(ctx context.Context, lv *live, writes []ScoreWrite, results []ScoreResult, errs []error) {
	if lv.ranks == "" {
		return // no ladder of this config protects: nothing to build
	}
	zs := make([]shown, 0, len(results))
	for i := range results {
		r := &results[i]
		zs = append(zs, shown{start: r.Period.Start.Unix(), tier: r.Tier, player: writes[i].Player, zone: &r.Zone, protected: &r.Protected, err: &errs[i]})
	}
	e.protectShown(ctx, lv, zs)
}

// protectStandings is protectShown of standings (errs[i] set: none).
func (e *Engine) protectStandings(ctx context.Context, lv *live, out []Standing, errs []error) {
	if lv.ranks == "" {
		return
	}
	zs := make([]shown, 0, len(out))
	for i := range out {
		s := &out[i]
		zs = append(zs, shown{start: s.Period.Start.Unix(), tier: s.Tier, player: s.Player, zone: &s.Zone, protected: &s.Protected, err: &errs[i]})
	}
	e.protectShown(ctx, lv, zs)
}

// protectEntries applies promotion protection to the entries of a live
// board of tier idx of the period starting at start, decided under ladder:
// one question to Redis for its demotion ranks, none when the tier does not
// protect.
func (e *Engine) protectEntries(ctx context.Context, lv *live, ladder *tiers.Ladder, start int64, idx int, entries []Entry) error {
	if !ladder.Protects(idx) {
		return nil
	}
	var at []int
	var players []any
	for i := range entries {
		if entries[i].Zone == tiers.Demote {
			at, players = append(at, i), append(players, entries[i].Player)
		}
	}
	if len(at) == 0 {
		return nil
	}
	promoted, err := e.rdb.SMIsMember(ctx, lv.keys.promoted(start), players...).Result()
	if err != nil {
		return internal("promotion protection", err)
	}
	for j, i := range at {
		z := ladder.Protect(idx, entries[i].Zone, promoted[j])
		entries[i].Zone, entries[i].Protected = z, z != entries[i].Zone
	}
	return nil
}

// promotedOnBoards marks the players of boards of the period starting at
// start who were promoted into their tier (tiers.Standing.Promoted), in one
// round trip for all of them, asking only about the demotion ranks of the
// boards of tiers that protect: the players that mark can change.
func (e *Engine) promotedOnBoards(ctx context.Context, lv *live, ladder *tiers.Ladder, start int64, boards []finalBoard) error {
	type ask struct {
		board, from int
		cmd         *redis.BoolSliceCmd
	}
	var asks []ask
	var pipe redis.Pipeliner
	for k, b := range boards {
		n := len(b.Players)
		if n == 0 || !ladder.Protects(b.Tier) {
			continue
		}
		size := n
		if ladder.Tier(b.Tier).MinBoardSize > 0 {
			// the board may be decided with others (merge.go): the
			// demotion ranks of the boards ranked together hold at most
			// the bottom of each board as many as a board of all their
			// sizes demotes: the board before it in its sequence (at most
			// full), and with cohorts the shared boards' last two and
			// every thin cohort's (each short)
			size += lv.BoardSize * (2 + len(lv.Cohorts))
		}
		_, d := ladder.Counts(b.Tier, size)
		if d = min(d, n); d == 0 {
			continue
		}
		if pipe == nil {
			pipe = e.rdb.Pipeline()
		}
		players := make([]any, d)
		for r := range d {
			players[r] = b.Players[n-d+r].Player
		}
		asks = append(asks, ask{board: k, from: n - d, cmd: pipe.SMIsMember(ctx, lv.keys.promoted(start), players...)})
	}
	if pipe == nil {
		return nil
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return internal("promotion protection", err)
	}
	for _, a := range asks {
		for r, promoted := range a.cmd.Val() {
			boards[a.board].Players[a.from+r].Promoted = promoted
		}
	}
	return nil
}

// protectedAtClose reports whether a recorded outcome of tier idx, whose
// zone was recorded, may have been kept by promotion protection: the store
// keeps it as the zone the board showed, a stay, which in the demotion
// ranks of a tier that protects no other rule gives. Read as the
// player's Standing.Promoted, it changes only a Demote (tiers.Ladder.Protect),
// so it needs no rank: the demotion ranks are those of the ranking decided
// (a merged board's, min_board_size).
func protectedAtClose(ladder *tiers.Ladder, idx int, recorded tiers.Zone) bool {
	return recorded == tiers.Stay && ladder.Protects(idx)
}
