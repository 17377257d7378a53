package testsvc

import (
	"errors"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// FaultProxy is a TCP proxy in front of a real service (Redis, Postgres)
// whose behaviour a test switches at will, to prove that requests answer
// within their deadlines when a dependency hangs rather than fails fast.
//
//   - Pass forwards everything. It is the start state.
//   - Hang is a host that stopped answering: a new connection is accepted
//     (the client's dial succeeds) but never answered, and open ones stop
//     forwarding in both directions. Nothing is closed: clients see silence,
//     never EOF or RST. What they send meanwhile is dropped (left unread on
//     the connections accepted while hanging).
//   - StopAccepting is a dead host, or one whose accept queue is full: a new
//     dial hangs in connect (its SYN goes unanswered, so it times out rather
//     than being refused), and open connections hang as in Hang.
//
// Pass after either closes the connections that hung, as a server restart
// would (their clients see EOF, or a reset if the proxy never read what they
// sent), and forwards new ones on the same address; a dial still waiting in
// connect completes at its next SYN retransmission (Linux: 1s after it began).
//
// Call the mode methods from the test's goroutine: they fail the test when
// they cannot switch. The proxy is closed when the test ends, ending all its
// goroutines. StopAccepting needs a Unix system (see setBacklog).
type FaultProxy struct {
	tb     testing.TB
	target string
	ln     *net.TCPListener
	wg     sync.WaitGroup

	switching sync.Mutex // held through a mode change: StopAccepting waits with mu released

	mu      sync.Mutex
	cond    *sync.Cond // on mu: mode, parked and closed changes
	mode    proxyMode
	parked  bool                // the accept loop is not calling Accept
	closed  bool                // the test ended
	conns   map[*proxyConn]bool // open client connections
	fillers map[string]net.Conn // StopAccepting's own dials, by local address
}

type proxyMode int

const (
	modePass proxyMode = iota
	modeHang
	modeStopped
)

// proxyConn is a client connection and, unless it was accepted while
// hanging, its connection to the target.
type proxyConn struct {
	client, upstream net.Conn
	hung             atomic.Bool // forward nothing more; read and drop
}

func (c *proxyConn) close() {
	c.client.Close()
	if c.upstream != nil {
		c.upstream.Close()
	}
}

// NewFaultProxy listens on 127.0.0.1 (a free port) and forwards each
// connection to target (host:port).
func NewFaultProxy(tb testing.TB, target string) *FaultProxy {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	Must(tb, err, "fault proxy for %s: listen", target)
	p := &FaultProxy{tb: tb, target: target, ln: ln.(*net.TCPListener),
		conns: map[*proxyConn]bool{}, fillers: map[string]net.Conn{}}
	p.cond = sync.NewCond(&p.mu)
	p.wg.Add(1)
	go p.acceptLoop()
	tb.Cleanup(p.close)
	return p
}

// Addr is the host:port clients dial instead of the target's.
func (p *FaultProxy) Addr() string { return p.ln.Addr().String() }

// Pass forwards everything again; connections that hung are closed.
func (p *FaultProxy) Pass() { p.set(modePass) }

// Hang answers nothing, on open connections and new ones alike.
func (p *FaultProxy) Hang() { p.set(modeHang) }

// StopAccepting leaves new dials waiting in connect and open connections
// silent, as Hang does. It returns after about 200ms, once a dial of its own
// has gone unanswered.
func (p *FaultProxy) StopAccepting() { p.set(modeStopped) }

func (p *FaultProxy) set(m proxyMode) {
	p.tb.Helper()
	p.switching.Lock()
	defer p.switching.Unlock()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || m == p.mode {
		return
	}
	from := p.mode
	p.mode = m
	for c := range p.conns {
		if m != modePass {
			c.hung.Store(true)
		} else if c.hung.Load() {
			delete(p.conns, c)
			c.close()
		}
	}
	if m == modePass {
		// Their queued ends are dropped as the accept loop meets them.
		for _, f := range p.fillers {
			f.Close()
		}
	}
	if from == modeStopped {
		// The kernel caps the backlog at net.core.somaxconn, as for Go's own listen.
		Must(p.tb, setBacklog(p.ln, 1<<16-1), "fault proxy for %s: restoring the backlog", p.target)
		p.ln.SetDeadline(time.Time{})
		p.cond.Broadcast()
	}
	if m == modeStopped {
		p.stopAccepting()
	}
}

// stopAccepting parks the accept loop, shrinks the listening socket's
// backlog to the least the kernel allows (on Linux one handshake is then
// queued), and fills that queue with dials of its own: the kernel drops
// SYNs to a listener whose queue is full, so later dials wait in connect.
// The socket stays bound and listening, so nothing is refused.
func (p *FaultProxy) stopAccepting() {
	p.tb.Helper()
	p.ln.SetDeadline(time.Unix(1, 0)) // wakes Accept with a timeout
	for !p.parked {
		p.cond.Wait()
	}
	Must(p.tb, setBacklog(p.ln, 0), "fault proxy for %s: StopAccepting", p.target)
	for range 100 {
		// A handshake on loopback takes well under a millisecond: a dial
		// that takes 200ms had its SYN dropped, so the queue is full.
		c, err := net.DialTimeout("tcp", p.Addr(), 200*time.Millisecond)
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				return
			}
			p.tb.Fatalf("fault proxy for %s: StopAccepting: filling the accept queue: %v", p.target, err)
		}
		p.fillers[c.LocalAddr().String()] = c
	}
	p.tb.Fatalf("fault proxy for %s: StopAccepting: the accept queue took 100 connections without filling", p.target)
}

func (p *FaultProxy) acceptLoop() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err == nil {
			p.wg.Add(1)
			go p.serve(c)
			continue
		}
		p.mu.Lock()
		stopped := errors.Is(err, os.ErrDeadlineExceeded) && !p.closed
		if !stopped && !p.closed {
			p.tb.Errorf("fault proxy for %s: accept: %v", p.target, err)
		}
		// Parked, nothing takes a connection off the queue StopAccepting fills.
		p.parked = true
		p.cond.Broadcast()
		for stopped && p.mode == modeStopped && !p.closed {
			p.cond.Wait()
		}
		done := !stopped || p.closed
		p.parked = done
		p.mu.Unlock()
		if done {
			return
		}
	}
}

// serve connects a new client to the target, or, while not passing, holds
// it open without reading it.
func (p *FaultProxy) serve(client net.Conn) {
	defer p.wg.Done()
	c := &proxyConn{client: client}
	p.mu.Lock()
	if f, ok := p.fillers[client.RemoteAddr().String()]; ok || p.closed {
		delete(p.fillers, client.RemoteAddr().String())
		p.mu.Unlock()
		client.Close()
		if f != nil {
			f.Close()
		}
		return
	}
	if p.mode != modePass {
		c.hung.Store(true)
		p.conns[c] = true
		p.mu.Unlock()
		return
	}
	p.mu.Unlock()

	up, err := net.DialTimeout("tcp", p.target, 5*time.Second)
	p.mu.Lock()
	defer p.mu.Unlock()
	if err == nil && p.closed {
		up.Close()
	}
	if err != nil || p.closed {
		client.Close()
		if !p.closed {
			p.tb.Errorf("fault proxy for %s: %v", p.target, err)
		}
		return
	}
	c.upstream = up
	c.hung.Store(p.mode != modePass) // the mode may have changed during the dial
	p.conns[c] = true
	p.wg.Add(2)
	go p.forward(c, up, client)
	go p.forward(c, client, up)
}

// forward copies src to dst until either fails, then closes the pair, as
// the far end did. Once the pair hangs it reads and drops, and leaves the
// pair open whatever happens: Pass or the test's end closes it.
func (p *FaultProxy) forward(c *proxyConn, dst, src net.Conn) {
	defer p.wg.Done()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 && !c.hung.Load() {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				err = werr
			}
		}
		if err != nil {
			break
		}
	}
	if c.hung.Load() {
		return
	}
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
	c.close()
}

// close ends everything at the end of the test and waits for every
// goroutine of the proxy.
func (p *FaultProxy) close() {
	p.switching.Lock()
	p.mu.Lock()
	p.closed = true
	p.ln.Close()
	for c := range p.conns {
		c.close()
	}
	for _, f := range p.fillers {
		f.Close()
	}
	p.cond.Broadcast()
	p.mu.Unlock()
	p.switching.Unlock()
	p.wg.Wait()
}
