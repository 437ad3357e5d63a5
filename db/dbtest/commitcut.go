package dbtest

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/url"
	"sync"
	"testing"

	"github.com/jobwheel/jobwheel/db"
)

// OpenCommitCut opens a fresh migrated PostgreSQL database through a TCP
// proxy that can lose a commit's answer: after cut(), the next COMMIT
// reaches PostgreSQL and is carried out, and then the connection dies
// before its answer reaches the client — a primary killed, or a network
// cut, at the worst moment. The client sees a broken connection for a
// transaction that committed: its outcome is unknown to it. The channel
// cut returns is closed once a COMMIT was cut.
func OpenCommitCut(tb testing.TB) (d *db.DB, cut func() <-chan struct{}) {
	tb.Helper()
	raw := pool.take(tb)
	u, err := url.Parse(raw)
	if err != nil {
		tb.Fatalf("commit cut: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("commit cut: %v", err)
	}
	p := &commitCutter{target: u.Host}
	tb.Cleanup(func() { _ = ln.Close() })
	go p.accept(ln)
	u.Host = ln.Addr().String()
	d, err = db.Open(context.Background(), u.String())
	if err != nil {
		tb.Fatalf("opening the database through the commit cutter: %v", err)
	}
	tb.Cleanup(func() { _ = d.Close() })
	return d, p.arm
}

// commitQuery is a simple-protocol Query message for COMMIT, as pgdriver
// sends it: 'Q', the length (4 + 7), "COMMIT\0".
var commitQuery = []byte("Q\x00\x00\x00\x0bCOMMIT\x00")

type commitCutter struct {
	target string
	mu     sync.Mutex
	armed  bool
	done   chan struct{}
}

func (p *commitCutter) arm() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.armed, p.done = true, make(chan struct{})
	return p.done
}

// take reports whether this COMMIT is the one to cut, disarming.
func (p *commitCutter) take() (bool, chan struct{}) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.armed {
		return false, nil
	}
	p.armed = false
	return true, p.done
}

func (p *commitCutter) accept(ln net.Listener) {
	for {
		in, err := ln.Accept()
		if err != nil {
			return
		}
		out, err := net.Dial("tcp", p.target)
		if err != nil {
			_ = in.Close()
			continue
		}
		go p.serve(in, out)
	}
}

func (p *commitCutter) serve(in, out net.Conn) {
	var cutting sync.Mutex // held while deciding, so the answer waits
	cut := false
	var done chan struct{}
	go func() { // PostgreSQL → client: dropped once the COMMIT is cut
		defer func() { _ = in.Close(); _ = out.Close() }()
		buf := make([]byte, 32<<10)
		for {
			n, err := out.Read(buf)
			cutting.Lock()
			c := cut
			cutting.Unlock()
			if c {
				close(done) // the answer (CommandComplete) came: it is committed
				return
			}
			if n > 0 {
				if _, werr := in.Write(buf[:n]); werr != nil {
					return
				}
			}
			if err != nil {
				return
			}
		}
	}()
	defer func() {
		if !cut {
			_ = in.Close()
			_ = out.Close()
		}
	}()
	buf := make([]byte, 32<<10)
	for {
		n, err := in.Read(buf)
		if n > 0 {
			if bytes.Contains(buf[:n], commitQuery) {
				if ok, d := p.take(); ok {
					cutting.Lock()
					cut, done = true, d
					cutting.Unlock()
				}
			}
			if _, werr := out.Write(buf[:n]); werr != nil {
				return
			}
			if cut {
				return // the other side closes both once the answer came
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return
			}
			return
		}
	}
}
