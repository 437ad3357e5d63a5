// Package backfills is the backfill API behind the resolvers, on any
// server (docs/workflows.md#backfills): it checks and records a backfill
// of a CRON-scheduled workflow or job over a past range, lists backfills
// with their progress, and stops one with its runs. The app's owner makes
// the runs (server/runtime/backfill); this package tells it through the
// bus. EDITOR on the app makes and stops backfills, VIEWER reads them.
package backfills

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/internal/clock"
	"github.com/jobwheel/jobwheel/server/api/auth"
	"github.com/jobwheel/jobwheel/server/platform/fault"
	"github.com/jobwheel/jobwheel/server/runtime/backfill"
)

// Limits.
const (
	// DefaultMaxRuns is the most runs one backfill may make unless the
	// server is configured otherwise (JOBWHEEL_BACKFILL_MAX_RUNS).
	DefaultMaxRuns = 1000
	// MaxParallelism bounds a backfill's parallelism.
	MaxParallelism = 100
	// MaxParamsBytes and MaxContextBytes bound what each run is given.
	MaxParamsBytes  = 64 << 10
	MaxContextBytes = 1 << 20
)

// Store is what the service reads and writes.
type Store interface {
	InTx(ctx context.Context, fn func(ctx context.Context, tx *db.Store) error) error
	BackfillGet(ctx context.Context, id int64) (*db.Backfill, error)
	BackfillList(ctx context.Context, f db.BackfillFilter) ([]db.Backfill, bool, error)
	BackfillProgressMany(ctx context.Context, ids []int64) (map[int64]db.BackfillProgress, error)
	BackfillListActiveRuns(ctx context.Context, id int64) (runs, instances []int64, err error)
}

// Auth checks the caller's role on an app (package auth).
type Auth interface {
	Require(ctx context.Context, appID int64, role db.Role) error
}

// Apps finds apps as the caller may see them (package apps).
type Apps interface {
	ByName(ctx context.Context, name string, role db.Role) (*db.App, error)
}

// Workflows reads workflows and stops runs with the caller's rights
// (package workflows).
type Workflows interface {
	Get(ctx context.Context, id int64, role db.Role) (*db.Workflow, error)
	Stop(ctx context.Context, wiID int64) (*db.WorkflowInstance, error)
}

// Jobs reads jobs and stops instances with the caller's rights (package
// jobs).
type Jobs interface {
	Get(ctx context.Context, id int64, role db.Role) (*db.Job, error)
	Stop(ctx context.Context, id int64) (*db.Instance, error)
}

// Hints publishes bus hints (the owner's driver listens to
// backfill.HintTopic).
type Hints interface {
	Publish(topic, data string)
}

// Config tunes the service.
type Config struct {
	// MaxRuns is the most fire times one backfill may cover (default
	// DefaultMaxRuns).
	MaxRuns int
	Clock   clock.Clock
}

// Service is the backfill API.
type Service struct {
	cfg       Config
	store     Store
	auth      Auth
	apps      Apps
	workflows Workflows
	jobs      Jobs
	hints     Hints
}

// New returns a Service.
func New(cfg Config, store Store, a Auth, apps Apps, w Workflows, j Jobs, hints Hints) *Service {
	if cfg.MaxRuns <= 0 {
		cfg.MaxRuns = DefaultMaxRuns
	}
	cfg.Clock = clock.OrSystem(cfg.Clock)
	return &Service{cfg: cfg, store: store, auth: a, apps: apps, workflows: w, jobs: j, hints: hints}
}

// Input is what backfillWorkflow and backfillJob are given.
type Input struct {
	From, To    time.Time
	Parallelism int
	// Context (workflows) is added to each run's context; Params (jobs)
	// is each instance's parameters, a JSON object or "".
	Context map[string]any
	Params  string
}

// Workflow records a backfill of a workflow.
func (s *Service) Workflow(ctx context.Context, id int64, in Input) (*db.Backfill, error) {
	w, err := s.workflows.Get(ctx, id, db.RoleEditor)
	if err != nil {
		return nil, err
	}
	if in.Params != "" {
		return nil, fault.BadInput("input.params", "is for jobs; a workflow's runs take a context")
	}
	if in.Context != nil {
		raw, err := json.Marshal(in.Context)
		if err != nil || len(raw) > MaxContextBytes {
			return nil, fault.BadInput("input.context", "must be a JSON object of at most %d bytes", MaxContextBytes)
		}
		if _, ok := in.Context[backfill.LogicalTimeKey]; ok {
			return nil, fault.BadInput("input.context", "must not set %q: each run's logical time goes there", backfill.LogicalTimeKey)
		}
	}
	b := &db.Backfill{AppID: w.AppID, WorkflowID: &w.ID, Context: in.Context}
	return s.create(ctx, b, in, fmt.Sprintf("workflow %q", w.Name), w.ScheduleType, db.BackfillSchedule{
		Type: w.ScheduleType, Expression: w.ScheduleExpression, TimeZone: w.TimeZone}, w.MaxInstances)
}

// Job records a backfill of a job.
func (s *Service) Job(ctx context.Context, id int64, in Input) (*db.Backfill, error) {
	j, err := s.jobs.Get(ctx, id, db.RoleEditor)
	if err != nil {
		return nil, err
	}
	if in.Context != nil {
		return nil, fault.BadInput("input.context", "is for workflows; a job's instances take params")
	}
	if len(in.Params) > MaxParamsBytes {
		return nil, fault.BadInput("input.params", "must be at most %d bytes", MaxParamsBytes)
	}
	if in.Params != "" {
		var obj map[string]any
		if err := json.Unmarshal([]byte(in.Params), &obj); err != nil || obj == nil {
			return nil, fault.BadInput("input.params", "must be a JSON object (each instance's logical time is added to it), e.g. {\"region\": \"eu\"}")
		}
		if _, ok := obj[backfill.LogicalTimeKey]; ok {
			return nil, fault.BadInput("input.params", "must not set %q: each instance's logical time goes there", backfill.LogicalTimeKey)
		}
	}
	b := &db.Backfill{AppID: j.AppID, JobID: &j.ID, Params: in.Params}
	return s.create(ctx, b, in, fmt.Sprintf("job %q", j.Name), j.ScheduleType, db.BackfillSchedule{
		Type: j.ScheduleType, Expression: j.ScheduleExpression, TimeZone: j.TimeZone, Excluded: j.ExcludedDates}, j.MaxInstances)
}

// create checks the range and parallelism, counts the fire times and
// records the backfill.
func (s *Service) create(ctx context.Context, b *db.Backfill, in Input, what, scheduleType string, sch db.BackfillSchedule, maxInstances int) (*db.Backfill, error) {
	if scheduleType != db.ScheduleCron {
		return nil, fault.BadInput("id", "%s is scheduled %s; only a CRON schedule has fire times to backfill", what, scheduleType)
	}
	from, to := db.Stamp(in.From), db.Stamp(in.To)
	now := db.Stamp(s.cfg.Clock.Now())
	switch {
	case in.From.IsZero():
		return nil, fault.BadInput("input.from", "is required")
	case in.To.IsZero():
		return nil, fault.BadInput("input.to", "is required")
	case to.Before(from):
		return nil, fault.BadInput("input.to", "is before from")
	case to.After(now):
		return nil, fault.BadInput("input.to", "is in the future; a backfill runs fire times that have passed (the schedule runs the rest)")
	}
	if most := min(MaxParallelism, maxInstances); in.Parallelism < 1 || in.Parallelism > most {
		return nil, fault.BadInput("input.parallelism", "must be from 1 to %d: at most %s's maxInstances (%d), and at most %d",
			most, what, maxInstances, MaxParallelism)
	}
	parsed, err := backfill.Schedule(sch)
	if err != nil {
		return nil, fault.BadInput("id", "%s's schedule: %v", what, err)
	}
	total := 0
	for t := from.Add(-time.Millisecond); ; total++ {
		next, ok := parsed.Next(t)
		if !ok || next.After(to) {
			break
		}
		if total == s.cfg.MaxRuns {
			return nil, fault.BadInput("input.to", "the range holds more than %d fire times of %s, the most one backfill may run (JOBWHEEL_BACKFILL_MAX_RUNS); narrow from and to, or backfill in parts",
				s.cfg.MaxRuns, what)
		}
		t = next
	}
	if total == 0 {
		return nil, fault.BadInput("input.from", "%s has no fire time from %s to %s", what, from.Format(time.RFC3339), to.Format(time.RFC3339))
	}
	b.RangeFrom, b.RangeTo, b.Schedule, b.Parallelism, b.Total = from, to, sch, in.Parallelism, total
	b.Status = db.BackfillRunning
	if p := auth.FromContext(ctx); p != nil {
		b.CreatedBy = p.User.Username
	}
	if err := s.store.InTx(ctx, func(ctx context.Context, tx *db.Store) error { return tx.BackfillCreate(ctx, b) }); err != nil {
		return nil, err
	}
	s.hints.Publish(backfill.HintTopic, strconv.FormatInt(b.AppID, 10))
	return b, nil
}

// Get returns a backfill if the caller holds at least role on its app.
func (s *Service) Get(ctx context.Context, id int64, role db.Role) (*db.Backfill, error) {
	return auth.ReadInApp(ctx, s.auth, fmt.Sprintf("backfill %d", id), role,
		func(ctx context.Context) (*db.Backfill, error) { return s.store.BackfillGet(ctx, id) },
		func(b *db.Backfill) int64 { return b.AppID })
}

// List returns a page of an app's backfills (of one workflow or job, if
// given), newest first, and whether more follow.
func (s *Service) List(ctx context.Context, appName string, workflowID, jobID, beforeID int64, limit int) ([]db.Backfill, bool, error) {
	app, err := s.apps.ByName(ctx, appName, db.RoleViewer)
	if err != nil {
		return nil, false, err
	}
	return s.store.BackfillList(ctx, db.BackfillFilter{AppID: app.ID, WorkflowID: workflowID, JobID: jobID, BeforeID: beforeID, Limit: limit})
}

// Stop ends a RUNNING backfill STOPPED — its driver makes no more runs —
// and stops its runs under way. Stopping an ended backfill is CONFLICT.
func (s *Service) Stop(ctx context.Context, id int64) (*db.Backfill, error) {
	b, err := s.Get(ctx, id, db.RoleEditor)
	if err != nil {
		return nil, err
	}
	err = s.store.InTx(ctx, func(ctx context.Context, tx *db.Store) error {
		cur, err := tx.BackfillLock(ctx, id)
		if err != nil {
			return err
		}
		if cur.Status != db.BackfillRunning {
			return fault.Conflict("backfill %d already ended (%s)", id, cur.Status)
		}
		_, err = tx.BackfillFinish(ctx, id, db.BackfillStopped, db.Stamp(s.cfg.Clock.Now()))
		return err
	})
	if err != nil {
		return nil, err
	}
	// The lock above ordered the stop after any pass making runs: what it
	// made is read here, and no pass makes more.
	runs, instances, err := s.store.BackfillListActiveRuns(ctx, id)
	if err != nil {
		return nil, err
	}
	for _, r := range runs {
		if _, err := s.workflows.Stop(ctx, r); err != nil && !ended(err) {
			return nil, fmt.Errorf("stopping backfill %d's run %d: %w", id, r, err)
		}
	}
	for _, in := range instances {
		if _, err := s.jobs.Stop(ctx, in); err != nil && !ended(err) {
			return nil, fmt.Errorf("stopping backfill %d's instance %d: %w", id, in, err)
		}
	}
	s.hints.Publish(backfill.HintTopic, strconv.FormatInt(b.AppID, 10))
	return s.store.BackfillGet(ctx, id)
}

// ended says a stop found its run ended meanwhile.
func ended(err error) bool {
	return errors.Is(err, fault.ErrConflict)
}

// View is a backfill with its progress, as the API shows it.
type View struct {
	db.Backfill
	db.BackfillProgress
}

// Done counts its runs that ended, well or not.
func (v *View) Done() int { return v.Succeeded + v.Failed }

// Views adds progress to backfills, in one read.
func (s *Service) Views(ctx context.Context, list []db.Backfill) ([]*View, error) {
	ids := make([]int64, len(list))
	for i := range list {
		ids[i] = list[i].ID
	}
	progress, err := s.store.BackfillProgressMany(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make([]*View, len(list))
	for i := range list {
		out[i] = &View{Backfill: list[i], BackfillProgress: progress[list[i].ID]}
	}
	return out, nil
}
