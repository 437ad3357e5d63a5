// Package workflows is the workflow API behind the resolvers, on any
// server: it validates workflow definitions (every node and edge, with
// errors naming the field), saves each change as a new version, exports
// and imports definitions between environments, records runs (runWorkflow)
// and hands the operations on runs (stop, retry, rerun, approve…) to the
// engine (package workflow) through RunOps. It checks the caller's role on
// the workflow's app for every operation: VIEWER to read, EDITOR to change
// or run.
//
// Like package jobs, it never runs anything: it writes the database and
// tells the app's owner (Notifier) and the API's subscriptions (Feed) to
// look again.
package workflows

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/internal/clock"
	"github.com/jobwheel/jobwheel/server/api/alarm"
	"github.com/jobwheel/jobwheel/server/api/auth"
	"github.com/jobwheel/jobwheel/server/api/secrets"
	"github.com/jobwheel/jobwheel/server/platform/fault"
	"github.com/jobwheel/jobwheel/server/platform/netguard"
	"github.com/jobwheel/jobwheel/server/schedule"
)

// Store is what the service reads and writes outside transactions; saves
// run in InTx on a *db.Store.
type Store interface {
	InTx(ctx context.Context, fn func(ctx context.Context, tx *db.Store) error) error
	WorkflowGet(ctx context.Context, id int64) (*db.Workflow, error)
	WorkflowListByIDs(ctx context.Context, ids []int64) ([]db.Workflow, error)
	WorkflowList(ctx context.Context, f db.WorkflowFilter) ([]db.Workflow, bool, error)
	WorkflowCount(ctx context.Context, f db.WorkflowFilter) (int, error)
	WorkflowVersionListByWorkflows(ctx context.Context, workflowIDs []int64) ([]db.WorkflowVersion, error)
	WorkflowInstanceListLast(ctx context.Context, workflowIDs []int64) (map[int64]*db.WorkflowInstance, error)
	WorkflowInstanceCreate(ctx context.Context, r *db.WorkflowInstance) (bool, error)
	WorkflowInstanceCreateIdempotent(ctx context.Context, r *db.WorkflowInstance, since time.Time) (*db.WorkflowInstance, bool, error)
	WorkflowInstanceGet(ctx context.Context, id int64) (*db.WorkflowInstance, error)
	WorkflowInstanceListByIDs(ctx context.Context, ids []int64) ([]db.WorkflowInstance, error)
	WorkflowInstanceList(ctx context.Context, f db.WorkflowInstanceFilter) ([]db.WorkflowInstance, bool, error)
	WorkflowInstanceCount(ctx context.Context, f db.WorkflowInstanceFilter) (int, error)
	WorkflowNodeRunListByInstances(ctx context.Context, wiIDs []int64) ([]db.WorkflowNodeRun, error)
	InstanceListByWorkflowInstances(ctx context.Context, wiIDs []int64) ([]db.Instance, error)
	InstanceHydrate(ctx context.Context, list []db.Instance) error
	JobListByIDs(ctx context.Context, ids []int64) ([]db.Job, error)
	WorkflowLinkListByWorkflows(ctx context.Context, ids []int64) ([]db.WorkflowLink, error)
	WorkflowLinkListByJob(ctx context.Context, jobID int64) ([]db.WorkflowLink, error)
}

// Auth checks the caller's role on an app (package auth).
type Auth interface {
	Require(ctx context.Context, appID int64, role db.Role) error
}

// Apps finds apps as the caller may see them (package apps).
type Apps interface {
	ByName(ctx context.Context, name string, role db.Role) (*db.App, error)
	ByID(ctx context.Context, id int64, role db.Role) (*db.App, error)
	// Staying is ByID for an EDITOR's edit of an object of the app, refusing
	// one that names another app.
	Staying(ctx context.Context, id int64, named, what string) (*db.App, error)
}

// Notifier tells the owner of an app that its workflows or runs changed,
// as package jobs does for jobs (server/runtime/owned, through live.Feeds.Jobs).
type Notifier interface {
	// JobsChanged: a workflow's definition or schedule changed; the
	// trigger loop re-reads what is due.
	JobsChanged(appID int64)
	// InstancesChanged: an instance was recorded (or runs deleted); the trigger
	// loop reads WAITING runs.
	InstancesChanged(appID int64)
}

// Feed tells the API's subscriptions that instances changed (live.Feeds).
type Feed interface {
	WorkflowInstancesChanged(appID int64, wiIDs []int64)
}

// RunOps changes runs (package workflow).
type RunOps interface {
	Stop(ctx context.Context, wiID int64, by string) error
	Retry(ctx context.Context, wiID int64, by string) error
	MarkSucceeded(ctx context.Context, wiID int64, node, by string) error
	Rerun(ctx context.Context, wiID int64, node string, downstream bool, by string) error
	Pause(ctx context.Context, wiID int64, by string) error
	Resume(ctx context.Context, wiID int64, by string) error
	Approve(ctx context.Context, wiID int64, node string, approve bool, comment, by string) error
}

// Deps are the service's parts.
type Deps struct {
	Store    Store
	Auth     Auth
	Apps     Apps
	Notifier Notifier
	Feed     Feed
	// RunOps is the engine's run operations; nil on a server without one
	// (the operations then fail with an internal error).
	RunOps RunOps
	// Clock is the time source; nil is the system clock.
	Clock clock.Clock
	// Webhooks is the policy alarm URLs are checked against.
	Webhooks netguard.Policy
}

// Service is the workflow API.
type Service struct {
	store  Store
	auth   Auth
	apps   Apps
	notify Notifier
	feed   Feed
	ops    RunOps
	clock  clock.Clock
	hooks  netguard.Policy
}

// New returns a Service.
func New(d Deps) *Service {
	return &Service{store: d.Store, auth: d.Auth, apps: d.Apps, notify: d.Notifier, feed: d.Feed, ops: d.RunOps,
		clock: clock.OrSystem(d.Clock), hooks: d.Webhooks}
}

func (s *Service) now() time.Time { return db.Stamp(s.clock.Now()) }

// by names the caller in versions and run operations.
func by(ctx context.Context) string {
	if p := auth.FromContext(ctx); p != nil {
		return p.User.Username
	}
	return ""
}

// Get returns a workflow if the caller holds at least role on its app.
func (s *Service) Get(ctx context.Context, id int64, role db.Role) (*db.Workflow, error) {
	return auth.ReadInApp(ctx, s.auth, fmt.Sprintf("workflow %d", id), role,
		func(ctx context.Context) (*db.Workflow, error) { return s.store.WorkflowGet(ctx, id) },
		func(w *db.Workflow) int64 { return w.AppID })
}

// List returns a page of an app's workflows, newest first, and whether
// more follow.
func (s *Service) List(ctx context.Context, appName, search string, beforeID int64, limit int) ([]db.Workflow, bool, error) {
	app, err := s.apps.ByName(ctx, appName, db.RoleViewer)
	if err != nil {
		return nil, false, err
	}
	return s.store.WorkflowList(ctx, db.WorkflowFilter{AppID: app.ID, Search: search, BeforeID: beforeID, Limit: limit})
}

// Count counts an app's workflows matching search ("" for all).
func (s *Service) Count(ctx context.Context, appName, search string) (int, error) {
	app, err := s.apps.ByName(ctx, appName, db.RoleViewer)
	if err != nil {
		return 0, err
	}
	return s.store.WorkflowCount(ctx, db.WorkflowFilter{AppID: app.ID, Search: search})
}

// Create validates and saves a new workflow as its version 1.
func (s *Service) Create(ctx context.Context, in Input) (*db.Workflow, error) {
	app, err := s.apps.ByName(ctx, in.App, db.RoleEditor)
	if err != nil {
		return nil, asInput("app", err)
	}
	w := &db.Workflow{AppID: app.ID}
	err = s.store.InTx(ctx, func(ctx context.Context, tx *db.Store) error {
		spec, sch, err := s.check(ctx, tx, app.ID, 0, in)
		if err != nil {
			return err
		}
		w.Apply(*spec)
		w.NextTriggerAt = s.firstTrigger(spec.Enabled, sch)
		return tx.WorkflowCreate(ctx, w, by(ctx))
	})
	if err != nil {
		return nil, err
	}
	s.notify.JobsChanged(app.ID)
	return w, nil
}

// Update saves in as the workflow's next version. With expectedVersion,
// the save is refused (CONFLICT) unless the workflow is still at that
// version: an editor does not overwrite a save they have not seen.
func (s *Service) Update(ctx context.Context, id int64, in Input, expectedVersion *int) (*db.Workflow, error) {
	old, err := s.Get(ctx, id, db.RoleEditor)
	if err != nil {
		return nil, err
	}
	app, err := s.apps.Staying(ctx, old.AppID, in.App, "workflow")
	if err != nil {
		return nil, err
	}
	var w *db.Workflow
	err = s.store.InTx(ctx, func(ctx context.Context, tx *db.Store) error {
		cur, err := tx.WorkflowGet(ctx, id)
		if err != nil {
			return notFound(err, fmt.Sprintf("workflow %d", id))
		}
		if expectedVersion != nil && *expectedVersion != cur.Version {
			return fault.Conflict("workflow %q is at version %d, not %d: it was saved meanwhile; load it again and redo the change", cur.Name, cur.Version, *expectedVersion)
		}
		// Channel URLs sent back as the API showed them keep their stored
		// values.
		if in.Alarm != nil {
			kept := secrets.KeepAlarm(*in.Alarm, cur.Alarm)
			in.Alarm = &kept
		}
		w, err = s.save(ctx, tx, cur, in)
		return err
	})
	if err != nil {
		return nil, err
	}
	s.notify.JobsChanged(app.ID)
	return w, nil
}

// save validates in against the app as it is now and saves it as cur's
// next version, in tx (which holds the app's lock when save returns).
func (s *Service) save(ctx context.Context, tx *db.Store, cur *db.Workflow, in Input) (*db.Workflow, error) {
	spec, sch, err := s.check(ctx, tx, cur.AppID, cur.ID, in)
	if err != nil {
		return nil, err
	}
	if sameSpec(cur.Spec(), *spec) {
		// No change, no version (issue 26, item 5): the current one stands,
		// with its schedule.
		return cur, nil
	}
	w := *cur
	w.Apply(*spec)
	return &w, s.UpdateIn(ctx, tx, cur, &w, sch)
}

// UpdateIn saves w, cur with a spec CheckIn returned applied (and its
// managed set as the caller wants it), as cur's next version in tx.
func (s *Service) UpdateIn(ctx context.Context, tx *db.Store, cur, w *db.Workflow, sch *schedule.Schedule) error {
	w.NextTriggerAt = s.firstTrigger(w.Enabled, sch)
	if err := tx.WorkflowUpdate(ctx, w, cur.Version, by(ctx)); err != nil {
		if errors.Is(err, db.ErrConflict) {
			return fault.Conflict("workflow %q was saved meanwhile; load it again and redo the change", cur.Name)
		}
		return err
	}
	// Runs recorded ahead under the old schedule are dropped; the new one
	// records its own.
	return tx.WorkflowInstanceDeleteFutureScheduled(ctx, w.ID, s.now())
}

// CheckIn validates in as a workflow of app in tx, against the app's jobs
// and workflows as tx sees them (those created earlier in it included);
// self is the workflow it would replace (0: a new one). It takes the app's
// lock in tx.
func (s *Service) CheckIn(ctx context.Context, tx *db.Store, app *db.App, self int64, in Input) (*db.WorkflowSpec, *schedule.Schedule, error) {
	return s.check(ctx, tx, app.ID, self, in)
}

// CreateIn stores w (its app and spec set, with CheckIn's schedule) as a
// new workflow's version 1 in tx.
func (s *Service) CreateIn(ctx context.Context, tx *db.Store, w *db.Workflow, sch *schedule.Schedule) error {
	w.NextTriggerAt = s.firstTrigger(w.Enabled, sch)
	return tx.WorkflowCreate(ctx, w, by(ctx))
}

// sameSpec says whether two definitions are the same, as saved.
func sameSpec(a, b db.WorkflowSpec) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && bytes.Equal(ja, jb)
}

// check takes the app's lock in tx and validates in for the workflow self
// (0: a new one) against the app's jobs and workflows as they are now.
func (s *Service) check(ctx context.Context, tx *db.Store, appID, self int64, in Input) (*db.WorkflowSpec, *schedule.Schedule, error) {
	if err := tx.AppLock(ctx, appID); err != nil {
		return nil, nil, err
	}
	app, err := tx.AppGet(ctx, appID)
	if err != nil {
		return nil, nil, err
	}
	cat := &catalog{appID: appID, self: self, jobs: map[int64]*db.Job{}, workflows: map[int64]*db.Workflow{}, budget: app.WorkflowBudget}
	all, err := tx.WorkflowListByApp(ctx, appID)
	if err != nil {
		return nil, nil, err
	}
	for i := range all {
		cat.workflows[all[i].ID] = &all[i]
	}
	byName, err := resolveNodeNames(ctx, tx, appID, all, &in)
	if err != nil {
		return nil, nil, err
	}
	var jobIDs []int64
	for _, n := range in.Nodes {
		if n.JobID != nil {
			jobIDs = append(jobIDs, *n.JobID)
		}
	}
	jobs, err := tx.JobListByIDs(ctx, jobIDs)
	if err != nil {
		return nil, nil, err
	}
	for i := range jobs {
		cat.jobs[jobs[i].ID] = &jobs[i]
	}
	pools, err := tx.PoolList(ctx, appID)
	if err != nil {
		return nil, nil, err
	}
	cat.pools = make(map[string]*db.Pool, len(pools))
	for i := range pools {
		cat.pools[pools[i].Name] = &pools[i]
	}
	spec, sch, err := validate(in, cat)
	if err != nil {
		return nil, nil, byName.rename(err)
	}
	switch {
	case in.Alarm != nil:
		if spec.Alarm, err = alarm.Check(*in.Alarm, s.hooks, true); err != nil {
			return nil, nil, err
		}
	case cat.workflows[self] != nil:
		spec.Alarm = cat.workflows[self].Alarm
	}
	for _, w := range all {
		if w.Name == spec.Name && w.ID != self {
			return nil, nil, fault.BadInput("name", "the app already has a workflow named %q", spec.Name)
		}
	}
	return spec, sch, nil
}

// SetBudget sets the app's workflow budget: what one instance may create
// across its nested instances, node rows and FOREACH elements (OWNER).
// Instances already started keep the budget they started with.
func (s *Service) SetBudget(ctx context.Context, appName string, budget int) (*db.App, error) {
	app, err := s.apps.ByName(ctx, appName, db.RoleOwner)
	if err != nil {
		return nil, err
	}
	if budget < 1 || budget > MaxBudget {
		return nil, fault.BadInput("budget", "%d is out of range 1 to %d (node rows and FOREACH elements one instance may create)", budget, MaxBudget)
	}
	err = s.store.InTx(ctx, func(ctx context.Context, tx *db.Store) error {
		return tx.AppSetWorkflowBudget(ctx, app.ID, budget)
	})
	if err != nil {
		return nil, err
	}
	app.WorkflowBudget = budget
	return app, nil
}

// firstTrigger is a workflow's first scheduled run from now, or nil.
func (s *Service) firstTrigger(enabled bool, sch *schedule.Schedule) *time.Time {
	if !enabled || !sch.Fires() {
		return nil
	}
	t, ok := sch.Next(s.now())
	if !ok {
		return nil
	}
	return &t
}

// SetEnabled turns a workflow's schedule on (from now on) or off. It is
// not a new version: the definition does not change.
func (s *Service) SetEnabled(ctx context.Context, id int64, enabled bool) (*db.Workflow, error) {
	w, err := s.Get(ctx, id, db.RoleEditor)
	if err != nil {
		return nil, err
	}
	sch, err := schedule.Parse(schedule.Spec{Type: w.ScheduleType, Expression: w.ScheduleExpression, TimeZone: w.TimeZone})
	if err != nil {
		return nil, err
	}
	next := s.firstTrigger(enabled, sch)
	err = s.store.InTx(ctx, func(ctx context.Context, tx *db.Store) error {
		if err := tx.WorkflowSetEnabled(ctx, id, enabled, next); err != nil {
			return notFound(err, fmt.Sprintf("workflow %d", id))
		}
		return tx.WorkflowInstanceDeleteFutureScheduled(ctx, id, s.now())
	})
	if err != nil {
		return nil, err
	}
	s.notify.JobsChanged(w.AppID)
	return s.store.WorkflowGet(ctx, id)
}

// Restore saves an earlier version's definition as the workflow's next
// version. Whether the workflow is enabled stays as it is now. The
// definition is validated again: a job it ran may be gone since.
func (s *Service) Restore(ctx context.Context, id int64, version int) (*db.Workflow, error) {
	cur, err := s.Get(ctx, id, db.RoleEditor)
	if err != nil {
		return nil, err
	}
	var w *db.Workflow
	err = s.store.InTx(ctx, func(ctx context.Context, tx *db.Store) error {
		v, err := tx.WorkflowVersionGet(ctx, id, version)
		if errors.Is(err, db.ErrNotFound) {
			return fault.BadInput("version", "workflow %q has no version %d", cur.Name, version)
		}
		if err != nil {
			return err
		}
		if cur, err = tx.WorkflowGet(ctx, id); err != nil {
			return notFound(err, fmt.Sprintf("workflow %d", id))
		}
		in := inputOf(v.Spec)
		in.Enabled = &cur.Enabled
		w, err = s.save(ctx, tx, cur, in)
		var bad *fault.Input
		if errors.As(err, &bad) {
			return fault.BadInput("version", "version %d cannot be restored as it is: %s", version, bad.Error())
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	s.notify.JobsChanged(w.AppID)
	return w, nil
}

// Delete deletes a workflow with its versions and runs. It is refused
// (CONFLICT) while another workflow nests it, and while an instance of it is
// RUNNING or PAUSED: stop those first. Runs not started yet go with it.
func (s *Service) Delete(ctx context.Context, id int64) error {
	w, err := s.Get(ctx, id, db.RoleEditor)
	if err != nil {
		return err
	}
	err = s.store.InTx(ctx, func(ctx context.Context, tx *db.Store) error { return DeleteIn(ctx, tx, w) })
	if err != nil {
		return err
	}
	s.notify.JobsChanged(w.AppID)
	s.notify.InstancesChanged(w.AppID)
	return nil
}

// GetMany returns the workflows among ids whose app the caller holds at
// least role on, by id; the others are missing (the API's loaders).
func (s *Service) GetMany(ctx context.Context, ids []int64, role db.Role) (map[int64]*db.Workflow, error) {
	list, err := s.store.WorkflowListByIDs(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make(map[int64]*db.Workflow, len(list))
	may := s.mayer(ctx, role)
	for i := range list {
		ok, err := may(list[i].AppID)
		if err != nil {
			return nil, err
		}
		if ok {
			out[list[i].ID] = &list[i]
		}
	}
	return out, nil
}

// mayer answers "may the caller act with role on app N", once per app.
func (s *Service) mayer(ctx context.Context, role db.Role) func(appID int64) (bool, error) {
	allowed := map[int64]bool{}
	return func(appID int64) (bool, error) {
		if ok, seen := allowed[appID]; seen {
			return ok, nil
		}
		err := s.auth.Require(ctx, appID, role)
		switch {
		case err == nil:
			allowed[appID] = true
		case errors.Is(err, fault.ErrNotFound), errors.Is(err, fault.ErrForbidden):
			allowed[appID] = false
		default:
			return false, err
		}
		return allowed[appID], nil
	}
}

// VersionsMany returns the versions of workflows the caller already read,
// newest first.
func (s *Service) VersionsMany(ctx context.Context, ids []int64) (map[int64][]db.WorkflowVersion, error) {
	list, err := s.store.WorkflowVersionListByWorkflows(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make(map[int64][]db.WorkflowVersion, len(ids))
	for _, v := range list {
		out[v.WorkflowID] = append(out[v.WorkflowID], v)
	}
	return out, nil
}

// LastRunsMany returns the newest started top-level run of each of
// workflows the caller already read (those never run are missing).
func (s *Service) LastRunsMany(ctx context.Context, ids []int64) (map[int64]*db.WorkflowInstance, error) {
	return s.store.WorkflowInstanceListLast(ctx, ids)
}

// JobsMany returns the jobs among ids the caller may see (the jobs of
// workflow nodes; one gone since is missing).
func (s *Service) JobsMany(ctx context.Context, ids []int64) (map[int64]*db.Job, error) {
	list, err := s.store.JobListByIDs(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make(map[int64]*db.Job, len(list))
	may := s.mayer(ctx, db.RoleViewer)
	for i := range list {
		ok, err := may(list[i].AppID)
		if err != nil {
			return nil, err
		}
		if ok {
			out[list[i].ID] = &list[i]
		}
	}
	return out, nil
}

func asInput(field string, err error) error {
	if errors.Is(err, fault.ErrNotFound) {
		return &fault.Input{Field: field, Reason: err.Error()}
	}
	return err
}

func notFound(err error, what string) error {
	if errors.Is(err, db.ErrNotFound) {
		return fault.NotFound(what)
	}
	return err
}

func joinAnd(list []string) string {
	switch len(list) {
	case 0:
		return ""
	case 1:
		return list[0]
	}
	out := ""
	for i, s := range list {
		switch {
		case i == 0:
			out = s
		case i == len(list)-1:
			out += " and " + s
		default:
			out += ", " + s
		}
	}
	return out
}

// DeleteIn deletes w in tx, as Delete does: CONFLICT while another
// workflow nests it or a run of it is RUNNING or PAUSED.
func DeleteIn(ctx context.Context, tx *db.Store, w *db.Workflow) error {
	id := w.ID
	if err := tx.AppLock(ctx, w.AppID); err != nil {
		return err
	}
	all, err := tx.WorkflowListByApp(ctx, w.AppID)
	if err != nil {
		return err
	}
	var nesting []string
	for _, o := range all {
		if o.ID == id {
			continue
		}
		for _, n := range o.Graph.Nodes {
			if n.Type == db.NodeNested && n.WorkflowID == id {
				nesting = append(nesting, fmt.Sprintf("%q (node %q)", o.Name, n.Key))
			}
		}
	}
	if len(nesting) > 0 {
		return fault.Conflict("workflow %q is nested by %s; remove those nodes first", w.Name, joinAnd(nesting))
	}
	deleted, err := tx.WorkflowDeleteIdle(ctx, id)
	if err != nil {
		return err
	}
	if !deleted {
		if _, err := tx.WorkflowGet(ctx, id); err != nil {
			return notFound(err, fmt.Sprintf("workflow %d", id))
		}
		return fault.Conflict("workflow %q has runs that are RUNNING or PAUSED; stop them first (stopWorkflowInstance)", w.Name)
	}
	return nil
}
