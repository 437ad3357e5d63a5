// Package apply is configuration as code on the server: it applies a
// managed set of apps' calendars, jobs and workflows — what a directory of
// YAML files declares (docs/config-as-code.md; `jobwheel apply`, the
// applyConfig mutation) — in one transaction, so a bad document changes
// nothing. Each object is created, updated where it differs, or left alone,
// and marked as managed by the file set; with prune, the set's objects the
// input no longer declares are deleted. A dry run does all of it and rolls
// it back, so its answer is exactly what an apply would do.
//
// Ownership: an object another file set manages is taken over only when
// asked (adopt), and one declared in a worker's code (package jobs,
// Declare) never: each would overwrite the other. An object made through
// the API or console joins the set.
//
// Validation and writes are the job and workflow services'; this package
// orders them, compares, and decides what is whose.
package apply

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/server/api/jobs"
	"github.com/jobwheel/jobwheel/server/api/workflows"
	"github.com/jobwheel/jobwheel/server/platform/fault"
	"github.com/jobwheel/jobwheel/server/platform/text"
	"github.com/jobwheel/jobwheel/server/schedule"
)

// Object kinds (ConfigKind).
const (
	KindCalendar = "CALENDAR"
	KindJob      = "JOB"
	KindWorkflow = "WORKFLOW"
)

// Actions on an object (ConfigAction).
const (
	ActionCreate    = "CREATE"
	ActionUpdate    = "UPDATE"
	ActionUnchanged = "UNCHANGED"
	ActionDelete    = "DELETE"
)

// MaxSetChars bounds a set's name (the managed_by columns' width).
const MaxSetChars = 128

// Store runs the transaction.
type Store interface {
	InTx(ctx context.Context, fn func(ctx context.Context, tx *db.Store) error) error
}

// Apps finds the caller's apps (package apps).
type Apps interface {
	ByName(ctx context.Context, name string, role db.Role) (*db.App, error)
}

// Jobs validates and writes jobs and calendars in a transaction (package
// jobs).
type Jobs interface {
	BuildIn(ctx context.Context, tx *db.Store, app *db.App, in jobs.Input) (*db.Job, string, error)
	CreateIn(ctx context.Context, tx *db.Store, j *db.Job, calendar, change string, earlier ...db.JobVersion) error
	UpdateIn(ctx context.Context, tx *db.Store, old, j *db.Job, calendar, change string) error
	Differences(ctx context.Context, tx *db.Store, old, j *db.Job, calendar string) ([]string, error)
	CreateCalendarIn(ctx context.Context, tx *db.Store, c *db.Calendar) error
	UpdateCalendarIn(ctx context.Context, tx *db.Store, c *db.Calendar) error
	DeleteCalendarIn(ctx context.Context, tx *db.Store, c *db.Calendar) error
}

// Workflows validates and writes workflows in a transaction (package
// workflows).
type Workflows interface {
	CheckIn(ctx context.Context, tx *db.Store, app *db.App, self int64, in workflows.Input) (*db.WorkflowSpec, *schedule.Schedule, error)
	CreateIn(ctx context.Context, tx *db.Store, w *db.Workflow, sch *schedule.Schedule) error
	UpdateIn(ctx context.Context, tx *db.Store, cur, w *db.Workflow, sch *schedule.Schedule) error
}

// Notifier tells the owner of an app that its jobs, workflows or
// instances changed.
type Notifier interface {
	JobsChanged(appID int64)
	InstancesChanged(appID int64)
}

// Deps are the service's parts.
type Deps struct {
	Store     Store
	Apps      Apps
	Jobs      Jobs
	Workflows Workflows
	Notifier  Notifier
}

// Service applies managed sets.
type Service struct {
	store     Store
	apps      Apps
	jobs      Jobs
	workflows Workflows
	notify    Notifier
}

// New returns a Service.
func New(d Deps) *Service {
	return &Service{store: d.Store, apps: d.Apps, jobs: d.Jobs, workflows: d.Workflows, notify: d.Notifier}
}

// Input is a managed set as applyConfig receives it.
type Input struct {
	// Set names the file set; Apps are the apps it covers: every object's
	// app is one of them, and prune looks in each.
	Set       string
	Apps      []string
	Calendars []jobs.CalendarInput
	Jobs      []jobs.Input
	Workflows []workflows.Input
	// Prune deletes the set's objects in Apps that the input does not
	// declare. Adopt takes over objects of these names another file set
	// manages.
	Prune bool
	Adopt bool
	// JobVersions are earlier versions of jobs among Jobs, oldest first
	// for each: a job the apply creates gets them as its first versions.
	JobVersions []JobVersion
}

// JobVersion is an earlier version of a job of the set: the job as Jobs
// declares it with the processor it had then, who made it (empty: the
// caller) and when (nil: now). An import brings a script's history so.
type JobVersion struct {
	App, Name                string
	ProcessorType, Processor string
	Author                   string
	CreatedAt                *time.Time
}

// maxAuthorChars bounds a version's author (job_versions.created_by).
const maxAuthorChars = 64

// Change is what applying does to one object. Fields name what an UPDATE
// changes (the input's field names, and managedBy when the object joins
// the set).
type Change struct {
	Kind, App, Name, Action string
	Fields                  []string
}

// Result is what an apply did (Applied) or, in a dry run, would do.
type Result struct {
	Applied bool
	// Changes: one per object given, calendars, then jobs, then workflows,
	// each in the order given; then the deletions of prune.
	Changes []Change
}

// Changed says whether anything is (or would be) created, updated or
// deleted.
func (r *Result) Changed() bool {
	for _, c := range r.Changes {
		if c.Action != ActionUnchanged {
			return true
		}
	}
	return false
}

// errDryRun rolls a dry run's transaction back.
var errDryRun = errors.New("dry run")

// Apply applies in (EDITOR on each app) in one transaction: all of it, or
// on any error nothing. With dryRun the transaction is rolled back and
// the result says what it would have done.
func (s *Service) Apply(ctx context.Context, in Input, dryRun bool) (*Result, error) {
	set := strings.TrimSpace(in.Set)
	switch {
	case set == "":
		return nil, fault.BadInput("set", "must not be empty: name the set of files (e.g. the directory's name)")
	case utf8.RuneCountInString(set) > MaxSetChars:
		return nil, fault.BadInput("set", "must be at most %d characters", MaxSetChars)
	}
	if err := text.Line("set", set); err != nil {
		return nil, err
	}
	if len(in.Apps) == 0 {
		return nil, fault.BadInput("apps", "name at least one app")
	}
	apps := map[string]*db.App{}
	var order []*db.App
	for i, name := range in.Apps {
		if apps[name] != nil {
			continue
		}
		app, err := s.apps.ByName(ctx, name, db.RoleEditor)
		if err != nil {
			if errors.Is(err, fault.ErrNotFound) {
				return nil, fault.BadInput(fmt.Sprintf("apps[%d]", i), "%v", err)
			}
			return nil, err
		}
		apps[name] = app
		order = append(order, app)
	}
	slices.SortFunc(order, func(a, b *db.App) int { return int(a.ID - b.ID) })
	if err := checkInput(in, apps); err != nil {
		return nil, err
	}
	a := &applier{s: s, in: in, set: set, apps: apps}
	err := s.store.InTx(ctx, func(ctx context.Context, tx *db.Store) error {
		a.changes = nil
		// Locked in one order, so two applies over the same apps queue
		// instead of deadlocking.
		for _, app := range order {
			if err := tx.AppLock(ctx, app.ID); err != nil {
				return err
			}
		}
		if err := a.run(ctx, tx, order); err != nil {
			return err
		}
		if dryRun {
			return errDryRun
		}
		return nil
	})
	res := &Result{Changes: a.changes}
	switch {
	case errors.Is(err, errDryRun):
		return res, nil
	case err != nil:
		return nil, err
	}
	res.Applied = true
	for _, app := range order {
		s.notify.JobsChanged(app.ID)
		if a.deleted[app.ID] {
			s.notify.InstancesChanged(app.ID)
		}
	}
	return res, nil
}

// checkInput checks what needs no database: every object's app is among
// the set's apps, and no object is given twice.
func checkInput(in Input, apps map[string]*db.App) error {
	seen := map[string]string{}
	object := func(kind, field, app, name string) error {
		if apps[app] == nil {
			return fault.BadInput(field+".app", "app %q is not among the set's apps (%s)", app, strings.Join(in.Apps, ", "))
		}
		key := kind + "\x00" + app + "\x00" + strings.TrimSpace(name)
		if first, ok := seen[key]; ok {
			return fault.BadInput(field+".name", "%s %q of app %q is given twice (first as %s)", strings.ToLower(kind), name, app, first)
		}
		seen[key] = field
		return nil
	}
	for i, c := range in.Calendars {
		if err := object(KindCalendar, fmt.Sprintf("calendars[%d]", i), c.App, c.Name); err != nil {
			return err
		}
	}
	for i, j := range in.Jobs {
		if err := object(KindJob, fmt.Sprintf("jobs[%d]", i), j.App, j.Name); err != nil {
			return err
		}
	}
	for i, w := range in.Workflows {
		if err := object(KindWorkflow, fmt.Sprintf("workflows[%d]", i), w.App, w.Name); err != nil {
			return err
		}
	}
	for i, v := range in.JobVersions {
		field := fmt.Sprintf("jobVersions[%d]", i)
		if _, ok := seen[KindJob+"\x00"+v.App+"\x00"+strings.TrimSpace(v.Name)]; !ok {
			return fault.BadInput(field+".name", "job %q of app %q is not among the set's jobs: a version belongs to a job the set declares", v.Name, v.App)
		}
		if utf8.RuneCountInString(v.Author) > maxAuthorChars {
			return fault.BadInput(field+".author", "must be at most %d characters", maxAuthorChars)
		}
		if err := text.Line(field+".author", v.Author); err != nil {
			return err
		}
	}
	return nil
}

// applier is one apply under way.
type applier struct {
	s       *Service
	in      Input
	set     string
	apps    map[string]*db.App
	changes []Change
	// declared are the objects the input names, by kind, app and name.
	declared map[string]bool
	// deleted marks the apps prune deleted something in.
	deleted map[int64]bool
	// earlier are the checked JobVersions, by job key: the versions a job
	// the apply creates starts with.
	earlier map[string][]db.JobVersion
}

func key(kind string, appID int64, name string) string {
	return fmt.Sprintf("%s\x00%d\x00%s", kind, appID, name)
}

func (a *applier) run(ctx context.Context, tx *db.Store, order []*db.App) error {
	a.declared, a.deleted = map[string]bool{}, map[int64]bool{}
	for i, in := range a.in.Calendars {
		f := fmt.Sprintf("calendars[%d]", i)
		c, err := a.calendar(ctx, tx, in)
		if err != nil {
			return prefixed(f, err)
		}
		a.changes = append(a.changes, c)
	}
	// After the calendars, which the versions may name as the jobs do.
	if err := a.checkVersions(ctx, tx); err != nil {
		return err
	}
	for i, in := range a.in.Jobs {
		f := fmt.Sprintf("jobs[%d]", i)
		c, err := a.job(ctx, tx, in)
		if err != nil {
			return prefixed(f, err)
		}
		a.changes = append(a.changes, c)
	}
	done := make([]Change, len(a.in.Workflows))
	for _, i := range workflowOrder(a.in.Workflows) {
		f := fmt.Sprintf("workflows[%d]", i)
		c, err := a.workflow(ctx, tx, a.in.Workflows[i])
		if err != nil {
			return prefixed(f, err)
		}
		done[i] = c
	}
	a.changes = append(a.changes, done...)
	if a.in.Prune {
		for _, app := range order {
			if err := a.prune(ctx, tx, app); err != nil {
				return err
			}
		}
	}
	return nil
}

// prefixed names a field of the input's object f: "name" of jobs[3] is
// "jobs[3].name".
func prefixed(f string, err error) error {
	var bad *fault.Input
	if errors.As(err, &bad) {
		field := f
		if bad.Field != "" {
			field += "." + bad.Field
		}
		return &fault.Input{Field: field, Reason: bad.Reason}
	}
	return err
}

// claim decides whether the set may apply an object managed by (by,
// source): its own, an unmanaged one (which joins the set), another file
// set's only with adopt, one declared in code never. joins says the
// object's managed set changes.
func (a *applier) claim(kind, name string, by, source *string) (joins bool, err error) {
	b, src := deref(by), deref(source)
	switch {
	case b == "":
		return true, nil
	case src == db.ManagedCode:
		return false, fault.BadInput("name", "%s %q is declared in the code of workers (job set %q), which overwrite it on every connect: "+
			"remove it from the file set, or from the code first", strings.ToLower(kind), name, b)
	case b == a.set:
		return false, nil
	case a.in.Adopt:
		return true, nil
	default:
		return false, fault.BadInput("name", "%s %q is managed by the file set %q: apply it with that set, or pass adopt (jobwheel apply --adopt) to move it to %q",
			strings.ToLower(kind), name, b, a.set)
	}
}

func (a *applier) calendar(ctx context.Context, tx *db.Store, in jobs.CalendarInput) (Change, error) {
	app := a.apps[in.App]
	c, err := jobs.BuildCalendar(in, app)
	if err != nil {
		return Change{}, err
	}
	ch := Change{Kind: KindCalendar, App: app.Name, Name: c.Name}
	a.declared[key(KindCalendar, app.ID, c.Name)] = true
	c.ManagedBy, c.ManagedSource = new(a.set), new(db.ManagedFiles)
	old, err := tx.CalendarGetByName(ctx, app.ID, c.Name)
	switch {
	case errors.Is(err, db.ErrNotFound):
		ch.Action = ActionCreate
		return ch, a.s.jobs.CreateCalendarIn(ctx, tx, c)
	case err != nil:
		return ch, err
	}
	joins, err := a.claim(KindCalendar, c.Name, old.ManagedBy, old.ManagedSource)
	if err != nil {
		return ch, err
	}
	if old.Description != c.Description {
		ch.Fields = append(ch.Fields, "description")
	}
	if !slices.Equal(old.Dates, c.Dates) {
		ch.Fields = append(ch.Fields, "dates")
	}
	if joins {
		ch.Fields = append(ch.Fields, "managedBy")
	}
	if len(ch.Fields) == 0 {
		ch.Action = ActionUnchanged
		return ch, nil
	}
	ch.Action = ActionUpdate
	c.ID, c.CreatedAt = old.ID, old.CreatedAt
	return ch, a.s.jobs.UpdateCalendarIn(ctx, tx, c)
}

func (a *applier) job(ctx context.Context, tx *db.Store, in jobs.Input) (Change, error) {
	app := a.apps[in.App]
	j, cal, err := a.s.jobs.BuildIn(ctx, tx, app, in)
	if err != nil {
		return Change{}, err
	}
	ch := Change{Kind: KindJob, App: app.Name, Name: j.Name}
	a.declared[key(KindJob, app.ID, j.Name)] = true
	j.ManagedBy, j.ManagedSource = new(a.set), new(db.ManagedFiles)
	old, err := tx.JobGetByName(ctx, app.ID, j.Name)
	switch {
	case errors.Is(err, db.ErrNotFound):
		ch.Action = ActionCreate
		return ch, a.s.jobs.CreateIn(ctx, tx, j, cal, jobs.ChangeApply, a.earlier[key(KindJob, app.ID, j.Name)]...)
	case err != nil:
		return ch, err
	}
	joins, err := a.claim(KindJob, j.Name, old.ManagedBy, old.ManagedSource)
	if err != nil {
		return ch, err
	}
	if ch.Fields, err = a.s.jobs.Differences(ctx, tx, old, j, cal); err != nil {
		return ch, err
	}
	if joins {
		ch.Fields = append(ch.Fields, "managedBy")
	}
	if len(ch.Fields) == 0 {
		ch.Action = ActionUnchanged
		return ch, nil
	}
	ch.Action = ActionUpdate
	return ch, a.s.jobs.UpdateIn(ctx, tx, old, j, cal, jobs.ChangeApply)
}

// checkVersions validates the input's earlier job versions, each as its
// job with the processor it had then, and keeps their definitions for the
// jobs the apply creates. An error names jobVersions[i].
func (a *applier) checkVersions(ctx context.Context, tx *db.Store) error {
	a.earlier = map[string][]db.JobVersion{}
	if len(a.in.JobVersions) == 0 {
		return nil
	}
	declared := map[string]jobs.Input{}
	for _, in := range a.in.Jobs {
		declared[in.App+"\x00"+strings.TrimSpace(in.Name)] = in
	}
	for i, v := range a.in.JobVersions {
		in := declared[v.App+"\x00"+strings.TrimSpace(v.Name)]
		in.ProcessorType, in.Processor = v.ProcessorType, v.Processor
		app := a.apps[in.App]
		j, cal, err := a.s.jobs.BuildIn(ctx, tx, app, in)
		if err != nil {
			return prefixed(fmt.Sprintf("jobVersions[%d]", i), err)
		}
		ver := db.JobVersion{Definition: j.Definition(cal), Change: jobs.ChangeImport, CreatedBy: v.Author}
		if v.CreatedAt != nil {
			ver.CreatedAt = db.Stamp(*v.CreatedAt)
		}
		k := key(KindJob, app.ID, j.Name)
		a.earlier[k] = append(a.earlier[k], ver)
	}
	return nil
}

func (a *applier) workflow(ctx context.Context, tx *db.Store, in workflows.Input) (Change, error) {
	app := a.apps[in.App]
	name := strings.TrimSpace(in.Name)
	ch := Change{Kind: KindWorkflow, App: app.Name, Name: name}
	if in.Alarm == nil {
		// Declarative: a workflow without an alarm in its file has none
		// (the API's default keeps the one it had).
		in.Alarm = &db.Alarm{}
	}
	cur, err := tx.WorkflowGetByName(ctx, app.ID, name)
	switch {
	case errors.Is(err, db.ErrNotFound):
		cur = nil
	case err != nil:
		return ch, err
	}
	var self int64
	joins := true
	if cur != nil {
		self = cur.ID
		if joins, err = a.claim(KindWorkflow, name, cur.ManagedBy, cur.ManagedSource); err != nil {
			return ch, err
		}
	}
	spec, sch, err := a.s.workflows.CheckIn(ctx, tx, app, self, in)
	if err != nil {
		return ch, err
	}
	ch.Name = spec.Name
	a.declared[key(KindWorkflow, app.ID, spec.Name)] = true
	if cur == nil {
		ch.Action = ActionCreate
		w := &db.Workflow{AppID: app.ID, ManagedBy: new(a.set), ManagedSource: new(db.ManagedFiles)}
		w.Apply(*spec)
		return ch, a.s.workflows.CreateIn(ctx, tx, w, sch)
	}
	ch.Fields = specDifferences(cur.Spec(), *spec)
	if joins {
		ch.Fields = append(ch.Fields, "managedBy")
	}
	if len(ch.Fields) == 0 {
		ch.Action = ActionUnchanged
		return ch, nil
	}
	ch.Action = ActionUpdate
	w := *cur
	w.Apply(*spec)
	w.ManagedBy, w.ManagedSource = new(a.set), new(db.ManagedFiles)
	return ch, a.s.workflows.UpdateIn(ctx, tx, cur, &w, sch)
}

// prune deletes the set's objects in app that the input does not declare:
// workflows first (they run jobs), then jobs, then calendars (jobs use
// them). One still used by an object that stays is a CONFLICT naming it.
func (a *applier) prune(ctx context.Context, tx *db.Store, app *db.App) error {
	del := func(kind, name string) {
		a.changes = append(a.changes, Change{Kind: kind, App: app.Name, Name: name, Action: ActionDelete})
		a.deleted[app.ID] = true
	}
	wfs, err := tx.WorkflowListManagedBy(ctx, app.ID, db.ManagedFiles, a.set)
	if err != nil {
		return err
	}
	for i := range wfs {
		w := &wfs[i]
		if a.declared[key(KindWorkflow, app.ID, w.Name)] {
			continue
		}
		if err := workflows.DeleteIn(ctx, tx, w); err != nil {
			return fmt.Errorf("pruning workflow %q of app %q: %w", w.Name, app.Name, err)
		}
		del(KindWorkflow, w.Name)
	}
	list, err := tx.JobListManagedBy(ctx, app.ID, db.ManagedFiles, a.set)
	if err != nil {
		return err
	}
	var gone []db.Job
	for _, j := range list {
		if !a.declared[key(KindJob, app.ID, j.Name)] {
			gone = append(gone, j)
		}
	}
	if len(gone) > 0 {
		remaining, err := tx.WorkflowListByApp(ctx, app.ID)
		if err != nil {
			return err
		}
		for _, j := range gone {
			for _, w := range remaining {
				for _, n := range w.Graph.Nodes {
					if n.JobID == j.ID {
						return fault.Conflict("pruning job %q of app %q: workflow %q still runs it (node %q); remove that node first, or prune the workflow too",
							j.Name, app.Name, w.Name, n.Key)
					}
				}
			}
			if err := tx.JobDelete(ctx, j.ID); err != nil {
				return fmt.Errorf("pruning job %q of app %q: %w", j.Name, app.Name, err)
			}
			del(KindJob, j.Name)
		}
	}
	cals, err := tx.CalendarListManagedBy(ctx, app.ID, db.ManagedFiles, a.set)
	if err != nil {
		return err
	}
	for i := range cals {
		c := &cals[i]
		if a.declared[key(KindCalendar, app.ID, c.Name)] {
			continue
		}
		if err := a.s.jobs.DeleteCalendarIn(ctx, tx, c); err != nil {
			return fmt.Errorf("pruning calendar %q of app %q: %w", c.Name, app.Name, err)
		}
		del(KindCalendar, c.Name)
	}
	return nil
}

// workflowOrder is the order to save workflows in: one nesting another of
// the input (by name, in the same app) after it, so the name resolves.
// A nesting cycle is left to validation, which names it.
func workflowOrder(list []workflows.Input) []int {
	index := map[string]int{}
	for i, w := range list {
		index[w.App+"\x00"+strings.TrimSpace(w.Name)] = i
	}
	state := make([]int, len(list)) // 0 new, 1 visiting, 2 done
	var out []int
	var visit func(i int)
	visit = func(i int) {
		if state[i] != 0 {
			return
		}
		state[i] = 1
		for _, n := range list[i].Nodes {
			if n.WorkflowName == nil {
				continue
			}
			if j, ok := index[list[i].App+"\x00"+strings.TrimSpace(*n.WorkflowName)]; ok && state[j] == 0 {
				visit(j)
			}
		}
		state[i] = 2
		out = append(out, i)
	}
	for i := range list {
		visit(i)
	}
	return out
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// AuditChanges lists, per app, what the apply created, updated and
// deleted, for the audit log (package audit): one change per object, its
// field "kind name" (e.g. "job nightly") and its value the action with the
// fields an update changed.
func (r *Result) AuditChanges() map[string][]db.AuditChange {
	out := map[string][]db.AuditChange{}
	for _, c := range r.Changes {
		if _, ok := out[c.App]; !ok {
			out[c.App] = nil
		}
		if c.Action == ActionUnchanged {
			continue
		}
		what := c.Action
		if len(c.Fields) > 0 {
			what += " " + strings.Join(c.Fields, ", ")
		}
		out[c.App] = append(out[c.App], db.AuditChange{Field: strings.ToLower(c.Kind) + " " + c.Name, After: what})
	}
	return out
}
