package db_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
)

func TestMigrateUpDownUp(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		// Migrating again is a no-op.
		if err := d.Migrate(ctx); err != nil {
			t.Fatalf("second migrate: %v", err)
		}
		if err := d.MigrateDown(ctx); err != nil {
			t.Fatalf("migrate down: %v", err)
		}
		if _, err := d.UserCount(ctx); err == nil {
			t.Fatal("users table still exists after migrating down")
		}
		if err := d.Migrate(ctx); err != nil {
			t.Fatalf("migrate up again: %v", err)
		}
		if n, err := d.UserCount(ctx); err != nil || n != 0 {
			t.Fatalf("after re-migrating: count=%d err=%v", n, err)
		}
	})
}

func TestUsersAndSessions(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		u := &db.User{Username: "alice", PasswordHash: "h1", Admin: true}
		if err := d.UserCreate(ctx, u); err != nil {
			t.Fatal(err)
		}
		if u.ID == 0 {
			t.Fatal("UserCreate did not set the id")
		}
		err := d.UserCreate(ctx, &db.User{Username: "alice", PasswordHash: "h2"})
		if !errors.Is(err, db.ErrConflict) {
			t.Fatalf("duplicate username: got %v, want ErrConflict", err)
		}
		got, err := d.UserGetByName(ctx, "alice")
		if err != nil || got.ID != u.ID || !got.Admin || got.PasswordHash != "h1" {
			t.Fatalf("UserGetByName = %+v, %v", got, err)
		}
		if _, err := d.UserGetByName(ctx, "bob"); !errors.Is(err, db.ErrNotFound) {
			t.Fatalf("unknown user: got %v, want ErrNotFound", err)
		}

		now := db.Now()
		if err := d.SessionCreate(ctx, &db.Session{TokenHash: "live", UserID: u.ID, ExpiresAt: now.Add(time.Hour)}); err != nil {
			t.Fatal(err)
		}
		if err := d.SessionCreate(ctx, &db.Session{TokenHash: "old", UserID: u.ID, ExpiresAt: now.Add(-time.Second)}); err != nil {
			t.Fatal(err)
		}
		if su, err := d.SessionGetUser(ctx, "live", now); err != nil || su.ID != u.ID {
			t.Fatalf("live session: %+v, %v", su, err)
		}
		if _, err := d.SessionGetUser(ctx, "old", now); !errors.Is(err, db.ErrNotFound) {
			t.Fatalf("expired session: got %v, want ErrNotFound", err)
		}
		if n, err := d.SessionDeleteExpired(ctx, now); err != nil || n != 1 {
			t.Fatalf("SessionDeleteExpired = %d, %v; want 1", n, err)
		}
	})
}

func TestAppsAndMembers(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		alice := &db.User{Username: "alice", PasswordHash: "x"}
		if err := d.UserCreate(ctx, alice); err != nil {
			t.Fatal(err)
		}
		orders := &db.App{Name: "orders", SecretHash: "s"}
		billing := &db.App{Name: "billing", SecretHash: "s"}
		for _, a := range []*db.App{orders, billing} {
			if err := d.AppCreate(ctx, a); err != nil {
				t.Fatal(err)
			}
		}
		if err := d.AppCreate(ctx, &db.App{Name: "orders", SecretHash: "s"}); !errors.Is(err, db.ErrConflict) {
			t.Fatalf("duplicate app: got %v, want ErrConflict", err)
		}
		all, err := d.AppList(ctx)
		if err != nil || len(all) != 2 || all[0].Name != "billing" {
			t.Fatalf("AppList = %+v, %v", all, err)
		}
		if err := d.AppMemberSet(ctx, orders.ID, alice.ID, db.RoleViewer); err != nil {
			t.Fatal(err)
		}
		if err := d.AppMemberSet(ctx, orders.ID, alice.ID, db.RoleEditor); err != nil {
			t.Fatal(err)
		}
		if r, err := d.AppMemberGetRole(ctx, orders.ID, alice.ID); err != nil || r != db.RoleEditor {
			t.Fatalf("role = %q, %v; want EDITOR", r, err)
		}
		mine, err := d.AppListForUser(ctx, alice.ID)
		if err != nil || len(mine) != 1 || mine[0].Name != "orders" {
			t.Fatalf("AppListForUser = %+v, %v", mine, err)
		}
		if err := d.AppMemberSet(ctx, orders.ID, alice.ID, ""); err != nil {
			t.Fatal(err)
		}
		if r, err := d.AppMemberGetRole(ctx, orders.ID, alice.ID); err != nil || r != "" {
			t.Fatalf("role after removal = %q, %v", r, err)
		}
	})
}

func TestServers(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		t0 := db.Now()
		for i, id := range []string{"s1", "s2"} {
			at := t0.Add(time.Duration(i) * time.Second)
			if err := d.ServerRegister(ctx, &db.Server{ID: id, AdvertiseURL: "http://" + id, StartedAt: at, HeartbeatAt: at}); err != nil {
				t.Fatal(err)
			}
		}
		// Re-registering after a restart keeps one row.
		if err := d.ServerRegister(ctx, &db.Server{ID: "s1", AdvertiseURL: "http://s1b", StartedAt: t0, HeartbeatAt: t0}); err != nil {
			t.Fatal(err)
		}
		list, err := d.ServerList(ctx)
		if err != nil || len(list) != 2 || list[0].AdvertiseURL != "http://s1b" {
			t.Fatalf("ServerList = %+v, %v", list, err)
		}
		if !list[0].HeartbeatAt.Equal(t0) {
			t.Fatalf("heartbeat round trip: got %v want %v", list[0].HeartbeatAt, t0)
		}
		if err := d.ServerHeartbeat(ctx, "s2", t0.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		if n, err := d.ServerDeleteStale(ctx, t0.Add(30*time.Second)); err != nil || n != 1 {
			t.Fatalf("ServerDeleteStale = %d, %v; want 1", n, err)
		}
		if err := d.ServerHeartbeat(ctx, "s1", t0); !errors.Is(err, db.ErrNotFound) {
			t.Fatalf("heartbeat of deleted server: got %v", err)
		}
	})
}

func TestAPITokens(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		u := &db.User{Username: "ci", PasswordHash: "x"}
		if err := d.UserCreate(ctx, u); err != nil {
			t.Fatal(err)
		}
		role := db.RoleViewer
		tok := &db.APIToken{Name: "deploy", TokenHash: "th", UserID: u.ID, Role: &role}
		if err := d.APITokenCreate(ctx, tok); err != nil {
			t.Fatal(err)
		}
		got, err := d.APITokenGetByHash(ctx, "th")
		if err != nil || got.ID != tok.ID || got.Role == nil || *got.Role != db.RoleViewer || got.AppID != nil {
			t.Fatalf("APITokenByHash = %+v, %v", got, err)
		}
		if err := d.APITokenRevoke(ctx, tok.ID, db.Now()); err != nil {
			t.Fatal(err)
		}
		if _, err := d.APITokenGetByHash(ctx, "th"); !errors.Is(err, db.ErrNotFound) {
			t.Fatalf("revoked token still found: %v", err)
		}
		if err := d.APITokenRevoke(ctx, tok.ID, db.Now()); !errors.Is(err, db.ErrNotFound) {
			t.Fatalf("double revoke: %v", err)
		}
	})
}

func TestWorkers(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		app := &db.App{Name: "orders", SecretHash: "s"}
		if err := d.AppCreate(ctx, app); err != nil {
			t.Fatal(err)
		}
		t0 := db.Now()
		for _, id := range []string{"w1", "w2"} {
			w := &db.Worker{AppID: app.ID, ID: id, ServerID: "s1", Host: "h-" + id, Tags: []string{"gpu"}, Processors: []string{"p"},
				Slots: 4, ConnectedAt: t0, LastHeartbeat: t0}
			if err := d.WorkerUpsert(ctx, w); err != nil {
				t.Fatal(err)
			}
		}
		t1 := t0.Add(2 * time.Second)
		err := d.WorkerHeartbeatMany(ctx, []db.WorkerBeat{
			{AppID: app.ID, ID: "w1", Metrics: db.WorkerMetrics{CPUCores: 8, FreeMemoryMB: 1024}, At: t1},
			{AppID: app.ID, ID: "w2", Metrics: db.WorkerMetrics{CPUCores: 2}, At: t1},
		})
		if err != nil {
			t.Fatal(err)
		}
		// The end of a connection to another server does not touch it.
		if err := d.WorkerDisconnected(ctx, app.ID, "w2", "s9", t1); err != nil {
			t.Fatal(err)
		}
		if list, _ := d.WorkerList(ctx, app.ID, t1.Add(time.Second)); len(list) != 2 {
			t.Fatalf("a stale disconnect disconnected a worker: %+v", list)
		}
		if err := d.WorkerDisconnected(ctx, app.ID, "w2", "s1", t1); err != nil {
			t.Fatal(err)
		}
		list, err := d.WorkerList(ctx, app.ID, t0)
		if err != nil || len(list) != 2 {
			t.Fatalf("WorkerList = %+v, %v", list, err)
		}
		if list[0].ID != "w1" || list[0].Metrics.CPUCores != 8 || !list[0].LastHeartbeat.Equal(t1) || list[0].Tags[0] != "gpu" {
			t.Fatalf("connected worker first with its heartbeat: %+v", list[0])
		}
		if list[1].DisconnectedAt == nil || list[1].Metrics.CPUCores != 2 {
			t.Fatalf("disconnected worker: %+v", list[1])
		}
		if list, _ := d.WorkerList(ctx, app.ID, t1.Add(time.Second)); len(list) != 1 {
			t.Fatalf("long-disconnected workers are not listed: %+v", list)
		}
		// Reconnecting clears the disconnect.
		if err := d.WorkerUpsert(ctx, &db.Worker{AppID: app.ID, ID: "w2", ServerID: "s2", Host: "h", Tags: []string{}, Processors: []string{}, Slots: 1, ConnectedAt: t1, LastHeartbeat: t1}); err != nil {
			t.Fatal(err)
		}
		if err := d.WorkerDisconnectServer(ctx, "s1", t1); err != nil {
			t.Fatal(err)
		}
		list, _ = d.WorkerList(ctx, app.ID, t1.Add(time.Second))
		if len(list) != 1 || list[0].ID != "w2" || list[0].ServerID != "s2" {
			t.Fatalf("after server s1's workers were disconnected: %+v", list)
		}
	})
}

func TestLeases(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		a1 := &db.App{Name: "a1", SecretHash: "x"}
		a2 := &db.App{Name: "a2", SecretHash: "x"}
		for _, a := range []*db.App{a1, a2} {
			if err := d.AppCreate(ctx, a); err != nil {
				t.Fatal(err)
			}
		}
		const ttl = time.Minute
		now := db.Now()
		l, ok, err := d.LeaseAcquire(ctx, a1.ID, "s1", ttl, now)
		if err != nil || !ok || l.Epoch != 1 || l.ServerID != "s1" {
			t.Fatalf("first acquire = %+v, %v, %v", l, ok, err)
		}
		// Another server cannot take a live lease.
		l, ok, err = d.LeaseAcquire(ctx, a1.ID, "s2", ttl, now)
		if err != nil || ok || l.ServerID != "s1" {
			t.Fatalf("s2 took a live lease: %+v, %v, %v", l, ok, err)
		}
		// The holder re-acquiring keeps the epoch.
		if l, ok, _ := d.LeaseAcquire(ctx, a1.ID, "s1", ttl, now); !ok || l.Epoch != 1 {
			t.Fatalf("re-acquire by holder: %+v %v", l, ok)
		}
		renewed, err := d.LeaseRenewMany(ctx, "s1", []int64{a1.ID, a2.ID}, ttl, now)
		if err != nil || len(renewed) != 1 || renewed[0].AppID != a1.ID {
			t.Fatalf("renew = %+v, %v", renewed, err)
		}
		// Released: s2 takes it at once with a higher epoch.
		if err := d.LeaseRelease(ctx, "s1", []int64{a1.ID}); err != nil {
			t.Fatal(err)
		}
		if renewed, _ := d.LeaseRenewMany(ctx, "s1", []int64{a1.ID}, ttl, now); len(renewed) != 0 {
			t.Fatalf("renewed a released lease: %+v", renewed)
		}
		l, ok, err = d.LeaseAcquire(ctx, a1.ID, "s2", ttl, now)
		if err != nil || !ok || l.Epoch != 2 || l.ServerID != "s2" {
			t.Fatalf("take-over after release = %+v, %v, %v", l, ok, err)
		}
		states, err := d.LeaseList(ctx, now)
		if err != nil || len(states) != 2 || states[0].ServerID != "s2" || !states[0].Live || states[1].ServerID != "" || states[1].Live {
			t.Fatalf("LeaseStates = %+v, %v", states, err)
		}
		if l, live, err := d.LeaseGet(ctx, a1.ID, now); err != nil || !live || l.ServerID != "s2" {
			t.Fatalf("LeaseGet = %+v %v %v", l, live, err)
		}
	})
}

// An expired lease is taken over, on PostgreSQL by the database's clock.
func TestLeaseExpiry(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		a := &db.App{Name: "a", SecretHash: "x"}
		if err := d.AppCreate(ctx, a); err != nil {
			t.Fatal(err)
		}
		now := db.Now()
		if _, ok, err := d.LeaseAcquire(ctx, a.ID, "s1", time.Millisecond, now); !ok || err != nil {
			t.Fatalf("acquire: %v %v", ok, err)
		}
		later := now.Add(time.Second)
		ok := false
		for i := 0; i < 200 && !ok; i++ {
			var l *db.AppLease
			var err error
			l, ok, err = d.LeaseAcquire(ctx, a.ID, "s2", time.Minute, later)
			if err != nil {
				t.Fatal(err)
			}
			if ok && l.Epoch != 2 {
				t.Fatalf("epoch after expiry = %d; want 2", l.Epoch)
			}
			if !ok {
				time.Sleep(5 * time.Millisecond) // the database clock must pass 1ms
			}
		}
		if !ok {
			t.Fatal("expired lease was never taken over")
		}
	})
}

func TestLeaseStatesExpiry(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		a := &db.App{Name: "a", SecretHash: "x"}
		b := &db.App{Name: "b", SecretHash: "x"}
		for _, app := range []*db.App{a, b} {
			if err := d.AppCreate(ctx, app); err != nil {
				t.Fatal(err)
			}
		}
		// SQLite stores times as text whose fraction drops trailing zeros:
		// every shape of milliseconds must read back the same.
		second := db.Now().Truncate(time.Second)
		for _, ms := range []int{0, 100, 120, 123, 7} {
			now := second.Add(time.Duration(ms) * time.Millisecond)
			if _, ok, err := d.LeaseAcquire(ctx, a.ID, "s1", time.Minute, now); !ok || err != nil {
				t.Fatal(ok, err)
			}
			if _, ok, err := d.LeaseAcquire(ctx, b.ID, "s1", time.Minute, now); !ok || err != nil {
				t.Fatal(ok, err)
			}
			if err := d.LeaseRelease(ctx, "s1", []int64{b.ID}); err != nil {
				t.Fatal(err)
			}
			states, err := d.LeaseList(ctx, now)
			if err != nil {
				t.Fatal(err)
			}
			// PostgreSQL judges by its own clock, a moment after now.
			if s := states[0]; !s.Live || s.Released || s.ExpiresInMs < 50_000 || s.ExpiresInMs > 60_000 {
				t.Fatalf("at .%03d: live lease state = %+v; want about 60000 ms left", ms, s)
			}
			if s := states[1]; s.Live || !s.Released {
				t.Fatalf("at .%03d: released lease state = %+v", ms, s)
			}
		}
	})
}

func TestInstanceOutcomes(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		app := &db.App{Name: "a", SecretHash: "x"}
		if err := d.AppCreate(ctx, app); err != nil {
			t.Fatal(err)
		}
		job := &db.Job{AppID: app.ID, Name: "j", Enabled: true, ScheduleType: "API", TimeZone: "UTC", ExecutionMode: "STANDALONE",
			ProcessorType: "SHELL", Processor: "true", MaxInstances: 1, TaskConcurrency: 1, DispatchStrategy: "RANDOM", MisfirePolicy: "SKIP"}
		if err := d.JobCreate(ctx, job); err != nil {
			t.Fatal(err)
		}
		other := &db.Job{AppID: app.ID, Name: "k", Enabled: true, ScheduleType: "API", TimeZone: "UTC", ExecutionMode: "STANDALONE",
			ProcessorType: "SHELL", Processor: "true", MaxInstances: 1, TaskConcurrency: 1, DispatchStrategy: "RANDOM", MisfirePolicy: "SKIP"}
		if err := d.JobCreate(ctx, other); err != nil {
			t.Fatal(err)
		}
		h0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
		for i, c := range []struct {
			job    *db.Job
			at     time.Time
			status string
		}{
			{job, h0.Add(5 * time.Minute), db.StatusSucceeded},
			{job, h0.Add(50 * time.Minute), db.StatusFailed},
			{job, h0.Add(65 * time.Minute), db.StatusSucceeded},
			{job, h0.Add(-2 * time.Hour), db.StatusSucceeded}, // before the window
			{other, h0.Add(125 * time.Minute), db.StatusStopped},
		} {
			at := c.at
			in := &db.Instance{AppID: app.ID, JobID: c.job.ID, Status: c.status, TriggerType: "API", TriggerAt: at, FinishedAt: &at}
			if err := d.InstanceCreate(ctx, in); err != nil {
				t.Fatalf("%d: %v", i, err)
			}
		}
		got, err := d.InstanceOutcomes(ctx, app.ID, h0)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 3 || !got[0].Start.Equal(h0) || got[0].Succeeded != 1 || got[0].Failed != 1 ||
			!got[1].Start.Equal(h0.Add(time.Hour)) || got[1].Succeeded != 1 || got[2].Stopped != 1 {
			t.Fatalf("outcomes = %+v", got)
		}
		// One job's outcomes leave the app's other jobs out.
		got, err = d.JobOutcomes(ctx, other.ID, h0)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || !got[0].Start.Equal(h0.Add(2*time.Hour)) || got[0].Stopped != 1 || got[0].Succeeded+got[0].Failed != 0 {
			t.Fatalf("job outcomes = %+v", got)
		}
		got, err = d.JobOutcomes(ctx, job.ID, h0)
		if err != nil || len(got) != 2 || got[0].Succeeded != 1 || got[0].Failed != 1 || got[1].Succeeded != 1 {
			t.Fatalf("job outcomes = %+v, %v", got, err)
		}
	})
}
