package config

import (
	"fmt"
	"strings"
	"time"

	"github.com/league-engine/league/events"
	"github.com/league-engine/league/league"
)

// Events is the events section: the webhooks leagued delivers the
// outbox's events to (package events). The outbox and the pull feed need
// no configuration; webhooks need Postgres (DATABASE_URL).
type Events struct {
	Webhooks []events.Webhook
	// sources say where each webhook's secret comes from, by index.
	sources []keySource
}

type eventsFile struct {
	Webhooks []webhookFile `yaml:"webhooks"`
}

type webhookFile struct {
	Name        string    `yaml:"name"`
	URL         string    `yaml:"url"`
	Secret      string    `yaml:"secret"`
	SecretEnv   string    `yaml:"secret_env"`
	SecretFile  string    `yaml:"secret_file"`
	Types       *[]string `yaml:"types"`   // nil: every type
	Leagues     *[]string `yaml:"leagues"` // nil: every league
	Timeout     duration  `yaml:"timeout"`
	MaxAttempts *int      `yaml:"max_attempts"`
	Concurrency *int      `yaml:"concurrency"`
}

// build checks the events section; leagues are the ids the config
// defines.
func (ef eventsFile) build(leagues []string) (Events, error) {
	var out Events
	names := map[string]int{}
	for i, wf := range ef.Webhooks {
		where := fmt.Sprintf("events.webhooks[%d]", i)
		if wf.Name != "" {
			where += " (" + wf.Name + ")"
		}
		w, err := wf.build(leagues)
		if err != nil {
			return out, fmt.Errorf("%s.%w", where, err)
		}
		if prev, dup := names[w.Name]; dup {
			return out, fmt.Errorf("%s.name: %q is also the name of events.webhooks[%d]", where, w.Name, prev)
		}
		names[w.Name] = i
		out.Webhooks = append(out.Webhooks, w)
		out.sources = append(out.sources, keySource{env: wf.SecretEnv, file: wf.SecretFile})
	}
	return out, nil
}

func (wf webhookFile) build(leagues []string) (events.Webhook, error) {
	w := events.Webhook{Name: wf.Name, URL: wf.URL}
	if !league.ValidName(wf.Name) {
		return w, fmt.Errorf("name: %q is not 1-%d characters of a-z, 0-9, _ and -, starting with a letter or digit (it keys the webhook's delivery progress, logs and metrics)",
			wf.Name, league.MaxScopeLen)
	}
	if err := events.CheckURL(wf.URL); err != nil {
		return w, fmt.Errorf("url: %v", err)
	}
	given := 0
	for _, v := range []string{wf.Secret, wf.SecretEnv, wf.SecretFile} {
		if v != "" {
			given++
		}
	}
	switch {
	case given > 1:
		return w, fmt.Errorf("secret, secret_env, secret_file: give one")
	case given == 0:
		return w, fmt.Errorf("secret: required: every delivery is signed with it (HMAC-SHA256) for the receiver to check; " +
			"give the secret, or secret_env or secret_file naming where it is kept")
	case wf.Secret != "":
		if why := badKey(wf.Secret); why != "" {
			return w, fmt.Errorf("secret: %s", strings.ReplaceAll(why, "a key is", "a secret is"))
		}
		w.Secrets = []string{wf.Secret}
	}
	if wf.Types != nil {
		if len(*wf.Types) == 0 {
			return w, fmt.Errorf("types: an empty list takes nothing; leave it out for every type")
		}
		for _, t := range *wf.Types {
			if !events.Type(t).Known() {
				return w, fmt.Errorf("types: %q is not an event type: %s", t, typeList())
			}
			w.Types = append(w.Types, events.Type(t))
		}
	}
	var err error
	if w.Leagues, err = scope("leagues", "league", wf.Leagues, leagues); err != nil {
		return w, err
	}
	if w.Timeout, err = wf.Timeout.get("timeout", time.Millisecond); err != nil {
		return w, err
	}
	for _, n := range []struct {
		field string
		in    *int
		max   int
		out   *int
	}{{"max_attempts", wf.MaxAttempts, events.MaxAttempts, &w.MaxAttempts}, {"concurrency", wf.Concurrency, events.MaxConcurrency, &w.Concurrency}} {
		if n.in == nil {
			continue
		}
		if *n.in < 1 || *n.in > n.max {
			return w, fmt.Errorf("%s: %d is outside 1..%d", n.field, *n.in, n.max)
		}
		*n.out = *n.in
	}
	return w, nil
}

func typeList() string {
	names := make([]string, len(events.Types))
	for i, t := range events.Types {
		names[i] = string(t)
	}
	return strings.Join(names, ", ")
}

// resolveSecrets reads the secrets of webhooks given by secret_env or
// secret_file: one, or two (old and new) while the receiver moves to the
// new one, as for keys. Read at start only: a webhook's secret changes
// with a restart.
func (e *Events) resolveSecrets(getenv func(string) string) error {
	for i, src := range e.sources {
		secrets, err := src.read(fmt.Sprintf("events.webhooks[%d] (%s)", i, e.Webhooks[i].Name), getenv)
		if err != nil {
			return err
		}
		if secrets != nil {
			e.Webhooks[i].Secrets = secrets
		}
	}
	return nil
}

// SecretFrom says where the i-th webhook's secret comes from: "$VAR",
// "file PATH", or "" when the config file holds it (leaguectl config check).
func (e *Events) SecretFrom(i int) string {
	switch {
	case i >= len(e.sources):
		return ""
	case e.sources[i].env != "":
		return "$" + e.sources[i].env
	case e.sources[i].file != "":
		return "file " + e.sources[i].file
	}
	return ""
}
