package postgres_test

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/league-engine/league/events"
	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/league"
	"github.com/league-engine/league/postgres"
)

// outboxIDs are the ids of every event the outbox view shows, in order, of
// the leagues given (or all for nil): what the feed must serve.
func outboxIDs(t *testing.T, s *postgres.Store, leagues []string) []int64 {
	t.Helper()
	rows, err := s.Pool().Query(t.Context(), `SELECT id FROM outbox WHERE $1::text[] IS NULL OR league = ANY($1) ORDER BY id`, leagues)
	testsvc.Must(t, err, "outbox ids")
	var out []int64
	for rows.Next() {
		var id int64
		testsvc.Must(t, rows.Scan(&id), "scan")
		out = append(out, id)
	}
	testsvc.Must(t, rows.Err(), "outbox ids")
	return out
}

// TestEventChunks: the player events of settlements, packed seven to a
// chunk, read through the feed exactly as rows would be, from every
// cursor, at every page size, of every league or some; and through the
// webhooks' retries, dead letters and progress, which find one event by
// its id.
func TestEventChunks(t *testing.T) {
	defer postgres.SetEventChunk(7)()
	s, _ := newStore(t)
	ctx := t.Context()
	wrote := 1 // the events written: the claim's, and the settlements' below
	settle := func(id string, week, players int, withRewards bool) {
		outcomes, rewards := settledField(players)
		if !withRewards {
			rewards = nil
		}
		wrote += 1 + len(outcomes) + len(rewards)
		start := week0.AddDate(0, 0, 7*week)
		st, err := s.BeginSettlement(ctx, league.Settlement{League: id, Period: start, PeriodEnd: start.AddDate(0, 0, 7)})
		testsvc.Must(t, err, "BeginSettlement")
		st.Players = players
		testsvc.Must(t, s.WriteOutcomes(ctx, st, outcomes, rewards), "WriteOutcomes")
	}
	settle("a", 0, 230, true) // 32 chunks of 7 and one of 6
	testsvc.Must(t, s.RecordClaims(ctx, []league.Claim{{League: "a", Player: "x", Earned: week0, At: time.Now()}}), "RecordClaims")
	settle("b", 0, 50, true)
	settle("a", 1, 14, false) // two full chunks, between rows
	settle("b", 1, 9, false)  // the outbox ends in a chunk

	var chunks int
	testsvc.Must(t, s.Pool().QueryRow(ctx, `SELECT count(*) FROM event_chunks`).Scan(&chunks), "count chunks")
	if chunks != 33+8+2+2 {
		t.Fatalf("%d chunks, want 45 (230, 50, 14 and 9 players, seven to a chunk)", chunks)
	}
	all := outboxIDs(t, s, nil)
	if len(all) != wrote || !slices.IsSorted(all) || len(slices.Compact(slices.Clone(all))) != len(all) {
		t.Fatalf("the outbox view shows %d events, want %d in order", len(all), wrote)
	}
	feed := allEvents(t, s, nil)
	if got := ids(feed); !slices.Equal(got, all) {
		t.Fatalf("feed ids %v, want the outbox's %v", got, all)
	}
	byID := map[int64]events.Event{}
	for _, e := range feed {
		byID[e.ID] = e
	}

	// Every cursor, several page sizes, some leagues: the page is the
	// outbox's next events.
	for _, leagues := range [][]string{nil, {"a"}, {"b", "nobody"}} {
		want := outboxIDs(t, s, leagues)
		for _, limit := range []int{1, 7, 8, 1000} {
			for after := int64(0); after <= all[len(all)-1]; after++ {
				page, err := s.Events(ctx, after, limit, leagues)
				testsvc.Must(t, err, "Events")
				from, _ := slices.BinarySearch(want, after+1)
				next := want[from:min(from+limit, len(want))]
				if got := ids(page); !slices.Equal(got, next) {
					t.Fatalf("Events(after %d, limit %d, leagues %v): %v, want %v", after, limit, leagues, got, next)
				}
				for _, e := range page {
					if !reflect.DeepEqual(e, byID[e.ID]) {
						t.Fatalf("event %d read after %d: %+v, read from the start: %+v", e.ID, after, e, byID[e.ID])
					}
				}
			}
		}
	}

	// A webhook first seen starts past the last chunk.
	start, err := s.StartWebhook(ctx, "hook")
	testsvc.Must(t, err, "StartWebhook")
	if start != all[len(all)-1] {
		t.Fatalf("a new webhook starts at %d, want %d (the last event, in a chunk)", start, all[len(all)-1])
	}
	// A chunk's event retried, then dead, and a row's: found by id.
	var inChunk, row int64
	for _, e := range feed {
		if e.Type == events.PlayerPromoted && e.League == "a" && inChunk == 0 && e.ID > all[20] {
			inChunk = e.ID
		}
		if e.Type == events.RewardGranted {
			row = e.ID
		}
	}
	lane := byID[inChunk].Lane()
	testsvc.Must(t, s.Scanned(ctx, "hook", start, start, []events.Waiting{
		{EventID: inChunk, Lane: lane, State: events.Retry, Attempts: 2, NextAt: time.Now().Add(-time.Minute)},
		{EventID: row, Lane: byID[row].Lane(), State: events.Retry, NextAt: time.Now().Add(-time.Second)},
	}), "Scanned")
	due, err := s.Due(ctx, "hook", 10)
	testsvc.Must(t, err, "Due")
	if len(due) != 2 || !reflect.DeepEqual(due[0].Event, byID[inChunk]) || due[0].Attempts != 2 || !reflect.DeepEqual(due[1].Event, byID[row]) {
		t.Fatalf("Due: %+v, want events %d (in a chunk) and %d (a row) as the feed reads them", due, inChunk, row)
	}
	p, err := s.Progress(ctx, "hook")
	testsvc.Must(t, err, "Progress")
	if p.Retrying != 2 || !p.Oldest.Equal(byID[inChunk].At) {
		t.Fatalf("Progress: %+v, want 2 retrying since %s", p, byID[inChunk].At)
	}
	testsvc.Must(t, s.Failed(ctx, "hook", inChunk, 3, time.Now(), true, "HTTP 500"), "Failed")
	dead, err := s.DeadLetters(ctx, "hook", 0)
	testsvc.Must(t, err, "DeadLetters")
	if len(dead) != 1 || !reflect.DeepEqual(dead[0].Event, byID[inChunk]) {
		t.Fatalf("DeadLetters: %+v, want event %d as the feed reads it", dead, inChunk)
	}

	// Progress of a webhook scanned to the middle of a chunk: the oldest
	// event not scanned is the chunk's next.
	_, err = s.Pool().Exec(ctx, `INSERT INTO event_webhooks (webhook, scanned_to) VALUES ('mid', $1)`, inChunk)
	testsvc.Must(t, err, "webhook scanned to a chunk's middle")
	if p, err := s.Progress(ctx, "mid"); err != nil || !p.Oldest.Equal(byID[inChunk+1].At) {
		t.Fatalf("Progress scanned to %d: %+v %v, want the oldest at %s", inChunk, p, err, byID[inChunk+1].At)
	}
}
