package league

import (
	"cmp"
	"context"
	"encoding/base64"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/league-engine/league/internal/words"
	"github.com/league-engine/league/tiers"
)

// The audit trail: one list, by player or by period, of everything that
// moved a player or paid them. Each store builds it from what it keeps
// anyway (outcomes, rewards, claims, decays, corrections, admin actions):
// the trail is a way of reading the record, not a second record, so it can
// neither miss what happened nor disagree with it.

// TrailKind is what a line of the trail records.
type TrailKind string

const (
	// TrailSettlement: a settled period's outcome, the tier move (or stay)
	// the player's board gave. At is the period's end.
	TrailSettlement TrailKind = "settlement"
	// TrailReward: a reward settlement granted. At is the period's end.
	TrailReward TrailKind = "reward"
	// TrailDecay: a join placed a player who sat out decay_after periods
	// one or more tiers lower. Period is the period joined.
	TrailDecay TrailKind = "decay"
	// TrailClaim: a join delivered a reward. Period is the period the
	// reward was earned in.
	TrailClaim TrailKind = "claim"
	// TrailCorrection: an operator's correction of a settled period
	// changed the player's outcome or reward.
	TrailCorrection TrailKind = "correction"
	// TrailAdmin: an operator's action on the player (moderation).
	TrailAdmin TrailKind = "admin"
)

// TrailKinds lists the kinds in the order they sort at one instant (a
// settlement's outcome before its reward).
var TrailKinds = []TrailKind{TrailSettlement, TrailReward, TrailDecay, TrailClaim, TrailCorrection, TrailAdmin}

// Order is k's place in TrailKinds; -1 for a kind not in it.
func (k TrailKind) Order() int { return slices.Index(TrailKinds, k) }

// TrailEntry is one line of the trail.
type TrailEntry struct {
	Kind   TrailKind
	At     time.Time // when it happened: see each kind
	Period time.Time // start of the period it concerns
	Player string
	// Tier moves (settlement, decay, correction): the tier before and
	// after. A settlement's TierBefore is the tier played; a correction's
	// are the tiers settlement gave before and after it.
	TierBefore, TierAfter string
	Move                  Move // correction and decay; the API adds it for settlement
	// Settlement and reward: the board, rank and score that decided them;
	// a settlement's board is one of Cohort's when set (cohort.go).
	Cohort string
	Board  int
	Rank   int
	Score  int64
	// Reward and claim: the tier that earned it and its items.
	Tier  string
	Items []tiers.Item
	// Claim: the period whose join delivered it (zero if unknown).
	ClaimedIn time.Time
	// Decay: how many periods the player sat out.
	Absent int
	// Correction: the correction and what it changed for this player.
	Correction *Correction
	Change     *CorrectionChange
	// Admin: the action.
	Action *Action
	// Seq orders entries of one kind, player and instant (the store's: a
	// period's start, a correction's or an action's id).
	Seq int64
}

// TrailQuery asks for a page of a league's trail, newest first. Player,
// Period or both must be given.
type TrailQuery struct {
	League string
	Player string
	Period time.Time
	// After is where the page starts: the entries after this cursor in
	// the trail's order (a page's Next); "" starts at the newest.
	After string
	Limit int // 1 to MaxAuditPage
}

// TrailPage is a page of the trail.
type TrailPage struct {
	Entries []TrailEntry
	Next    string // TrailQuery.After of the next page; "" on the last
}

// TrailLog reads the trail: postgres.Store and inmem.Store.
type TrailLog interface {
	Trail(ctx context.Context, q TrailQuery) (TrailPage, error)
}

// TrailCursor is a position in the trail: the key of its last entry.
type TrailCursor struct {
	At     time.Time
	Kind   TrailKind
	Seq    int64
	Player string
}

// CursorOf returns the cursor just past e.
func CursorOf(e TrailEntry) TrailCursor {
	return TrailCursor{At: e.At, Kind: e.Kind, Seq: e.Seq, Player: e.Player}
}

// String encodes c as a page's Next: opaque to callers.
func (c TrailCursor) String() string {
	raw := fmt.Sprintf("%d~%s~%d~%s", c.At.UnixMicro(), c.Kind, c.Seq, c.Player)
	return base64.RawURLEncoding.EncodeToString([]byte(raw))
}

// ParseTrailCursor decodes a page's Next.
func ParseTrailCursor(s string) (TrailCursor, error) {
	bad := fieldError("after", "%q is not a cursor of the trail (a page's next)", s)
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return TrailCursor{}, bad
	}
	parts := strings.SplitN(string(raw), "~", 4)
	if len(parts) != 4 {
		return TrailCursor{}, bad
	}
	at, err1 := strconv.ParseInt(parts[0], 10, 64)
	seq, err2 := strconv.ParseInt(parts[2], 10, 64)
	c := TrailCursor{At: time.UnixMicro(at).UTC(), Kind: TrailKind(parts[1]), Seq: seq, Player: parts[3]}
	if err1 != nil || err2 != nil || c.Kind.Order() < 0 {
		return TrailCursor{}, bad
	}
	return c, nil
}

// Compare orders cursors as the trail lists them: newest first, then by
// kind (last of TrailKinds first), then by Seq and player, descending. A
// negative result puts c before d.
func (c TrailCursor) Compare(d TrailCursor) int {
	return -cmp.Or(c.At.Compare(d.At), cmp.Compare(c.Kind.Order(), d.Kind.Order()),
		cmp.Compare(c.Seq, d.Seq), strings.Compare(c.Player, d.Player))
}

// CheckTrailQuery validates q as every TrailLog needs it, and returns its
// cursor (zero when q starts at the newest).
func CheckTrailQuery(q TrailQuery) (TrailCursor, error) {
	if q.League == "" {
		return TrailCursor{}, fieldError("league", "must not be empty")
	}
	if q.Player == "" && q.Period.IsZero() {
		return TrailCursor{}, fieldError("player", "give a player, a period or both: the trail is read by player or by period")
	}
	if q.Player != "" {
		if err := CheckPlayerID(q.Player); err != nil {
			return TrailCursor{}, err
		}
	}
	if q.Limit < 1 || q.Limit > MaxAuditPage {
		return TrailCursor{}, fieldError("limit", "%d is not a number from 1 to %d", q.Limit, MaxAuditPage)
	}
	if q.After == "" {
		return TrailCursor{}, nil
	}
	return ParseTrailCursor(q.After)
}

// TrailPageOf sorts entries in the trail's order, drops those not after
// the cursor (zero: none), and cuts a page of limit: what a store returns
// from entries it gathered (each kind's newest first past the cursor, at
// least limit of each where there are that many).
func TrailPageOf(entries []TrailEntry, after TrailCursor, limit int) TrailPage {
	for i := range entries {
		e := &entries[i]
		// At as a cursor keeps it (and Postgres, its timestamps); all in UTC
		e.At, e.Period = e.At.Truncate(time.Microsecond).UTC(), e.Period.UTC()
		if !e.ClaimedIn.IsZero() {
			e.ClaimedIn = e.ClaimedIn.UTC()
		}
	}
	if !after.At.IsZero() {
		entries = slices.DeleteFunc(entries, func(e TrailEntry) bool { return CursorOf(e).Compare(after) <= 0 })
	}
	slices.SortFunc(entries, func(a, b TrailEntry) int { return CursorOf(a).Compare(CursorOf(b)) })
	page := TrailPage{Entries: entries}
	if len(entries) > limit {
		page.Entries = entries[:limit]
		page.Next = CursorOf(entries[limit-1]).String()
	}
	if page.Entries == nil {
		page.Entries = []TrailEntry{}
	}
	return page
}

// NameMoves names the move of each settlement entry (stores keep the
// tiers, not the ladder's order): by l's ladder, "" for a tier it lacks.
func (l *League) NameMoves(entries []TrailEntry) {
	for i := range entries {
		if e := &entries[i]; e.Kind == TrailSettlement {
			e.Move = l.MoveBetween(e.TierBefore, e.TierAfter)
		}
	}
}

// Summary says what e records in one line, for people: leaguectl trail's
// lines and the console's player page.
func (e TrailEntry) Summary() string {
	switch e.Kind {
	case TrailSettlement:
		move := string(e.Move)
		if move == "" {
			move = "settled"
		}
		return fmt.Sprintf("%s %s -> %s: rank %d of %s, score %d", move, e.TierBefore, e.TierAfter, e.Rank,
			e.BoardOf(), e.Score)
	case TrailReward:
		return fmt.Sprintf("granted %s (rank %d in %s)", itemsOrNothing(e.Items), e.Rank, e.Tier)
	case TrailClaim:
		in := "a join"
		if !e.ClaimedIn.IsZero() {
			in = "the join of " + Period{Start: e.ClaimedIn}.ID()
		}
		return fmt.Sprintf("claimed %s by %s", itemsOrNothing(e.Items), in)
	case TrailDecay:
		return fmt.Sprintf("decayed %s -> %s after %s away", e.TierBefore, e.TierAfter, words.Count(e.Absent, "period"))
	case TrailCorrection:
		if c := e.Correction; c != nil {
			return fmt.Sprintf("correction %d (%s %s by %s: %s): %s -> %s", c.ID, c.Action, c.Player, c.Actor, c.Reason,
				e.TierBefore, e.TierAfter)
		}
	case TrailAdmin:
		if a := e.Action; a != nil {
			return fmt.Sprintf("%s by %s: %s -> %s: %s", a.Action, a.Actor, a.Before.Board, a.After.Board, a.Reason)
		}
	}
	return string(e.Kind)
}

func itemsOrNothing(items []tiers.Item) string {
	if len(items) == 0 {
		return "nothing"
	}
	return tiers.ItemsText(items)
}

// BoardOf is the board a settlement entry was played on.
func (e TrailEntry) BoardOf() BoardID {
	return BoardID{Tier: e.TierBefore, Cohort: e.Cohort, N: e.Board}
}
