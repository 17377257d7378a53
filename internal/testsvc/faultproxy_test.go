package testsvc

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/redis/go-redis/v9"
)

// redisAddr is the host:port of the Redis at RedisURL, failing the test
// (with the way to fix it) when it is not reachable.
func redisAddr(t *testing.T) string {
	t.Helper()
	Redis(t, Namespace(t))
	opt, err := redis.ParseURL(RedisURL())
	Must(t, err, "REDIS_URL %q", RedisURL())
	return opt.Addr
}

func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	Must(t, err, "dialing the proxy")
	t.Cleanup(func() { c.Close() })
	return c
}

// ping sends PING on c and reads the reply line, waiting at most d.
func ping(c net.Conn, d time.Duration) (string, error) {
	c.SetDeadline(time.Now().Add(d))
	if _, err := c.Write([]byte("*1\r\n$4\r\nPING\r\n")); err != nil {
		return "", err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	return strings.TrimSpace(line), err
}

// wantReply checks that Redis answers through c: +PONG, or -NOAUTH from a
// Redis with a password, which proves the forwarding just as well.
func wantReply(t *testing.T, c net.Conn) {
	t.Helper()
	line, err := ping(c, 2*time.Second)
	Must(t, err, "PING through the proxy")
	if line != "+PONG" && !strings.HasPrefix(line, "-NOAUTH") {
		t.Fatalf("PING through the proxy answered %q", line)
	}
}

// wantSilence checks that a PING on c goes unanswered and c stays open.
func wantSilence(t *testing.T, c net.Conn) {
	t.Helper()
	line, err := ping(c, 300*time.Millisecond)
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("PING through a hung proxy: got %q, %v; want a read timeout", line, err)
	}
}

func TestFaultProxyHang(t *testing.T) {
	p := NewFaultProxy(t, redisAddr(t))
	old := dial(t, p.Addr())
	wantReply(t, old)

	p.Hang()
	wantSilence(t, old)
	wantSilence(t, old) // still open: silence, not EOF
	hungNew := dial(t, p.Addr())
	wantSilence(t, hungNew)

	p.Pass()
	wantReply(t, dial(t, p.Addr()))
	// The hung connections were closed: EOF, or a reset for the one whose PING
	// the proxy never read.
	for _, c := range []net.Conn{old, hungNew} {
		if _, err := ping(c, time.Second); !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) && !isReset(err) {
			t.Errorf("a hung connection after Pass: %v, want EOF", err)
		}
	}
}

func isReset(err error) bool { return err != nil && strings.Contains(err.Error(), "connection reset") }

func TestFaultProxyStopAccepting(t *testing.T) {
	p := NewFaultProxy(t, redisAddr(t))
	old := dial(t, p.Addr())
	wantReply(t, old)

	p.StopAccepting()
	wantSilence(t, old)
	start := time.Now()
	_, err := net.DialTimeout("tcp", p.Addr(), 500*time.Millisecond)
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("dialing a proxy that stopped accepting: %v after %v; want a dial timeout", err, time.Since(start))
	}

	// A dial left waiting when Pass comes connects at its SYN's retransmission.
	waiting := make(chan error, 1)
	go func() {
		c, err := net.DialTimeout("tcp", p.Addr(), 5*time.Second)
		if err == nil {
			_, err = ping(c, 2*time.Second)
			c.Close()
		}
		waiting <- err
	}()
	time.Sleep(200 * time.Millisecond)
	p.Pass()
	wantReply(t, dial(t, p.Addr()))
	start = time.Now()
	Must(t, <-waiting, "a dial started before Pass")
	t.Logf("the dial waiting in connect got through %v after Pass", time.Since(start).Round(time.Millisecond))

	p.StopAccepting() // again, after Pass
	if _, err := net.DialTimeout("tcp", p.Addr(), 500*time.Millisecond); !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("dialing after a second StopAccepting: %v; want a dial timeout", err)
	}
	p.Hang() // accepting again, but silent
	wantSilence(t, dial(t, p.Addr()))
	p.Pass()
	wantReply(t, dial(t, p.Addr()))
}

func TestFaultProxyPostgres(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	postgresAdmin(t, ctx).Close(ctx) // fails the test, saying why, if PostgreSQL is not there
	cfg, err := pgx.ParseConfig(DatabaseURL())
	Must(t, err, "DATABASE_URL %q", DatabaseURL())
	if strings.HasPrefix(cfg.Host, "/") {
		t.Fatalf("DATABASE_URL %q names a Unix socket: FaultProxy needs PostgreSQL on TCP", DatabaseURL())
	}
	p := NewFaultProxy(t, net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port))))
	host, port, _ := net.SplitHostPort(p.Addr())
	portN, _ := strconv.Atoi(port)
	cfg.Host, cfg.Port = host, uint16(portN)
	for _, fb := range cfg.Fallbacks { // sslmode=prefer's plain-text retry, too
		fb.Host, fb.Port = host, uint16(portN)
	}

	conn, err := pgx.ConnectConfig(ctx, cfg)
	Must(t, err, "connecting through the proxy")
	t.Cleanup(func() { conn.Close(context.Background()) })
	var one int
	Must(t, conn.QueryRow(ctx, "SELECT 1").Scan(&one), "SELECT 1 through the proxy")

	p.Hang()
	qctx, qcancel := context.WithTimeout(ctx, time.Second)
	defer qcancel()
	start := time.Now()
	err = conn.QueryRow(qctx, "SELECT 1").Scan(&one)
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 2*time.Second {
		t.Fatalf("SELECT 1 through a hung proxy: %v after %v; want a deadline error after 1s", err, time.Since(start))
	}

	p.Pass()
	again, err := pgx.ConnectConfig(ctx, cfg)
	Must(t, err, "connecting through the proxy after Pass")
	defer again.Close(ctx)
	Must(t, again.QueryRow(ctx, "SELECT 1").Scan(&one), "SELECT 1 after Pass")
}

// TestFaultProxyCleanup checks that the proxy's goroutines end with the
// test, whatever mode it was left in and whatever connections were open.
func TestFaultProxyCleanup(t *testing.T) {
	addr := redisAddr(t)
	before := runtime.NumGoroutine()
	for _, leave := range []string{"pass", "hang", "stopped"} {
		t.Run(leave, func(t *testing.T) {
			p := NewFaultProxy(t, addr)
			wantReply(t, dial(t, p.Addr()))
			p.Hang()
			dial(t, p.Addr())
			p.Pass()
			wantReply(t, dial(t, p.Addr()))
			switch leave {
			case "hang":
				p.Hang()
			case "stopped":
				p.StopAccepting()
			}
		})
	}
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<20)
		t.Fatalf("%d goroutines after the proxies closed, %d before:\n%s", n, before, buf[:runtime.Stack(buf, true)])
	}
}
