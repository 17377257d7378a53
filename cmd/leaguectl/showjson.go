package main

import (
	"github.com/league-engine/league/league"
	"github.com/league-engine/league/tiers"
)

// The -o json documents of board, player and preview: snake_case names,
// times in RFC 3339 (UTC), periods by id, lists never null.

type boardJSON struct {
	League  string      `json:"league"`
	Period  string      `json:"period"`
	Board   string      `json:"board"`
	Entries []entryJSON `json:"entries"`
}

type entryJSON struct {
	Rank   int    `json:"rank"`
	Player string `json:"player_id"`
	Name   string `json:"name"`
	Avatar string `json:"avatar"`
	Score  int64  `json:"score"`
	Zone   string `json:"zone"`
}

func boardJSONOf(b league.Board) boardJSON {
	j := boardJSON{League: b.League, Period: b.Period.ID(), Board: b.ID.String(), Entries: []entryJSON{}}
	for _, e := range b.Entries {
		j.Entries = append(j.Entries, entryJSON{Rank: e.Rank, Player: e.Player, Name: e.Name, Avatar: e.Avatar, Score: e.Score, Zone: e.Zone.String()})
	}
	return j
}

type playerJSON struct {
	League   string        `json:"league"`
	Player   string        `json:"player_id"`
	Note     string        `json:"note,omitempty"`
	Standing *standingJSON `json:"standing"` // null: the league is not in Redis
	Waiting  []rewardJSON  `json:"waiting_rewards"`
	History  []historyJSON `json:"history"`
}

type standingJSON struct {
	Period      string `json:"period"`
	Tier        string `json:"tier"`
	Joined      bool   `json:"joined"`
	Board       string `json:"board"`
	Rank        int    `json:"rank"` // 0: not joined, or off the board
	BoardSize   int    `json:"board_size"`
	Score       int64  `json:"score"`
	Gap         int64  `json:"gap"`
	Zone        string `json:"zone"`       // "": not joined, or off the board
	Moderation  string `json:"moderation"` // hidden, removed, banned: off the board by an operator
	BannedUntil string `json:"banned_until"`
}

type rewardJSON struct {
	Period string       `json:"period"`
	Tier   string       `json:"tier"`
	Rank   int          `json:"rank"`
	Items  []tiers.Item `json:"items"`
}

type historyJSON struct {
	Period     string       `json:"period"`
	TierBefore string       `json:"tier_before"`
	TierAfter  string       `json:"tier_after"`
	Board      string       `json:"board"`
	Rank       int          `json:"rank"`
	Score      int64        `json:"score"`
	Rewards    []tiers.Item `json:"rewards"`
	ClaimedAt  string       `json:"claimed_at"`
}

func (v playerView) json() playerJSON {
	j := playerJSON{League: v.id, Player: v.pid, Waiting: []rewardJSON{}, History: []historyJSON{}}
	if v.note != nil {
		j.Note = league.ErrorMessage(v.note)
	}
	if s := v.standing; v.hasStanding {
		st := standingJSON{Period: s.Period.ID(), Tier: s.Tier, Joined: s.Joined, BannedUntil: timeJSON(v.banned), Moderation: string(s.Moderation)}
		if s.Joined || s.Moderation != "" {
			st.Board, st.Rank, st.BoardSize, st.Score, st.Gap = s.Board.String(), s.Rank, s.BoardSize, s.Score, s.Gap
		}
		if s.Joined && s.Moderation == "" {
			st.Zone = s.Zone.String()
		}
		j.Standing = &st
	}
	for _, r := range v.waiting {
		j.Waiting = append(j.Waiting, rewardJSON{Period: league.Period{Start: r.Earned}.ID(), Tier: r.Tier, Rank: r.Rank, Items: itemsJSON(r.Items)})
	}
	for _, h := range v.history {
		j.History = append(j.History, historyJSON{Period: league.Period{Start: h.Period}.ID(), TierBefore: h.TierBefore, TierAfter: h.TierAfter,
			Board: h.BoardOf().String(), Rank: h.Rank, Score: h.Score, Rewards: itemsJSON(h.Rewards),
			ClaimedAt: timeJSON(h.ClaimedAt)})
	}
	return j
}

// itemsJSON is items, none as [] (not null).
func itemsJSON(its []tiers.Item) []tiers.Item {
	if its == nil {
		return []tiers.Item{}
	}
	return its
}

type previewJSON struct {
	League    string            `json:"league"`
	Period    string            `json:"period"`
	Ends      string            `json:"ends"`
	Final     bool              `json:"final"`   // ended: what its settlement writes; false: the current period as if it ended now
	Waiting   []string          `json:"waiting"` // periods waiting for settlement, oldest first
	Players   int               `json:"players"`
	Moderated int               `json:"moderated"`
	Rewarded  int               `json:"rewarded"`
	Tiers     []tierPreviewJSON `json:"tiers"`
	Moves     []moveJSON        `json:"moves"`
	Rewards   []itemTotalJSON   `json:"rewards"`
	Rows      []previewRowJSON  `json:"rows"`
	Next      string            `json:"next"` // -after for the next page; "": the last page
}

type tierPreviewJSON struct {
	Tier     string `json:"tier"`
	Players  int    `json:"players"`
	Promoted int    `json:"promoted"`
	Demoted  int    `json:"demoted"`
	Stayed   int    `json:"stayed"`
	Rewarded int    `json:"rewarded"`
	After    int    `json:"after"`
}

type moveJSON struct {
	From    string `json:"from"`
	To      string `json:"to"`
	Players int    `json:"players"`
}

type itemTotalJSON struct {
	ID      string `json:"id"`
	Qty     int64  `json:"qty"`
	Players int    `json:"players"`
}

type previewRowJSON struct {
	Board   string       `json:"board"`
	Rank    int          `json:"rank"`
	Player  string       `json:"player_id"`
	Score   int64        `json:"score"`
	From    string       `json:"from"`
	To      string       `json:"to"`
	Move    string       `json:"move"`
	Rewards []tiers.Item `json:"rewards"`
}

func previewJSONOf(p league.Preview) previewJSON {
	s := p.Summary
	j := previewJSON{League: p.League, Period: p.Period.ID(), Ends: timeJSON(p.Period.End), Final: p.Final, Waiting: []string{},
		Players: s.Players, Moderated: s.Moderated, Rewarded: s.Rewarded, Tiers: []tierPreviewJSON{}, Moves: []moveJSON{},
		Rewards: []itemTotalJSON{}, Rows: []previewRowJSON{}}
	for _, w := range p.Waiting {
		j.Waiting = append(j.Waiting, w.ID())
	}
	for _, t := range s.Tiers {
		j.Tiers = append(j.Tiers, tierPreviewJSON{Tier: t.Tier, Players: t.Players, Promoted: t.Promoted, Demoted: t.Demoted,
			Stayed: t.Stayed, Rewarded: t.Rewarded, After: t.After})
	}
	for _, m := range s.Moves {
		j.Moves = append(j.Moves, moveJSON{From: m.From, To: m.To, Players: m.Players})
	}
	for _, it := range s.Rewards {
		j.Rewards = append(j.Rewards, itemTotalJSON{ID: it.ID, Qty: it.Qty, Players: it.Players})
	}
	for _, r := range p.Rows {
		j.Rows = append(j.Rows, previewRowJSON{Board: r.Board.String(), Rank: r.Rank, Player: r.Player, Score: r.Score,
			From: r.From, To: r.To, Move: string(r.Move), Rewards: itemsJSON(r.Rewards)})
	}
	if p.Next != nil {
		j.Next = p.Next.String()
	}
	return j
}
