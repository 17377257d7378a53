package console

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// Behind a TLS-terminating proxy or load balancer, every request reaches
// leagued over plain HTTP from the proxy's address. Only a proxy listed in
// Config.TrustedProxies is believed about the client: its X-Forwarded-Proto
// makes the session cookie Secure, and its X-Forwarded-For names the
// address failed sign-ins are counted against. Anyone else could send those
// headers, so from others they are ignored.

// peer is the address the request's connection came from.
func peer(r *http.Request) (netip.Addr, bool) {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	a, err := netip.ParseAddr(host)
	return a.Unmap(), err == nil
}

// trusted reports whether a is one of the trusted proxies.
func (c *Console) trusted(a netip.Addr) bool {
	for _, p := range c.cfg.TrustedProxies {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// secure reports whether the browser reached us over TLS: directly, or
// through a trusted proxy that says so.
func (c *Console) secure(r *http.Request) bool {
	if r.TLS != nil {
		return true
	}
	a, ok := peer(r)
	return ok && c.trusted(a) && strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https")
}

// client is the address of the browser: the connection's peer, or, when
// that is a trusted proxy, the last address of X-Forwarded-For that is not
// one (each proxy appends the address it heard from; earlier ones are the
// client's word). An IPv6 client is its /64, as a host is usually given a
// whole one.
func (c *Console) client(r *http.Request) string {
	a, ok := peer(r)
	if !ok {
		return r.RemoteAddr
	}
	if c.trusted(a) {
		hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
		for i := len(hops) - 1; i >= 0; i-- {
			h, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
			if err != nil {
				break // unreadable: the proxy's own address is all we know
			}
			if a = h.Unmap(); !c.trusted(a) {
				break
			}
		}
	}
	if a.Is6() {
		p, _ := a.Prefix(64)
		return p.String()
	}
	return a.String()
}
