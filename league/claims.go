package league

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/league-engine/league/scripts"
	"github.com/league-engine/league/tiers"
)

// Claim is one delivery of rewards by a join, recorded in the claims stream
// by join.lua and copied to the Store by the claims recorder.
type Claim struct {
	League string
	Player string
	Earned time.Time // start of the period the rewards were earned in
	Period time.Time // start of the period whose join delivered them
	At     time.Time // Redis's clock at the join
	Tier   string    // the tier and rank that earned them
	Rank   int
	Items  []tiers.Item
	id     string
}

// Decay is a tier move absence decay made: a player who sat out Absent
// periods joined Period one or more tiers below the tier they held.
// join.lua records it in the claims stream with the placement; the claims
// recorder copies it to the Store.
type Decay struct {
	League string
	Player string
	Period time.Time // start of the period the join placed them in
	From   string    // the tier they held (their last period's outcome)
	To     string    // the tier decay gave them
	Absent int       // periods sat out
	At     time.Time // Redis's clock at the join
	id     string
}

// CheckDecays refuses what no store records: a decay without its league,
// player, tiers or period, or one of no absence.
func CheckDecays(decays []Decay) error {
	for i, d := range decays {
		what := func(f string) string { return "decays[" + strconv.Itoa(i) + "]." + f }
		switch {
		case d.League == "":
			return fieldError(what("league"), "must not be empty")
		case d.Player == "":
			return fieldError(what("player"), "must not be empty")
		case d.From == "" || d.To == "":
			return fieldError(what("from"), "from and to must not be empty")
		case d.Period.IsZero():
			return fieldError(what("period"), "must not be zero")
		case d.Absent < 1:
			return fieldError(what("absent"), "%d is not a number of periods sat out", d.Absent)
		}
	}
	return nil
}

// JoinRecords are what joins left in the claims stream for the store:
// reward deliveries and decays.
type JoinRecords struct {
	Claims []Claim
	Decays []Decay
	ids    []string // every entry read: acknowledged once both are stored
}

// Len is how many records r holds.
func (r JoinRecords) Len() int { return len(r.Claims) + len(r.Decays) }

const claimsGroup = "recorder"

// ReadJoinRecords returns up to count records not yet acknowledged: first
// this consumer's own (read before, and not stored: the store failed), then
// those another consumer took more than a minute ago without acknowledging
// (it died), then new ones, waiting up to block for them. Acknowledge them
// once stored (AckJoinRecords).
func (e *Engine) ReadJoinRecords(ctx context.Context, leagueID, consumer string, count int, block time.Duration) (JoinRecords, error) {
	lv, err := e.live(leagueID)
	if err != nil {
		return JoinRecords{}, err
	}
	stream := lv.keys.claims()
	err = e.rdb.XGroupCreateMkStream(ctx, stream, claimsGroup, "0").Err()
	if err != nil && !redis.HasErrorPrefix(err, "BUSYGROUP") {
		return JoinRecords{}, internal("claims", err)
	}
	// from "0": this consumer's pending entries, at once; from ">": new
	// ones, waiting up to block.
	read := func(from string, block time.Duration) ([]redis.XMessage, error) {
		res, err := e.rdb.XReadGroup(ctx, &redis.XReadGroupArgs{
			Group: claimsGroup, Consumer: consumer, Streams: []string{stream, from}, Count: int64(count), Block: block,
		}).Result()
		var msgs []redis.XMessage
		for _, s := range res {
			msgs = append(msgs, s.Messages...)
		}
		return msgs, err
	}
	msgs, err := read("0", -1)
	if len(msgs) == 0 && (err == nil || err == redis.Nil) {
		msgs, _, err = e.rdb.XAutoClaim(ctx, &redis.XAutoClaimArgs{
			Stream: stream, Group: claimsGroup, Consumer: consumer, MinIdle: time.Minute, Start: "0-0", Count: int64(count),
		}).Result()
	}
	if len(msgs) == 0 && (err == nil || err == redis.Nil) {
		msgs, err = read(">", block)
	}
	if err != nil && err != redis.Nil {
		return JoinRecords{}, internal("claims", err)
	}
	var out, empty JoinRecords
	for _, m := range msgs {
		if d, ok := decayOf(lv.ID, m); ok {
			out.Decays = append(out.Decays, d)
		} else if c, ok := claimOf(lv.ID, m); ok {
			out.Claims = append(out.Claims, c)
		} else {
			// Deleted from the stream while pending, or not join.lua's:
			// nothing to record, and the store would refuse the batch
			// with it every time, holding up the records behind it.
			empty.ids = append(empty.ids, m.ID)
			continue
		}
		out.ids = append(out.ids, m.ID)
	}
	return out, e.AckJoinRecords(ctx, leagueID, empty)
}

// claimOf reads a reward delivery of the claims stream.
func claimOf(leagueID string, m redis.XMessage) (Claim, bool) {
	c := Claim{League: leagueID, id: m.ID}
	c.Player, _ = m.Values["player"].(string)
	c.Earned = unixField(m.Values["earned"], time.Second)
	c.Period = unixField(m.Values["period"], time.Second)
	c.At = unixField(m.Values["at"], time.Millisecond)
	var r Reward
	if js, _ := m.Values["items"].(string); json.Unmarshal([]byte(js), &r) == nil {
		c.Tier, c.Rank, c.Items = r.Tier, r.Rank, r.Items
	}
	return c, c.Player != "" && !c.Earned.IsZero()
}

// decayOf reads a decay of the claims stream.
func decayOf(leagueID string, m redis.XMessage) (Decay, bool) {
	d := Decay{League: leagueID, id: m.ID}
	d.Player, _ = m.Values["player"].(string)
	d.From, _ = m.Values["decay_from"].(string)
	d.To, _ = m.Values["decay_to"].(string)
	absent, _ := m.Values["absent"].(string)
	d.Absent, _ = strconv.Atoi(absent)
	d.Period = unixField(m.Values["period"], time.Second)
	d.At = unixField(m.Values["at"], time.Millisecond)
	return d, d.Player != "" && d.From != "" && d.To != "" && !d.Period.IsZero()
}

// AckJoinRecords acknowledges stored records and removes them from the
// stream.
func (e *Engine) AckJoinRecords(ctx context.Context, leagueID string, r JoinRecords) error {
	lv, err := e.live(leagueID)
	if err != nil || len(r.ids) == 0 {
		return err
	}
	pipe := e.rdb.Pipeline()
	pipe.XAck(ctx, lv.keys.claims(), claimsGroup, r.ids...)
	pipe.XDel(ctx, lv.keys.claims(), r.ids...)
	_, err = pipe.Exec(ctx)
	return internal("ack claims", err)
}

func unixField(v any, unit time.Duration) time.Time {
	s, _ := v.(string)
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return time.Time{}
	}
	return time.Unix(0, n*int64(unit)).UTC()
}

// PruneClaimConsumers deletes the consumers of the league's claims group,
// other than keep, that hold no pending claims and have been idle for at
// least idle (0: however long; miniredis reports no idle times). Every
// process start adds a consumer (host and pid), so without pruning they
// pile up with each deploy. Pruning a live consumer loses nothing (it held
// no claims; its next read recreates it), and one that holds claims stays
// until another takes them over. Returns how many it deleted.
func (e *Engine) PruneClaimConsumers(ctx context.Context, leagueID, keep string, idle time.Duration) (int, error) {
	lv, err := e.live(leagueID)
	if err != nil {
		return 0, err
	}
	stream := lv.keys.claims()
	consumers, err := e.rdb.XInfoConsumers(ctx, stream, claimsGroup).Result()
	if err != nil {
		if redis.HasErrorPrefix(err, "NOGROUP") || strings.Contains(err.Error(), "no such key") {
			return 0, nil // no claims yet: no group, no consumers
		}
		return 0, internal("prune claim consumers", err)
	}
	pruned := 0
	for _, c := range consumers {
		if c.Name == keep || c.Pending > 0 || (idle > 0 && c.Idle < idle) {
			continue
		}
		gone, err := e.run.RunAlone(ctx, scripts.Prune, []string{stream}, claimsGroup, c.Name).Int()
		if err != nil {
			return pruned, internal("prune claim consumers", err)
		}
		pruned += gone
	}
	return pruned, nil
}
