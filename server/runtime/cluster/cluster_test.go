package cluster

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/internal/clock"
	"github.com/jobwheel/jobwheel/internal/testkit"
)

func newRegistry(d *db.DB, id string, clk clock.Clock) *Registry {
	return New(Config{ID: id, AdvertiseURL: "http://" + id, Clock: clk}, d, slog.New(slog.DiscardHandler))
}

// fakeClock reports the timers armed on it, so a test moves time only once
// the heartbeat loop waits on it.
func fakeClock() *clock.Fake {
	clk := clock.NewFake(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	clk.Armed = make(chan time.Duration, 100)
	return clk
}

// A started server is a live member; one whose heartbeats stopped is dead
// after DeadAfter; Leave takes a server out at once, and Stop too.
func TestMembershipFollowsHeartbeatsLeaveAndStop(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		clk := fakeClock()
		a, b := newRegistry(d, "a", clk), newRegistry(d, "b", clk)
		for _, r := range []*Registry{a, b} {
			if err := r.Start(ctx); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(r.Stop)
			testkit.Receive(t, "the heartbeat timer", clk.Armed)
		}
		if n, _ := a.AliveCount(ctx); n != 2 {
			t.Fatalf("%d alive; want 2", n)
		}
		if u, err := b.URLOf(ctx, "a"); err != nil || u != "http://a" {
			t.Fatalf("URLOf(a) = %q, %v", u, err)
		}
		// b leaves: a sees one server at once, and URLOf(b) fails.
		b.Leave(ctx)
		if n, _ := a.AliveCount(ctx); n != 1 {
			t.Fatalf("after b left: %d alive; want 1", n)
		}
		if _, err := a.URLOf(ctx, "b"); err == nil {
			t.Fatal("URLOf a server that left succeeded")
		}
		// Time passes without heartbeats being written (the fake clock
		// moves past DeadAfter at once): a counts as dead.
		clk.Advance(DeadAfter + time.Second)
		testkit.Eventually(t, "a's heartbeat to be written again after the jump", func() bool {
			n, _ := a.AliveCount(ctx)
			return n == 1
		})
		a.Stop()
		if list, _ := d.ServerList(ctx); len(list) != 0 {
			t.Fatalf("after stop the registry holds %v; want nobody", list)
		}
	})
}

// A server deleted as stale by another (it was paused a long while)
// registers again at its next heartbeat rather than stay invisible.
func TestDeletedServerRegistersAgain(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		clk := fakeClock()
		a := newRegistry(d, "a", clk)
		if err := a.Start(ctx); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(a.Stop)
		testkit.Receive(t, "the heartbeat timer", clk.Armed)
		if err := d.ServerDelete(ctx, "a"); err != nil {
			t.Fatal(err)
		}
		clk.Advance(HeartbeatInterval)
		testkit.Eventually(t, "a to register again", func() bool {
			list, _ := d.ServerList(ctx)
			return len(list) == 1 && list[0].ID == "a"
		})
	})
}
