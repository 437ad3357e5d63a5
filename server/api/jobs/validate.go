package jobs

import (
	"encoding/json"
	"math"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/server/api/alarm"
	"github.com/jobwheel/jobwheel/server/api/secrets"
	"github.com/jobwheel/jobwheel/server/platform/fault"
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
	// Pool names the app's pool the job's instances take PoolSlots of
	// (default 1) while they run; nil or empty: none (pools.go).
	Pool      *string
	PoolSlots *int
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
		RetryDelayMaxMs: int64(deref(in.RetryDelayMaxMs, 0)),
		Pool:            strings.TrimSpace(deref(in.Pool, "")), PoolSlots: deref(in.PoolSlots, 1)}
	if j.Pool == "" && in.PoolSlots != nil {
		return nil, nil, fault.BadInput("poolSlots", "applies with a pool only; name the pool the job takes slots of")
	}
	if err := CheckPoolRef("poolSlots", j.PoolSlots); err != nil {
		return nil, nil, err
	}
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
		text.Line("pool", j.Pool),
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
			if secrets.Holds(v) {
				return fault.BadInput("processor", "header %q: %s stands for a value this job does not have stored; give the value", k, secrets.Redacted)
			}
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
