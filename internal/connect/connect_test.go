package connect

import (
	"context"
	"io"
	"log/slog"
	"net/url"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/league-engine/league/internal/testsvc"
)

// A REDIS_URL that fails to parse is quoted in the error, which is logged:
// its password must not be.
func TestRedisURLErrorHidesPassword(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, url := range []string{
		"redis://admin:hunter2pw@127.0.0.1:x/11",
		"redis://:hunter2pw@127.0.0.1:6379/x",
		"redis://admin:hun@ter2pw@127.0.0.1:x/0",
		"redis+cluster://admin:hunter2pw@127.0.0.1:x?addr=127.0.0.1:7001",
	} {
		_, _, _, err := Redis(context.Background(), url, log)
		if err == nil {
			t.Fatalf("%s: no error", url)
		}
		if strings.Contains(err.Error(), "hunter2pw") || strings.Contains(err.Error(), "ter2pw") {
			t.Errorf("%s: the error shows the password: %v", url, err)
		}
		if !strings.Contains(err.Error(), "REDIS_URL") {
			t.Errorf("%s: the error does not name REDIS_URL: %v", url, err)
		}
	}
}

// TestRedisUnixSocketTakesADatabase: a unix:// URL names its database with
// db= only; its path is the socket's, not a database to compare it with.
func TestRedisUnixSocketTakesADatabase(t *testing.T) {
	if err := checkDatabase("unix:///tmp/redis/redis.sock?db=3"); err != nil {
		t.Fatalf("a socket with db=3: %v", err)
	}
}

// TestRedisSendsEachCommandOnce: leagued's client does not retry commands
// (Redis may have run one whose connection broke: a score write would count
// twice) unless REDIS_URL asks for retries.
func TestRedisSendsEachCommandOnce(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, c := range []struct {
		query string
		want  int
	}{{"", 0}, {"max_retries=0", 0}, {"max_retries=2", 2}} {
		url := testsvc.RedisURL()
		if c.query != "" {
			sep := "?"
			if strings.Contains(url, "?") {
				sep = "&"
			}
			url += sep + c.query
		}
		rdb, _, closeFn, err := Redis(context.Background(), url, log)
		if err != nil {
			t.Fatal(err)
		}
		if got := rdb.(*redis.Client).Options().MaxRetries; got != c.want {
			t.Errorf("REDIS_URL with %q: MaxRetries %d, want %d", c.query, got, c.want)
		}
		closeFn()
	}
}

// TestRedisRefusesSettingsGoRedisGetsWrong: values go-redis takes without
// a word and then gets wrong (sends nothing, panics, uses another database,
// waits forever) are refused, naming the setting, before anything is sent.
func TestRedisRefusesSettingsGoRedisGetsWrong(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	for url, want := range map[string]string{
		"redis://127.0.0.1:1/0?max_retries=-2":                "max_retries=-2: go-redis sends nothing",
		"redis+cluster://127.0.0.1:1?max_redirects=-5":        "max_redirects=-5: go-redis sends nothing",
		"redis+cluster://127.0.0.1:1?max_retries=-3":          "max_retries=-3: go-redis sends nothing",
		"redis://127.0.0.1:1/-1":                              "database -1",
		"redis://127.0.0.1:1?db=-2":                           "database -2",
		"redis://127.0.0.1:1/0?protocol=9":                    "protocol=9",
		"redis+cluster://127.0.0.1:1?protocol=1":              "protocol=1",
		"redis://127.0.0.1:1/0?pool_size=-1":                  "pool_size=-1",
		"redis+cluster://127.0.0.1:1?pool_size=-1":            "pool_size=-1",
		"redis://127.0.0.1:1/0?min_idle_conns=-1":             "min_idle_conns=-1",
		"redis://127.0.0.1:1/0?max_active_conns=-3":           "max_active_conns=-3",
		"redis://127.0.0.1:1/0?read_timeout=-5s":              "read_timeout: 0 or less means no timeout",
		"redis://127.0.0.1:1/0?read_timeout=0":                "read_timeout: 0 or less means no timeout",
		"redis://127.0.0.1:1/0?write_timeout=-1":              "write_timeout",
		"redis://127.0.0.1:1/0?dial_timeout=-1s":              "dial_timeout",
		"redis+cluster://127.0.0.1:1?pool_timeout=0s":         "pool_timeout",
		"redis+cluster://127.0.0.1:1?read_timeout=-100ms":     "read_timeout",
		"redis://127.0.0.1:1/0?pool_size=3000000000":          "pool_size=3000000000: must be from 0 to 2147483647",
		"redis+cluster://127.0.0.1:1?pool_size=3000000000":    "pool_size=3000000000",
		"redis://127.0.0.1:1/0?min_idle_conns=2147483648":     "min_idle_conns=2147483648",
		"redis://127.0.0.1:1/0?pipeline_pool_size=-2":         "pipeline_pool_size=-2: must be from -1",
		"redis://127.0.0.1:1/0?pipeline_pool_size=3000000000": "pipeline_pool_size=3000000000",
		"redis://127.0.0.1:1/11?db=12":                        "the path names database 11 and db= names 12",
		"redis://127.0.0.1:1/5?db=5&db=0":                     "db= is given 2 times",
		"redis://127.0.0.1:1?db=5&db=0":                       "db= is given 2 times",
		"redis+cluster://127.0.0.1:1/11":                      "Redis Cluster has database 0 only",
	} {
		_, _, _, err := Redis(context.Background(), url, log)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), "REDIS_URL: ") {
			t.Errorf("%s: %v, want refused saying %q", url, err, want)
		}
	}
}

// TestRedisDatabaseOutOfRange: a database the server does not have is named
// as such, not as a Redis that cannot be reached.
func TestRedisDatabaseOutOfRange(t *testing.T) {
	u, err := url.Parse(testsvc.RedisURL())
	testsvc.Must(t, err, "REDIS_URL")
	q := u.Query()
	q.Del("db")
	u.Path, u.RawQuery = "/100000", q.Encode()
	_, _, closeFn, err := Redis(context.Background(), u.String(), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if closeFn != nil {
		closeFn()
	}
	if err == nil || !strings.Contains(err.Error(), "REDIS_URL: database 100000 does not exist on this server") {
		t.Fatalf("database 100000: %v", err)
	}
}
