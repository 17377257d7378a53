package postgres_test

import (
	"context"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/league-engine/league/postgres"
)

// cpuMeter measures the CPU a benchmark costs, the elapsed time's share of
// a machine others use too: this process's, and, when Postgres runs on
// this Linux host, its server processes' (the postmaster's children, read
// from /proc).
type cpuMeter struct {
	postmaster int // 0: Postgres's processes are not readable here
	self, pg   float64
	total      struct{ self, pg float64 }
}

func newCPUMeter(tb testing.TB, s *postgres.Store) *cpuMeter {
	m := &cpuMeter{}
	var backend int
	if s.Pool().QueryRow(context.Background(), `SELECT pg_backend_pid()`).Scan(&backend) == nil {
		if f := procStat(backend); len(f) > 1 {
			m.postmaster, _ = strconv.Atoi(f[1]) // ppid
		}
	}
	return m
}

func (m *cpuMeter) start() { m.self, m.pg = selfCPU(), m.pgCPU() }

func (m *cpuMeter) stop() {
	m.total.self += selfCPU() - m.self
	m.total.pg += m.pgCPU() - m.pg
}

// report adds the CPU per op to the benchmark's line.
func (m *cpuMeter) report(b *testing.B) {
	b.ReportMetric(m.total.self/float64(b.N), "go-cpu-s/op")
	if m.postmaster != 0 {
		b.ReportMetric(m.total.pg/float64(b.N), "pg-cpu-s/op")
	}
}

func selfCPU() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// pgCPU sums the CPU seconds of the postmaster's children, those gone
// included (the postmaster's cutime and cstime count them).
func (m *cpuMeter) pgCPU() float64 {
	if m.postmaster == 0 {
		return 0
	}
	ticks := func(f []string, i int) float64 { v, _ := strconv.ParseFloat(f[i], 64); return v }
	total := 0.0
	if f := procStat(m.postmaster); len(f) > 14 {
		total += ticks(f, 13) + ticks(f, 14) // the children that exited (cutime, cstime)
	}
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		if f := procStat(pid); len(f) > 12 && f[1] == strconv.Itoa(m.postmaster) {
			total += ticks(f, 11) + ticks(f, 12) // utime, stime
		}
	}
	return total / 100 // USER_HZ
}

// procStat returns /proc/<pid>/stat's fields after the command: state is
// [0], ppid [1], utime [11], stime [12], cutime [13], cstime [14].
func procStat(pid int) []string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return nil
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return nil
	}
	return strings.Fields(s[i+1:])
}
