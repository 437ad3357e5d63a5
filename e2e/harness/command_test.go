package harness

import (
	"fmt"
	"os"
	"slices"
	"testing"
	"time"
)

// A Command runs its cleanups last first, once, and removes its directory
// unless told to keep it.
func TestCommandCleansUp(t *testing.T) {
	for _, keep := range []bool{false, true} {
		c := NewCommand("test", 3)
		c.Keep = keep
		var order []int
		c.Cleanup(func() { order = append(order, 1) })
		c.Cleanup(func() { order = append(order, 2) })
		dir := c.TempDir()
		c.Close()
		c.Close()
		if !slices.Equal(order, []int{2, 1}) {
			t.Errorf("cleanups ran %v; want [2 1]", order)
		}
		if _, err := os.Stat(dir); (err == nil) != keep {
			t.Errorf("keep=%v: temp dir stat: %v", keep, err)
		}
		_ = os.RemoveAll(c.Dir())
	}
}

// StartApp returns once the app's agents are connected, each started from
// its options with the app and its secret filled in.
func TestStartApp(t *testing.T) {
	srv := StartServer(t, ServerOptions{})
	c := srv.Client()
	a := StartApp(t, c, "orders", 2, time.Minute, func(i int) AgentOptions {
		return AgentOptions{Servers: []string{srv.URL}, Name: fmt.Sprintf("a%d", i+1)}
	})
	if a.ID == 0 || a.Secret == "" || len(a.Agents) != 2 || len(a.AgentOptions) != 2 {
		t.Fatalf("app %+v", a)
	}
	for _, o := range a.AgentOptions {
		if o.App != "orders" || o.Secret != a.Secret {
			t.Errorf("agent options %+v: want app orders and its secret", o)
		}
	}
	workers, err := c.Workers("orders")
	if err != nil || len(workers) != 2 {
		t.Fatalf("workers %+v, %v", workers, err)
	}
}
