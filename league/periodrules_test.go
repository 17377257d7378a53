package league

import "testing"

// TestPeriodRulesBounded: a process running for months on a short schedule
// keeps at most periodRulesKept periods' fingerprints, the newest.
func TestPeriodRulesBounded(t *testing.T) {
	var c periodRules
	const periods = 10 * periodRulesKept
	for i := int64(0); i < periods; i++ {
		c.put(60*i, "fp")
	}
	if n := len(c.m); n != periodRulesKept {
		t.Fatalf("%d entries after %d periods, want %d", n, periods, periodRulesKept)
	}
	for i := int64(0); i < periods; i++ {
		_, ok := c.get(60 * i)
		if want := i >= periods-periodRulesKept; ok != want {
			t.Fatalf("period %d kept %v, want %v (the newest %d)", i, ok, want, periodRulesKept)
		}
	}
	// A period older than every one kept is not worth an eviction.
	c.put(-60, "old")
	if _, ok := c.get(-60); ok {
		t.Fatal("an older period evicted a newer one")
	}
	// Putting a kept period again changes its entry, not the count.
	c.put(60*(periods-1), "other")
	if fp, _ := c.get(60 * (periods - 1)); fp != "other" || len(c.m) != periodRulesKept {
		t.Fatalf("fingerprint %q with %d entries after a second put", fp, len(c.m))
	}
}
