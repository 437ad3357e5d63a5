package httpsec

import (
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
)

func TestClientOf(t *testing.T) {
	t.Parallel()
	proxies := Proxies{netip.MustParsePrefix("10.0.0.0/8")}
	for _, tc := range []struct {
		name, remote, xff, proto string
		tls                      bool
		addr                     string
		secure                   bool
	}{
		{"direct", "203.0.113.7:5000", "", "", false, "203.0.113.7", false},
		{"direct TLS", "203.0.113.7:5000", "", "", true, "203.0.113.7", true},
		{"an untrusted peer's addresses are ignored", "203.0.113.7:5000", "1.2.3.4", "https", false, "203.0.113.7", true},
		{"trusted proxy", "10.0.0.2:5000", "198.51.100.9", "https", false, "198.51.100.9", true},
		{"a client's own X-Forwarded-For entry is skipped", "10.0.0.2:5000", "6.6.6.6, 198.51.100.9", "http", false, "198.51.100.9", false},
		{"two trusted proxies", "10.0.0.2:5000", "198.51.100.9, 10.0.0.3", "https", false, "198.51.100.9", true},
		{"IPv4 in IPv6", "[::ffff:203.0.113.7]:5000", "", "", false, "203.0.113.7", false},
	} {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.RemoteAddr = tc.remote
		if tc.xff != "" {
			r.Header.Set("X-Forwarded-For", tc.xff)
		}
		if tc.proto != "" {
			r.Header.Set("X-Forwarded-Proto", tc.proto)
		}
		if tc.tls {
			r.TLS = &tls.ConnectionState{}
		}
		c := proxies.ClientOf(r)
		if c.Addr != netip.MustParseAddr(tc.addr) || c.Secure != tc.secure {
			t.Errorf("%s: got %v secure=%v, want %s secure=%v", tc.name, c.Addr, c.Secure, tc.addr, tc.secure)
		}
	}
}

func TestHeaders(t *testing.T) {
	t.Parallel()
	rec := httptest.NewRecorder()
	Headers(http.NotFoundHandler()).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	if rec.Header().Get("X-Frame-Options") != "DENY" || rec.Header().Get("Content-Security-Policy") != ContentSecurityPolicy {
		t.Fatalf("headers: %v", rec.Header())
	}
}
