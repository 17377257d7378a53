package connect

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"
)

func TestRedisLoggerSpacesLines(t *testing.T) {
	var buf bytes.Buffer
	l := &redisLogger{log: slog.New(slog.NewTextHandler(&buf, nil)), every: time.Hour}
	for i := range 5 {
		l.Printf(context.Background(), "redis: connection pool: failed to dial after %d attempts", i)
	}
	out := buf.String()
	if n := strings.Count(out, "\n"); n != 1 || !strings.Contains(out, `level=WARN msg="redis client: connection pool: failed to dial after 0 attempts"`) {
		t.Fatalf("log:\n%s", out)
	}
	l.last = time.Time{} // an hour later
	l.Printf(context.Background(), "redis: again")
	if !strings.Contains(buf.String(), "lines_dropped=4") {
		t.Fatalf("log:\n%s", buf.String())
	}
}
