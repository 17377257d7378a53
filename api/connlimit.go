package api

import (
	"net"
	"net/netip"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// connLimits caps the connections open at once, in total and per client
// address. A connection past a cap is closed as soon as it is accepted,
// before anything is read from it: a flood of connections costs a file
// descriptor for a moment each, and the clients within the caps go on being
// served. Closing rather than leaving connections in the kernel's accept
// queue keeps a full server from holding new clients until their connect
// timeout: they see the connection closed at once and can retry elsewhere.
//
// Clients are told apart by IP address, an IPv6 client by its /64 (one host
// is usually given a whole /64). Behind a proxy or load balancer every
// connection comes from its address: raise the per-client cap or turn it
// off (ServeOptions).
type connLimits struct {
	max, perClient int // 0: no cap
	mu             sync.Mutex
	open           int
	byClient       map[netip.Addr]int
	gauge          prometheus.Gauge
	refusedTotal   prometheus.Counter
	refusedClient  prometheus.Counter
}

func newConnLimits(max, perClient int, reg *prometheus.Registry) *connLimits {
	l := &connLimits{max: capOf(max, DefaultMaxConnections), perClient: capOf(perClient, DefaultMaxConnectionsPerClient),
		byClient: map[netip.Addr]int{}}
	if reg != nil {
		l.gauge = register(reg, prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "league_http_connections_open",
			Help: "HTTP connections open now.",
		}))
		refused := register(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "league_http_connections_refused_total",
			Help: "Connections closed as soon as accepted: past server.max_connections (limit=total) or server.max_connections_per_client (limit=per_client).",
		}, []string{"limit"}))
		l.refusedTotal, l.refusedClient = refused.WithLabelValues("total"), refused.WithLabelValues("per_client")
	}
	return l
}

// capOf reads a configured cap: 0 is the default, below 0 none.
func capOf(n, def int) int {
	switch {
	case n == 0:
		return def
	case n < 0:
		return 0
	}
	return n
}

func (l *connLimits) listener(ln net.Listener) net.Listener {
	return &limitedListener{Listener: ln, l: l}
}

// admit counts a new connection from client in, or says which cap refuses it.
func (l *connLimits) admit(client netip.Addr) (ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.max > 0 && l.open >= l.max:
		inc(l.refusedTotal)
		return false
	case l.perClient > 0 && l.byClient[client] >= l.perClient:
		inc(l.refusedClient)
		return false
	}
	l.open++
	l.byClient[client]++
	if l.gauge != nil {
		l.gauge.Inc()
	}
	return true
}

func (l *connLimits) release(client netip.Addr) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.open--
	if n := l.byClient[client] - 1; n > 0 {
		l.byClient[client] = n
	} else {
		delete(l.byClient, client) // the map holds only clients connected now
	}
	if l.gauge != nil {
		l.gauge.Dec()
	}
}

func inc(c prometheus.Counter) {
	if c != nil {
		c.Inc()
	}
}

// clientOf is the address a connection's caps are counted against.
func clientOf(addr net.Addr) netip.Addr {
	ap, err := netip.ParseAddrPort(addr.String())
	if err != nil {
		return netip.Addr{} // not TCP (a test's pipe): one client
	}
	ip := ap.Addr().Unmap()
	if ip.Is6() {
		p, _ := ip.Prefix(64)
		return p.Addr()
	}
	return ip
}

type limitedListener struct {
	net.Listener
	l *connLimits
}

// Accept returns the next connection within the caps, closing those past
// them. It fails only when the listener does.
func (ln *limitedListener) Accept() (net.Conn, error) {
	for {
		c, err := ln.Listener.Accept()
		if err != nil {
			return nil, err
		}
		client := clientOf(c.RemoteAddr())
		if ln.l.admit(client) {
			return &limitedConn{Conn: c, l: ln.l, client: client}, nil
		}
		c.Close()
	}
}

// limitedConn gives its place back once, when it is closed.
type limitedConn struct {
	net.Conn
	l      *connLimits
	client netip.Addr
	once   sync.Once
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { c.l.release(c.client) })
	return err
}

// CloseWrite lets net/http half-close the connection before it closes it
// (a reply written before the request was read whole reaches the client,
// not a reset), as it does on a *net.TCPConn.
func (c *limitedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}
