// Package jobs is the job and instance API behind the resolvers: it
// validates job definitions (every field, with errors naming it), stores
// them with their next trigger time, runs jobs on demand, and stops or
// retries instances. It checks the caller's role on the job's app for
// every operation: VIEWER to read, EDITOR to change or run.
//
// It never talks to workers: it writes the database and tells the owner of
// the app (through Notifier) to look again.
package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"go.opentelemetry.io/otel/trace"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/internal/clock"
	"github.com/jobwheel/jobwheel/internal/tracing"
	"github.com/jobwheel/jobwheel/server/api/alarm"
	"github.com/jobwheel/jobwheel/server/api/auth"
	"github.com/jobwheel/jobwheel/server/platform/fault"
	"github.com/jobwheel/jobwheel/server/platform/groupcommit"
	"github.com/jobwheel/jobwheel/server/platform/netguard"
	"github.com/jobwheel/jobwheel/server/platform/text"
	"github.com/jobwheel/jobwheel/server/schedule"
)

// Limits on job definitions.
const (
	MaxScriptBytes = 64 << 10
	MaxParamsBytes = 64 << 10
	MaxRetries     = 100
	MaxConcurrency = 10000
	MaxDelay       = 365 * 24 * time.Hour
	// IdempotencyWindow is how long runJob's idempotency key names the
	// instance the first call created (a client retrying after a timeout
	// gets that instance back instead of a second run).
	IdempotencyWindow = 24 * time.Hour
	// MaxKeyChars bounds an idempotency key.
	MaxKeyChars = 128
	// maxInstanceBatch bounds the instances one group-committed INSERT of
	// runJob carries (twenty-odd columns each, far under the databases'
	// parameter limits).
	maxInstanceBatch = 500
	// DefaultMaxQueued and MaxQueued: the fires a QUEUE job holds while
	// maxInstances are running, by default and at most.
	DefaultMaxQueued = 10
	MaxQueued        = 1000
	// MaxPriority bounds a job's priority either way.
	MaxPriority = 1000
	// MaxRetryDelay bounds retryDelayMs and retryDelayMaxMs (one day).
	MaxRetryDelay = 24 * time.Hour
	// MaxRetryBackoff bounds the factor a retry's delay grows by.
	MaxRetryBackoff = 10
)

// Notifier tells the owner of an app that its jobs or instances changed.
type Notifier interface {
	JobsChanged(appID int64)
	InstancesChanged(appID int64)
}

// Store is what the job API reads and writes.
type Store interface {
	AttemptList(ctx context.Context, instanceID int64) ([]db.InstanceAttempt, error)
	AttemptUpsertMany(ctx context.Context, list []db.InstanceAttempt) error
	AttemptsByInstances(ctx context.Context, instanceIDs []int64) (map[int64][]db.InstanceAttempt, error)
	InTx(ctx context.Context, fn func(ctx context.Context, tx *db.Store) error) error
	InstanceCount(ctx context.Context, f db.InstanceFilter) (int, error)
	InstanceCountsNow(ctx context.Context, appID int64) (map[string]int, error)
	InstanceCreate(ctx context.Context, in *db.Instance) error
	InstanceCreateBatch(ctx context.Context, list []*db.Instance) error
	InstanceCreateKeyed(ctx context.Context, in *db.Instance, since time.Time) (*db.Instance, bool, error)
	InstanceGet(ctx context.Context, id int64) (*db.Instance, error)
	InstanceList(ctx context.Context, f db.InstanceFilter) ([]db.Instance, bool, error)
	InstanceOutcomes(ctx context.Context, appID int64, since time.Time) ([]db.OutcomeBucket, error)
	InstanceRetry(ctx context.Context, id int64, from string, attempt int, triggerAt time.Time, reason string) (bool, error)
	InstanceStop(ctx context.Context, id int64, reason string) (*db.Instance, error)
	InstancesLastRun(ctx context.Context, jobIDs []int64) (map[int64]db.Instance, error)
	JobCount(ctx context.Context, appID int64) (total, enabled int, err error)
	JobCountMatching(ctx context.Context, appID int64, search string) (int, error)
	JobCreate(ctx context.Context, j *db.Job) error
	JobByName(ctx context.Context, appID int64, name string) (*db.Job, error)
	JobsManagedBy(ctx context.Context, appID int64, set string) ([]db.Job, error)
	JobVersions(ctx context.Context, jobID int64, limit int) ([]db.JobVersion, error)
	JobVersionGet(ctx context.Context, jobID int64, version int) (*db.JobVersion, error)
	CalendarByName(ctx context.Context, appID int64, name string) (*db.Calendar, error)
	CalendarCreate(ctx context.Context, c *db.Calendar) error
	CalendarGet(ctx context.Context, id int64) (*db.Calendar, error)
	CalendarList(ctx context.Context, appID int64) ([]db.Calendar, error)
	JobsByCalendar(ctx context.Context, calendarID int64) ([]db.Job, error)
	JobDelete(ctx context.Context, id int64) error
	JobGet(ctx context.Context, id int64) (*db.Job, error)
	JobList(ctx context.Context, appID int64, search string, beforeID int64, limit int) (db.JobPage, error)
	JobOutcomes(ctx context.Context, jobID int64, since time.Time) ([]db.OutcomeBucket, error)
	JobsByIDs(ctx context.Context, ids []int64) ([]db.Job, error)
	TaskCount(ctx context.Context, q db.TaskQuery) (int, error)
	TaskCountsByInstance(ctx context.Context, instanceIDs []int64) (map[int64]db.TaskCounts, error)
	TaskPage(ctx context.Context, q db.TaskQuery) ([]db.TaskView, bool, error)
	TaskViewGet(ctx context.Context, instanceID, taskID int64) (*db.TaskView, error)
	WorkerCountAlive(ctx context.Context, appID int64, since time.Time) (int, error)
	// What the on-call dashboard reads (oncall.go).
	InstancesFailedRecent(ctx context.Context, appID int64, since time.Time, limit int) ([]db.Instance, error)
	InstanceTimings(ctx context.Context, appID int64, since time.Time, limit int) ([]db.FinishedInstance, error)
	JobsNextFires(ctx context.Context, appID int64, limit int) ([]db.Job, error)
	WorkersAlive(ctx context.Context, appID int64, since time.Time) ([]db.Worker, error)
	TaskCountsBusy(ctx context.Context, workerIDs []string) (map[string]int, error)
}

// Auth checks the caller's rights on an app (package auth).
type Auth interface {
	Require(ctx context.Context, appID int64, role db.Role) error
}

// Apps finds the caller's apps (package apps).
type Apps interface {
	ByName(ctx context.Context, name string, role db.Role) (*db.App, error)
	ByID(ctx context.Context, id int64, role db.Role) (*db.App, error)
}

// Deps are what the job API works with.
type Deps struct {
	Store    Store
	Auth     Auth
	Apps     Apps
	Notifier Notifier
	// Webhooks is which addresses alarm webhooks may name (the alarm
	// sender's policy, checked here as far as a URL shows it); the zero
	// value allows public addresses only.
	Webhooks netguard.Policy
	// Clock defaults to the system clock.
	Clock clock.Clock
}

// Service is the job API.
type Service struct {
	db       Store
	auth     Auth
	apps     Apps
	notify   Notifier
	clock    clock.Clock
	webhooks netguard.Policy
	// runs group-commits runJob's instances: concurrent calls share one
	// INSERT and one commit instead of queueing on a commit each.
	runs *groupcommit.Batcher[*db.Instance]
}

// New returns a Service.
func New(d Deps) *Service {
	s := &Service{db: d.Store, auth: d.Auth, apps: d.Apps, notify: d.Notifier, clock: clock.OrSystem(d.Clock), webhooks: d.Webhooks}
	s.runs = groupcommit.New(maxInstanceBatch, func(ctx context.Context, list []*db.Instance) error {
		return s.db.InstanceCreateBatch(ctx, list)
	})
	return s
}

// now is the time as the database keeps it.
func (s *Service) now() time.Time { return db.Stamp(s.clock.Now()) }

// Input is a job definition as the API receives it. Nil pointers take the
// defaults.
type Input struct {
	App                string
	Name               string
	Description        *string
	Enabled            *bool
	ScheduleType       string
	ScheduleExpression *string
	TimeZone           *string
	LifecycleStart     *time.Time
	LifecycleEnd       *time.Time
	ExecutionMode      *string
	ProcessorType      string
	Processor          string
	Params             *string
	MaxInstances       *int
	TaskConcurrency    *int
	TimeoutMs          *int
	InstanceRetries    *int
	TaskRetries        *int
	WorkerFilter       db.WorkerFilter
	DispatchStrategy   *string
	MisfirePolicy      *string
	Alarm              db.Alarm
	// ScheduleWindow restricts FIXED_RATE to a daily window; nil: none.
	ScheduleWindow *db.ScheduleWindow
	// Calendar names the app's calendar whose dates the job skips; nil
	// or empty: none.
	Calendar *string
	// OverlapPolicy says what a fire over MaxInstances does (CANCEL,
	// QUEUE, REPLACE); MaxQueued bounds the fires a QUEUE job holds.
	OverlapPolicy *string
	MaxQueued     *int
	// Priority orders dispatch when workers are short of slots.
	Priority *int
	// The retry back-off (docs/design.md §6.5).
	RetryDelayMs    *int
	RetryBackoff    *float64
	RetryDelayMaxMs *int
}

// HTTPProcessor is the HTTP processor's definition (its processor field).
type HTTPProcessor struct {
	Method       string            `json:"method"`
	URL          string            `json:"url"`
	Headers      map[string]string `json:"headers,omitempty"`
	Body         string            `json:"body,omitempty"`
	ExpectStatus int               `json:"expectStatus,omitempty"`
	TimeoutMs    int               `json:"timeoutMs,omitempty"`
}

// build validates in and returns the job it defines (without ids); cal is
// the calendar in.Calendar names, resolved by the caller (nil: none).
func (s *Service) build(in Input, appID int64, cal *db.Calendar) (*db.Job, *schedule.Schedule, error) {
	j := &db.Job{AppID: appID, Name: strings.TrimSpace(in.Name), Description: deref(in.Description, ""),
		Enabled: deref(in.Enabled, true), ScheduleType: in.ScheduleType, ScheduleExpression: strings.TrimSpace(deref(in.ScheduleExpression, "")),
		TimeZone: deref(in.TimeZone, "UTC"), LifecycleStart: in.LifecycleStart, LifecycleEnd: in.LifecycleEnd,
		ExecutionMode: deref(in.ExecutionMode, "STANDALONE"), ProcessorType: in.ProcessorType, Processor: in.Processor,
		Params: deref(in.Params, ""), MaxInstances: deref(in.MaxInstances, 1), TaskConcurrency: deref(in.TaskConcurrency, 5),
		TimeoutMs: int64(deref(in.TimeoutMs, 0)), InstanceRetries: deref(in.InstanceRetries, 0), TaskRetries: deref(in.TaskRetries, 0),
		WorkerFilter: in.WorkerFilter, DispatchStrategy: deref(in.DispatchStrategy, db.DispatchHealthFirst),
		MisfirePolicy: deref(in.MisfirePolicy, db.MisfireFireOnce), Alarm: in.Alarm, ScheduleWindow: in.ScheduleWindow,
		OverlapPolicy: deref(in.OverlapPolicy, db.OverlapCancel), MaxQueued: deref(in.MaxQueued, DefaultMaxQueued),
		Priority: deref(in.Priority, 0), RetryDelayMs: int64(deref(in.RetryDelayMs, 0)), RetryBackoff: deref(in.RetryBackoff, 1),
		RetryDelayMaxMs: int64(deref(in.RetryDelayMaxMs, 0))}
	if cal != nil {
		j.CalendarID, j.ExcludedDates = &cal.ID, cal.Dates
	}
	if j.TimeZone == "" {
		j.TimeZone = "UTC"
	}
	switch {
	case j.Name == "":
		return nil, nil, fault.BadInput("name", "must not be empty")
	case utf8.RuneCountInString(j.Name) > 128:
		return nil, nil, fault.BadInput("name", "must be at most 128 characters")
	case len(j.Description) > 2000:
		return nil, nil, fault.BadInput("description", "must be at most 2000 characters")
	case len(j.Params) > MaxParamsBytes:
		return nil, nil, fault.BadInput("params", "must be at most %d bytes", MaxParamsBytes)
	}
	if err := checkText(j); err != nil {
		return nil, nil, err
	}
	if j.ScheduleWindow != nil {
		w := *j.ScheduleWindow
		w.Start, w.End = strings.TrimSpace(w.Start), strings.TrimSpace(w.End)
		j.ScheduleWindow = &w
	}
	if cal != nil && j.ScheduleType != db.ScheduleCron && j.ScheduleType != db.ScheduleFixedRate {
		return nil, nil, fault.BadInput("calendar", "only CRON and FIXED_RATE jobs skip a calendar's dates")
	}
	sch, err := schedule.Parse(schedule.JobSpec(j))
	if err != nil {
		return nil, nil, err
	}
	j.LifecycleStart, j.LifecycleEnd = sch.Window()
	if !slices.Contains(db.ExecutionModes, j.ExecutionMode) {
		return nil, nil, fault.BadInput("executionMode", "%q is not one of %s", j.ExecutionMode, strings.Join(db.ExecutionModes, ", "))
	}
	if err := validateProcessor(j); err != nil {
		return nil, nil, err
	}
	for _, f := range []struct {
		name     string
		v, lo    int
		hi       int
		hint     string
		optional bool
	}{
		{"maxInstances", j.MaxInstances, 1, MaxConcurrency, "instances of the job that may run at once", false},
		{"taskConcurrency", j.TaskConcurrency, 1, MaxConcurrency, "tasks of one instance one worker runs at once", false},
		{"instanceRetries", j.InstanceRetries, 0, MaxRetries, "times a failed instance is retried", false},
		{"taskRetries", j.TaskRetries, 0, MaxRetries, "times a failed task is retried", false},
		{"workerFilter.maxWorkers", j.WorkerFilter.MaxWorkers, 0, MaxConcurrency, "workers one instance may use (0: all)", false},
		{"workerFilter.minCpuCores", j.WorkerFilter.MinCPUCores, 0, 1 << 16, "CPU cores a worker needs", false},
		{"maxQueued", j.MaxQueued, 1, MaxQueued, "fires of a QUEUE job that wait for a running instance to end", false},
		{"priority", j.Priority, -MaxPriority, MaxPriority, "higher goes first when workers are short of slots", false},
		{"retryDelayMs", int(j.RetryDelayMs), 0, int(MaxRetryDelay.Milliseconds()), "milliseconds before the first retry; 0: the default", false},
		{"retryDelayMaxMs", int(j.RetryDelayMaxMs), 0, int(MaxRetryDelay.Milliseconds()), "the longest a retry waits; 0: no cap of the job's own", false},
	} {
		if f.v < f.lo || f.v > f.hi {
			return nil, nil, fault.BadInput(f.name, "%d is out of range %d to %d (%s)", f.v, f.lo, f.hi, f.hint)
		}
	}
	if !slices.Contains(db.JobOverlapPolicies, j.OverlapPolicy) {
		return nil, nil, fault.BadInput("overlapPolicy", "%q is not one of %s", j.OverlapPolicy, strings.Join(db.JobOverlapPolicies, ", "))
	}
	if math.IsNaN(j.RetryBackoff) || j.RetryBackoff < 1 || j.RetryBackoff > MaxRetryBackoff {
		return nil, nil, fault.BadInput("retryBackoff", "%g is out of range 1 to %g (the factor each retry's delay grows by; 1: constant)", j.RetryBackoff, float64(MaxRetryBackoff))
	}
	if j.RetryDelayMaxMs > 0 && j.RetryDelayMaxMs < j.RetryDelayMs {
		return nil, nil, fault.BadInput("retryDelayMaxMs", "%d is below retryDelayMs %d; the cap must be at least the first delay (0: no cap)", j.RetryDelayMaxMs, j.RetryDelayMs)
	}
	if j.TimeoutMs < 0 {
		return nil, nil, fault.BadInput("timeoutMs", "%d is negative; use 0 for no timeout", j.TimeoutMs)
	}
	if j.WorkerFilter.MinMemoryMB < 0 {
		return nil, nil, fault.BadInput("workerFilter.minMemoryMB", "must not be negative")
	}
	if j.WorkerFilter.MinDiskMB < 0 {
		return nil, nil, fault.BadInput("workerFilter.minDiskMB", "must not be negative")
	}
	for _, d := range j.WorkerFilter.Designated {
		if strings.TrimSpace(d) == "" {
			return nil, nil, fault.BadInput("workerFilter.designated", "must not contain empty names")
		}
	}
	for _, t := range j.WorkerFilter.Tags {
		if strings.TrimSpace(t) == "" {
			return nil, nil, fault.BadInput("workerFilter.tags", "must not contain empty tags")
		}
	}
	if !slices.Contains(db.DispatchStrategies, j.DispatchStrategy) {
		return nil, nil, fault.BadInput("dispatchStrategy", "%q is not one of %s", j.DispatchStrategy, strings.Join(db.DispatchStrategies, ", "))
	}
	if !slices.Contains(db.MisfirePolicies, j.MisfirePolicy) {
		return nil, nil, fault.BadInput("misfirePolicy", "%q is not one of %s", j.MisfirePolicy, strings.Join(db.MisfirePolicies, ", "))
	}
	// Saved as rules and channels (the legacy fields folded in).
	if j.Alarm, err = alarm.Check(j.Alarm, s.webhooks, false); err != nil {
		return nil, nil, err
	}
	return j, sch, nil
}

// checkText refuses control characters in the single-line fields and NUL
// in every text field (package text).
func checkText(j *db.Job) error {
	checks := []error{
		text.Line("name", j.Name),
		text.Block("description", j.Description),
		text.Line("scheduleExpression", j.ScheduleExpression),
		text.Line("timeZone", j.TimeZone),
		text.Bytes("params", j.Params),
		text.Bytes("processor", j.Processor),
	}
	for _, d := range j.WorkerFilter.Designated {
		checks = append(checks, text.Line("workerFilter.designated", d))
	}
	for _, t := range j.WorkerFilter.Tags {
		checks = append(checks, text.Line("workerFilter.tags", t))
	}
	return firstOf(checks)
}

// headerName reports whether k is an HTTP header name (a token).
func headerName(k string) bool {
	if k == "" {
		return false
	}
	for _, r := range k {
		if r > 0x7e || r <= 0x20 || strings.ContainsRune("\"(),/:;<=>?@[\\]{}", r) {
			return false
		}
	}
	return true
}

// firstOf returns the first non-nil error (one field at a time, as the
// other checks of build report).
func firstOf(errs []error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func validateProcessor(j *db.Job) error {
	if !slices.Contains(db.ProcessorTypes, j.ProcessorType) {
		return fault.BadInput("processorType", "%q is not one of %s", j.ProcessorType, strings.Join(db.ProcessorTypes, ", "))
	}
	switch j.ProcessorType {
	case "GO":
		name := strings.TrimSpace(j.Processor)
		if name == "" || len(name) > 255 || strings.ContainsAny(name, " \t\n") || text.Line("processor", name) != nil {
			return fault.BadInput("processor", "a GO job names the processor its workers registered, e.g. \"sync-orders\" (no spaces, at most 255 characters)")
		}
		j.Processor = name
	case "SHELL", "PYTHON":
		if strings.TrimSpace(j.Processor) == "" {
			return fault.BadInput("processor", "a %s job needs the script to run", j.ProcessorType)
		}
		if len(j.Processor) > MaxScriptBytes {
			return fault.BadInput("processor", "the script is %d bytes; at most %d", len(j.Processor), MaxScriptBytes)
		}
	case "HTTP":
		var h HTTPProcessor
		dec := json.NewDecoder(strings.NewReader(j.Processor))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&h); err != nil {
			return fault.BadInput("processor", "an HTTP job's processor is JSON {\"method\",\"url\",\"headers\",\"body\",\"expectStatus\",\"timeoutMs\"}: %v", err)
		}
		u, err := url.Parse(h.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fault.BadInput("processor", "url %q is not an http(s) URL", h.URL)
		}
		if h.Method == "" {
			h.Method = "GET"
		}
		h.Method = strings.ToUpper(h.Method)
		if !slices.Contains([]string{"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"}, h.Method) {
			return fault.BadInput("processor", "method %q is not an HTTP method", h.Method)
		}
		if h.ExpectStatus != 0 && (h.ExpectStatus < 100 || h.ExpectStatus > 599) {
			return fault.BadInput("processor", "expectStatus %d is not an HTTP status", h.ExpectStatus)
		}
		if h.TimeoutMs < 0 {
			return fault.BadInput("processor", "timeoutMs must not be negative")
		}
		for k, v := range h.Headers {
			if !headerName(k) || text.Line("processor", v) != nil {
				return fault.BadInput("processor", "header %q: names must be tokens and values must not contain control characters", k)
			}
		}
		b, _ := json.Marshal(h)
		j.Processor = string(b)
	}
	if (j.ExecutionMode == "MAP" || j.ExecutionMode == "MAP_REDUCE") && j.ProcessorType != "GO" {
		return fault.BadInput("executionMode", "%s needs a GO processor, which can call map(); %s scripts cannot", j.ExecutionMode, j.ProcessorType)
	}
	return nil
}

// firstTrigger is a job's first fire from now, or nil.
func (s *Service) firstTrigger(j *db.Job, sch *schedule.Schedule) *time.Time {
	if !j.Enabled || !sch.Fires() {
		return nil
	}
	now := s.now()
	if j.ScheduleType == db.ScheduleFixedDelay {
		t := now.Add(sch.Interval())
		if j.LifecycleStart != nil && t.Before(*j.LifecycleStart) {
			t = *j.LifecycleStart
		}
		if j.LifecycleEnd != nil && t.After(*j.LifecycleEnd) {
			return nil
		}
		return &t
	}
	t, ok := sch.Next(now)
	if !ok {
		return nil
	}
	return &t
}

// Create validates and stores a new job.
func (s *Service) Create(ctx context.Context, in Input) (*db.Job, error) {
	app, err := s.apps.ByName(ctx, in.App, db.RoleEditor)
	if err != nil {
		return nil, asInput("app", err)
	}
	cal, err := s.calendarNamed(ctx, app.ID, in.Calendar)
	if err != nil {
		return nil, err
	}
	j, sch, err := s.build(in, app.ID, cal)
	if err != nil {
		return nil, err
	}
	j.NextTriggerAt = s.firstTrigger(j, sch)
	j.Version = 1
	err = s.db.InTx(ctx, func(ctx context.Context, tx *db.Store) error {
		if err := tx.JobCreate(ctx, j); err != nil {
			return err
		}
		return tx.JobVersionCreate(ctx, &db.JobVersion{JobID: j.ID, Version: 1, Definition: j.Definition(calendarName(cal)),
			Change: ChangeCreate, CreatedBy: by(ctx)})
	})
	if err != nil {
		if errors.Is(err, db.ErrConflict) {
			return nil, fault.BadInput("name", "app %q already has a job named %q", in.App, j.Name)
		}
		return nil, err
	}
	s.notify.JobsChanged(app.ID)
	return j, nil
}

// Update replaces a job's definition; its next fire is computed afresh.
// The change is kept as a new version.
func (s *Service) Update(ctx context.Context, id int64, in Input) (*db.Job, error) {
	return s.update(ctx, id, in, ChangeUpdate)
}

func (s *Service) update(ctx context.Context, id int64, in Input, change string) (*db.Job, error) {
	old, err := s.Get(ctx, id, db.RoleEditor)
	if err != nil {
		return nil, err
	}
	app, err := s.apps.ByID(ctx, old.AppID, db.RoleEditor)
	if err != nil {
		return nil, err
	}
	if in.App != app.Name {
		return nil, fault.BadInput("app", "a job cannot move to another app (it belongs to %q)", app.Name)
	}
	cal, err := s.calendarNamed(ctx, app.ID, in.Calendar)
	if err != nil {
		return nil, err
	}
	j, sch, err := s.build(in, app.ID, cal)
	if err != nil {
		return nil, err
	}
	// A job declared in code stays so: the next declaration overwrites a
	// manual edit (the console warns before one).
	j.ID, j.CreatedAt, j.ManagedBy = old.ID, old.CreatedAt, old.ManagedBy
	j.NextTriggerAt = s.firstTrigger(j, sch)
	if err := s.save(ctx, old, j, calendarName(cal), change); err != nil {
		if errors.Is(err, db.ErrConflict) {
			return nil, fault.BadInput("name", "app %q already has a job named %q", app.Name, j.Name)
		}
		return nil, err
	}
	s.notify.JobsChanged(app.ID)
	return j, nil
}

// save writes j over old as its next version, and drops the fires
// recorded ahead under the old definition (the trigger loop records the
// new schedule's own).
func (s *Service) save(ctx context.Context, old, j *db.Job, calendar, change string) error {
	oldCal, err := s.CalendarOf(ctx, old)
	if err != nil {
		return err
	}
	prev := db.JobVersion{Definition: old.Definition(calendarName(oldCal)), Change: ChangeCreate, CreatedAt: old.UpdatedAt}
	next := db.JobVersion{Definition: j.Definition(calendar), Change: change, CreatedBy: by(ctx)}
	err = s.db.InTx(ctx, func(ctx context.Context, tx *db.Store) error {
		if err := tx.JobSaveVersion(ctx, j, old.Version, prev, next); err != nil {
			return err
		}
		return tx.InstanceDeleteFutureScheduled(ctx, j.ID, s.now())
	})
	switch {
	case errors.Is(err, db.ErrChanged):
		return fault.Conflict("job %q was changed by someone else meanwhile (it is at a newer version than %d); reload it and try again", old.Name, old.Version)
	case err != nil:
		return notFound(err, "job")
	}
	return nil
}

// SetEnabled enables (from now on) or disables a job, as a new version.
func (s *Service) SetEnabled(ctx context.Context, id int64, enabled bool) (*db.Job, error) {
	old, err := s.Get(ctx, id, db.RoleEditor)
	if err != nil {
		return nil, err
	}
	sch, err := schedule.Parse(schedule.JobSpec(old))
	if err != nil {
		return nil, err
	}
	j := *old
	j.Enabled = enabled
	j.NextTriggerAt = s.firstTrigger(&j, sch)
	cal, err := s.CalendarOf(ctx, old)
	if err != nil {
		return nil, err
	}
	change := ChangeDisable
	if enabled {
		change = ChangeEnable
	}
	if err := s.save(ctx, old, &j, calendarName(cal), change); err != nil {
		return nil, err
	}
	s.notify.JobsChanged(j.AppID)
	return s.db.JobGet(ctx, id)
}

// Delete deletes a job with its history. Its running instances are
// stopped on their workers by the app's owner, which notices them gone.
func (s *Service) Delete(ctx context.Context, id int64) error {
	j, err := s.Get(ctx, id, db.RoleEditor)
	if err != nil {
		return err
	}
	if err := s.db.JobDelete(ctx, id); err != nil {
		return notFound(err, "job")
	}
	s.notify.InstancesChanged(j.AppID)
	return nil
}

// Get returns a job if the caller holds at least role on its app.
func (s *Service) Get(ctx context.Context, id int64, role db.Role) (*db.Job, error) {
	return auth.ReadInApp(ctx, s.auth, fmt.Sprintf("job %d", id), role,
		func(ctx context.Context) (*db.Job, error) { return s.db.JobGet(ctx, id) },
		func(j *db.Job) int64 { return j.AppID })
}

// List returns a page of an app's jobs, newest first.
func (s *Service) List(ctx context.Context, appName, search string, beforeID int64, limit int) (db.JobPage, error) {
	app, err := s.apps.ByName(ctx, appName, db.RoleViewer)
	if err != nil {
		return db.JobPage{}, err
	}
	return s.db.JobList(ctx, app.ID, search, beforeID, limit)
}

// Run starts a job now (or after delay) with optional parameters. With an
// idempotency key, a second call with the same key within
// IdempotencyWindow returns the instance the first one created and
// records nothing (its params and delay are not compared: the key names
// the run). Either way the write is one INSERT.
func (s *Service) Run(ctx context.Context, id int64, params string, delay time.Duration, key *string) (*db.Instance, error) {
	j, err := s.Get(ctx, id, db.RoleEditor)
	if err != nil {
		return nil, err
	}
	if len(params) > MaxParamsBytes {
		return nil, fault.BadInput("params", "must be at most %d bytes", MaxParamsBytes)
	}
	if err := text.Bytes("params", params); err != nil {
		return nil, err
	}
	if delay < 0 || delay > MaxDelay {
		return nil, fault.BadInput("delayMs", "must be between 0 and %d", MaxDelay.Milliseconds())
	}
	if err := CheckIdempotencyKey(key); err != nil {
		return nil, err
	}
	if j.ScheduleType == db.ScheduleWorkflow {
		return nil, fault.BadInput("id", "job %q runs only as a workflow node", j.Name)
	}
	now := s.now()
	in := &db.Instance{AppID: j.AppID, JobID: j.ID, Status: db.StatusWaiting, TriggerType: "API",
		TriggerAt: now.Add(delay), Params: params, IdempotencyKey: key, JobVersion: &j.Version}
	if trace.SpanContextFromContext(ctx).IsSampled() {
		// A traced API call: the fire's span will be its child.
		in.TraceParent = tracing.Traceparent(ctx)
	}
	if key != nil {
		got, created, err := s.db.InstanceCreateKeyed(ctx, in, now.Add(-IdempotencyWindow))
		if err != nil {
			return nil, err
		}
		if !created {
			return got, nil
		}
	} else if err := s.runs.Do(ctx, in); err != nil {
		return nil, err
	}
	s.notify.InstancesChanged(j.AppID)
	return in, nil
}

// CheckIdempotencyKey refuses a key that is empty, longer than
// MaxKeyChars or not one line of text; nil is no key.
func CheckIdempotencyKey(key *string) error {
	if key == nil {
		return nil
	}
	switch {
	case *key == "":
		return fault.BadInput("idempotencyKey", "must not be empty (leave it out for none)")
	case utf8.RuneCountInString(*key) > MaxKeyChars:
		return fault.BadInput("idempotencyKey", "must be at most %d characters", MaxKeyChars)
	case !utf8.ValidString(*key) || slices.ContainsFunc([]rune(*key), unicode.IsControl):
		return fault.BadInput("idempotencyKey", "must be one line of text without control characters")
	}
	return nil
}

// GetInstance returns an instance if the caller may see its app.
func (s *Service) GetInstance(ctx context.Context, id int64, role db.Role) (*db.Instance, error) {
	return auth.ReadInApp(ctx, s.auth, fmt.Sprintf("instance %d", id), role,
		func(ctx context.Context) (*db.Instance, error) { return s.db.InstanceGet(ctx, id) },
		func(in *db.Instance) int64 { return in.AppID })
}

// Stop stops an unfinished instance: STOPPED at once here, and the owner
// stops its tasks on their workers.
func (s *Service) Stop(ctx context.Context, id int64) (*db.Instance, error) {
	in, err := s.GetInstance(ctx, id, db.RoleEditor)
	if err != nil {
		return nil, err
	}
	if _, err := s.db.InstanceStop(ctx, id, "STOPPED"); err != nil {
		if errors.Is(err, db.ErrNotFound) {
			return nil, fault.Conflict("instance %d already ended (%s)", id, in.Status)
		}
		return nil, err
	}
	if err := s.db.AttemptUpsertMany(ctx, []db.InstanceAttempt{{InstanceID: id, Attempt: in.Attempt, Status: db.StatusStopped,
		Reason: "STOPPED", Result: "stopped by a user", FinishedAt: ptr(s.now())}}); err != nil {
		return nil, err
	}
	s.notify.InstancesChanged(in.AppID)
	return s.db.InstanceGet(ctx, id)
}

// Retry runs a finished, unsuccessful instance again as its next attempt.
func (s *Service) Retry(ctx context.Context, id int64) (*db.Instance, error) {
	in, err := s.GetInstance(ctx, id, db.RoleEditor)
	if err != nil {
		return nil, err
	}
	switch in.Status {
	case db.StatusFailed, db.StatusStopped, db.StatusCanceled:
	default:
		return nil, fault.Conflict("instance %d is %s; only FAILED, STOPPED or CANCELED instances can be retried", id, in.Status)
	}
	ok, err := s.db.InstanceRetry(ctx, id, in.Status, in.Attempt+1, s.now(), "")
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fault.Conflict("instance %d changed meanwhile; look again", id)
	}
	s.notify.InstancesChanged(in.AppID)
	return s.db.InstanceGet(ctx, id)
}

// ListInstances returns a page of instances of an app, newest first.
func (s *Service) ListInstances(ctx context.Context, appName string, f db.InstanceFilter) ([]db.Instance, bool, error) {
	app, err := s.apps.ByName(ctx, appName, db.RoleViewer)
	if err != nil {
		return nil, false, err
	}
	f.AppID = app.ID
	return s.db.InstanceList(ctx, f)
}

// CountInstances counts an app's instances the filter matches, on all
// pages.
func (s *Service) CountInstances(ctx context.Context, appName string, f db.InstanceFilter) (int, error) {
	app, err := s.apps.ByName(ctx, appName, db.RoleViewer)
	if err != nil {
		return 0, err
	}
	f.AppID = app.ID
	return s.db.InstanceCount(ctx, f)
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

func deref[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}

func ptr[T any](v T) *T { return &v }

// Attempts returns an instance's attempts (the caller already read it).
func (s *Service) Attempts(ctx context.Context, instanceID int64) ([]db.InstanceAttempt, error) {
	return s.db.AttemptList(ctx, instanceID)
}

// TaskCounts summarises an instance's current attempt's tasks.
func (s *Service) TaskCounts(ctx context.Context, instanceID int64) (*db.TaskCounts, error) {
	counts, err := s.db.TaskCountsByInstance(ctx, []int64{instanceID})
	if err != nil {
		return nil, err
	}
	c := counts[instanceID]
	c.InstanceID = instanceID
	return &c, nil
}

// JobStats is how one job's instances ended within a window.
type JobStats struct {
	Succeeded, Failed, Stopped, Canceled int
	Outcomes                             []db.OutcomeBucket
}

// JobStats counts the outcomes of a job the caller already read over the
// last `hours` hours.
func (s *Service) JobStats(ctx context.Context, job *db.Job, hours int) (*JobStats, error) {
	if hours < 1 || hours > 168 {
		return nil, fault.BadInput("hours", "must be between 1 and 168")
	}
	st := &JobStats{}
	var err error
	if st.Outcomes, err = s.db.JobOutcomes(ctx, job.ID, s.now().Add(-time.Duration(hours)*time.Hour).Truncate(time.Hour)); err != nil {
		return nil, err
	}
	for _, b := range st.Outcomes {
		st.Succeeded += b.Succeeded
		st.Failed += b.Failed
		st.Stopped += b.Stopped
		st.Canceled += b.Canceled
	}
	return st, nil
}

// Stats is an app at a glance.
type Stats struct {
	Jobs, EnabledJobs, Waiting, Running, Succeeded, Failed, WorkersAlive int
	Outcomes                                                             []db.OutcomeBucket
	// AppID and Since are what was counted, for the on-call figures
	// (oncall.go), read only when asked for.
	AppID int64
	Since time.Time
}

// Stats counts an app's jobs, instances and workers; finished instances
// over the last `hours` hours.
func (s *Service) Stats(ctx context.Context, appName string, hours int) (*Stats, error) {
	if hours < 1 || hours > 168 {
		return nil, fault.BadInput("hours", "must be between 1 and 168")
	}
	app, err := s.apps.ByName(ctx, appName, db.RoleViewer)
	if err != nil {
		return nil, err
	}
	st := &Stats{AppID: app.ID, Since: s.now().Add(-time.Duration(hours) * time.Hour)}
	if st.Jobs, st.EnabledJobs, err = s.db.JobCount(ctx, app.ID); err != nil {
		return nil, err
	}
	now, err := s.db.InstanceCountsNow(ctx, app.ID)
	if err != nil {
		return nil, err
	}
	st.Waiting = now[db.StatusWaiting]
	st.Running = now[db.StatusDispatched] + now[db.StatusRunning]
	if st.Outcomes, err = s.db.InstanceOutcomes(ctx, app.ID, s.now().Add(-time.Duration(hours)*time.Hour).Truncate(time.Hour)); err != nil {
		return nil, err
	}
	for _, b := range st.Outcomes {
		st.Succeeded += b.Succeeded
		st.Failed += b.Failed
	}
	if st.WorkersAlive, err = s.db.WorkerCountAlive(ctx, app.ID, s.now().Add(-db.WorkerAliveWindow)); err != nil {
		return nil, err
	}
	return st, nil
}
