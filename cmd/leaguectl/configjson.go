package main

import (
	"fmt"
	"time"

	"github.com/league-engine/league/config"
)

// configJSON is config check -o json: what the text says, for scripts. A
// config that fails to load is an error, as in text: ok is always true.
type configJSON struct {
	File         string            `json:"file"`
	OK           bool              `json:"ok"`
	Leagues      []leagueJSON      `json:"leagues"`
	Leaderboards []leaderboardJSON `json:"leaderboards"`
	Server       serverJSON        `json:"server"`
	Webhooks     []webhookJSON     `json:"webhooks"`
	SecretsError string            `json:"secrets_error,omitempty"` // a secret not readable here
	StoreChecked bool              `json:"store_checked"`           // tiers checked against DATABASE_URL's players
}

type leagueJSON struct {
	ID            string     `json:"id"`
	Schedule      string     `json:"schedule"`
	CurrentPeriod string     `json:"current_period"`
	PeriodEnds    string     `json:"period_ends"`
	BoardSize     int        `json:"board_size"`
	TieBreak      string     `json:"tie_break"`
	Operator      string     `json:"operator"`
	ScoreBits     int        `json:"score_bits"`
	TimeBits      int        `json:"time_bits"`
	SlotBits      int        `json:"slot_bits"`
	MaxExact      int64      `json:"max_exact"`
	MaxScore      int64      `json:"max_score"`
	MaxGain       int64      `json:"max_gain"`
	MaxAttempts   int64      `json:"max_attempts"`
	Hold          bool       `json:"hold"`
	Retention     string     `json:"retention"`
	DecayAfter    int        `json:"decay_after"`
	Cohorts       []string   `json:"cohorts"`
	Tiers         []tierJSON `json:"tiers"` // lowest first
}

type tierJSON struct {
	ID              string `json:"id"`
	Entry           bool   `json:"entry"`
	Promote         string `json:"promote"`
	Demote          string `json:"demote"`
	PromotedOfFull  int    `json:"promoted_of_full_board"`
	DemotedOfFull   int    `json:"demoted_of_full_board"`
	RewardBands     int    `json:"reward_bands"`
	MinPromoteScore int64  `json:"min_promote_score"`
	MinRewardScore  int64  `json:"min_reward_score"`
	JumpTop         int    `json:"jump_top"`
	JumpTiers       int    `json:"jump_tiers"`
	ProtectPromoted bool   `json:"protect_promoted"`
	MinBoardSize    int    `json:"min_board_size"`
}

type leaderboardJSON struct {
	ID       string   `json:"id"`
	Boards   []string `json:"boards"`
	Shards   int      `json:"shards"`
	MaxScore int64    `json:"max_score"`
}

type serverJSON struct {
	Listen string    `json:"listen"`
	Keys   []keyJSON `json:"keys"`
}

type keyJSON struct {
	Name       string   `json:"name"`
	Admin      bool     `json:"admin"`
	Leagues    []string `json:"leagues"` // null: every league
	SecretFrom string   `json:"secret_from"`
}

type webhookJSON struct {
	Name string `json:"name"`
	URL  string `json:"url"` // redacted
}

func configJSONOf(path string, cfg *config.Config, now time.Time, checked bool, secretsErr error) configJSON {
	j := configJSON{File: path, OK: true, StoreChecked: checked, Leagues: []leagueJSON{}, Leaderboards: []leaderboardJSON{},
		Webhooks: []webhookJSON{}, Server: serverJSON{Listen: cfg.Server.Listen, Keys: []keyJSON{}}}
	if secretsErr != nil {
		j.SecretsError = secretsErr.Error()
	}
	for _, l := range cfg.Leagues {
		pk := l.Packing()
		cur := l.Schedule.At(now)
		lj := leagueJSON{ID: l.ID, Schedule: l.Schedule.Spec, CurrentPeriod: cur.ID(), PeriodEnds: timeJSON(cur.End),
			BoardSize: l.BoardSize, TieBreak: fmt.Sprint(l.TieBreak), Operator: fmt.Sprint(l.Operator),
			ScoreBits: int(pk.ScoreBits), TimeBits: int(pk.TimeBits), SlotBits: int(pk.SlotBits), MaxExact: int64(pk.MaxExact),
			MaxScore: int64(l.MaxScore), MaxGain: int64(l.MaxGain), MaxAttempts: int64(l.MaxAttempts), Hold: l.Hold,
			Retention: fmt.Sprint(l.Retention), DecayAfter: int(l.DecayAfter), Cohorts: append([]string{}, l.Cohorts...), Tiers: []tierJSON{}}
		for i := 0; i < l.Ladder.Len(); i++ {
			t := l.Ladder.Tier(i)
			p, d := l.Ladder.Counts(i, l.BoardSize)
			lj.Tiers = append(lj.Tiers, tierJSON{ID: t.ID, Entry: t.ID == l.EntryTier, Promote: t.Promote.String(),
				Demote: t.Demote.String(), PromotedOfFull: p, DemotedOfFull: d, RewardBands: len(t.Rewards),
				MinPromoteScore: int64(t.MinPromoteScore), MinRewardScore: int64(t.MinRewardScore),
				JumpTop: t.JumpTop, JumpTiers: t.JumpBy, ProtectPromoted: l.Ladder.Protects(i), MinBoardSize: t.MinBoardSize})
		}
		j.Leagues = append(j.Leagues, lj)
	}
	for _, l := range cfg.Leaderboards {
		lj := leaderboardJSON{ID: l.ID, Boards: []string{}, Shards: l.Shards, MaxScore: int64(l.MaxScore)}
		for _, k := range l.Kinds {
			lj.Boards = append(lj.Boards, fmt.Sprint(k))
		}
		for _, win := range l.Windows {
			lj.Boards = append(lj.Boards, fmt.Sprint(win.Kind()))
		}
		j.Leaderboards = append(j.Leaderboards, lj)
	}
	for i, k := range cfg.Server.Keys {
		from := cfg.Server.SecretFrom(i)
		if from == "" {
			from = "file"
		}
		j.Server.Keys = append(j.Server.Keys, keyJSON{Name: k.Name, Admin: k.Admin, Leagues: k.Leagues, SecretFrom: from})
	}
	for _, h := range cfg.Events.Webhooks {
		j.Webhooks = append(j.Webhooks, webhookJSON{Name: h.Name, URL: h.Redacted()})
	}
	return j
}
