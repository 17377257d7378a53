package connect

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"
)

// TestEmbeddedRedisExpiresKeys: miniredis counts TTLs down only when told,
// so without the expiry loop a request id stayed remembered forever (a
// retry after the idempotency window replayed instead of applying) and
// settled boards never left memory. Keys must go once their TTL has run
// out, give or take a step (leagued has the engine add one: WithExpiryLag).
func TestEmbeddedRedisExpiresKeys(t *testing.T) {
	ctx := context.Background()
	c, embedded, stop, err := Redis(ctx, "", slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if !embedded {
		t.Fatal("an empty REDIS_URL did not start the embedded Redis")
	}
	if err := c.Set(ctx, "request-id", "result", 1500*time.Millisecond).Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.Set(ctx, "kept", "x", time.Hour).Err(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		n, err := c.Exists(ctx, "request-id").Result()
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a key whose 1.5s TTL ran out 8.5s ago is still there")
		}
	}
	if n, err := c.Exists(ctx, "kept").Result(); err != nil || n != 1 {
		t.Errorf("a key with an hour to live: exists %d, %v", n, err)
	}
}
