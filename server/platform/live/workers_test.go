package live_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/server/platform/live"
)

func (e *env) worker(t *testing.T, id string) {
	t.Helper()
	now := db.Now()
	w := &db.Worker{AppID: e.app.ID, ID: id, ServerID: "s", Host: "host-" + id, Tags: []string{}, Processors: []string{},
		Slots: 2, ConnectedAt: now, LastHeartbeat: now}
	if err := e.d.WorkerUpsert(context.Background(), w); err != nil {
		t.Fatal(err)
	}
}

// TestWorkersUpdated: the first listing at once, then one per change as
// its hint arrives: a connect, a heartbeat with new metrics, a loss. The
// poll is an hour, so only the hints can have woken it.
func TestWorkersUpdated(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		e := newEnv(t, d, live.Config{PollEvery: time.Hour})
		ctx := context.Background()
		s, err := e.hub.WorkersUpdated(e.ctx, "a")
		if err != nil {
			t.Fatal(err)
		}
		if l := recv(t, s); len(l) != 0 {
			t.Fatalf("first listing: %d workers; want none yet", len(l))
		}

		e.worker(t, "w1")
		e.hub.WorkersChanged(e.app.ID)
		l := recv(t, s)
		if len(l) != 1 || l[0].ID != "w1" || l[0].DisconnectedAt != nil {
			t.Fatalf("after a connect: %+v", l)
		}

		beat := db.Now().Add(time.Second)
		if err := d.WorkerHeartbeatMany(ctx, []db.WorkerBeat{{AppID: e.app.ID, ID: "w1", At: beat,
			Metrics: db.WorkerMetrics{CPUCores: 8, Load1: 0.5, FreeMemoryMB: 4096, FreeDiskMB: 9000}}}); err != nil {
			t.Fatal(err)
		}
		e.hub.WorkersChanged(e.app.ID)
		l = recv(t, s)
		if len(l) != 1 || !l[0].LastHeartbeat.Equal(beat) || l[0].Metrics.CPUCores != 8 {
			t.Fatalf("after a heartbeat: %+v", l)
		}

		if err := d.WorkerDisconnected(ctx, e.app.ID, "w1", "s", db.Now()); err != nil {
			t.Fatal(err)
		}
		e.hub.WorkersChanged(e.app.ID)
		if l = recv(t, s); len(l) != 1 || l[0].DisconnectedAt == nil {
			t.Fatalf("after a loss: %+v", l)
		}
	})
}

// TestWorkersUpdatedKeepsOnlyTheLatest: a subscriber that reads nothing
// while workers come and go holds one listing at a time, ends up with the
// newest, and is not dropped.
func TestWorkersUpdatedKeepsOnlyTheLatest(t *testing.T) {
	t.Parallel()
	e := newEnv(t, dbtest.Open(t, db.SQLite), live.Config{PollEvery: 20 * time.Millisecond})
	s, err := e.hub.WorkersUpdated(e.ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"w1", "w2", "w3"} {
		e.worker(t, id)
		e.hub.WorkersChanged(e.app.ID)
	}
	deadline := time.Now().Add(bound)
	for {
		l := recv(t, s)
		if len(l) == 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("never saw the 3 workers; last listing %d", len(l))
		}
	}
	if s.Err() != nil {
		t.Fatalf("dropped: %v", s.Err())
	}
	e.hub.Stop()
	for range s.C {
	}
	if !errors.Is(s.Err(), live.ErrShuttingDown) {
		t.Fatalf("after Stop: %v", s.Err())
	}
}
