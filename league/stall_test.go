package league_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/league-engine/league/internal/testsvc"
	"github.com/league-engine/league/league"
)

// TestStalledReplyNeverSentTwice: when Redis's replies stop coming for
// longer than the client's read timeout (a stall, a slow network), the
// commands already sent have run or will run. go-redis sends a command whose
// reply timed out again, on another connection, if its context still allows
// it, and Redis runs that too: a score write without a request id would count
// twice while its caller was told of one. It also sends a command again
// after its connection broke, though Redis may have run it. The engine's
// writes are never sent again, whatever the client's retries (go-redis's
// default here), and its round trips end with the client's read timeout, so
// a write whose reply is lost is reported unavailable (README: retry with
// the same request id), never repeated.
func TestStalledReplyNeverSentTwice(t *testing.T) {
	for _, c := range []struct {
		name   string
		shared int
		batch  bool
		broken bool // the connection breaks instead of the reply coming late
	}{
		{"alone", 0, false, false},
		{"shared round trips", 2, false, false}, // eight writes on two pipelines in flight: queued calls go as pipelines
		{"batch", 0, true, false},
		{"connection broken", 0, false, true},
		{"connection broken, shared round trips", 2, false, true},
		{"connection broken, batch", 0, true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			ns := testsvc.Namespace(t)
			direct := testsvc.Redis(t, ns)
			proxy := newStallProxy(t, direct.Options().Addr)
			opt, err := redis.ParseURL(testsvc.RedisURL())
			testsvc.Must(t, err, "REDIS_URL")
			opt.Addr, opt.ReadTimeout = proxy.addr, 300*time.Millisecond
			rdb := redis.NewClient(opt) // go-redis's default retries (3)
			t.Cleanup(func() { rdb.Close() })
			ctx := context.Background()
			l := testLeague(t)
			e, err := league.Open(ctx, rdb, []*league.League{l}, league.WithNamespace(ns),
				league.WithClock(testsvc.NewClock(monday.Add(time.Hour)).Now), league.WithSharedRoundTrips(c.shared))
			testsvc.Must(t, err, "Open")
			players := make([]string, 8)
			for i := range players {
				players[i] = fmt.Sprintf("p%d", i)
				_, err := e.Join(ctx, l.ID, league.JoinRequest{Player: players[i], Name: players[i]})
				testsvc.Must(t, err, "join %s", players[i])
			}
			// Idle connections ready for go-redis's retries (a new one
			// would wait for its handshake's reply, held too).
			var warm sync.WaitGroup
			for range 16 {
				warm.Go(func() { rdb.Ping(ctx) })
			}
			warm.Wait()

			proxy.hold(true)
			proxy.breaks(c.broken)
			errs := make([]error, len(players))
			if c.batch {
				writes := make([]league.ScoreWrite, len(players))
				for i, p := range players {
					writes[i] = league.ScoreWrite{Player: p, Value: 1}
				}
				_, _, errs[0] = e.ScoreBatch(ctx, l.ID, writes)
			} else {
				var wg sync.WaitGroup
				for i, p := range players {
					wg.Go(func() { _, errs[i] = e.Score(ctx, l.ID, league.ScoreWrite{Player: p, Value: 1}) })
				}
				wg.Wait()
			}
			proxy.breaks(false)
			proxy.hold(false)
			if err := errs[0]; league.ErrorCode(err) != league.Unavailable ||
				!strings.Contains(league.ErrorMessage(err), "with the same request_id") {
				t.Fatalf("a write whose reply never came: %v, want unavailable, saying to retry with the request id", err)
			}

			e2, err := league.Open(ctx, direct, []*league.League{testLeague(t)}, league.WithNamespace(ns),
				league.WithClock(testsvc.NewClock(monday.Add(time.Hour)).Now))
			testsvc.Must(t, err, "Open on the direct client")
			for i, p := range players {
				st, err := e2.Standing(ctx, l.ID, p)
				testsvc.Must(t, err, "standing of %s", p)
				if st.Score != 1 {
					t.Errorf("%s: score %d after one write of 1 whose reply was held (error: %v)", p, st.Score, errs[i])
				}
			}
		})
	}
}

// stallProxy forwards TCP to Redis; while held, Redis's replies wait in
// the proxy (the commands still reach Redis and run); while breaking, a
// reply closes the client's connection instead of reaching it.
type stallProxy struct {
	addr  string
	mu    sync.Mutex
	held  bool
	broke bool
	free  *sync.Cond
}

func newStallProxy(t *testing.T, redisAddr string) *stallProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	testsvc.Must(t, err, "listen")
	p := &stallProxy{addr: ln.Addr().String()}
	p.free = sync.NewCond(&p.mu)
	var conns sync.WaitGroup
	t.Cleanup(func() {
		ln.Close()
		p.hold(false)
		conns.Wait()
	})
	go func() {
		for {
			client, err := ln.Accept()
			if err != nil {
				return
			}
			server, err := net.Dial("tcp", redisAddr)
			if err != nil {
				client.Close()
				continue
			}
			conns.Add(2)
			go func() {
				defer conns.Done()
				io.Copy(server, client)
				server.Close()
			}()
			go func() {
				defer conns.Done()
				defer client.Close()
				buf := make([]byte, 32<<10)
				for {
					n, err := server.Read(buf)
					if n > 0 {
						if p.wait() {
							server.Close()
							return
						}
						if _, err := client.Write(buf[:n]); err != nil {
							server.Close()
							return
						}
					}
					if err != nil {
						return
					}
				}
			}()
		}
	}()
	return p
}

func (p *stallProxy) hold(on bool) {
	p.mu.Lock()
	p.held = on
	p.mu.Unlock()
	p.free.Broadcast()
}

func (p *stallProxy) breaks(on bool) {
	p.mu.Lock()
	p.broke = on
	p.mu.Unlock()
}

// wait holds a reply while the proxy is held, and reports whether its
// connection is to break instead.
func (p *stallProxy) wait() (broken bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.broke {
		return true
	}
	for p.held {
		p.free.Wait()
	}
	return false
}
