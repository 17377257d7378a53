package api

import (
	"context"
	"net/http"
	"strconv"

	"github.com/league-engine/league/events"
	"github.com/league-engine/league/internal/excerpt"
	"github.com/league-engine/league/league"
)

// The pull feed: GET /v1/admin/events?after=&limit=, the outbox's events in
// the order they were written, a page at a time. A page's next is the
// cursor of the one after: the last event's id (ids grow in commit order,
// so nothing can appear behind a cursor). A key scoped to leagues reads
// their events only.

// EventFeed reads the outbox; postgres.Store implements it.
type EventFeed interface {
	Events(ctx context.Context, after int64, limit int, leagues []string) ([]events.Event, error)
}

// Page sizes of the feed.
const (
	defaultEventPage = 100
	maxEventPage     = 1000
)

type eventsBody struct {
	Events []events.Event `json:"events"`
	// Next is the cursor to send as after for the next page: the last
	// event's id, or after itself when the page is empty (poll again).
	Next int64 `json:"next"`
}

func (s *Server) events(r *http.Request, caller *Key) (reply, error) {
	var after int64
	if v, given := queryParam(r, "after"); given {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return nil, invalid("after", "%q is not a cursor: the id of the last event read (a page's next), 0 or more; leave it out to start at the first event", excerpt.Of(v))
		}
		after = n
	}
	limit, err := intParam(r, "limit", defaultEventPage)
	if err != nil {
		return nil, err
	}
	if limit < 1 || limit > maxEventPage {
		return nil, invalid("limit", "%d is outside 1..%d", limit, maxEventPage)
	}
	if s.feed == nil {
		return nil, league.Errorf(league.Unavailable, "this server keeps no events: the outbox is in Postgres, and it runs without DATABASE_URL")
	}
	var leagues []string
	if caller != nil && caller.Leagues != nil {
		leagues = caller.Leagues
	}
	evs, err := s.feed.Events(r.Context(), after, limit, leagues)
	if err != nil {
		return nil, s.postgresErr(err)
	}
	b := eventsBody{Events: evs, Next: after}
	if len(evs) > 0 {
		b.Next = evs[len(evs)-1].ID
	}
	if b.Events == nil {
		b.Events = []events.Event{}
	}
	return marshal{b}, nil
}
