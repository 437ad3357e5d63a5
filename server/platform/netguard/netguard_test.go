package netguard

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"testing"
	"time"
)

func TestCheck(t *testing.T) {
	t.Parallel()
	var p Policy
	for _, bad := range []string{"127.0.0.1", "127.5.5.5", "::1", "::ffff:127.0.0.1", "10.1.2.3", "172.16.0.1", "192.168.1.1",
		"169.254.169.254", "fd00:ec2::254", "fe80::1", "100.100.100.200", "0.0.0.0", "::", "224.0.0.1", "255.255.255.255", "64:ff9b::7f00:1"} {
		if p.Check(netip.MustParseAddr(bad)) == nil {
			t.Errorf("%s allowed", bad)
		}
	}
	for _, ok := range []string{"8.8.8.8", "1.1.1.1", "2606:4700:4700::1111", "93.184.216.34"} {
		if err := p.Check(netip.MustParseAddr(ok)); err != nil {
			t.Errorf("%s refused: %v", ok, err)
		}
	}
	allow, err := ParseAllow("127.0.0.1, 10.1.0.0/16")
	if err != nil {
		t.Fatal(err)
	}
	p = Policy{Allow: allow}
	for _, ok := range []string{"127.0.0.1", "10.1.200.3"} {
		if err := p.Check(netip.MustParseAddr(ok)); err != nil {
			t.Errorf("%s refused although allowed: %v", ok, err)
		}
	}
	if p.Check(netip.MustParseAddr("127.0.0.2")) == nil || p.Check(netip.MustParseAddr("10.2.0.1")) == nil {
		t.Error("an address outside the allowed ranges was allowed")
	}
	if _, err := ParseAllow("localhost"); err == nil {
		t.Error("ParseAllow accepted a name")
	}
}

func TestCheckURL(t *testing.T) {
	t.Parallel()
	var p Policy
	for _, bad := range []string{"http://127.0.0.1:9999/x", "http://[::1]/", "http://localhost/", "http://LOCALHOST./", "http://a.localhost/",
		"http://169.254.169.254/latest/meta-data/"} {
		u, _ := url.Parse(bad)
		if p.CheckURL(u) == nil {
			t.Errorf("%s allowed", bad)
		}
	}
	u, _ := url.Parse("https://hooks.example.com/x")
	if err := p.CheckURL(u); err != nil {
		t.Errorf("a public name refused: %v", err)
	}
}

// TestClientRefusesAtConnect: the check happens when connecting, after
// the name was resolved, and for redirects too.
func TestClientRefusesAtConnect(t *testing.T) {
	t.Parallel()
	hit := make(chan struct{}, 10)
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hit <- struct{}{} }))
	defer target.Close()
	// "localhost" is not a literal: only the connect-time check sees 127.0.0.1.
	u, _ := url.Parse(target.URL)
	named := "http://localhost:" + u.Port() + "/hook"

	_, err := Policy{}.Client(5*time.Second).Post(named, "application/json", nil)
	var refused *RefusedError
	if !errors.As(err, &refused) {
		t.Fatalf("POST to a loopback address: got %v, want a refusal", err)
	}

	// A public-looking redirector sending the client to loopback: allowed
	// only for the redirector itself.
	allow, _ := ParseAllow("127.0.0.1")
	redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://[::1]:"+u.Port()+"/", http.StatusTemporaryRedirect)
	}))
	defer redirector.Close()
	_, err = Policy{Allow: allow}.Client(5*time.Second).Post(redirector.URL, "application/json", nil)
	if !errors.As(err, &refused) {
		t.Fatalf("a redirect to ::1: got %v, want a refusal", err)
	}

	// Allowed ranges are reachable.
	resp, err := Policy{Allow: allow}.Client(5*time.Second).Post(target.URL, "application/json", nil)
	if err != nil {
		t.Fatalf("POST to an allowed address: %v", err)
	}
	resp.Body.Close()
	select {
	case <-hit:
	default:
		t.Fatal("the allowed request did not arrive")
	}
	if len(hit) != 0 {
		t.Fatal("a refused request arrived")
	}
}
