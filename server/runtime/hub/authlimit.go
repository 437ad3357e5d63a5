package hub

import (
	"crypto/sha256"
	"log/slog"
	"net"
	"sync"
	"time"
)

// Refused secrets are limited per client address (issue 19, item 4). A
// worker with a wrong secret is a misconfiguration, said once in the log;
// a flood of them (a crash-looping agent, someone guessing) must neither
// flood the log nor cost a database read each. So, per address and within
// a window: the first refusal is logged; past authFree refusals the
// address is told to wait without its secret being checked, which is
// logged once; when the window ends, what was left unsaid is summed up in
// one line. Workers whose secret was accepted before from anywhere (the
// app's workers share it) are checked as usual even from a limited
// address, so a flood from one host does not lock out the good workers
// beside it.
const (
	authFree   = 10
	authWindow = time.Minute
	// authMaxAddrs bounds the addresses tracked; past it, new addresses
	// share one entry (a flood from many addresses is limited together).
	authMaxAddrs = 10000
	// authMaxGood bounds the accepted secrets remembered.
	authMaxGood = 1024
)

// authLimiter counts refused secrets per client address.
type authLimiter struct {
	log *slog.Logger
	now func() time.Time

	mu    sync.Mutex
	addrs map[string]*authFailures
	good  map[[32]byte]struct{} // sha256 of app name and secret, accepted before
}

type authFailures struct {
	start     time.Time // the window's start
	refused   int       // refusals in the window, checked or not
	unlogged  int       // refusals not logged one by one
	lastApp   string
	limitSaid bool
}

func newAuthLimiter(log *slog.Logger, now func() time.Time) *authLimiter {
	return &authLimiter{log: log, now: now, addrs: map[string]*authFailures{}, good: map[[32]byte]struct{}{}}
}

func goodKey(app, secret string) [32]byte {
	return sha256.Sum256([]byte(app + "\x00" + secret))
}

// addrOf is the host of a remote address "host:port".
func addrOf(remote string) string {
	if host, _, err := net.SplitHostPort(remote); err == nil {
		return host
	}
	return remote
}

// entry returns the address's window, a new one if the last ended.
// l.mu is held.
func (l *authLimiter) entry(addr string) *authFailures {
	now := l.now()
	f := l.addrs[addr]
	if f != nil && now.Sub(f.start) >= authWindow {
		l.summarize(addr, f)
		f = nil
	}
	if f == nil {
		if len(l.addrs) >= authMaxAddrs {
			addr = "(other addresses)"
			if f = l.addrs[addr]; f != nil {
				return f
			}
		}
		f = &authFailures{start: now}
		l.addrs[addr] = f
	}
	return f
}

// limited reports whether a hello from remote for app with secret is to
// be refused without checking it; it logs the first such refusal of a
// window.
func (l *authLimiter) limited(remote, app, secret string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.good[goodKey(app, secret)]; ok {
		return false
	}
	addr := addrOf(remote)
	f := l.addrs[addr]
	if f == nil || f.refused < authFree || l.now().Sub(f.start) >= authWindow {
		return false
	}
	f.refused++
	f.unlogged++
	f.lastApp = app
	if !f.limitSaid {
		f.limitSaid = true
		l.log.Warn("hub: too many wrong app secrets from one address; refusing its workers unchecked until the window ends",
			"remote", addr, "refused", f.refused, "window", authWindow)
	}
	return true
}

// refused records a wrong secret from remote and logs it if it is the
// first of its window.
func (l *authLimiter) refused(remote, app, where string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	addr := addrOf(remote)
	f := l.entry(addr)
	f.refused++
	if f.refused == 1 {
		l.log.Warn("hub: worker refused: unknown app or wrong secret (further refusals from this address are summed up)",
			"app", app, "remote", addr, "at", where)
		return
	}
	f.unlogged++
	f.lastApp = app
}

// accepted remembers a secret that opened its app.
func (l *authLimiter) accepted(app, secret string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.good) >= authMaxGood {
		clear(l.good) // rotated secrets pile up otherwise; good workers are remembered again as they connect
	}
	l.good[goodKey(app, secret)] = struct{}{}
}

// sweep ends the windows that are over, summing each up.
func (l *authLimiter) sweep() {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	for addr, f := range l.addrs {
		if now.Sub(f.start) >= authWindow {
			l.summarize(addr, f)
		}
	}
}

// summarize logs what a window left unsaid and forgets it. l.mu is held.
func (l *authLimiter) summarize(addr string, f *authFailures) {
	delete(l.addrs, addr)
	if f.unlogged > 0 {
		l.log.Warn("hub: workers refused from one address: unknown app or wrong secret", "remote", addr,
			"refused", f.refused, "window", authWindow, "lastApp", f.lastApp)
	}
}
