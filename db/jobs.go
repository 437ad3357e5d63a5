package db

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// JobListByNames returns an app's jobs among names, in no particular order.
func (s *Store) JobListByNames(ctx context.Context, appID int64, names []string) ([]Job, error) {
	var out []Job
	if len(names) == 0 {
		return out, nil
	}
	err := s.idb.NewSelect().Model(&out).Where("app_id = ? AND name IN (?)", appID, bun.List(names)).Scan(ctx)
	return out, wrap(err, "reading jobs by name")
}

// JobDefinition is a job's definition as a version keeps it: JobInput's
// fields (the calendar by name), without the app.
type JobDefinition struct {
	Name               string          `json:"name"`
	Description        string          `json:"description"`
	Enabled            bool            `json:"enabled"`
	ScheduleType       string          `json:"scheduleType"`
	ScheduleExpression string          `json:"scheduleExpression"`
	TimeZone           string          `json:"timeZone"`
	LifecycleStart     *time.Time      `json:"lifecycleStart,omitempty"`
	LifecycleEnd       *time.Time      `json:"lifecycleEnd,omitempty"`
	ScheduleWindow     *ScheduleWindow `json:"scheduleWindow,omitempty"`
	Calendar           string          `json:"calendar,omitempty"`
	ExecutionMode      string          `json:"executionMode"`
	ProcessorType      string          `json:"processorType"`
	Processor          string          `json:"processor"`
	Params             string          `json:"params"`
	MaxInstances       int             `json:"maxInstances"`
	TaskConcurrency    int             `json:"taskConcurrency"`
	TimeoutMs          int64           `json:"timeoutMs"`
	InstanceRetries    int             `json:"instanceRetries"`
	TaskRetries        int             `json:"taskRetries"`
	WorkerFilter       WorkerFilter    `json:"workerFilter"`
	DispatchStrategy   string          `json:"dispatchStrategy"`
	MisfirePolicy      string          `json:"misfirePolicy"`
	Alarm              Alarm           `json:"alarm"`
	// Overlap, priority and retry back-off; a version kept before they
	// existed has them empty, which restores as the defaults.
	OverlapPolicy   string  `json:"overlapPolicy,omitempty"`
	MaxQueued       int     `json:"maxQueued,omitempty"`
	Priority        int     `json:"priority,omitempty"`
	RetryDelayMs    int64   `json:"retryDelayMs,omitempty"`
	RetryBackoff    float64 `json:"retryBackoff,omitempty"`
	RetryDelayMaxMs int64   `json:"retryDelayMaxMs,omitempty"`
	// Pool is the pool the job's instances take PoolSlots of ("" none).
	Pool      string `json:"pool,omitempty"`
	PoolSlots int    `json:"poolSlots,omitempty"`
}

// JobVersion is one kept version of a job.
type JobVersion struct {
	bun.BaseModel `bun:"table:job_versions,alias:jv"`

	JobID      int64         `bun:"job_id,pk"`
	Version    int           `bun:"version,pk"`
	Definition JobDefinition `bun:"definition,notnull,type:json"`
	// Change is CREATE, UPDATE, ENABLE, DISABLE or RESTORE (with the
	// version restored, e.g. "RESTORE 3").
	Change    string    `bun:"change,notnull"`
	CreatedBy string    `bun:"created_by,notnull"`
	CreatedAt time.Time `bun:"created_at,notnull"`
}

// Definition returns the job's definition; calendar is its calendar's
// name ("" for none).
func (j *Job) Definition(calendar string) JobDefinition {
	return JobDefinition{Name: j.Name, Description: j.Description, Enabled: j.Enabled, ScheduleType: j.ScheduleType,
		ScheduleExpression: j.ScheduleExpression, TimeZone: j.TimeZone, LifecycleStart: j.LifecycleStart, LifecycleEnd: j.LifecycleEnd,
		ScheduleWindow: j.ScheduleWindow, Calendar: calendar, ExecutionMode: j.ExecutionMode, ProcessorType: j.ProcessorType,
		Processor: j.Processor, Params: j.Params, MaxInstances: j.MaxInstances, TaskConcurrency: j.TaskConcurrency,
		TimeoutMs: j.TimeoutMs, InstanceRetries: j.InstanceRetries, TaskRetries: j.TaskRetries, WorkerFilter: j.WorkerFilter,
		DispatchStrategy: j.DispatchStrategy, MisfirePolicy: j.MisfirePolicy, Alarm: j.Alarm,
		OverlapPolicy: j.OverlapPolicy, MaxQueued: j.MaxQueued, Priority: j.Priority,
		RetryDelayMs: j.RetryDelayMs, RetryBackoff: j.RetryBackoff, RetryDelayMaxMs: j.RetryDelayMaxMs,
		Pool: j.Pool, PoolSlots: j.PoolSlots}
}

// ScheduleWindow restricts a FIXED_RATE job to a daily window of wall-clock
// time in the job's time zone, on chosen weekdays (package schedule).
type ScheduleWindow struct {
	// Start and End are times of day, "HH:MM" or "HH:MM:SS"; End is
	// included and later than Start (a window does not cross midnight).
	Start string `json:"start"`
	End   string `json:"end"`
	// Days are weekdays (MONDAY … SUNDAY); empty: every day.
	Days []string `json:"days,omitempty"`
}

// Job is a unit of work with its schedule, processor and limits.
type Job struct {
	bun.BaseModel `bun:"table:jobs,alias:j"`

	ID                 int64        `bun:"id,pk,autoincrement"`
	AppID              int64        `bun:"app_id,notnull"`
	Name               string       `bun:"name,notnull"`
	Description        string       `bun:"description,notnull"`
	Enabled            bool         `bun:"enabled,notnull"`
	ScheduleType       string       `bun:"schedule_type,notnull"`
	ScheduleExpression string       `bun:"schedule_expression,notnull"`
	TimeZone           string       `bun:"time_zone,notnull"`
	LifecycleStart     *time.Time   `bun:"lifecycle_start"`
	LifecycleEnd       *time.Time   `bun:"lifecycle_end"`
	ExecutionMode      string       `bun:"execution_mode,notnull"`
	ProcessorType      string       `bun:"processor_type,notnull"`
	Processor          string       `bun:"processor,notnull"`
	Params             string       `bun:"params,notnull"`
	MaxInstances       int          `bun:"max_instances,notnull"`
	TaskConcurrency    int          `bun:"task_concurrency,notnull"`
	TimeoutMs          int64        `bun:"timeout_ms,notnull"`
	InstanceRetries    int          `bun:"instance_retries,notnull"`
	TaskRetries        int          `bun:"task_retries,notnull"`
	WorkerFilter       WorkerFilter `bun:"worker_filter,notnull,type:json"`
	DispatchStrategy   string       `bun:"dispatch_strategy,notnull"`
	MisfirePolicy      string       `bun:"misfire_policy,notnull"`
	Alarm              Alarm        `bun:"alarm,notnull,type:json"`
	NextTriggerAt      *time.Time   `bun:"next_trigger_at"`
	// ScheduleWindow restricts a FIXED_RATE schedule to a daily window.
	ScheduleWindow *ScheduleWindow `bun:"schedule_window,type:json,nullzero"`
	// CalendarID is the calendar of excluded dates the job references;
	// ExcludedDates is a copy of its dates, kept by the API in the same
	// transaction as every change of the calendar, so the schedule is
	// computed from the job row alone.
	CalendarID    *int64   `bun:"calendar_id"`
	ExcludedDates []string `bun:"excluded_dates,type:json,nullzero"`
	// Version counts the job's changes (job_versions keeps each).
	Version int `bun:"version,notnull"`
	// ManagedBy is the managed set the job belongs to (nil: made through
	// the API or console); ManagedSource says whether the set is declared
	// in a worker's code (ManagedCode) or applied from files (ManagedFiles).
	ManagedBy     *string `bun:"managed_by"`
	ManagedSource *string `bun:"managed_source"`
	// OverlapPolicy says what a fire over MaxInstances does (CANCEL,
	// QUEUE, REPLACE); MaxQueued bounds the fires a QUEUE job holds.
	OverlapPolicy string `bun:"overlap_policy,notnull"`
	MaxQueued     int    `bun:"max_queued,notnull"`
	// Priority orders dispatch when workers are short of slots: the
	// queued tasks of higher-priority instances go first.
	Priority int `bun:"priority,notnull"`
	// Retry back-off: the n-th retry (of an instance or a task) waits
	// RetryDelayMs × RetryBackoff^(n-1), at most RetryDelayMaxMs (0: no cap
	// of the job's own), plus up to 10% jitter (docs/design.md §6.5).
	RetryDelayMs    int64   `bun:"retry_delay_ms,notnull"`
	RetryBackoff    float64 `bun:"retry_backoff,notnull"`
	RetryDelayMaxMs int64   `bun:"retry_delay_max_ms,notnull"`
	// Pool names the app's pool its instances take PoolSlots of while
	// they run ("" none; pools.go); a workflow node may name its own.
	Pool      string `bun:"pool,notnull"`
	PoolSlots int    `bun:"pool_slots,notnull"`
	// HasDownstream: a workflow names the job upstream (workflow_links.go),
	// so a success of its instances starts it. Only WorkflowLinkSet writes
	// it: saves of the job leave it out.
	HasDownstream bool      `bun:"has_downstream,notnull"`
	CreatedAt     time.Time `bun:"created_at,notnull"`
	UpdatedAt     time.Time `bun:"updated_at,notnull"`
}

// JobCreate inserts a job; ErrConflict if the app already has one of that name.
func (s *Store) JobCreate(ctx context.Context, j *Job) error {
	now := Now()
	j.CreatedAt, j.UpdatedAt = now, now
	_, err := s.idb.NewInsert().Model(j).Returning("id").Exec(ctx)
	return wrap(err, "creating job "+j.Name)
}

// JobUpdate replaces a job's definition (every column but id, app and
// created_at) if its updated_at is still prevUpdated; ErrNotFound otherwise.
func (s *Store) JobUpdate(ctx context.Context, j *Job) error {
	j.UpdatedAt = Now()
	res, err := s.idb.NewUpdate().Model(j).
		ExcludeColumn("id", "app_id", "created_at", "has_downstream").
		WherePK().Exec(ctx)
	return expectOne(res, err, "updating job")
}

// ErrChanged says a row was changed by someone else since it was read.
var ErrChanged = errors.New("it was changed meanwhile")

// JobSaveVersion saves j as the version after fromVersion, if the job is
// still at fromVersion (a concurrent change fails with ErrConflict), and
// records the new version with its definition; the version it replaces is
// recorded first if it never was (a job from before versions were kept).
func (s *Store) JobSaveVersion(ctx context.Context, j *Job, fromVersion int, prev, next JobVersion) error {
	now := Now()
	j.UpdatedAt, j.Version = now, fromVersion+1
	res, err := s.idb.NewUpdate().Model(j).
		ExcludeColumn("id", "app_id", "created_at", "has_downstream").
		WherePK().Where("version = ?", fromVersion).Exec(ctx)
	if err != nil {
		return wrap(err, "saving job")
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return fmt.Errorf("saving job: version %d is no longer the latest: %w", fromVersion, ErrChanged)
	}
	prev.JobID, prev.Version = j.ID, fromVersion
	if _, err := s.idb.NewInsert().Model(&prev).On("CONFLICT (job_id, version) DO NOTHING").Exec(ctx); err != nil {
		return wrap(err, "recording the job's previous version")
	}
	next.JobID, next.Version, next.CreatedAt = j.ID, j.Version, now
	_, err = s.idb.NewInsert().Model(&next).Exec(ctx)
	return wrap(err, "recording job version")
}

// JobVersionCreate records a version of a job, made now unless its
// CreatedAt says when (an imported version).
func (s *Store) JobVersionCreate(ctx context.Context, v *JobVersion) error {
	if v.CreatedAt.IsZero() {
		v.CreatedAt = Now()
	}
	_, err := s.idb.NewInsert().Model(v).Exec(ctx)
	return wrap(err, "recording job version")
}

// JobVersionList returns up to limit versions of a job, newest first.
func (s *Store) JobVersionList(ctx context.Context, jobID int64, limit int) ([]JobVersion, error) {
	var out []JobVersion
	err := s.idb.NewSelect().Model(&out).Where("job_id = ?", jobID).OrderExpr("version DESC").Limit(limit).Scan(ctx)
	return out, wrap(err, "listing job versions")
}

// JobVersionGet returns one version of a job.
func (s *Store) JobVersionGet(ctx context.Context, jobID int64, version int) (*JobVersion, error) {
	v := new(JobVersion)
	err := s.idb.NewSelect().Model(v).Where("job_id = ? AND version = ?", jobID, version).Scan(ctx)
	return v, wrap(err, "reading job version")
}

// JobSetEnabled enables or disables a job and sets its next trigger time.
func (s *Store) JobSetEnabled(ctx context.Context, id int64, enabled bool, next *time.Time) error {
	res, err := s.idb.NewUpdate().Model((*Job)(nil)).
		Set("enabled = ?", enabled).Set("next_trigger_at = ?", next).Set("updated_at = ?", Now()).
		Where("id = ?", id).Exec(ctx)
	return expectOne(res, err, "enabling job")
}

// JobDelete deletes a job; its instances, tasks and logs go with it.
func (s *Store) JobDelete(ctx context.Context, id int64) error {
	res, err := s.idb.NewDelete().Model((*Job)(nil)).Where("id = ?", id).Exec(ctx)
	return expectOne(res, err, "deleting job")
}

// JobGet returns a job by id.
func (s *Store) JobGet(ctx context.Context, id int64) (*Job, error) {
	j := new(Job)
	err := s.idb.NewSelect().Model(j).Where("id = ?", id).Scan(ctx)
	return j, wrap(err, "reading job")
}

// JobListByIDs returns the jobs with the ids, in no particular order.
func (s *Store) JobListByIDs(ctx context.Context, ids []int64) ([]Job, error) {
	var out []Job
	if len(ids) == 0 {
		return out, nil
	}
	err := s.idb.NewSelect().Model(&out).Where("id IN (?)", bun.List(ids)).Scan(ctx)
	return out, wrap(err, "reading jobs")
}

// JobPage is a page of an app's jobs, by id descending (newest first).
type JobPage struct {
	Jobs    []Job
	HasMore bool
}

// JobList returns up to limit jobs of an app with id below beforeID (0 for
// the first page), newest first. search narrows by name.
func (s *Store) JobList(ctx context.Context, appID int64, search string, beforeID int64, limit int) (JobPage, error) {
	var out []Job
	q := s.idb.NewSelect().Model(&out).Where("app_id = ?", appID).OrderExpr("id DESC").Limit(limit + 1)
	if beforeID > 0 {
		q = q.Where("id < ?", beforeID)
	}
	if search != "" {
		q = q.Where("LOWER(name) LIKE ?", "%"+escapeLike(search)+"%")
	}
	if err := q.Scan(ctx); err != nil {
		return JobPage{}, wrap(err, "listing jobs")
	}
	page := JobPage{Jobs: out}
	if len(out) > limit {
		page.Jobs, page.HasMore = out[:limit], true
	}
	return page, nil
}

// JobCount counts an app's jobs, and how many are enabled.
func (s *Store) JobCount(ctx context.Context, appID int64) (total, enabled int, err error) {
	var row struct {
		Total   int `bun:"total"`
		Enabled int `bun:"enabled"`
	}
	err = s.idb.NewSelect().Model((*Job)(nil)).
		ColumnExpr("COUNT(*) AS total").
		ColumnExpr("COALESCE(SUM(CASE WHEN enabled THEN 1 ELSE 0 END), 0) AS enabled").
		Where("app_id = ?", appID).Scan(ctx, &row)
	return row.Total, row.Enabled, wrap(err, "counting jobs")
}

// JobListDue returns up to limit enabled jobs of an app whose next trigger is
// at or before until, earliest first.
func (s *Store) JobListDue(ctx context.Context, appID int64, until time.Time, limit int) ([]Job, error) {
	var out []Job
	err := s.idb.NewSelect().Model(&out).
		Where("app_id = ? AND enabled AND next_trigger_at IS NOT NULL AND next_trigger_at <= ?", appID, until).
		OrderExpr("next_trigger_at, id").Limit(limit).Scan(ctx)
	return out, wrap(err, "reading due jobs")
}

// JobAdvance moves a job's next trigger from Old to New (nil: none until a
// run ends, for FIXED_DELAY, or ever).
type JobAdvance struct {
	ID  int64      `bun:"job_id"`
	Old time.Time  `bun:"old"`
	New *time.Time `bun:"new"`
}

// JobAdvanceMany applies the advances whose job still has next_trigger_at
// = Old (compare-and-set) in one statement, and returns the ids advanced.
// A job changed meanwhile (edited, disabled, advanced by another owner) is
// left alone.
func (s *Store) JobAdvanceMany(ctx context.Context, advances []JobAdvance) ([]int64, error) {
	var ids []int64
	if len(advances) == 0 {
		return ids, nil
	}
	if s.dialect == Postgres {
		from, arg, _ := s.recordset("?", advances)
		err := s.idb.NewRaw(`UPDATE jobs AS j SET next_trigger_at = d.new FROM `+from+`
			WHERE j.id = d.job_id AND j.next_trigger_at = d.old RETURNING j.id`, arg).Scan(ctx, &ids)
		return ids, wrap(err, "advancing jobs")
	}
	values := s.idb.NewValues(&advances)
	err := s.idb.NewUpdate().
		With("_data", values).
		Model((*Job)(nil)).
		TableExpr("_data").
		Set("next_trigger_at = _data.new").
		Where("j.id = _data.job_id AND j.next_trigger_at = _data.old").
		Returning("id").
		Scan(ctx, &ids)
	return ids, wrap(err, "advancing jobs")
}

// JobSetNextIfUnset sets a FIXED_DELAY job's next trigger after a run
// ended, unless something already set it.
func (s *Store) JobSetNextIfUnset(ctx context.Context, id int64, next time.Time) error {
	_, err := s.idb.NewUpdate().Model((*Job)(nil)).
		Set("next_trigger_at = ?", next).
		Where("id = ? AND next_trigger_at IS NULL AND enabled", id).Exec(ctx)
	return wrap(err, "re-arming job")
}

func escapeLike(s string) string {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c == '%' || c == '_' {
			continue
		}
		out = append(out, c)
	}
	return string(out)
}
