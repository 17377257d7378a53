package main

import (
	"testing"

	"github.com/league-engine/league/league"
)

func TestGuards(t *testing.T) {
	cases := []struct {
		guards          string
		limits, gainPer int
		wantErr         bool
	}{
		{guardsConfig, 0, 0, false},
		{guardsNone, 0, 0, false},
		{guardsLimits, 2, 1, false},
		{"all", 0, 0, true},
	}
	for _, c := range cases {
		t.Run(c.guards, func(t *testing.T) {
			leagues, err := loadLeagues("", "weekly", c.guards)
			if c.wantErr {
				if err == nil {
					t.Fatal("got no error, want one")
				}
				return
			}
			if err != nil {
				t.Fatalf("got error %v, want none", err)
			}
			l := leagues[0]
			if len(l.Limits) != c.limits || len(l.MaxGainPer) != c.gainPer {
				t.Errorf("got %d limits and %d max_gain_per, want %d and %d", len(l.Limits), len(l.MaxGainPer), c.limits, c.gainPer)
			}
			if c.gainPer > 0 && l.MaxGainPer[league.PerDay] != l.MaxScore {
				t.Errorf("max_gain_per day: got %d, want max_score %d", l.MaxGainPer[league.PerDay], l.MaxScore)
			}
		})
	}
}
