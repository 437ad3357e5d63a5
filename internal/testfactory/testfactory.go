// Package testfactory inserts the rows tests build on — apps, jobs,
// instances, tasks, workflows — with defaults that make a valid row, so a
// test states only what it is about. It is River's testfactory, written
// for this project:
//
//	app := testfactory.App(t, d, nil)
//	job := testfactory.Job(t, d, app.ID, &testfactory.JobOpts{Name: "sync"})
//	in := testfactory.Instance(t, d, job, &testfactory.InstanceOpts{Status: db.StatusRunning})
//
// Each function takes *db.DB or a transaction's *db.Store, fails the test
// on an error, and returns the row with its id set.
package testfactory

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/jobwheel/jobwheel/db"
)

// TB is the part of testing.TB the factory uses.
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
}

// Store is what the factory writes with: *db.DB or *db.Store.
type Store interface {
	AppCreate(ctx context.Context, a *db.App) error
	JobCreate(ctx context.Context, j *db.Job) error
	InstanceCreate(ctx context.Context, in *db.Instance) error
	TaskCreateMany(ctx context.Context, list []db.Task) error
	WorkflowCreate(ctx context.Context, w *db.Workflow, createdBy string) error
}

var seq atomic.Int64

// unique returns prefix-N, unique in the process.
func unique(prefix string) string { return fmt.Sprintf("%s-%d", prefix, seq.Add(1)) }

// AppOpts are an app's fields a test may set; zero values get defaults.
type AppOpts struct {
	Name       string // default app-N
	SecretHash string // default "x" (no worker can authenticate)
}

// App inserts an app.
func App(tb TB, s Store, o *AppOpts) *db.App {
	tb.Helper()
	if o == nil {
		o = &AppOpts{}
	}
	a := &db.App{Name: or(o.Name, unique("app")), SecretHash: or(o.SecretHash, "x")}
	if err := s.AppCreate(context.Background(), a); err != nil {
		tb.Fatalf("testfactory: creating app %q: %v", a.Name, err)
	}
	return a
}

// JobOpts are a job's fields a test may set; zero values get defaults.
type JobOpts struct {
	Name               string // default job-N
	Disabled           bool
	ScheduleType       string // default API
	ScheduleExpression string
	TimeZone           string // default UTC
	ExecutionMode      string // default STANDALONE
	ProcessorType      string // default SHELL
	Processor          string // default "true"
	MaxInstances       int    // default 1
	TaskConcurrency    int    // default 1
	DispatchStrategy   string // default RANDOM
	MisfirePolicy      string // default FIRE_ONCE
	NextTriggerAt      *time.Time
	Alarm              db.Alarm
	// Edit, if set, changes the job last, for any field not above.
	Edit func(*db.Job)
}

// Job inserts a job of the app.
func Job(tb TB, s Store, appID int64, o *JobOpts) *db.Job {
	tb.Helper()
	if o == nil {
		o = &JobOpts{}
	}
	j := &db.Job{
		AppID: appID, Name: or(o.Name, unique("job")), Enabled: !o.Disabled,
		ScheduleType: or(o.ScheduleType, db.ScheduleAPI), ScheduleExpression: o.ScheduleExpression,
		TimeZone: or(o.TimeZone, "UTC"), ExecutionMode: or(o.ExecutionMode, db.ModeStandalone),
		ProcessorType: or(o.ProcessorType, db.ProcessorShell), Processor: or(o.Processor, "true"),
		MaxInstances: orInt(o.MaxInstances, 1), TaskConcurrency: orInt(o.TaskConcurrency, 1),
		DispatchStrategy: or(o.DispatchStrategy, db.DispatchRandom), MisfirePolicy: or(o.MisfirePolicy, db.MisfireFireOnce),
		NextTriggerAt: o.NextTriggerAt, Alarm: o.Alarm,
	}
	if o.Edit != nil {
		o.Edit(j)
	}
	if err := s.JobCreate(context.Background(), j); err != nil {
		tb.Fatalf("testfactory: creating job %q: %v", j.Name, err)
	}
	return j
}

// InstanceOpts are an instance's fields a test may set.
type InstanceOpts struct {
	Status      string // default WAITING
	TriggerType string // default API
	TriggerAt   time.Time
	WorkerID    string
	// Edit, if set, changes the instance last.
	Edit func(*db.Instance)
}

// Instance inserts an instance of the job.
func Instance(tb TB, s Store, job *db.Job, o *InstanceOpts) *db.Instance {
	tb.Helper()
	if o == nil {
		o = &InstanceOpts{}
	}
	at := o.TriggerAt
	if at.IsZero() {
		at = db.Now()
	}
	in := &db.Instance{AppID: job.AppID, JobID: job.ID, Status: or(o.Status, db.StatusWaiting),
		TriggerType: or(o.TriggerType, "API"), TriggerAt: at}
	if o.WorkerID != "" {
		in.WorkerID = new(o.WorkerID)
	}
	if o.Edit != nil {
		o.Edit(in)
	}
	if err := s.InstanceCreate(context.Background(), in); err != nil {
		tb.Fatalf("testfactory: creating an instance of job %d: %v", job.ID, err)
	}
	return in
}

// Tasks inserts tasks of the instance's current attempt, named and kinded
// ROOT unless edit says otherwise.
func Tasks(tb TB, s Store, in *db.Instance, n int, status string, edit func(i int, t *db.Task)) []db.Task {
	tb.Helper()
	list := make([]db.Task, n)
	for i := range list {
		list[i] = db.Task{InstanceID: in.ID, InstanceAttempt: max(in.Attempt, 1), Name: "ROOT", Kind: "ROOT", Status: status}
		if edit != nil {
			edit(i, &list[i])
		}
	}
	if err := s.TaskCreateMany(context.Background(), list); err != nil {
		tb.Fatalf("testfactory: creating %d tasks of instance %d: %v", n, in.ID, err)
	}
	return list
}

// WorkflowOpts are a workflow's fields a test may set.
type WorkflowOpts struct {
	Name  string // default workflow-N
	Nodes []db.WorkflowNode
	Edges []db.WorkflowEdge
	// Edit, if set, changes the workflow last.
	Edit func(*db.Workflow)
}

// Workflow inserts a workflow of the app (an API-scheduled one, enabled).
func Workflow(tb TB, s Store, appID int64, o *WorkflowOpts) *db.Workflow {
	tb.Helper()
	if o == nil {
		o = &WorkflowOpts{}
	}
	w := &db.Workflow{AppID: appID, Name: or(o.Name, unique("workflow")), Enabled: true, ScheduleType: db.ScheduleAPI,
		TimeZone: "UTC", MaxInstances: 1, Graph: db.WorkflowGraph{Nodes: o.Nodes, Edges: o.Edges}}
	if o.Edit != nil {
		o.Edit(w)
	}
	if err := s.WorkflowCreate(context.Background(), w, "testfactory"); err != nil {
		tb.Fatalf("testfactory: creating workflow %q: %v", w.Name, err)
	}
	return w
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func orInt(n, def int) int {
	if n == 0 {
		return def
	}
	return n
}
