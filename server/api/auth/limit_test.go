package auth

import (
	"errors"
	"fmt"
	"net/netip"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/server/platform/fault"
)

// testClock is a clock the test moves.
type testClock struct{ t time.Time }

func (c *testClock) now() time.Time { return c.t }

// guesses counts the attempts an attacker who retries as soon as allowed
// gets through in d, against one username from the given addresses (in
// turn), or against many usernames from one address.
func guesses(l *limiter, c *testClock, d time.Duration, users []string, addrs []netip.Addr) int {
	end := c.t.Add(d)
	n, i := 0, 0
	for c.t.Before(end) {
		err := l.begin(users[i%len(users)], addrs[i%len(addrs)])
		var lim *fault.Limited
		switch {
		case err == nil:
			n++
			i++
		case errors.As(err, &lim):
			c.t = c.t.Add(lim.RetryAfter)
		default:
			panic(err)
		}
	}
	return n
}

func addrs(n int) []netip.Addr {
	out := make([]netip.Addr, n)
	for i := range out {
		out[i] = netip.AddrFrom4([4]byte{198, 51, byte(i / 256), byte(i % 256)})
	}
	return out
}

func names(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("user%d", i)
	}
	return out
}

// TestLoginLimits: the delays grow, a success clears the username but not
// the address, and the default limits' figures hold.
func TestLoginLimits(t *testing.T) {
	t.Parallel()
	c := &testClock{t: time.Unix(1_800_000_000, 0)}
	l := newLimiter(LoginLimits{}, c.now)
	a := netip.MustParseAddr("203.0.113.1")
	for i := 0; i < 5; i++ {
		if err := l.begin("admin", a); err != nil {
			t.Fatalf("free attempt %d: %v", i+1, err)
		}
	}
	// Then each further attempt waits twice as long as the one before.
	want := time.Second
	for i := 0; i < 8; i++ {
		err := l.begin("Admin", a) // case does not matter
		var lim *fault.Limited
		if !errors.As(err, &lim) || lim.RetryAfter != want {
			t.Fatalf("attempt %d: %v, want a wait of %s", 6+i, err, want)
		}
		c.t = c.t.Add(want)
		if err := l.begin("admin", a); err != nil {
			t.Fatalf("after waiting %s: %v", want, err)
		}
		want = min(2*want, time.Minute)
	}
	// A success clears the username; the address keeps its count.
	l.succeeded("admin", a)
	if err := l.begin("admin", netip.MustParseAddr("203.0.113.2")); err != nil {
		t.Fatalf("after a success: %v", err)
	}
	if l.keys[addrKey(a)].n != 13-1 {
		t.Fatalf("the address's count is %d, want 12", l.keys[addrKey(a)].n)
	}
	// Forgotten a day after the last attempt.
	c.t = c.t.Add(25 * time.Hour)
	for i := 0; i < 5; i++ {
		if err := l.begin("admin", a); err != nil {
			t.Fatalf("a day later, attempt %d: %v", i+1, err)
		}
	}
	// IPv6 clients are counted by /64.
	if addrKey(netip.MustParseAddr("2001:db8:1:2::1")) != addrKey(netip.MustParseAddr("2001:db8:1:2:ffff::9")) {
		t.Fatal("two addresses of one /64 are counted apart")
	}
}

// TestLoginLimitFigures measures what the default limits allow an attacker
// who retries exactly when allowed (the figures are in docs/security.md).
func TestLoginLimitFigures(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name          string
		users         int
		addrs         int
		d             time.Duration
		atMost, least int
	}{
		// One username, from one address: the username's delays, then the
		// address's (20 free, then up to 15 minutes apart).
		{"1 user, 1 address, first minute", 1, 1, time.Minute, 10, 10},
		{"1 user, 1 address, first hour", 1, 1, time.Hour, 31, 31},
		{"1 user, 1 address, first day", 1, 1, 24 * time.Hour, 129, 129},
		// One username from 1000 addresses: the username's limit, at
		// most one a minute.
		{"1 user, 1000 addresses, first hour", 1, 1000, time.Hour, 75, 75},
		{"1 user, 1000 addresses, first day", 1, 1000, 24 * time.Hour, 1455, 1455},
		// Many usernames from one address: the address's limit.
		{"1000 users, 1 address, first hour", 1000, 1, time.Hour, 32, 32},
		{"1000 users, 1 address, first day", 1000, 1, 24 * time.Hour, 130, 130},
	} {
		c := &testClock{t: time.Unix(1_800_000_000, 0)}
		l := newLimiter(LoginLimits{}, c.now)
		n := guesses(l, c, tc.d, names(tc.users), addrs(tc.addrs))
		t.Logf("%s: %d guesses", tc.name, n)
		if n > tc.atMost || n < tc.least {
			t.Errorf("%s: %d guesses, want %d to %d", tc.name, n, tc.least, tc.atMost)
		}
	}
}
