package events

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"
)

// Webhook is a receiver of events (config.yaml's events.webhooks).
type Webhook struct {
	// Name identifies the webhook: its progress in Postgres is kept under
	// it, so a renamed webhook starts afresh at the outbox's end, and a URL
	// changed under the same name carries on where the old one stopped.
	Name string
	URL  string // http or https
	// Secrets sign every delivery (SignatureHeader): one, or two while
	// the receiver moves from the old to the new.
	Secrets []string
	// Types and Leagues are the events it takes; nil: every one.
	Types   []Type
	Leagues []string
	// Timeout bounds one delivery: past it the attempt failed.
	Timeout time.Duration
	// MaxAttempts is how many failed deliveries make an event dead.
	MaxAttempts int
	// Concurrency is how many deliveries are in flight at once (to as
	// many players).
	Concurrency int
}

// Defaults of a Webhook's zero fields.
const (
	DefaultTimeout     = 10 * time.Second
	DefaultMaxAttempts = 20
	DefaultConcurrency = 8
	MaxConcurrency     = 256
	MaxAttempts        = 1000
)

// CheckURL says what is wrong with a webhook URL, or nil: an absolute
// http:// or https:// URL with a host.
func CheckURL(raw string) error {
	if raw == "" {
		return fmt.Errorf("required: the http:// or https:// URL events are POSTed to")
	}
	u, err := url.Parse(raw)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // without the URL, which may hold a password
		}
		return fmt.Errorf("%q is not a URL: %v", redact(raw), err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("%q is not an http:// or https:// URL", redact(raw))
	}
	if u.Host == "" {
		return fmt.Errorf("%q names no host", redact(raw))
	}
	if u.Fragment != "" {
		return fmt.Errorf("%q has a #fragment, which is never sent", redact(raw))
	}
	return nil
}

// redact hides the password of a URL's user info.
func redact(raw string) string {
	if u, err := url.Parse(raw); err == nil {
		return u.Redacted()
	}
	if i := strings.LastIndexByte(raw, '@'); i >= 0 {
		return "xxxxx" + raw[i:]
	}
	return raw
}

// Redacted is the webhook's URL with any password hidden, for logs.
func (w Webhook) Redacted() string { return redact(w.URL) }

// WithDefaults is the webhook with its zero fields given their defaults.
func (w Webhook) WithDefaults() Webhook {
	if w.Timeout <= 0 {
		w.Timeout = DefaultTimeout
	}
	if w.MaxAttempts <= 0 {
		w.MaxAttempts = DefaultMaxAttempts
	}
	if w.Concurrency <= 0 {
		w.Concurrency = DefaultConcurrency
	}
	return w
}

// takes reports whether the webhook takes e.
func (w Webhook) takes(e Event) bool {
	return (w.Types == nil || slices.Contains(w.Types, e.Type)) &&
		(w.Leagues == nil || slices.Contains(w.Leagues, e.League))
}
