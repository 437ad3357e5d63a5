package db

import (
	"time"

	"github.com/uptrace/bun"
)

// User is a console or API user. Only the password's hash is stored.
type User struct {
	bun.BaseModel `bun:"table:users,alias:u"`

	ID           int64  `bun:"id,pk,autoincrement"`
	Username     string `bun:"username,notnull"`
	PasswordHash string `bun:"password_hash,notnull"`
	Admin        bool   `bun:"admin,notnull"`
	// SSOSubject is the identity provider's issuer and subject
	// ("issuer#subject") of a user who signs in with single sign-on; nil
	// for local users.
	SSOSubject *string   `bun:"sso_subject"`
	CreatedAt  time.Time `bun:"created_at,notnull"`
	UpdatedAt  time.Time `bun:"updated_at,notnull"`
}

// Session is a login. The bearer token is only stored as its SHA-256.
type Session struct {
	bun.BaseModel `bun:"table:sessions,alias:s"`

	ID        int64     `bun:"id,pk,autoincrement"`
	TokenHash string    `bun:"token_hash,notnull"`
	UserID    int64     `bun:"user_id,notnull"`
	CreatedAt time.Time `bun:"created_at,notnull"`
	ExpiresAt time.Time `bun:"expires_at,notnull"`
	// SSORefresh is the identity provider's refresh token, sealed
	// (package sso); "" for password logins. SSOCheckedAt is when the
	// user's groups were last checked with the provider.
	SSORefresh   string     `bun:"sso_refresh,notnull"`
	SSOCheckedAt *time.Time `bun:"sso_checked_at"`
}

// App is a tenant: jobs, workflows and workers belong to exactly one app.
// Workers authenticate with the app's secret, of which only a hash is kept.
type App struct {
	bun.BaseModel `bun:"table:apps,alias:a"`

	ID          int64     `bun:"id,pk,autoincrement"`
	Name        string    `bun:"name,notnull"`
	Description string    `bun:"description,notnull"`
	SecretHash  string    `bun:"secret_hash,notnull"`
	CreatedAt   time.Time `bun:"created_at,notnull"`
	UpdatedAt   time.Time `bun:"updated_at,notnull"`
}

// Role is a user's or token's right on one app.
type Role string

const (
	RoleViewer Role = "VIEWER"
	RoleEditor Role = "EDITOR"
	RoleOwner  Role = "OWNER"
)

// AppMember grants a user a role on an app.
type AppMember struct {
	bun.BaseModel `bun:"table:app_members,alias:m"`

	AppID     int64     `bun:"app_id,pk"`
	UserID    int64     `bun:"user_id,pk"`
	Role      Role      `bun:"role,notnull"`
	CreatedAt time.Time `bun:"created_at,notnull"`
}

// APIToken lets another service call the API as its creator, optionally
// narrowed to one app and role. Only the token's SHA-256 is stored.
type APIToken struct {
	bun.BaseModel `bun:"table:api_tokens,alias:t"`

	ID         int64      `bun:"id,pk,autoincrement"`
	Name       string     `bun:"name,notnull"`
	TokenHash  string     `bun:"token_hash,notnull"`
	UserID     int64      `bun:"user_id,notnull"`
	AppID      *int64     `bun:"app_id"`
	Role       *Role      `bun:"role"`
	CreatedAt  time.Time  `bun:"created_at,notnull"`
	LastUsedAt *time.Time `bun:"last_used_at"`
	RevokedAt  *time.Time `bun:"revoked_at"`
}

// Server is one running jobwheel server process.
type Server struct {
	bun.BaseModel `bun:"table:servers,alias:srv"`

	ID           string    `bun:"id,pk"`
	AdvertiseURL string    `bun:"advertise_url,notnull"`
	Version      string    `bun:"version,notnull"`
	StartedAt    time.Time `bun:"started_at,notnull"`
	HeartbeatAt  time.Time `bun:"heartbeat_at,notnull"`
}

// AppLease says which server schedules an app until when. Epoch grows on
// every change of owner and fences dispatches from a former owner.
type AppLease struct {
	bun.BaseModel `bun:"table:app_leases,alias:l"`

	AppID      int64     `bun:"app_id,pk"`
	ServerID   string    `bun:"server_id,notnull"`
	Epoch      int64     `bun:"epoch,notnull"`
	AcquiredAt time.Time `bun:"acquired_at,notnull"`
	ExpiresAt  time.Time `bun:"expires_at,notnull"`
}

// WorkerMetrics is what a worker reports in its heartbeats.
type WorkerMetrics struct {
	CPUCores     int     `json:"cpuCores"`
	Load1        float64 `json:"load1"`
	FreeMemoryMB int64   `json:"freeMemoryMB"`
	FreeDiskMB   int64   `json:"freeDiskMB"`
	Running      int     `json:"running"`
}

// Worker is the last known state of a worker connected to some server, kept
// so that any server can list an app's workers.
type Worker struct {
	bun.BaseModel `bun:"table:workers,alias:w"`

	AppID          int64         `bun:"app_id,pk"`
	ID             string        `bun:"id,pk"`
	ServerID       string        `bun:"server_id,notnull"`
	Host           string        `bun:"host,notnull"`
	Version        string        `bun:"version,notnull"`
	Tags           []string      `bun:"tags,notnull,type:json"`
	Processors     []string      `bun:"processors,notnull,type:json"`
	Slots          int           `bun:"slots,notnull"`
	Metrics        WorkerMetrics `bun:"metrics,notnull,type:json"`
	ConnectedAt    time.Time     `bun:"connected_at,notnull"`
	LastHeartbeat  time.Time     `bun:"last_heartbeat,notnull"`
	DisconnectedAt *time.Time    `bun:"disconnected_at"`
	// Draining: it stopping gracefully and takes no new tasks.
	Draining bool `bun:"draining,notnull"`
}

// WorkerFilter narrows the workers a job may run on.
type WorkerFilter struct {
	Designated  []string `json:"designated,omitempty"`
	Tags        []string `json:"tags,omitempty"`
	MinCPUCores int      `json:"minCpuCores,omitempty"`
	MinMemoryMB int64    `json:"minMemoryMB,omitempty"`
	MinDiskMB   int64    `json:"minDiskMB,omitempty"`
	MaxWorkers  int      `json:"maxWorkers,omitempty"`
}

// Alarm says when to tell whom about a job's (or a workflow's) runs:
// rules (failure, N consecutive failures, timeout, late start, recovery),
// each with its own silence window, and the channels to tell (package
// alarm). The Legacy fields are the first API's settings (onFailure,
// onTimeout, webhooks, emails, silenceSec): rows saved before rules and
// channels existed hold them, and Normalized folds them into rules and
// channels; the API saves only rules and channels.
type Alarm struct {
	Rules    []AlarmRule    `json:"rules,omitempty"`
	Channels []AlarmChannel `json:"channels,omitempty"`

	LegacyOnFailure  bool     `json:"onFailure,omitempty"`
	LegacyOnTimeout  bool     `json:"onTimeout,omitempty"`
	LegacyWebhooks   []string `json:"webhooks,omitempty"`
	LegacyEmails     []string `json:"emails,omitempty"`
	LegacySilenceSec int      `json:"silenceSec,omitempty"`
}

// AlarmRule is one condition that raises an alarm.
type AlarmRule struct {
	// Type is one of AlarmRuleTypes.
	Type string `json:"type"`
	// Threshold is N for CONSECUTIVE_FAILURES and the lateness in
	// milliseconds for START_LATE; unused by the others.
	Threshold int64 `json:"threshold,omitempty"`
	// SilenceSec: after this rule alarmed, its further alarms within this
	// many seconds are recorded SILENCED instead of sent (0: none are).
	SilenceSec int `json:"silenceSec,omitempty"`
}

// AlarmChannel is one place an alarm is sent to.
type AlarmChannel struct {
	// Type is one of AlarmChannelTypes.
	Type string `json:"type"`
	// Target is the URL (webhooks and chat incoming webhooks) or the email
	// address. Chat URLs carry their key: never logged whole.
	Target string `json:"target"`
}

// Alarm rule types.
const (
	AlarmFailure     = "FAILURE"
	AlarmConsecutive = "CONSECUTIVE_FAILURES"
	AlarmTimeout     = "TIMEOUT"
	AlarmStartLate   = "START_LATE"
	AlarmRecovery    = "RECOVERY"
)

// AlarmRuleTypes lists the rule types.
var AlarmRuleTypes = []string{AlarmFailure, AlarmConsecutive, AlarmTimeout, AlarmStartLate, AlarmRecovery}

// Alarm channel types.
const (
	ChannelWebhook  = "WEBHOOK"
	ChannelEmail    = "EMAIL"
	ChannelSlack    = "SLACK"
	ChannelFeishu   = "FEISHU"
	ChannelDingTalk = "DINGTALK"
	ChannelWeCom    = "WECOM"
)

// AlarmChannelTypes lists the channel types.
var AlarmChannelTypes = []string{ChannelWebhook, ChannelEmail, ChannelSlack, ChannelFeishu, ChannelDingTalk, ChannelWeCom}

// Normalized returns the alarm with its legacy fields folded into rules
// and channels (onFailure → FAILURE, onTimeout → TIMEOUT, both with
// silenceSec; webhooks → WEBHOOK, emails → EMAIL) and cleared.
func (a Alarm) Normalized() Alarm {
	out := Alarm{Rules: append([]AlarmRule(nil), a.Rules...), Channels: append([]AlarmChannel(nil), a.Channels...)}
	if a.LegacyOnFailure && out.Rule(AlarmFailure) == nil {
		out.Rules = append(out.Rules, AlarmRule{Type: AlarmFailure, SilenceSec: a.LegacySilenceSec})
	}
	if a.LegacyOnTimeout && out.Rule(AlarmTimeout) == nil {
		out.Rules = append(out.Rules, AlarmRule{Type: AlarmTimeout, SilenceSec: a.LegacySilenceSec})
	}
	add := func(typ string, targets []string) {
		for _, t := range targets {
			if !out.hasChannel(typ, t) {
				out.Channels = append(out.Channels, AlarmChannel{Type: typ, Target: t})
			}
		}
	}
	add(ChannelWebhook, a.LegacyWebhooks)
	add(ChannelEmail, a.LegacyEmails)
	return out
}

func (a Alarm) hasChannel(typ, target string) bool {
	for _, c := range a.Channels {
		if c.Type == typ && c.Target == target {
			return true
		}
	}
	return false
}

// Rule returns the rule of a type, or nil. (Legacy fields aside: call it
// on a Normalized alarm.)
func (a Alarm) Rule(typ string) *AlarmRule {
	for i := range a.Rules {
		if a.Rules[i].Type == typ {
			return &a.Rules[i]
		}
	}
	return nil
}

// Watches says whether the alarm has a rule of a type, legacy fields
// included. It allocates nothing: the scheduling path asks it.
func (a *Alarm) Watches(typ string) bool {
	switch {
	case typ == AlarmFailure && a.LegacyOnFailure, typ == AlarmTimeout && a.LegacyOnTimeout:
		return true
	}
	for i := range a.Rules {
		if a.Rules[i].Type == typ {
			return true
		}
	}
	return false
}

// The first API's fields, as the API still shows them (deprecated):
// computed from the rules and channels.

// OnFailure says whether a FAILURE rule is set.
func (a Alarm) OnFailure() bool { return a.Normalized().Rule(AlarmFailure) != nil }

// OnTimeout says whether a TIMEOUT rule is set.
func (a Alarm) OnTimeout() bool { return a.Normalized().Rule(AlarmTimeout) != nil }

// Webhooks are the WEBHOOK channels' URLs.
func (a Alarm) Webhooks() []string { return a.targets(ChannelWebhook) }

// Emails are the EMAIL channels' addresses.
func (a Alarm) Emails() []string { return a.targets(ChannelEmail) }

// SilenceSec is the FAILURE (else TIMEOUT) rule's silence.
func (a Alarm) SilenceSec() int {
	n := a.Normalized()
	for _, typ := range []string{AlarmFailure, AlarmTimeout} {
		if r := n.Rule(typ); r != nil {
			return r.SilenceSec
		}
	}
	return 0
}

func (a Alarm) targets(typ string) []string {
	out := []string{}
	for _, c := range a.Normalized().Channels {
		if c.Type == typ {
			out = append(out, c.Target)
		}
	}
	return out
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
		RetryDelayMs: j.RetryDelayMs, RetryBackoff: j.RetryBackoff, RetryDelayMaxMs: j.RetryDelayMaxMs}
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

// Calendar is a named set of dates, per app, on which the jobs that
// reference it do not fire (holidays).
type Calendar struct {
	bun.BaseModel `bun:"table:calendars,alias:cal"`

	ID          int64  `bun:"id,pk,autoincrement"`
	AppID       int64  `bun:"app_id,notnull"`
	Name        string `bun:"name,notnull"`
	Description string `bun:"description,notnull"`
	// Dates are "YYYY-MM-DD", sorted, each once.
	Dates     []string  `bun:"dates,notnull,type:json"`
	CreatedAt time.Time `bun:"created_at,notnull"`
	UpdatedAt time.Time `bun:"updated_at,notnull"`
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
	// ManagedBy is the set of jobs declared in code the job belongs to
	// (nil: made through the API).
	ManagedBy *string `bun:"managed_by"`
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
	RetryDelayMs    int64     `bun:"retry_delay_ms,notnull"`
	RetryBackoff    float64   `bun:"retry_backoff,notnull"`
	RetryDelayMaxMs int64     `bun:"retry_delay_max_ms,notnull"`
	CreatedAt       time.Time `bun:"created_at,notnull"`
	UpdatedAt       time.Time `bun:"updated_at,notnull"`
}

// Instance states (docs/design.md §5.6).
const (
	StatusWaiting    = "WAITING"
	StatusDispatched = "DISPATCHED"
	StatusRunning    = "RUNNING"
	StatusSucceeded  = "SUCCEEDED"
	StatusFailed     = "FAILED"
	StatusStopped    = "STOPPED"
	StatusCanceled   = "CANCELED"
)

// Instance is one run of a job.
type Instance struct {
	bun.BaseModel `bun:"table:instances,alias:i"`

	ID                 int64      `bun:"id,pk,autoincrement"`
	AppID              int64      `bun:"app_id,notnull"`
	JobID              int64      `bun:"job_id,notnull"`
	WorkflowInstanceID *int64     `bun:"workflow_instance_id"`
	WorkflowNodeID     *string    `bun:"workflow_node_id"`
	Status             string     `bun:"status,notnull"`
	TriggerType        string     `bun:"trigger_type,notnull"`
	ExpectedTriggerAt  *time.Time `bun:"expected_trigger_at"`
	TriggerAt          time.Time  `bun:"trigger_at,notnull"`
	ActualTriggerAt    *time.Time `bun:"actual_trigger_at"`
	StartedAt          *time.Time `bun:"started_at"`
	FinishedAt         *time.Time `bun:"finished_at"`
	Attempt            int        `bun:"attempt,notnull"`
	Params             string     `bun:"params,notnull"`
	Result             string     `bun:"result,notnull"`
	Reason             string     `bun:"reason,notnull"`
	WorkerID           *string    `bun:"worker_id"`
	Epoch              int64      `bun:"epoch,notnull"`
	LogSeq             int64      `bun:"log_seq,notnull"`
	// A workflow node's instance: the generation of the node it ran for,
	// the FOREACH element it ran, what it was given and what it added to
	// the run's context, and the node's overrides of the job's timeout and
	// retries.
	WorkflowGeneration *int               `bun:"workflow_generation"`
	WorkflowItem       *int               `bun:"workflow_item"`
	WorkflowInput      *WorkflowTaskInput `bun:"workflow_input,type:json,nullzero"`
	WorkflowOutput     map[string]any     `bun:"workflow_output,type:json,nullzero"`
	TimeoutMs          *int64             `bun:"timeout_ms"`
	MaxRetries         *int               `bun:"max_retries"`
	// IdempotencyKey is the key runJob was called with, held for
	// IdempotencyWindow (server/api/jobs); nil for every other instance.
	IdempotencyKey *string `bun:"idempotency_key"`
	// JobVersion is the version of the job the instance ran (nil for
	// instances from before versions were kept, and workflow nodes).
	JobVersion *int `bun:"job_version"`
	// NoWorker is why no connected worker could take it, as last found
	// (nil if it never waited for a worker; noworker.go).
	NoWorker *NoWorker `bun:"no_worker,type:json,nullzero"`
	// TraceParent is the W3C traceparent of the span the instance is
	// traced under: until it fires, the API call that created it (if
	// traced); from its fire on, its dispatch span, the parent of its
	// tasks' spans. "" when it is not traced.
	TraceParent string    `bun:"trace_parent,notnull"`
	CreatedAt   time.Time `bun:"created_at,notnull"`
	UpdatedAt   time.Time `bun:"updated_at,notnull"`
}

// InstanceAttempt keeps each attempt's worker, times and outcome.
type InstanceAttempt struct {
	bun.BaseModel `bun:"table:instance_attempts,alias:ia"`

	ID         int64      `bun:"id,pk,autoincrement"`
	InstanceID int64      `bun:"instance_id,notnull"`
	Attempt    int        `bun:"attempt,notnull"`
	Status     string     `bun:"status,notnull"`
	WorkerID   *string    `bun:"worker_id"`
	Result     string     `bun:"result,notnull"`
	Reason     string     `bun:"reason,notnull"`
	StartedAt  *time.Time `bun:"started_at"`
	FinishedAt *time.Time `bun:"finished_at"`
}

// Task is a durable unit of an instance's work on one worker: the root task
// of a STANDALONE instance, one per worker for BROADCAST, or a map subtask.
type Task struct {
	bun.BaseModel `bun:"table:tasks,alias:tk"`

	ID              int64      `bun:"id,pk,autoincrement"`
	InstanceID      int64      `bun:"instance_id,notnull"`
	ParentID        *int64     `bun:"parent_id"`
	Name            string     `bun:"name,notnull"`
	Kind            string     `bun:"kind,notnull"`
	Status          string     `bun:"status,notnull"`
	Payload         string     `bun:"payload,notnull"`
	Result          string     `bun:"result,notnull"`
	WorkerID        *string    `bun:"worker_id"`
	InstanceAttempt int        `bun:"instance_attempt,notnull"`
	Retries         int        `bun:"retries,notnull"`
	CreatedAt       time.Time  `bun:"created_at,notnull"`
	DispatchedAt    *time.Time `bun:"dispatched_at"`
	FinishedAt      *time.Time `bun:"finished_at"`
	UpdatedAt       time.Time  `bun:"updated_at,notnull"`
	// NotBefore is when a WAITING task waiting for its retry may be
	// dispatched (nil: at once): the retry back-off, kept on the row so a
	// new owner waits too.
	NotBefore *time.Time `bun:"not_before"`
}

// InstanceLog is one log line of an instance. Seq is assigned by the server
// and increases per instance; (WorkerID, WorkerSeq) de-duplicates re-sends.
type InstanceLog struct {
	bun.BaseModel `bun:"table:instance_logs,alias:lg"`

	ID         int64     `bun:"id,pk,autoincrement"`
	InstanceID int64     `bun:"instance_id,notnull"`
	Seq        int64     `bun:"seq,notnull"`
	WorkerID   string    `bun:"worker_id,notnull"`
	WorkerSeq  int64     `bun:"worker_seq,notnull"`
	Time       time.Time `bun:"time,notnull"`
	Level      string    `bun:"level,notnull"`
	Text       string    `bun:"text,notnull"`
}
