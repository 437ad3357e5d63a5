package harness

import (
	"bufio"
	"net"
	"testing"
	"time"
)

// echo serves lines back.
func echo(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				r := bufio.NewReader(c)
				for {
					line, err := r.ReadString('\n')
					if err != nil {
						return
					}
					_, _ = c.Write([]byte(line))
				}
			}()
		}
	}()
	return ln.Addr().String()
}

func roundTrip(c net.Conn, msg string) (string, error) {
	_ = c.SetDeadline(time.Now().Add(500 * time.Millisecond))
	if _, err := c.Write([]byte(msg + "\n")); err != nil {
		return "", err
	}
	return bufio.NewReader(c).ReadString('\n')
}

func TestProxyPassBlackholeDropHeal(t *testing.T) {
	p := StartProxy(t, echo(t))
	c, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if got, err := roundTrip(c, "one"); err != nil || got != "one\n" {
		t.Fatalf("passing: %q %v", got, err)
	}

	// Black-holed: the write succeeds, nothing comes back.
	p.Blackhole()
	if got, err := roundTrip(c, "two"); err == nil {
		t.Fatalf("a black-holed connection answered %q", got)
	}

	// Dropped: connections close and new ones are refused (closed at once).
	p.Drop()
	c2, err := net.Dial("tcp", p.Addr())
	if err == nil {
		if got, err := roundTrip(c2, "three"); err == nil {
			t.Fatalf("a dropped proxy answered %q", got)
		}
		c2.Close()
	}

	// Healed: new connections pass again.
	p.Heal()
	c3, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c3.Close()
	if got, err := roundTrip(c3, "four"); err != nil || got != "four\n" {
		t.Fatalf("healed: %q %v", got, err)
	}
}
