// Package owned runs what this server does for each app it holds the
// lease of: one App value per owned app, holding that app's worker
// registry (package hub), execution actor (package execution), workflow
// engine (package workflow) and trigger loop (package trigger), started
// together and stopped together.
//
// The lease manager (package lease) is the only one to create and stop
// them, through Apps, its listener: gaining a lease creates and starts the
// app's App under the lease's epoch, losing it stops exactly that App. The
// parts start in the order they depend on each other and stop in reverse:
//
//	workers   the registry accepts the app's workers' connections
//	actor     adopts the app's unfinished instances and runs them
//	workflows resumes the app's running workflow runs
//	trigger   records fires and puts them on the wheel
//	backfills makes backfills' runs as places free (package backfill)
//
// so on loss nothing fires any more before the actor stops, and the actor
// has stopped sending before the workers are redirected to the next owner.
// The parts talk to each other only through the App, which closes the
// loops between them: the trigger loop fires job instances into the actor
// and workflow runs into the engine; the engine creates node instances and
// fires them into the actor, which tells it when they end; the actor wakes
// the trigger loop and sends through the registry, which routes what
// workers send to the actor.
package owned

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/internal/lifecycle"
	"github.com/jobwheel/jobwheel/server/runtime/backfill"
	"github.com/jobwheel/jobwheel/server/runtime/execution"
	"github.com/jobwheel/jobwheel/server/runtime/hub"
	"github.com/jobwheel/jobwheel/server/runtime/trigger"
	"github.com/jobwheel/jobwheel/server/runtime/workflow"
	"github.com/jobwheel/jobwheel/worker/protocol"
)

// stopWait bounds how long stopping one part of an app waits for it. A part
// still in a database call that hangs (the likely reason the lease was
// lost) has its context cancelled and can no longer act: it ends by itself,
// and the lease manager must not be held up by it.
const stopWait = 2 * time.Second

// Deps are the server-wide parts every owned app uses.
type Deps struct {
	Trigger   *trigger.Service
	Execution execution.Deps
	ExecCfg   execution.Config
	Workflow  workflow.Deps
	// Backfill is the backfill drivers' tuning, BackfillStore and
	// BackfillFeed what they read and tell; a nil BackfillStore runs no
	// driver.
	Backfill      backfill.Config
	BackfillStore backfill.Store
	BackfillFeed  backfill.Notifier
	Log           *slog.Logger
}

// Apps is the set of apps this server runs now; it is the lease manager's
// listener.
type Apps struct {
	deps Deps

	mu   sync.Mutex
	apps map[int64]*App
}

// New returns an empty set.
func New(deps Deps) *Apps {
	return &Apps{deps: deps, apps: map[int64]*App{}}
}

// LeaseGained starts the app's parts under the lease's epoch.
func (s *Apps) LeaseGained(ctx context.Context, appID, epoch int64) {
	a := newApp(s.deps, appID, epoch)
	s.mu.Lock()
	old := s.apps[appID]
	s.apps[appID] = a
	s.mu.Unlock()
	if old != nil {
		old.stop()
	}
	if err := a.parts.Start(ctx); err != nil {
		// The parts start goroutines only; they do not fail. Should one,
		// the app is not run here, and its lease expires to another server.
		s.deps.Log.Error("owned: starting the app failed", "app", appID, "err", err)
		s.mu.Lock()
		if s.apps[appID] == a {
			delete(s.apps, appID)
		}
		s.mu.Unlock()
	}
}

// LeaseLost stops the app's parts in reverse order.
func (s *Apps) LeaseLost(appID int64) {
	s.mu.Lock()
	a := s.apps[appID]
	delete(s.apps, appID)
	s.mu.Unlock()
	if a != nil {
		a.stop()
	}
}

// Registry returns the worker registry of an app this server runs now
// (hub.Registries).
func (s *Apps) Registry(appID int64) (*hub.Registry, bool) {
	if a := s.get(appID); a != nil {
		return a.workers, true
	}
	return nil, false
}

// WorkflowHint routes a workflow.HintTopic hint (an API call changed a
// run, on any server) to the run's app's engine, if the app runs here.
func (s *Apps) WorkflowHint(_, data string) {
	appID, runID, ok := workflow.ParseHint(data)
	if !ok {
		return
	}
	if a := s.get(appID); a != nil {
		a.flows.WorkflowInstancesChanged([]int64{runID})
	}
}

// BackfillHint routes a backfill.HintTopic hint (a backfill was made or
// stopped, on any server) to the app's driver, if the app runs here.
func (s *Apps) BackfillHint(_, data string) {
	appID, ok := backfill.ParseHint(data)
	if !ok {
		return
	}
	if a := s.get(appID); a != nil && a.backfills != nil {
		a.backfills.Wake()
	}
}

// JobsChanged tells the app's actor and trigger loop, if the app runs here,
// that its jobs changed through the API on this server.
func (s *Apps) JobsChanged(appID int64) {
	if a := s.get(appID); a != nil {
		a.exec.JobsChanged()
		a.trigger.Wake()
	}
}

// InstancesChanged tells them that its instances changed through the API
// (a run, a stop, a retry): the trigger loop picks up new WAITING
// instances, the actor drops stopped ones.
func (s *Apps) InstancesChanged(appID int64) {
	if a := s.get(appID); a != nil {
		a.trigger.Wake()
		a.exec.Kick()
	}
}

// InstanceCreated hands a WAITING instance recorded through the API (runJob)
// to the app's actor, if the app runs here: at once if it is due, through
// the trigger loop's wheel if it is delayed. An app owned elsewhere finds
// it at its trigger loop's next pass.
func (s *Apps) InstanceCreated(in *db.Instance) {
	if a := s.get(in.AppID); a != nil {
		a.trigger.FireCreated(*in)
	}
}

func (s *Apps) get(appID int64) *App {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.apps[appID]
}

// App is what this server runs for one owned app, under one lease epoch.
type App struct {
	id, epoch int64
	log       *slog.Logger
	workers   *hub.Registry
	exec      *execution.Actor
	flows     *workflow.Engine
	trigger   *trigger.Loop
	backfills *backfill.Driver // nil: none
	parts     lifecycle.Group
}

func newApp(deps Deps, appID, epoch int64) *App {
	a := &App{id: appID, epoch: epoch, log: deps.Log}
	a.exec = execution.New(deps.ExecCfg, deps.Execution, appID, epoch, execution.Links{Sender: sender{a}, Waker: waker{a}, Runs: runs{a}})
	a.workers = hub.NewRegistry(appID, epoch, a.exec)
	a.flows = workflow.New(deps.Workflow, appID, epoch, a.exec)
	a.trigger = deps.Trigger.NewLoop(appID, a.exec, a.flows)
	a.parts.Add("worker registry", a.workers)
	a.parts.Add("execution actor", a.exec)
	a.parts.Add("workflow engine", a.flows)
	a.parts.Add("trigger loop", a.trigger)
	if deps.BackfillStore != nil {
		a.backfills = backfill.New(deps.Backfill, deps.BackfillStore, made{a}, deps.BackfillFeed, deps.Log, appID, deps.Workflow.ServerID, epoch)
		a.parts.Add("backfill driver", a.backfills)
	}
	return a
}

// stop stops the parts in reverse order, each given stopWait.
func (a *App) stop() {
	a.parts.StopEachWithin(stopWait, func(part string) {
		a.log.Warn("owned: a part of the app is still in a database call; leaving it to end by itself", "app", a.id, "part", part)
	})
}

// sender lets the actor send through the registry, which is made after it.
type sender struct{ a *App }

func (s sender) Send(workerID, typ string, body any, onReply func(*protocol.Ack, error)) error {
	return s.a.workers.Send(workerID, typ, body, onReply)
}

func (s sender) Workers() []hub.WorkerInfo { return s.a.workers.Workers() }

// waker lets the actor wake the trigger loop, which is made after it.
type waker struct{ a *App }

func (w waker) Wake()                           { w.a.trigger.Wake() }
func (w waker) Unfired(instanceIDs []int64)     { w.a.trigger.Unfired(instanceIDs) }
func (w waker) FiresTaken(ids, waiting []int64) { w.a.trigger.FiresTaken(ids, waiting) }

// runs lets the actor tell the workflow engine, which is made after it,
// that node instances ended.
type runs struct{ a *App }

func (r runs) WorkflowInstancesChanged(runIDs []int64) { r.a.flows.WorkflowInstancesChanged(runIDs) }

// made hands the runs a backfill made to the parts that run them.
type made struct{ a *App }

func (m made) WorkflowRunsMade(wiIDs []int64) { m.a.flows.WorkflowInstancesChanged(wiIDs) }

func (m made) InstancesMade(list []db.Instance) {
	for i := range list {
		m.a.trigger.FireCreated(list[i])
	}
}
