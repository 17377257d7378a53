package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/league-engine/league/config"
	"github.com/league-engine/league/internal/connect"
	"github.com/league-engine/league/internal/words"
	"github.com/league-engine/league/leaderboard"
	"github.com/league-engine/league/league"
)

// configCheck validates a config file and prints what each league will do.
// With DATABASE_URL set it also checks that no removed tier holds players.
func configCheck(ctx context.Context, args []string, out io.Writer) error {
	fs, path := flags("config check")
	pr := output(fs, out)
	if err := parse(fs, args); err != nil {
		return err
	}
	cfg, err := config.Load(*path)
	if err != nil {
		return err
	}
	text := out
	if pr.json() {
		text = io.Discard // the JSON document is written whole at the end
	}
	w := tabwriter.NewWriter(text, 0, 4, 2, ' ', 0)
	now := time.Now()
	for _, l := range cfg.Leagues {
		pk := l.Packing()
		cur := l.Schedule.At(now)
		fmt.Fprintf(w, "league %s\n", l.ID)
		fmt.Fprintf(w, "  schedule\t%s (current period %s, ends %s)\n", l.Schedule.Spec, cur.ID(), cur.End.Format(time.RFC3339))
		fmt.Fprintf(w, "  periods\t%s\n", lengths(l.Schedule, cur))
		fmt.Fprintf(w, "  boards\t%s, tie break %s, operator %s\n", words.Count(l.BoardSize, "player"), l.TieBreak, l.Operator)
		fmt.Fprintf(w, "  score bits\t%d score + %d time + %d slot = %d of 53; exact up to %d, max_score %d\n",
			pk.ScoreBits, pk.TimeBits, pk.SlotBits, pk.ScoreBits+pk.TimeBits+pk.SlotBits, pk.MaxExact, l.MaxScore)
		if l.MaxGain > 0 || l.MaxAttempts > 0 {
			fmt.Fprintf(w, "  guards\tmax_gain %d a write, max_attempts %d a period (0: no cap)\n", l.MaxGain, l.MaxAttempts)
		}
		for _, lim := range l.Limits {
			var by []string
			for _, d := range lim.By {
				by = append(by, string(d))
			}
			fmt.Fprintf(w, "  limit %s\tby %s, at most %d writes a %s\n", lim.Name, strings.Join(by, "+"), lim.Max, lim.Per)
		}
		for _, per := range slices.Sorted(maps.Keys(l.MaxGainPer)) {
			fmt.Fprintf(w, "  limit gain-%s\tby player, at most %d points gained a %s\n", per, l.MaxGainPer[per], per)
		}
		if l.Hold {
			fmt.Fprintf(w, "  hold\twrites past max_gain or max_gain_per are held for an operator, not refused\n")
		}
		decay := "no decay"
		if l.DecayAfter > 0 {
			decay = "decay after " + words.Count(l.DecayAfter, "period")
		}
		fmt.Fprintf(w, "  retention\t%v, idempotency window %v, %s\n", l.Retention, l.IdempotencyWindow, decay)
		if len(l.Cohorts) > 0 {
			fmt.Fprintf(w, "  cohorts\t%s: a join naming one plays on its tier's boards of it; with min_board_size, "+
				"a cohort's only board under it falls back to the shared boards\n", strings.Join(l.Cohorts, ", "))
		}
		for i := l.Ladder.Len() - 1; i >= 0; i-- {
			t := l.Ladder.Tier(i)
			p, d := l.Ladder.Counts(i, l.BoardSize)
			entry := ""
			if t.ID == l.EntryTier {
				entry = " (entry)"
			}
			extra := ""
			if t.JumpTop > 0 {
				extra += fmt.Sprintf("; the top %d promoted rise %d tiers", t.JumpTop, t.JumpBy)
			}
			if l.Ladder.Protects(i) {
				extra += "; players promoted into it are not demoted their first period there"
			}
			if t.MinBoardSize > 0 {
				extra += fmt.Sprintf("; a last board under %d players is decided with the board before it", t.MinBoardSize)
			}
			fmt.Fprintf(w, "  tier %s%s\tpromote %s, demote %s: of a full board %d up, %d down; %s; "+
				"min scores %d to climb, %d for a reward%s\n",
				t.ID, entry, t.Promote, t.Demote, p, d, words.Count(len(t.Rewards), "reward band"), t.MinPromoteScore, t.MinRewardScore, extra)
		}
	}
	for _, l := range cfg.Leaderboards {
		fmt.Fprintf(w, "leaderboard %s\n", l.ID)
		fmt.Fprintf(w, "  calendar\t%s, weeks from %s\n", l.Calendar.Loc, l.Calendar.WeekStart)
		fmt.Fprintf(w, "  scores\t%s, %s, ties by %s; %s; max_score %d\n", l.Operator, l.Order, l.TieBreak, l.Budget(), l.MaxScore)
		fmt.Fprintf(w, "  requests\tidempotency window %v\n", l.IdempotencyWindow)
		if l.Shards > 1 {
			fmt.Fprintf(w, "  shards\t%d: each member's boards in one, keys {%s}, {%s:1} .. {%s:%d}; pages to rank %d at most\n",
				l.Shards, l.ID, l.ID, l.ID, l.Shards-1, l.MaxDepth)
		}
		if a := l.Archive; a != nil {
			kept := "every member"
			if a.Top > 0 {
				kept = fmt.Sprintf("the top %d", a.Top)
			}
			fmt.Fprintf(w, "  archive\t%v: %s of each closed period, kept in Postgres; reads past retention come from there\n", a.Kinds, kept)
		}
		for _, lim := range l.Limits {
			var by []string
			for _, d := range lim.By {
				by = append(by, string(d))
			}
			extra := ""
			for d, more := range lim.Extra {
				for v, n := range more {
					extra += fmt.Sprintf(", %d more for %s %s", n, d, v)
				}
			}
			per := "a " + string(lim.Per)
			if lim.Per == leaderboard.PerEver {
				per = "ever"
			}
			fmt.Fprintf(w, "  limit %s\tby %s, at most %d %s%s\n", lim.Name, strings.Join(by, "+"), lim.Max, per, extra)
		}
		if len(l.Participants) > 0 {
			fmt.Fprintf(w, "  participants\tdistinct actors counted per %v (HyperLogLog, 0.81%% standard error)\n", l.Participants)
		}
		for _, k := range l.Kinds {
			if share := l.CarryOver[k]; share > 0 {
				fmt.Fprintf(w, "  carry-over\t%s: a new %s opens with %d%% of each member's score in the one before\n", k, k, share)
			}
		}
		for _, k := range l.Kinds {
			p := l.Calendar.At(k, now)
			if k == leaderboard.AllTime {
				fmt.Fprintf(w, "  board %s\tkey %s, kept for ever\n", k, leaderboard.BoardKey(cfg.Namespace, l.ID, p))
				continue
			}
			fmt.Fprintf(w, "  board %s\tkey %s (current period %s, ends %s), kept %v after its period\n",
				k, leaderboard.BoardKey(cfg.Namespace, l.ID, p), p.ID(), p.End.Format(time.RFC3339), l.Retention[k])
		}
		for _, win := range l.Windows {
			p := l.Calendar.At(win.Kind(), now)
			fmt.Fprintf(w, "  rolling %s\tkey %s (the last %d %ss, from %s; rolls at %s), kept %v after its last %s; "+
				"buckets %s, kept %v\n", win.Kind(), leaderboard.BoardKey(cfg.Namespace, l.ID, p), win.N, win.Unit,
				l.WindowStart(p).Format(time.RFC3339), p.End.Format(time.RFC3339), l.Retention[win.Kind()], win.Unit,
				leaderboard.BucketKey(cfg.Namespace, l.ID, l.Calendar.At(win.Unit, now)), l.BucketRetention(win.Unit))
		}
	}
	// The secrets as leagued would read them: a variable not set or a file
	// not readable here is said, not fatal (config check may run elsewhere).
	secretsErr := cfg.ApplyEnv(os.Getenv)
	srv := cfg.Server
	fmt.Fprintf(w, "server\n")
	fmt.Fprintf(w, "  listen\t%s; requests time out after %v; connections at most %s in all, %s per client address\n",
		srv.Listen, srv.RequestTimeout, capText(srv.MaxConnections), capText(srv.MaxConnectionsPerClient))
	fmt.Fprintf(w, "  shutdown\t/readyz fails %v before the listener closes\n", srv.DrainDelay)
	if len(srv.Keys) == 0 {
		fmt.Fprintf(w, "  keys\tnone: authentication off, loopback only\n")
	}
	for i, k := range srv.Keys {
		role, scope, secret := "game", "every league", "in the file"
		if k.Admin {
			role = "admin"
		}
		if k.Leagues != nil {
			scope = "leagues " + strings.Join(k.Leagues, ", ")
		}
		if from := srv.SecretFrom(i); from != "" {
			secret = "from " + from
		}
		fmt.Fprintf(w, "  key %s\t%s, %s, secret %s\n", k.Name, role, scope, secret)
	}
	if hooks := cfg.Events.Webhooks; len(hooks) > 0 {
		fmt.Fprintf(w, "events\n")
		for i, h := range hooks {
			types, leagues, secret := "every type", "every league", "in the file"
			if h.Types != nil {
				types = fmt.Sprint(h.Types)
			}
			if h.Leagues != nil {
				leagues = "leagues " + strings.Join(h.Leagues, ", ")
			}
			if from := cfg.Events.SecretFrom(i); from != "" {
				secret = "from " + from
			}
			h = h.WithDefaults()
			fmt.Fprintf(w, "  webhook %s\t%s: %s, %s; %d deliveries at a time, each within %v; dead after %d attempts; secret %s\n",
				h.Name, h.Redacted(), types, leagues, h.Concurrency, h.Timeout, h.MaxAttempts, secret)
		}
	}
	if secretsErr != nil {
		fmt.Fprintf(w, "  secrets\tNOT READABLE HERE: %v\n", secretsErr)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	checked := false
	if dsn := os.Getenv("DATABASE_URL"); dsn != "" {
		quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
		store, closeStore, err := connect.Store(ctx, dsn, false, quiet)
		if err != nil {
			return err
		}
		defer closeStore()
		if err := cfg.CheckStore(ctx, store); err != nil {
			return err
		}
		checked = true
	}
	return pr.print(func() error {
		if checked {
			fmt.Fprintln(out, "tiers checked against the players in DATABASE_URL")
		}
		_, err := fmt.Fprintf(out, "%s: ok\n", *path)
		return err
	}, configJSONOf(*path, cfg, now, checked, secretsErr))
}

// capText says a connection cap: a number, or "no cap" for 0.
func capText(n int) string {
	if n == 0 {
		return "no cap"
	}
	return strconv.Itoa(n)
}

// lengths describes how long the next 1,000 periods from p are: one
// length, or the shortest and longest. A cron schedule fires at clock
// times, not at an interval: */25 in the seconds field gives periods of
// 25, 25 and 10 s every minute, which is easy to miss.
func lengths(s *league.Schedule, p league.Period) string {
	shortest, longest := p.End.Sub(p.Start), p.End.Sub(p.Start)
	for range 1000 {
		p = s.Following(p)
		shortest, longest = min(shortest, p.End.Sub(p.Start)), max(longest, p.End.Sub(p.Start))
	}
	if shortest == longest {
		return "every one " + shortest.String() + " long"
	}
	return fmt.Sprintf("from %v to %v long: the schedule fires at clock times, not at a fixed interval", shortest, longest)
}
