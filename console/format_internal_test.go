package console

import (
	"testing"
	"time"
)

func TestThousands(t *testing.T) {
	for _, c := range []struct {
		n    int64
		want string
	}{{0, "0"}, {999, "999"}, {1000, "1,000"}, {1234567, "1,234,567"}, {-1234, "-1,234"}, {100000, "100,000"}} {
		if got := thousands(c.n); got != c.want {
			t.Errorf("thousands(%d): got %q, want %q", c.n, got, c.want)
		}
	}
}

func TestLeft(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{{0, "ended"}, {-time.Hour, "ended"}, {90 * time.Second, "2m"}, {3*time.Hour + 5*time.Minute, "3h 5m"}, {167 * time.Hour, "6d 23h 0m"}} {
		if got := left(c.d); got != c.want {
			t.Errorf("left(%v): got %q, want %q", c.d, got, c.want)
		}
	}
}

func TestTook(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{{0, "0.0 ms"}, {420 * time.Microsecond, "0.4 ms"}, {850 * time.Millisecond, "850 ms"}, {12345 * time.Millisecond, "12.3 s"}, {245 * time.Second, "4m 05s"}, {2 * time.Hour, "2h 0m"}} {
		if got := took(c.d); got != c.want {
			t.Errorf("took(%v): got %q, want %q", c.d, got, c.want)
		}
	}
}

func TestRate(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{{0, "0.00"}, {0.25, "0.25"}, {12.44, "12.4"}, {1234.4, "1,234"}, {99.96, "100.0"}} {
		if got := rate(c.v); got != c.want {
			t.Errorf("rate(%v): got %q, want %q", c.v, got, c.want)
		}
	}
}

func TestWhen(t *testing.T) {
	at := time.Date(2026, 11, 23, 1, 2, 3, 0, time.FixedZone("CET", 3600))
	want := `<time datetime="2026-11-23T00:02:03Z" title="2026-11-23 00:02:03 UTC">2026-11-23 00:02 UTC</time>`
	if got := string(when(at)); got != want {
		t.Errorf("when(%v): got %s, want %s", at, got, want)
	}
}
