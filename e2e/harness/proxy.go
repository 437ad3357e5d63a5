package harness

import (
	"net"
	"sync"
)

// Proxy is a TCP proxy the harness puts between a process and what it
// talks to (a server and PostgreSQL, workers and servers), to cut the
// network without killing anyone:
//
//   - Blackhole: bytes vanish in both directions; connections stay open and
//     new ones are accepted, so the process sees a network that hangs.
//   - Drop: every connection is closed and new ones are refused.
//   - Heal: traffic flows again (new connections; old ones stay cut).
type Proxy struct {
	ln     net.Listener
	target string

	mu    sync.Mutex
	mode  proxyMode
	conns map[net.Conn]bool
}

type proxyMode int

const (
	modePass proxyMode = iota
	modeBlackhole
	modeDrop
)

// StartProxy listens on a free loopback port and forwards to target.
func StartProxy(tb TB, target string) *Proxy {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("proxy: %v", err)
	}
	p := &Proxy{ln: ln, target: target, conns: map[net.Conn]bool{}}
	go p.accept()
	tb.Cleanup(p.Close)
	return p
}

// Addr is where the proxy listens.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Blackhole makes bytes vanish.
func (p *Proxy) Blackhole() { p.set(modeBlackhole, false) }

// Drop closes every connection and refuses new ones.
func (p *Proxy) Drop() { p.set(modeDrop, true) }

// Heal lets traffic flow again.
func (p *Proxy) Heal() { p.set(modePass, false) }

// Close stops the proxy and closes every connection.
func (p *Proxy) Close() {
	_ = p.ln.Close()
	p.set(modeDrop, true)
}

func (p *Proxy) set(m proxyMode, closeAll bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.mode = m
	if closeAll {
		for c := range p.conns {
			_ = c.Close()
		}
		clear(p.conns)
	}
}

func (p *Proxy) current() proxyMode {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.mode
}

func (p *Proxy) track(cs ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.mode == modeDrop {
		return false
	}
	for _, c := range cs {
		p.conns[c] = true
	}
	return true
}

func (p *Proxy) accept() {
	for {
		in, err := p.ln.Accept()
		if err != nil {
			return
		}
		go p.serve(in)
	}
}

func (p *Proxy) serve(in net.Conn) {
	if p.current() == modeDrop {
		_ = in.Close()
		return
	}
	out, err := net.Dial("tcp", p.target)
	if err != nil {
		_ = in.Close()
		return
	}
	if !p.track(in, out) {
		_ = in.Close()
		_ = out.Close()
		return
	}
	// A connection made while black-holed is black-holed for good, like
	// one made before.
	cut := p.current() != modePass
	go p.pipe(out, in, cut)
	p.pipe(in, out, cut)
}

// pipe copies src to dst until either closes; black-holed bytes are read
// and thrown away, so the sender sees no back-pressure, only silence.
func (p *Proxy) pipe(dst, src net.Conn, cut bool) {
	defer func() {
		_ = dst.Close()
		_ = src.Close()
	}()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if !cut && p.current() == modeBlackhole {
				cut = true
			}
			if !cut {
				if _, werr := dst.Write(buf[:n]); werr != nil {
					return
				}
			}
		}
		if err != nil {
			return // EOF or a cut: close both sides
		}
	}
}
