package main

import (
	"encoding/json"
	"log/slog"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/rulefmt"
	"github.com/prometheus/prometheus/promql/parser"
)

// metricRef is a metric name in a PromQL expression.
var metricRef = regexp.MustCompile(`\bleague_[a-z0-9_]+`)

// checkExprMetrics fails the test for a metric expr names that the service
// does not register (a histogram's _bucket, _sum and _count are its own).
func checkExprMetrics(t *testing.T, where, expr string, registered map[string]string) {
	t.Helper()
	for _, name := range metricRef.FindAllString(expr, -1) {
		base := name
		for _, suffix := range []string{"_bucket", "_sum", "_count"} {
			if b, ok := strings.CutSuffix(name, suffix); ok && registered[b] != "" {
				base = b
			}
		}
		if registered[base] == "" {
			t.Errorf("%s: %s is not a metric the service registers", where, name)
		}
	}
}

// TestMonitoring: the Grafana dashboard's queries and the alert rules name
// only metrics the service registers; the rules parse and validate as
// promtool check rules does (Prometheus's own rule parser: PromQL and
// templates); the dashboard has the panels an operator looks for first.
func TestMonitoring(t *testing.T) {
	registered := registeredMetrics(t)

	var dash struct {
		Title  string `json:"title"`
		Panels []struct {
			ID      int    `json:"id"`
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	b, err := os.ReadFile("../../monitoring/grafana-dashboard.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &dash); err != nil {
		t.Fatalf("grafana-dashboard.json: %v", err)
	}
	p := parser.NewParser(parser.Options{})
	ids, titles := map[int]bool{}, map[string]bool{}
	for _, panel := range dash.Panels {
		if ids[panel.ID] || panel.Title == "" || len(panel.Targets) == 0 {
			t.Errorf("panel %d %q: a unique id, a title and a query each", panel.ID, panel.Title)
		}
		ids[panel.ID], titles[panel.Title] = true, true
		for _, target := range panel.Targets {
			where := "dashboard panel " + panel.Title
			// Grafana's variables, as a query sends them
			expr := strings.NewReplacer("$job", ".*").Replace(target.Expr)
			if _, err := p.ParseExpr(expr); err != nil {
				t.Errorf("%s: %q does not parse: %v", where, target.Expr, err)
			}
			checkExprMetrics(t, where, target.Expr, registered)
		}
	}
	for _, want := range []string{"Writes per second", "Reads per second", "Latency quantiles (all routes)", "Errors by status code",
		"Settlement: players settled per second", "Unsettled periods", "Redis round trips"} {
		if !titles[want] {
			t.Errorf("the dashboard has no panel %q", want)
		}
	}

	groups, errs := rulefmt.ParseFile("../../monitoring/alerts.yaml", false, model.UTF8Validation, p, slog.Default())
	for _, err := range errs {
		t.Errorf("alerts.yaml: %v", err)
	}
	if groups == nil {
		t.FailNow()
	}
	alerts := map[string]bool{}
	for _, g := range groups.Groups {
		for _, r := range g.Rules {
			alerts[r.Alert] = true
			checkExprMetrics(t, "alert "+r.Alert, r.Expr, registered)
		}
	}
	for _, want := range []string{"LeagueRedisUnreachable", "LeagueSettlementStalled", "LeagueHighErrorRate"} {
		if !alerts[want] {
			t.Errorf("alerts.yaml has no alert %s", want)
		}
	}
}
