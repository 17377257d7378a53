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

const claimsGroup = "recorder"

// ReadClaims returns up to count claims not yet acknowledged: first this
// consumer's own (read before, and not stored: the store failed), then those
// another consumer took more than a minute ago without acknowledging (it
// died), then new ones, waiting up to block for them. Acknowledge each once
// it is stored.
func (e *Engine) ReadClaims(ctx context.Context, leagueID, consumer string, count int, block time.Duration) ([]Claim, error) {
	lv, err := e.live(leagueID)
	if err != nil {
		return nil, err
	}
	stream := lv.keys.claims()
	err = e.rdb.XGroupCreateMkStream(ctx, stream, claimsGroup, "0").Err()
	if err != nil && !redis.HasErrorPrefix(err, "BUSYGROUP") {
		return nil, internal("claims", err)
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
		return nil, internal("claims", err)
	}
	out := make([]Claim, 0, len(msgs))
	var empty []Claim
	for _, m := range msgs {
		c := Claim{League: lv.ID, id: m.ID}
		c.Player, _ = m.Values["player"].(string)
		c.Earned = unixField(m.Values["earned"], time.Second)
		c.Period = unixField(m.Values["period"], time.Second)
		c.At = unixField(m.Values["at"], time.Millisecond)
		var r Reward
		if js, _ := m.Values["items"].(string); json.Unmarshal([]byte(js), &r) == nil {
			c.Tier, c.Rank, c.Items = r.Tier, r.Rank, r.Items
		}
		if c.Player == "" || c.Earned.IsZero() {
			// Deleted from the stream while pending, or not join.lua's: no
			// claim to record, and the store would refuse the batch with it
			// every time, holding up the claims behind it.
			empty = append(empty, c)
			continue
		}
		out = append(out, c)
	}
	return out, e.AckClaims(ctx, leagueID, empty)
}

// AckClaims acknowledges stored claims and removes them from the stream.
func (e *Engine) AckClaims(ctx context.Context, leagueID string, claims []Claim) error {
	lv, err := e.live(leagueID)
	if err != nil || len(claims) == 0 {
		return err
	}
	ids := make([]string, len(claims))
	for i, c := range claims {
		ids[i] = c.id
	}
	pipe := e.rdb.Pipeline()
	pipe.XAck(ctx, lv.keys.claims(), claimsGroup, ids...)
	pipe.XDel(ctx, lv.keys.claims(), ids...)
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
