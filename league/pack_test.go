package league

import (
	"strings"
	"testing"
	"time"

	"github.com/league-engine/league/tiers"
)

func mustSchedule(tb testing.TB, spec string) *Schedule {
	tb.Helper()
	s, err := ParseSchedule(spec)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

func TestPackingBudget(t *testing.T) {
	tests := []struct {
		name      string
		size      int
		tie       TieBreak
		spec      string
		res       time.Duration
		slot, tim uint
	}{
		{"design card board", 100, JoinOrder, "0 0 * * MON", 0, 7, 0},
		{"board of one", 1, JoinOrder, "0 0 * * MON", 0, 0, 0},
		{"board of 128", 128, JoinOrder, "0 0 * * MON", 0, 7, 0},
		{"board of 129", 129, JoinOrder, "0 0 * * MON", 0, 8, 0},
		{"weekly seconds", 100, FirstReached, "0 0 * * MON", time.Second, 7, 20},     // 604800 s
		{"monthly seconds", 100, FirstReached, "0 0 1 * *", time.Second, 7, 22},      // 31 days
		{"weekly millis", 100, FirstReached, "0 0 * * MON", time.Millisecond, 7, 30}, // 6.048e8 ms
		// 3h01m (10,860 s) when New York's clocks go back, 2h01m (7,260 s,
		// 13 bits) every other night: the longest period lies past the
		// first 100,000 minutes whatever day a process starts on.
		{"minutes that pause at night", 100, FirstReached, "CRON_TZ=America/New_York * 2-23 * * *", time.Second, 7, 14},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := &League{ID: "x", BoardSize: tt.size, TieBreak: tt.tie, TieResolution: tt.res,
				Schedule: mustSchedule(t, tt.spec), Ladder: ladderOf(t)}
			if err := l.Init(); err != nil {
				t.Fatal(err)
			}
			p := l.Packing()
			if p.SlotBits != tt.slot || p.TimeBits != tt.tim || p.ScoreBits != 53-tt.slot-tt.tim {
				t.Fatalf("bits slot %d time %d score %d; want %d %d %d", p.SlotBits, p.TimeBits, p.ScoreBits, tt.slot, tt.tim, 53-tt.slot-tt.tim)
			}
			if p.MaxExact != 1<<p.ScoreBits-1 {
				t.Fatalf("MaxExact %d", p.MaxExact)
			}
		})
	}
}

// TestMaxLength: the longest period over eight years, a clock change's
// included.
func TestMaxLength(t *testing.T) {
	for spec, want := range map[string]time.Duration{
		"0 0 * * MON":                           7 * 24 * time.Hour,
		"CRON_TZ=Europe/Paris 0 0 * * MON":      7*24*time.Hour + time.Hour,
		"CRON_TZ=Europe/Berlin 30 2 * * *":      47 * time.Hour, // no 02:30 the night clocks go forward
		"0 0 1 * *":                             31 * 24 * time.Hour,
		"0 0 29 2 *":                            1461 * 24 * time.Hour, // leap days, 2028 to 2032
		"CRON_TZ=America/New_York * 2-23 * * *": 3*time.Hour + time.Minute,
		"CRON_TZ=America/New_York */5 * * * *":  5 * time.Minute, // minutes, not the clock, count
		"CRON_TZ=Australia/Lord_Howe 0 * * * *": time.Hour + 30*time.Minute,
	} {
		if got := mustSchedule(t, spec).MaxLength(); got != want {
			t.Errorf("%s: %v, want %v", spec, got, want)
		}
	}
}

func TestPackRoundTrip(t *testing.T) {
	p := Packing{SlotBits: 7, TimeBits: 20, ScoreBits: 26, MaxExact: 1<<26 - 1, BoardSize: 100, Unit: 1000}
	tests := []struct {
		score, left int64
		slot        int
	}{
		{0, 0, 1}, {0, 0, 100}, {p.MaxExact, 1<<20 - 1, 1}, {p.MaxExact, 0, 100}, {12345, 604800, 37},
	}
	for _, tt := range tests {
		packed := p.Pack(tt.score, tt.left, tt.slot)
		if packed >= 1<<53 {
			t.Fatalf("%+v packs to %v, not below 2^53", tt, packed)
		}
		if s, l := p.Unpack(packed); s != tt.score || l != tt.left {
			t.Errorf("Unpack(Pack(%+v)) = %d, %d", tt, s, l)
		}
	}
	// higher score wins; at equal score more time left wins; then lower slot
	order := []float64{p.Pack(5, 0, 100), p.Pack(4, 1<<20-1, 1), p.Pack(4, 10, 100), p.Pack(4, 9, 1), p.Pack(4, 9, 2)}
	for i := 1; i < len(order); i++ {
		if !(order[i-1] > order[i]) {
			t.Errorf("order %d: %v is not above %v", i, order[i-1], order[i])
		}
	}
	end := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
	if got := p.TimeLeft(end.Add(-7*24*time.Hour), end); got != 604800 {
		t.Errorf("TimeLeft at period start = %d, want 604800", got)
	}
	if got := p.TimeLeft(end.Add(-time.Millisecond), end); got != 0 {
		t.Errorf("TimeLeft at the last instant = %d, want 0", got)
	}
}

func TestInitRejects(t *testing.T) {
	tests := []struct {
		name  string
		edit  func(*League)
		field string
	}{
		{"max score too big", func(l *League) { l.MaxScore = 1 << 47 }, "max_score"},
		{"negative max", func(l *League) { l.MaxScore = -5 }, "max_score"},
		{"board too big", func(l *League) { l.BoardSize = 5000 }, "board_size"},
		{"unknown entry tier", func(l *League) { l.EntryTier = "mithril" }, "entry_tier"},
		{"bad operator", func(l *League) { l.Operator = "add" }, "score_operator"},
		{"bad tie break", func(l *League) { l.TieBreak = "random" }, "tie_break"},
		{"bad id", func(l *League) { l.ID = "Weekly League" }, "id"},
		{"odd resolution", func(l *League) { l.TieBreak = FirstReached; l.TieResolution = 1500 * time.Microsecond }, "tie_resolution"},
		{"tier name not UTF-8", func(l *League) { l.Ladder = namedLadder("\xff") }, "tiers[1] (high).name"},
		{"tier name of spaces", func(l *League) { l.Ladder = namedLadder(" ") }, "tiers[1] (high).name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := &League{ID: "x", Schedule: mustSchedule(t, "0 0 * * MON"), Ladder: ladderOf(t)}
			tt.edit(l)
			err := l.Init()
			if err == nil || len(err.Error()) < len(tt.field) || err.Error()[:len(tt.field)] != tt.field {
				t.Fatalf("Init: %v, want an error about %s", err, tt.field)
			}
		})
	}
}

// namedLadder is ladderOf's ladder with the top tier named name.
func namedLadder(name string) *tiers.Ladder {
	l, _ := tiers.NewLadder([]tiers.Tier{{ID: "low", Promote: 2000}, {ID: "high", Name: name, Demote: 2000}})
	return l
}

func ladderOf(tb testing.TB) *tiers.Ladder {
	tb.Helper()
	l, err := tiers.NewLadder([]tiers.Tier{{ID: "low", Promote: 2000}, {ID: "high", Demote: 2000}})
	if err != nil {
		tb.Fatal(err)
	}
	return l
}

func TestScheduleAt(t *testing.T) {
	weekly := mustSchedule(t, "0 0 * * MON")
	p := weekly.At(time.Date(2026, 11, 22, 13, 0, 0, 0, time.UTC))
	if p.ID() != "20261116T000000Z" || !p.End.Equal(time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("At: %v-%v", p.Start, p.End)
	}
	if b := weekly.At(p.End); !b.Start.Equal(p.End) {
		t.Fatalf("a boundary belongs to the period it starts: %v", b)
	}
	if prev := weekly.Preceding(p); !prev.End.Equal(p.Start) || prev.ID() != "20261109T000000Z" {
		t.Fatalf("Preceding: %v-%v", prev.Start, prev.End)
	}
	if n := weekly.Between(weekly.Preceding(p), weekly.Following(p), 10); n != 1 {
		t.Fatalf("Between = %d, want 1", n)
	}
	// DST: Paris leaves winter time on 2026-03-29; boundaries stay at 04:00
	// local, so that week is an hour short.
	paris := mustSchedule(t, "CRON_TZ=Europe/Paris 0 4 * * SUN")
	q := paris.At(time.Date(2026, 3, 25, 0, 0, 0, 0, time.UTC))
	if q.Start.Hour() != 3 || q.End.Hour() != 2 || q.End.Sub(q.Start) != 7*24*time.Hour-time.Hour {
		t.Fatalf("DST week %v-%v, want 03:00Z to 02:00Z (one hour shorter)", q.Start, q.End)
	}
	// A boundary at a local time the DST change skips (02:30 on 2026-03-29
	// in Paris) is skipped by cron: that period lasts two weeks. The config
	// reference warns about it.
	skipped := mustSchedule(t, "CRON_TZ=Europe/Paris 30 2 * * SUN").At(time.Date(2026, 3, 25, 0, 0, 0, 0, time.UTC))
	if skipped.End.Sub(skipped.Start) != 14*24*time.Hour-time.Hour {
		t.Fatalf("skipped boundary: %v-%v", skipped.Start, skipped.End)
	}
	for spec, want := range map[string]string{
		"@every 5m":                             "@every has no fixed boundaries",
		"CRON_TZ=UTC @every 1h":                 "@every has no fixed boundaries",
		"TZ=UTC @every 30m":                     "@every has no fixed boundaries",
		" @every 1h":                            "@every has no fixed boundaries",
		"61 * * * *":                            "above maximum",
		"CRON_TZ=UTC":                           "no cron fields after the zone",
		"TZ=Asia/Tokyo":                         "no cron fields after the zone",
		"CRON_TZ=UTC   ":                        "no cron fields after the zone",
		"CRON_TZ=Local 0 12 * * *":              "Local is the host's zone",
		"TZ=Local 0 * * * *":                    "Local is the host's zone",
		"CRON_TZ=localtime 0 * * * *":           "localtime is the host's zone",
		"TZ=posixrules 0 0 * * *":               "posixrules is the host's zone",
		"CRON_TZ=./localtime 0 * * * *":         "./localtime is not a zone name",
		"CRON_TZ=.//posixrules 0 * * * *":       "is not a zone name",
		"CRON_TZ=Europe/../localtime 0 * * * *": "is not a zone name",
		"CRON_TZ=Europe//Paris 0 * * * *":       "is not a zone name",
		"CRON_TZ=/etc/localtime 0 * * * *":      "localtime is the host's zone",
		"CRON_TZ=posix/localtime 0 * * * *":     "posix/localtime is the host's zone",
		"CRON_TZ=LOCALTIME 0 * * * *":           "LOCALTIME is the host's zone",
		"TZ=local 0 * * * *":                    "local is the host's zone",
		"CRON_TZ= 0 * * * *":                    "no zone after the prefix",
		"CRON_TZ=Mars/Base 0 * * * *":           "unknown time zone",
		"   ":                                   "empty cron expression",
	} {
		if _, err := ParseSchedule(spec); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseSchedule(%q): %v, want an error saying %q", spec, err, want)
		}
	}
	// A zone written with TZ= or surrounded by spaces is the same schedule.
	for _, spec := range []string{"TZ=Europe/Paris 0 0 * * MON", "  CRON_TZ=Europe/Paris 0 0 * * MON ", "CRON_TZ=Europe/Paris  0 0 * * MON"} {
		if !mustSchedule(t, spec).SameAs(mustSchedule(t, "CRON_TZ=Europe/Paris 0 0 * * MON"), p.Start) {
			t.Errorf("%q is not the same as CRON_TZ=Europe/Paris 0 0 * * MON", spec)
		}
	}
	id, err := ParsePeriodID("20261116T000000Z")
	if err != nil || !id.Equal(p.Start) {
		t.Fatalf("ParsePeriodID: %v %v", id, err)
	}
}

func TestParsePeriodIDBounds(t *testing.T) {
	for id, ok := range map[string]bool{
		"20261116T000000Z": true, "1763251200": true, "19700101T000001Z": true, "4294967295": true,
		// Year 1 is a Monday, but the zero time means "no period given".
		"00010101T000000Z": false, "19691229T000000Z": false, "19700101T000000Z": false,
		"0": false, "-1": false, "4294967296": false, "21060208T000000Z": false,
		"2026-11-16": false, "": false,
	} {
		if _, err := ParsePeriodID(id); (err == nil) != ok {
			t.Errorf("ParsePeriodID(%q): err %v, want ok %v", id, err, ok)
		}
	}
}

func BenchmarkPack(b *testing.B) {
	p := Packing{SlotBits: 7, TimeBits: 20, ScoreBits: 26, MaxExact: 1<<26 - 1, BoardSize: 100, Unit: 1000}
	var sink int64
	for i := 0; i < b.N; i++ {
		s, _ := p.Unpack(p.Pack(int64(i)&(1<<26-1), int64(i)&(1<<20-1), i%100+1))
		sink += s
	}
	_ = sink
}

// TestScheduleSameAs: two spellings of one cycle are the same schedule;
// a cycle that differs anywhere, however far ahead, is not.
func TestScheduleSameAs(t *testing.T) {
	from := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{"@weekly", "0 0 * * 0", true},
		{"0 0 * * MON", "0 0 0 * * 1", true},
		{"*/1 * * * *", "* * * * *", true},
		{"0-59 * * * *", "* * * * *", true},
		{"CRON_TZ=Europe/Paris 0 0 * * 1", "CRON_TZ=Europe/Paris 0 0 * * MON", true},
		{"* * * * *", "* * * 1-11 *", false}, // the same for weeks: December differs
		{"0 0 * * 1", "0 0 * * 2", false},
		{"0 0 * * 1", "0 0 */2 * 1", false}, // a day-of-month step makes days match both fields
		{"CRON_TZ=Europe/Paris 0 0 * * 1", "CRON_TZ=America/New_York 0 0 * * 1", false},
		{"CRON_TZ=UTC 0 0 * * 1", "0 0 * * 1", true}, // no zone is UTC, whatever the host's
		{"CRON_TZ=Etc/UTC 0 0 * * 1", "0 0 * * 1", true},
		// The same until the next clock change, months after from.
		{"CRON_TZ=Europe/London */15 8-20 * * *", "CRON_TZ=UTC */15 8-20 * * *", false},
	} {
		a, b := mustSchedule(t, c.a), mustSchedule(t, c.b)
		if got := a.SameAs(b, from); got != c.same {
			t.Errorf("%q same as %q: %v, want %v", c.a, c.b, got, c.same)
		}
	}
}

// FuzzParseSchedule: any text is a schedule or an error, never a panic (the
// cron library panicked on a zone without fields), and a schedule always
// has a next boundary.
func FuzzParseSchedule(f *testing.F) {
	for _, seed := range []string{"0 0 * * MON", "CRON_TZ=Europe/Paris 30 2 * * SUN", "TZ=UTC", "@weekly",
		"CRON_TZ=UTC @every 1h", "*/2 * * * * *", "0 0 30 2 *", "TZ= 0 * * * *", "CRON_TZ=localtime 0 * * * *"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		s, err := ParseSchedule(spec)
		if err != nil {
			return
		}
		from := time.Date(2026, 11, 16, 0, 0, 0, 0, time.UTC)
		if s.Next(from).IsZero() {
			t.Fatalf("%q: no boundary after %v", spec, from)
		}
	})
}
