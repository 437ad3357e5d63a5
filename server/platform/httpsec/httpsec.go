// Package httpsec holds what the server decides about HTTP requests for
// security, the same way for the console, the API and the worker channel:
// who the client is (its address, believing X-Forwarded-For only from
// configured proxies, and whether it came over HTTPS), and
// the headers that keep browsers from framing the console or running
// scripts it did not ship.
package httpsec

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// Proxies are the reverse proxies whose forwarding headers are believed.
type Proxies []netip.Prefix

// Client is what a request says about its client.
type Client struct {
	// Addr is the client's address: the connection's peer, or behind
	// trusted proxies the nearest address in X-Forwarded-For that is not
	// one of them.
	Addr netip.Addr
	// Secure is set when the client reached the server over HTTPS: TLS
	// here, or X-Forwarded-Proto: https. That header is believed from
	// anyone for this (a client that lies only makes its own cookie
	// HTTPS-only), so a TLS proxy need not be configured for it.
	Secure bool
}

// ClientOf returns the client of r.
func (p Proxies) ClientOf(r *http.Request) Client {
	var c Client
	peer := peerAddr(r.RemoteAddr)
	proto := lastValue(r.Header.Values("X-Forwarded-Proto"))
	c.Addr, c.Secure = peer, r.TLS != nil || strings.EqualFold(proto, "https")
	if !p.trusted(peer) {
		return c
	}
	if proto != "" {
		c.Secure = strings.EqualFold(proto, "https")
	}
	// X-Forwarded-For lists the client then each proxy that forwarded it;
	// the entries a client wrote itself come first, so the address is the
	// last one not written by a trusted proxy.
	var hops []string
	for _, v := range r.Header.Values("X-Forwarded-For") {
		hops = append(hops, strings.Split(v, ",")...)
	}
	for i := len(hops) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			break
		}
		c.Addr = a.Unmap()
		if !p.trusted(c.Addr) {
			break
		}
	}
	return c
}

func (p Proxies) trusted(a netip.Addr) bool {
	for _, pr := range p {
		if pr.Contains(a) {
			return true
		}
	}
	return false
}

func peerAddr(remote string) netip.Addr {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		host = remote
	}
	a, _ := netip.ParseAddr(host)
	return a.Unmap()
}

func lastValue(vs []string) string {
	if len(vs) == 0 {
		return ""
	}
	parts := strings.Split(vs[len(vs)-1], ",")
	return strings.TrimSpace(parts[len(parts)-1])
}

// ContentSecurityPolicy is sent with every response: the console runs
// only the scripts it ships, talks only to its own origin (its API and
// websocket), and may not be framed by another site. Styles may be
// inline because the console's component library sets them at run time.
const ContentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; " +
	"img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self'; worker-src 'self' blob:; " +
	"object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'"

// Headers adds the browser protections to every response of next.
func Headers(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", ContentSecurityPolicy)
		h.Set("X-Frame-Options", "DENY")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "same-origin")
		next.ServeHTTP(w, r)
	})
}
