package connect

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// RouteRedisLogs sends go-redis's own log lines (a failed dial, a pool
// trouble) to log at warn, instead of the standard logger's plain lines on
// stderr. A Redis that is down makes go-redis log on every failed dial, so
// lines are spaced a second apart, the next saying how many were dropped.
func RouteRedisLogs(log *slog.Logger) {
	redis.SetLogger(&redisLogger{log: log, every: time.Second})
}

type redisLogger struct {
	log     *slog.Logger
	every   time.Duration
	mu      sync.Mutex
	last    time.Time
	dropped int
}

func (l *redisLogger) Printf(ctx context.Context, format string, v ...any) {
	l.mu.Lock()
	now := time.Now()
	if now.Sub(l.last) < l.every {
		l.dropped++
		l.mu.Unlock()
		return
	}
	dropped := l.dropped
	l.last, l.dropped = now, 0
	l.mu.Unlock()
	msg := strings.TrimPrefix(strings.TrimSpace(fmt.Sprintf(format, v...)), "redis: ")
	l.log.Warn("redis client: "+msg, "lines_dropped", dropped)
}
