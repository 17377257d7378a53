package league

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/robfig/cron/v3"
)

// TestMaxLengthOnSlimZoneFiles: a slim zone file (zic -b slim, as Alpine
// ships) ends its transitions early and leaves the rest to its rule, where
// Go's ZoneBounds, on the last UTC day of a leap year, returns a span that
// ends before the instant asked about (go.dev/issue/81583): MaxLength's walk
// over the zone's changes must still end, with the DST-long period.
func TestMaxLengthOnSlimZoneFiles(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "slim.zi")
	os.WriteFile(src, []byte("Rule EU 1981 max - Mar lastSun 1:00u 1:00 S\nRule EU 1996 max - Oct lastSun 1:00u 0 -\nZone Test/Slim 1:00 EU CE%sT\n"), 0o600)
	if out, err := exec.Command("zic", "-b", "slim", "-d", dir, src).CombinedOutput(); err != nil {
		t.Fatalf("zic (Debian: apt-get install tzdata): %v\n%s", err, out)
	}
	data, err := os.ReadFile(filepath.Join(dir, "Test", "Slim"))
	if err != nil {
		t.Fatal(err)
	}
	loc, err := time.LoadLocationFromTZData("Test/Slim", data)
	if err != nil {
		t.Fatal(err)
	}
	s, err := ParseSchedule("0 0 * * *")
	if err != nil {
		t.Fatal(err)
	}
	s.sched.(*cron.SpecSchedule).Location = loc
	got := make(chan time.Duration, 1)
	go func() { got <- s.MaxLength() }()
	select {
	case d := <-got:
		if d != 25*time.Hour {
			t.Fatalf("MaxLength %v, want 25h (the day the clocks go back)", d)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("MaxLength did not return in 20 s: the walk over the zone's changes stalled")
	}
}
