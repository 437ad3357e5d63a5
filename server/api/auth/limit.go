package auth

import (
	"context"
	"math"
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/jobwheel/jobwheel/server/platform/fault"
)

// LoginLimits bound password guessing. Every login attempt counts against
// the username it names and against the client address it comes from; a
// key with more than its free attempts must wait before the next one, and
// the wait doubles with each further failure up to a ceiling. A success
// clears the username's count (not the address's: an attacker with an
// account of their own must not be able to reset it). Counts are
// forgotten Forget after a key's last attempt. The limits are kept in the
// server's memory, so with several servers each one applies them on its
// own.
type LoginLimits struct {
	// UserFree attempts per username are not delayed (default 5).
	UserFree int
	// UserMaxDelay caps the wait imposed on a username (default 1m). It
	// is also the longest an attacker can keep its real owner waiting.
	UserMaxDelay time.Duration
	// AddrFree attempts per client address are not delayed (default 20:
	// many people may share one address).
	AddrFree int
	// AddrMaxDelay caps the wait imposed on a client address (default 15m).
	AddrMaxDelay time.Duration
	// FirstDelay is the wait after the first attempt over the free ones;
	// each further one doubles it (default 1s).
	FirstDelay time.Duration
	// Forget is how long after its last attempt a key's count is dropped
	// (default 24h).
	Forget time.Duration
	// MaxKeys bounds the memory the limiter holds (default 100000 keys).
	MaxKeys int
}

func (l *LoginLimits) defaults() {
	if l.UserFree <= 0 {
		l.UserFree = 5
	}
	if l.UserMaxDelay <= 0 {
		l.UserMaxDelay = time.Minute
	}
	if l.AddrFree <= 0 {
		l.AddrFree = 20
	}
	if l.AddrMaxDelay <= 0 {
		l.AddrMaxDelay = 15 * time.Minute
	}
	if l.FirstDelay <= 0 {
		l.FirstDelay = time.Second
	}
	if l.Forget <= 0 {
		l.Forget = 24 * time.Hour
	}
	if l.MaxKeys <= 0 {
		l.MaxKeys = 100000
	}
}

// limiter applies LoginLimits.
type limiter struct {
	cfg  LoginLimits
	now  func() time.Time
	mu   sync.Mutex
	keys map[string]*attempts
}

type attempts struct {
	n    int       // attempts counted
	last time.Time // the last one
	max  time.Duration
	free int
}

func newLimiter(cfg LoginLimits, now func() time.Time) *limiter {
	cfg.defaults()
	return &limiter{cfg: cfg, now: now, keys: map[string]*attempts{}}
}

// wait is how long after its last attempt a key must wait before the
// next: nothing while it has free attempts left, then FirstDelay,
// doubling with each further attempt, up to the key's ceiling.
func (l *limiter) wait(a *attempts) time.Duration {
	over := a.n - a.free + 1
	if over <= 0 {
		return 0
	}
	if over > 40 {
		return a.max
	}
	d := time.Duration(float64(l.cfg.FirstDelay) * math.Pow(2, float64(over-1)))
	return min(d, a.max)
}

// begin counts one attempt against user and addr, or refuses it with a
// RATE_LIMITED error saying how long to wait. Counting before the
// password is checked keeps parallel attempts from all passing at once.
func (l *limiter) begin(user string, addr netip.Addr) error {
	uk, ak := userKey(user), addrKey(addr)
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	u, a := l.get(uk, now), l.get(ak, now)
	var retry time.Duration
	var why string
	for _, k := range []struct {
		a   *attempts
		why string
	}{{u, "for this username"}, {a, "from your address"}} {
		if k.a == nil {
			continue
		}
		if r := k.a.last.Add(l.wait(k.a)).Sub(now); r > retry {
			retry, why = r, k.why
		}
	}
	if retry > 0 {
		secs := int(math.Ceil(retry.Seconds()))
		return fault.RateLimited(time.Duration(secs)*time.Second,
			"too many login attempts %s; try again in %d s", why, secs)
	}
	for _, k := range []string{uk, ak} {
		if k == "" {
			continue
		}
		e := l.keys[k]
		if e == nil {
			l.makeRoom(now)
			e = &attempts{}
			if k == uk {
				e.free, e.max = l.cfg.UserFree, l.cfg.UserMaxDelay
			} else {
				e.free, e.max = l.cfg.AddrFree, l.cfg.AddrMaxDelay
			}
			l.keys[k] = e
		}
		e.n++
		e.last = now
	}
	return nil
}

// succeeded clears the username's count and takes back the address's
// attempt: a right password is not a guess.
func (l *limiter) succeeded(user string, addr netip.Addr) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.keys, userKey(user))
	if e := l.keys[addrKey(addr)]; e != nil && e.n > 0 {
		e.n--
	}
}

// undo takes back an attempt that was not a guess (the check itself
// failed, e.g. the database was unreachable).
func (l *limiter) undo(user string, addr netip.Addr) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, k := range []string{userKey(user), addrKey(addr)} {
		if e := l.keys[k]; e != nil && e.n > 0 {
			e.n--
		}
	}
}

// get returns the live entry of key, dropping it if it was forgotten.
func (l *limiter) get(key string, now time.Time) *attempts {
	if key == "" {
		return nil
	}
	e := l.keys[key]
	if e != nil && now.Sub(e.last) > l.cfg.Forget {
		delete(l.keys, key)
		return nil
	}
	return e
}

// makeRoom keeps the map under MaxKeys: forgotten entries go first, then
// those not currently delaying anyone.
func (l *limiter) makeRoom(now time.Time) {
	if len(l.keys) < l.cfg.MaxKeys {
		return
	}
	for k, e := range l.keys {
		if now.Sub(e.last) > l.cfg.Forget {
			delete(l.keys, k)
		}
	}
	for k, e := range l.keys {
		if len(l.keys) < l.cfg.MaxKeys {
			return
		}
		if !e.last.Add(l.wait(e)).After(now) {
			delete(l.keys, k)
		}
	}
}

// userKey folds case, so "Admin" and "admin" share a count.
func userKey(user string) string {
	user = strings.ToLower(strings.TrimSpace(user))
	if len(user) > 128 {
		user = user[:128]
	}
	return "u:" + user
}

// addrKey is the client's IPv4 address, or its IPv6 /64 (one subscriber's
// usual allocation); "" when unknown.
func addrKey(a netip.Addr) string {
	if !a.IsValid() {
		return ""
	}
	a = a.Unmap()
	if a.Is6() {
		p, _ := a.Prefix(64)
		return "a:" + p.String()
	}
	return "a:" + a.String()
}

type clientAddrKey struct{}

// WithClientAddr returns ctx carrying the address of the client that made
// the request, for per-address login limits.
func WithClientAddr(ctx context.Context, a netip.Addr) context.Context {
	return context.WithValue(ctx, clientAddrKey{}, a)
}

// ClientAddr returns the request's client address (invalid if unknown).
func ClientAddr(ctx context.Context) netip.Addr {
	a, _ := ctx.Value(clientAddrKey{}).(netip.Addr)
	return a
}
