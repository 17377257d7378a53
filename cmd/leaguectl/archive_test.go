package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/league"
	"github.com/league-engine/league/postgres"
	"github.com/league-engine/league/tiers"
)

// TestExportAndPrune settles a real period with leaguectl, exports it as
// CSV and NDJSON and reads both back against Postgres; prunes history
// written a year back, a dry run first; and refuses bad command lines
// writing nothing.
func TestExportAndPrune(t *testing.T) {
	dir := t.TempDir()
	path, period := settledQuick(t, dir, "1", 12, func(i int) league.JoinRequest {
		id := fmt.Sprint("p", i)
		return league.JoinRequest{Player: id, Name: "Name, \"" + id + "\"", Avatar: "av" + id}
	}, func(i int) int64 { return int64(i % 7) })
	ctx, dsn := context.Background(), os.Getenv("DATABASE_URL")
	var out bytes.Buffer

	// What Postgres holds, as the export should show it.
	store, err := postgres.Open(ctx, dsn)
	testsvc.Must(t, err, "postgres.Open")
	defer store.Close()
	var want []exportRow
	rows, err := store.Pool().Query(ctx, `SELECT o.tier_before || '-' || o.board, o.rank, o.player, o.name, o.avatar, o.score, o.zone,
			o.tier_before, o.tier_after, coalesce(r.items, '[]')
		FROM outcomes o LEFT JOIN rewards r USING (league, period_start, player)
		WHERE o.league = 'quick' AND o.period_start = $1 ORDER BY o.tier_before = 'high', o.board, o.rank`, period.Start)
	testsvc.Must(t, err, "query")
	for rows.Next() {
		x := exportRow{League: "quick", Period: period.ID()}
		testsvc.Must(t, rows.Scan(&x.Board, &x.Rank, &x.Player, &x.Name, &x.Avatar, &x.Score, &x.Zone, &x.TierBefore, &x.TierAfter, &x.Rewards), "scan")
		want = append(want, x)
	}
	testsvc.Must(t, rows.Err(), "rows")
	if len(want) != 12 || want[0].Name == "" || want[0].Zone == "" {
		t.Fatalf("Postgres holds %+v", want)
	}

	ndjson := filepath.Join(dir, "quick.ndjson")
	testsvc.Must(t, run(ctx, []string{"export", "-config", path, "-league", "quick", "-period", period.ID(), "-format", "ndjson", "-out", ndjson}, &out), "export ndjson")
	var got []exportRow
	f, err := os.Open(ndjson)
	testsvc.Must(t, err, "open")
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var x exportRow
		testsvc.Must(t, json.Unmarshal(sc.Bytes(), &x), "line %q", sc.Text())
		got = append(got, x)
	}
	f.Close()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("ndjson export:\n got %+v\nwant %+v", got, want)
	}

	var csvOut bytes.Buffer
	testsvc.Must(t, run(ctx, []string{"export", "-config", path, "-league", "quick", "-period", period.ID(), "-format", "csv"}, &csvOut), "export csv")
	csvText := csvOut.String()
	records, err := csv.NewReader(&csvOut).ReadAll()
	testsvc.Must(t, err, "read csv")
	if !reflect.DeepEqual(records[0], exportColumns) || len(records) != len(want)+1 {
		t.Fatalf("csv: header %v, %d records", records[0], len(records))
	}
	got = nil
	for _, r := range records[1:] {
		rank, _ := strconv.Atoi(r[3])
		score, _ := strconv.ParseInt(r[7], 10, 64)
		x := exportRow{League: r[0], Period: r[1], Board: r[2], Rank: rank, Player: r[4], Name: r[5], Avatar: r[6], Score: score,
			Zone: r[8], TierBefore: r[9], TierAfter: r[10]}
		testsvc.Must(t, json.Unmarshal([]byte(r[11]), &x.Rewards), "rewards %q", r[11])
		got = append(got, x)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("csv export:\n got %+v\nwant %+v", got, want)
	}

	// Refused, and nothing written.
	never := league.Period{Start: period.Start.Add(-time.Hour)}.ID()
	for _, tc := range []struct {
		name  string
		args  []string
		says  string
		usage bool
	}{
		{"never settled", []string{"-league", "quick", "-period", never}, "period " + never + " was never settled", false},
		{"unknown league", []string{"-league", "nope", "-period", period.ID()}, `league "nope" is not in the config`, false},
		{"bad format", []string{"-league", "quick", "-period", period.ID(), "-format", "xml"}, `-format "xml": csv or ndjson`, true},
		{"bad period", []string{"-league", "quick", "-period", "last week"}, "-period", true},
		{"no period", []string{"-league", "quick"}, "-period is required", true},
	} {
		t.Run("export "+tc.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "x.csv")
			var out bytes.Buffer
			err := run(ctx, append([]string{"export", "-config", path, "-out", file}, tc.args...), &out)
			var usage usageError
			if err == nil || !strings.Contains(err.Error(), tc.says) || errors.As(err, &usage) != tc.usage {
				t.Fatalf("got %v, want an error saying %q (usage error: %v)", err, tc.says, tc.usage)
			}
			if entries, _ := os.ReadDir(filepath.Dir(file)); len(entries) != 0 || out.Len() != 0 {
				t.Fatalf("a refused export wrote %v, printed %q", entries, out.String())
			}
		})
	}

	// History a year old: a period with a claimed and an unclaimed reward,
	// and a later one every player played.
	old := time.Date(2025, 1, 6, 0, 0, 0, 0, time.UTC)
	writeOld := func(start time.Time, players ...string) {
		st, err := store.BeginSettlement(ctx, league.Settlement{League: "quick", Period: start, PeriodEnd: start.Add(time.Hour)})
		testsvc.Must(t, err, "BeginSettlement")
		var outcomes []league.Outcome
		var rewards []league.EarnedReward
		for i, p := range players {
			outcomes = append(outcomes, league.Outcome{Player: p, TierBefore: "low", TierAfter: "low", Board: 1, Rank: i + 1, Name: p})
			rewards = append(rewards, league.EarnedReward{Player: p, Tier: "low", Rank: i + 1, Items: []tiers.Item{{ID: "gems", Qty: 1}}})
		}
		st.Players = len(players)
		testsvc.Must(t, store.WriteOutcomes(ctx, st, outcomes, rewards), "WriteOutcomes")
		testsvc.Must(t, store.Advance(ctx, "quick", start, league.StatusWritten, league.StatusApplied), "Advance")
		testsvc.Must(t, store.Advance(ctx, "quick", start, league.StatusApplied, league.StatusDone), "Advance")
	}
	writeOld(old, "o1", "o2")
	writeOld(old.AddDate(0, 0, 7), "o1", "o2")
	testsvc.Must(t, store.RecordClaims(ctx, []league.Claim{{League: "quick", Player: "o1", Earned: old}}), "RecordClaims")
	count := func() string {
		var s string
		testsvc.Must(t, store.Pool().QueryRow(ctx, `SELECT (SELECT count(*) FROM outcomes) || '/' || (SELECT count(*) FROM rewards) || '/' ||
			(SELECT count(*) FROM reward_claims) || '/' || (SELECT count(*) FROM settlements)`).Scan(&s), "count")
		return s
	}
	was := count()
	out.Reset()
	testsvc.Must(t, run(ctx, []string{"prune", "-config", path, "-older-than", "180d", "-dry-run"}, &out), "prune -dry-run")
	if now := count(); now != was || !strings.Contains(out.String(), "quick 20250106T000000Z: would delete 1 outcome, 1 claimed reward, 1 claim, settlement kept; 1 unclaimed reward kept") {
		t.Fatalf("prune -dry-run: tables %s (were %s), printed:\n%s", now, was, out.String())
	}
	pj := runJSON(t, "prune", "-config", path, "-older-than", "180d", "-dry-run", "-o", "json")
	if ps := pj["periods"].([]any); count() != was || pj["dry_run"] != true || len(ps) != 1 || ps[0].(map[string]any)["period"] != "20250106T000000Z" ||
		pj["unclaimed_rewards_kept"] != 1.0 {
		t.Fatalf("prune -dry-run -o json: %v", pj)
	}
	for _, tc := range []struct {
		args []string
		says string
	}{
		{[]string{"-older-than", "soon"}, `"soon" is not an age`},
		{[]string{"-older-than", "2h"}, "less than a day"},
		{nil, "-older-than is required"},
		{[]string{"-older-than", "180d", "-league", "nope"}, `league "nope" is not in the config`},
	} {
		if err := run(ctx, append([]string{"prune", "-config", path}, tc.args...), &out); err == nil || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("prune %v: %v, want an error saying %q", tc.args, err, tc.says)
		}
	}
	if now := count(); now != was {
		t.Fatalf("refused prunes changed the tables: %s, were %s", now, was)
	}
	out.Reset()
	testsvc.Must(t, run(ctx, []string{"prune", "-config", path, "-older-than", "180d", "-league", "quick"}, &out), "prune")
	if !strings.Contains(out.String(), "quick 20250106T000000Z: deleted 1 outcome, 1 claimed reward, 1 claim, settlement kept; 1 unclaimed reward kept") {
		t.Fatalf("prune printed:\n%s", out.String())
	}
	// o2's unclaimed rewards survive; the settled period of today is whole.
	var unclaimed int
	testsvc.Must(t, store.Pool().QueryRow(ctx, `SELECT count(*) FROM rewards WHERE player = 'o2'`).Scan(&unclaimed), "count")
	if unclaimed != 2 {
		t.Fatalf("o2's unclaimed rewards after the prune: %d, want 2", unclaimed)
	}
	var csvAfter bytes.Buffer
	testsvc.Must(t, run(ctx, []string{"export", "-config", path, "-league", "quick", "-period", period.ID(), "-format", "csv"}, &csvAfter), "export after prune")
	if csvAfter.String() != csvText {
		t.Fatalf("the young period changed under the prune")
	}
}
