package testsvc

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

// RedisCPU is the CPU time the Redis process has used so far, in µs (INFO
// cpu: used_cpu_user + used_cpu_sys): unlike a command's duration, it
// leaves out the time the process waited for a core. Every client counts:
// measure on a Redis of its own.
func RedisCPU(tb testing.TB, rdb *redis.Client) float64 {
	tb.Helper()
	info, err := rdb.Info(context.Background(), "cpu").Result()
	Must(tb, err, "INFO cpu")
	var sum float64
	for _, line := range strings.Split(info, "\n") {
		name, v, _ := strings.Cut(strings.TrimSpace(line), ":")
		if name == "used_cpu_user" || name == "used_cpu_sys" {
			f, _ := strconv.ParseFloat(v, 64)
			sum += f * 1e6
		}
	}
	return sum
}

// evalshaStats is INFO commandstats' calls of EVALSHA and the µs Redis
// spent running them: the scripts alone, without reading the commands and
// writing the replies.
func evalshaStats(tb testing.TB, rdb *redis.Client) (calls, usec float64) {
	tb.Helper()
	info, err := rdb.Info(context.Background(), "commandstats").Result()
	Must(tb, err, "INFO commandstats")
	for _, line := range strings.Split(info, "\n") {
		stats, ok := strings.CutPrefix(strings.TrimSpace(line), "cmdstat_evalsha:")
		if !ok {
			continue
		}
		for _, kv := range strings.Split(stats, ",") {
			k, v, _ := strings.Cut(kv, "=")
			f, _ := strconv.ParseFloat(v, 64)
			switch k {
			case "calls":
				calls = f
			case "usec":
				usec = f
			}
		}
	}
	return calls, usec
}

// CPUMeter reports a benchmark's CPU per op, its own process's and its
// Redis's, as "cpu-µs/op" and "redis-cpu-µs/op", and the µs Redis spent
// in each EVALSHA's script ("evalsha-µs/call"): start it after the fixture
// is set up, Report after the loop.
type CPUMeter struct {
	rdb                *redis.Client
	self, redis        float64
	evalshas, evalshaT float64
}

// StartCPU starts a CPUMeter of this process and rdb's Redis.
func StartCPU(tb testing.TB, rdb *redis.Client) *CPUMeter {
	m := &CPUMeter{rdb: rdb, self: processCPU(), redis: RedisCPU(tb, rdb)}
	m.evalshas, m.evalshaT = evalshaStats(tb, rdb)
	return m
}

// Report reports the CPU spent since StartCPU over b.N ops. The process's
// is the handler's and the Redis client's, with the benchmark's own loop.
func (m *CPUMeter) Report(b *testing.B) {
	b.StopTimer()
	if self := processCPU(); self > 0 {
		b.ReportMetric((self-m.self)/float64(b.N), "cpu-µs/op")
	}
	b.ReportMetric((RedisCPU(b, m.rdb)-m.redis)/float64(b.N), "redis-cpu-µs/op")
	if calls, usec := evalshaStats(b, m.rdb); calls > m.evalshas {
		b.ReportMetric((usec-m.evalshaT)/(calls-m.evalshas), "evalsha-µs/call")
	}
}
