package connect

import (
	"context"
	"io"
	"log/slog"
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

// TestRedisRefusesCountsThatSendNothing: below -1, go-redis makes no
// attempt at a command and reports no error; such a URL is refused.
func TestRedisRefusesCountsThatSendNothing(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	for url, want := range map[string]string{
		"redis://127.0.0.1:1/0?max_retries=-2":         "max_retries=-2",
		"redis+cluster://127.0.0.1:1?max_redirects=-5": "max_redirects=-5",
		"redis+cluster://127.0.0.1:1?max_retries=-3":   "max_retries=-3",
	} {
		_, _, _, err := Redis(context.Background(), url, log)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "sends nothing") {
			t.Errorf("%s: %v, want refused naming %s", url, err, want)
		}
	}
}
