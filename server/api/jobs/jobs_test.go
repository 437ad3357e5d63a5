package jobs_test

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/db/dbtest"
	"github.com/jobwheel/jobwheel/internal/clock"
	"github.com/jobwheel/jobwheel/server/api/apps"
	"github.com/jobwheel/jobwheel/server/api/auth"
	"github.com/jobwheel/jobwheel/server/api/jobs"
	"github.com/jobwheel/jobwheel/server/platform/fault"
)

// These tests drive the job API's service on a real database, on both
// dialects, with a fixed clock: admin, an EDITOR (eve), a VIEWER (vic) of
// app "a", and app "b" that neither can see.

var now = time.Date(2030, 6, 1, 12, 0, 0, 0, time.UTC)

// notifier records what the owner is told.
type notifier struct {
	mu        sync.Mutex
	jobs, ins int
}

func (n *notifier) JobsChanged(int64) {
	n.mu.Lock()
	n.jobs++
	n.mu.Unlock()
}

func (n *notifier) InstancesChanged(int64) {
	n.mu.Lock()
	n.ins++
	n.mu.Unlock()
}

func (n *notifier) InstanceCreated(*db.Instance) { n.InstancesChanged(0) }

type world struct {
	d             *db.DB
	svc           *jobs.Service
	note          *notifier
	admin, ed, vi context.Context
	a, b          *db.App
	clk           *clock.Fake
}

func login(t *testing.T, a *auth.Service, user, pw string) context.Context {
	t.Helper()
	tok, _, _, err := a.Login(context.Background(), user, pw)
	if err != nil {
		t.Fatal(err)
	}
	p, err := a.Authenticate(context.Background(), tok)
	if err != nil {
		t.Fatal(err)
	}
	return auth.WithPrincipal(context.Background(), p)
}

func newWorld(t *testing.T, d *db.DB) *world {
	t.Helper()
	clk := clock.NewFake(now)
	a := auth.New(auth.Config{Clock: clk}, d, slog.New(slog.DiscardHandler))
	if _, err := a.EnsureAdmin(context.Background(), "admin-password"); err != nil {
		t.Fatal(err)
	}
	w := &world{d: d, note: &notifier{}, admin: login(t, a, "admin", "admin-password"), clk: clk}
	appSvc := apps.New(d, a, clk)
	for _, u := range []string{"eve", "vic"} {
		if _, err := a.CreateUser(w.admin, u, "password-1", false); err != nil {
			t.Fatal(err)
		}
	}
	var err error
	if w.a, _, err = appSvc.Create(w.admin, "a", ""); err != nil {
		t.Fatal(err)
	}
	if w.b, _, err = appSvc.Create(w.admin, "b", ""); err != nil {
		t.Fatal(err)
	}
	for u, r := range map[string]db.Role{"eve": db.RoleEditor, "vic": db.RoleViewer} {
		if _, err := appSvc.SetRole(w.admin, "a", u, &r); err != nil {
			t.Fatal(err)
		}
	}
	w.ed, w.vi = login(t, a, "eve", "password-1"), login(t, a, "vic", "password-1")
	w.svc = jobs.New(jobs.Deps{Store: d, Auth: a, Apps: appSvc, Notifier: w.note, Clock: clk})
	return w
}

func cronJob(app, name string) jobs.Input {
	return jobs.Input{App: app, Name: name, ScheduleType: db.ScheduleCron, ScheduleExpression: new("0 0 * * * ?"),
		ProcessorType: db.ProcessorShell, Processor: "echo hi"}
}

func wantBadInput(t *testing.T, what string, err error, field string) {
	t.Helper()
	var in *fault.Input
	if !errors.As(err, &in) || in.Field != field {
		t.Fatalf("%s: got %v, want BAD_INPUT on %s", what, err, field)
	}
}

// Create fills the defaults and computes the first fire from the clock;
// an edit recomputes it; disabling clears it.
func TestCreateUpdateEnable(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		w := newWorld(t, d)
		j, err := w.svc.Create(w.ed, cronJob("a", "hourly"))
		if err != nil {
			t.Fatal(err)
		}
		if j.MaxInstances != 1 || j.ExecutionMode != db.ModeStandalone || j.MisfirePolicy != db.MisfireFireOnce || !j.Enabled {
			t.Fatalf("defaults: %+v", j)
		}
		if want := now.Add(time.Hour); j.NextTriggerAt == nil || !j.NextTriggerAt.Equal(want) {
			t.Fatalf("first fire %v; want %v (the next full hour)", j.NextTriggerAt, want)
		}
		in := cronJob("a", "hourly")
		in.ScheduleExpression = new("0 30 * * * ?")
		j, err = w.svc.Update(w.ed, j.ID, in)
		if err != nil {
			t.Fatal(err)
		}
		if want := now.Add(30 * time.Minute); !j.NextTriggerAt.Equal(want) {
			t.Fatalf("after the edit: first fire %v; want %v", j.NextTriggerAt, want)
		}
		j, err = w.svc.SetEnabled(w.ed, j.ID, false)
		if err != nil || j.Enabled || j.NextTriggerAt != nil {
			t.Fatalf("disabled: %+v, %v; want no next fire", j, err)
		}
		if w.note.jobs != 3 {
			t.Fatalf("the owner was told %d times; want once per change", w.note.jobs)
		}
		_, err = w.svc.Create(w.ed, cronJob("a", "hourly"))
		wantBadInput(t, "a second job of the same name", err, "name")
	})
}

// Bad input names its field, and nothing is saved.
func TestBadInputNamesTheField(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		w := newWorld(t, d)
		for field, mutate := range map[string]func(*jobs.Input){
			"name":               func(in *jobs.Input) { in.Name = "bad\x00name" },
			"scheduleExpression": func(in *jobs.Input) { in.ScheduleExpression = new("* * * * *") },
			"timeZone":           func(in *jobs.Input) { in.TimeZone = new("Mars/Olympus") },
			"processorType":      func(in *jobs.Input) { in.ProcessorType = "COBOL" },
			"maxInstances":       func(in *jobs.Input) { in.MaxInstances = new(0) },
			"misfirePolicy":      func(in *jobs.Input) { in.MisfirePolicy = new("SOMETIMES") },
		} {
			in := cronJob("a", "x")
			mutate(&in)
			_, err := w.svc.Create(w.ed, in)
			wantBadInput(t, field, err, field)
		}
		if page, err := w.svc.List(w.admin, "a", "", 0, 100); err != nil || len(page.Jobs) != 0 {
			t.Fatalf("after refused creates: %d jobs, %v; want none", len(page.Jobs), err)
		}
	})
}

// A viewer reads but cannot change or run; an app the caller has no role
// on does not exist for them.
func TestRights(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		w := newWorld(t, d)
		j, err := w.svc.Create(w.admin, cronJob("a", "j"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.svc.Get(w.vi, j.ID, db.RoleViewer); err != nil {
			t.Fatalf("viewer reads: %v", err)
		}
		if _, err := w.svc.Run(w.vi, j.ID, "", 0, nil); !errors.Is(err, fault.ErrForbidden) {
			t.Fatalf("viewer runs: %v; want FORBIDDEN", err)
		}
		if _, err := w.svc.SetEnabled(w.vi, j.ID, false); !errors.Is(err, fault.ErrForbidden) {
			t.Fatalf("viewer disables: %v; want FORBIDDEN", err)
		}
		other, err := w.svc.Create(w.admin, cronJob("b", "hidden"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.svc.Get(w.ed, other.ID, db.RoleViewer); !errors.Is(err, fault.ErrNotFound) {
			t.Fatalf("another app's job: %v; want NOT_FOUND", err)
		}
		_, err = w.svc.Create(w.ed, cronJob("b", "sneaky"))
		wantBadInput(t, "a job in an app without a role", err, "app")
	})
}

// Run records a WAITING instance (API, with its parameters and delay) and
// tells the owner; Stop ends it STOPPED; a second Stop is a conflict.
func TestRunAndStop(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		w := newWorld(t, d)
		j, err := w.svc.Create(w.ed, cronJob("a", "j"))
		if err != nil {
			t.Fatal(err)
		}
		in, err := w.svc.Run(w.ed, j.ID, "color=blue", 5*time.Second, nil)
		if err != nil {
			t.Fatal(err)
		}
		if in.Status != db.StatusWaiting || in.TriggerType != db.TriggerAPI || in.Params != "color=blue" || !in.TriggerAt.Equal(now.Add(5*time.Second)) {
			t.Fatalf("run: %+v", in)
		}
		if w.note.ins != 1 {
			t.Fatalf("the owner was told %d times of the run; want once", w.note.ins)
		}
		stopped, err := w.svc.Stop(w.ed, in.ID)
		if err != nil || stopped.Status != db.StatusStopped {
			t.Fatalf("stop: %+v, %v", stopped, err)
		}
		if _, err := w.svc.Stop(w.ed, in.ID); !errors.Is(err, fault.ErrConflict) {
			t.Fatalf("second stop: %v; want CONFLICT", err)
		}
	})
}

// A job, calendar or pool never moves to another app: an edit naming one is
// refused on "app", even by an admin who holds both, and nothing changes.
func TestEditCannotMoveApp(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		w := newWorld(t, d)
		j, err := w.svc.Create(w.admin, cronJob("a", "hourly"))
		if err != nil {
			t.Fatal(err)
		}
		_, err = w.svc.Update(w.admin, j.ID, cronJob("b", "hourly"))
		wantBadInput(t, "job to b", err, "app")
		c, err := w.svc.CreateCalendar(w.admin, jobs.CalendarInput{App: "a", Name: "holidays", Dates: []string{"2030-12-25"}})
		if err != nil {
			t.Fatal(err)
		}
		_, err = w.svc.UpdateCalendar(w.admin, c.ID, jobs.CalendarInput{App: "b", Name: "holidays", Dates: []string{"2030-12-25"}})
		wantBadInput(t, "calendar to b", err, "app")
		p, err := w.svc.CreatePool(w.admin, jobs.PoolInput{App: "a", Name: "gpu", Slots: 2})
		if err != nil {
			t.Fatal(err)
		}
		_, err = w.svc.UpdatePool(w.admin, p.ID, jobs.PoolInput{App: "b", Name: "gpu", Slots: 2})
		wantBadInput(t, "pool to b", err, "app")
		got, err := w.svc.Get(w.admin, j.ID, db.RoleViewer)
		if err != nil || got.AppID != w.a.ID {
			t.Fatalf("job after a refused move: %+v, %v", got, err)
		}
	})
}
