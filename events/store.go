package events

import (
	"context"
	"time"
)

// Store is the outbox and every webhook's delivery progress:
// postgres.Store.
type Store interface {
	// Events returns up to limit events with ids above after, in id order;
	// of the given leagues only, or of every one for nil.
	Events(ctx context.Context, after int64, limit int, leagues []string) ([]Event, error)

	// LockDelivery takes the lease on delivering to the webhooks, which
	// one process holds at a time; ok is false while another holds it. The
	// lease ends with Release, or with its holder's death.
	LockDelivery(ctx context.Context) (lease Lease, ok bool, err error)
	// StartWebhook returns how far delivery to the webhook got (every
	// event up to that id was delivered, skipped, or waits), recording a
	// webhook first seen at the outbox's end.
	StartWebhook(ctx context.Context, webhook string) (scannedTo int64, err error)
	// LanesWaiting returns those of lanes with events of the webhook
	// waiting (retried, held, or dead): a new event of theirs waits too.
	LanesWaiting(ctx context.Context, webhook string, lanes []string) (map[string]bool, error)
	// Scanned records a batch: it moves the webhook's progress from from to
	// to and records the events of the batch that wait, in one
	// transaction. A Conflict error, and nothing recorded, if progress is
	// not at from (another deliverer moved it).
	Scanned(ctx context.Context, webhook string, from, to int64, waiting []Waiting) error
	// Due returns up to limit waiting events whose retry is due, the
	// longest due first: each its lane's head.
	Due(ctx context.Context, webhook string, limit int) ([]Pending, error)
	// Delivered removes a delivered head and makes the next event of its
	// lane (if any) the head, due now.
	Delivered(ctx context.Context, webhook string, id int64) error
	// Failed records a failed delivery of a head: the attempts made, when
	// to try again, or dead; msg says what failed.
	Failed(ctx context.Context, webhook string, id int64, attempts int, next time.Time, dead bool, msg string) error

	// DeadLetters lists dead events, oldest first: of webhook, or of every
	// webhook for "".
	DeadLetters(ctx context.Context, webhook string, limit int) ([]DeadLetter, error)
	// Replay makes dead events due now, their attempts back at 0: the
	// event id, or every dead one for 0; to webhook, or to every webhook
	// for "". It returns how many it replayed.
	Replay(ctx context.Context, webhook string, id int64) (int, error)
	// Progress returns how delivery to the webhook stands.
	Progress(ctx context.Context, webhook string) (Progress, error)
}

// Lease is the lease on delivering.
type Lease interface {
	// Check returns an error once the lease is lost (its connection to
	// the database dropped): its holder must stop delivering.
	Check(ctx context.Context) error
	Release()
}

// State is where a waiting event stands.
type State string

const (
	// Retry: the head of its lane, tried again at NextAt.
	Retry State = "retry"
	// Held: behind its lane's head, waiting for it.
	Held State = "held"
	// Dead: a head that failed max_attempts times; it holds its lane until
	// replayed.
	Dead State = "dead"
)

// Waiting is an event of a webhook not delivered yet.
type Waiting struct {
	EventID   int64
	Lane      string
	State     State
	Attempts  int
	NextAt    time.Time
	LastError string
}

// Pending is a head due for a retry: the event and its failed attempts.
type Pending struct {
	Event    Event
	Attempts int
}

// DeadLetter is a dead event of a webhook.
type DeadLetter struct {
	Webhook   string
	Event     Event
	Attempts  int
	LastError string
	Since     time.Time // when it died
	Holding   int       // the player's later events held behind it
}

// Progress is how delivery to a webhook stands.
type Progress struct {
	Webhook   string
	ScannedTo int64
	// Retrying, Held and Dead count waiting events by state.
	Retrying, Held, Dead int
	// Oldest is when the oldest event neither delivered nor dead (nor held
	// behind a dead one) was written; zero when there is none.
	Oldest time.Time
	// Known is false for a webhook no deliverer has started yet.
	Known bool
}
