package connect

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
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
