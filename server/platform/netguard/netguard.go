// Package netguard keeps the server's own outgoing requests (alarm
// webhooks) from reaching what only the server can reach: loopback,
// link-local (cloud metadata services such as 169.254.169.254), private
// and other non-public addresses, unless an administrator allows a range
// in configuration.
//
// A URL's host is checked when it is saved (literal addresses and
// "localhost"), but names can resolve differently later (DNS rebinding),
// so the check that counts is made when connecting: Dialer's Control
// function sees the address actually dialled, after resolution, on every
// connection including those of redirects.
package netguard

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// Policy says which addresses outgoing requests may reach: every public
// address, and the non-public ranges in Allow.
type Policy struct {
	Allow []netip.Prefix
}

// ParseAllow reads a comma-separated list of CIDR ranges or single
// addresses ("127.0.0.1/32,10.1.0.0/16", "::1").
func ParseAllow(list string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, part := range strings.Split(list, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if a, err := netip.ParseAddr(part); err == nil {
			out = append(out, netip.PrefixFrom(a, a.BitLen()))
			continue
		}
		p, err := netip.ParsePrefix(part)
		if err != nil {
			return nil, fmt.Errorf("%q is neither an address nor a CIDR range", part)
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// blocked are the ranges that are not the public internet.
var blocked = func() []netip.Prefix {
	var out []netip.Prefix
	for _, s := range []string{
		"0.0.0.0/8",       // "this" network
		"10.0.0.0/8",      // private
		"100.64.0.0/10",   // carrier-grade NAT (also Alibaba's metadata, 100.100.100.200)
		"127.0.0.0/8",     // loopback
		"169.254.0.0/16",  // link-local: cloud metadata services
		"172.16.0.0/12",   // private
		"192.0.0.0/24",    // IETF protocol assignments
		"192.0.2.0/24",    // documentation
		"192.168.0.0/16",  // private
		"198.18.0.0/15",   // benchmarking
		"198.51.100.0/24", // documentation
		"203.0.113.0/24",  // documentation
		"224.0.0.0/4",     // multicast
		"240.0.0.0/4",     // reserved, and broadcast
		"::/128",          // unspecified
		"::1/128",         // loopback
		"64:ff9b::/96",    // NAT64: may embed any of the above
		"64:ff9b:1::/48",  // local NAT64
		"100::/64",        // discard
		"2001:db8::/32",   // documentation
		"fc00::/7",        // unique local (AWS's IPv6 metadata fd00:ec2::254)
		"fe80::/10",       // link-local
		"ff00::/8",        // multicast
	} {
		out = append(out, netip.MustParsePrefix(s))
	}
	return out
}()

// Check returns an error if a may not be reached.
func (p Policy) Check(a netip.Addr) error {
	a = a.Unmap()
	for _, allow := range p.Allow {
		if allow.Contains(a) {
			return nil
		}
	}
	for _, b := range blocked {
		if b.Contains(a) {
			return fmt.Errorf("%s is not a public address (in %s); an administrator can allow the range with JOBWHEEL_ALARM_ALLOW_NETWORKS", a, b)
		}
	}
	return nil
}

// CheckURL checks what can be known of a URL without resolving names: a
// literal address must be allowed, and "localhost" names are refused
// unless loopback is allowed.
func (p Policy) CheckURL(u *url.URL) error {
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if a, err := netip.ParseAddr(host); err == nil {
		return p.Check(a)
	}
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return p.Check(netip.MustParseAddr("127.0.0.1"))
	}
	return nil
}

// Control is a net.Dialer Control function that refuses connections to
// addresses the policy does not allow. It runs after name resolution, for
// the address about to be connected to.
func (p Policy) Control(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("netguard: cannot check address %q: %w", address, err)
	}
	if err := p.Check(ap.Addr()); err != nil {
		return &RefusedError{Address: address, Reason: err.Error()}
	}
	return nil
}

// RefusedError is a connection the policy refused.
type RefusedError struct {
	Address, Reason string
}

func (e *RefusedError) Error() string { return "refused to connect to " + e.Address + ": " + e.Reason }

// Client returns an HTTP client whose every connection is checked by p.
// It uses no proxy (a proxy would connect on its behalf, unchecked) and
// follows at most 3 redirects, each one checked like the first.
func (p Policy) Client(timeout time.Duration) *http.Client {
	dialer := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second, Control: p.Control}
	transport := &http.Transport{
		Proxy: nil,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			return dialer.DialContext(ctx, network, addr)
		},
		ForceAttemptHTTP2:   true,
		MaxIdleConns:        10,
		IdleConnTimeout:     90 * time.Second,
		TLSHandshakeTimeout: 10 * time.Second,
	}
	return &http.Client{
		Timeout:   timeout,
		Transport: transport,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= 3 {
				return fmt.Errorf("stopped after %d redirects", len(via))
			}
			return nil
		},
	}
}
