// Package manifest reads and writes jobwheel's configuration files: YAML
// documents of apps' jobs, workflows and calendars (docs/config-as-code.md).
// Each document is
//
//	apiVersion: jobwheel.io/v1
//	kind: Job            # Job, Workflow or Calendar
//	metadata:
//	  app: orders
//	  name: nightly-report
//	spec: { … }          # JobInput's, WorkflowInput's or CalendarInput's fields
//
// whose spec has exactly the API's input field names (graph/schema), but
// for workflow nodes, which name their job and nested workflow (job,
// workflow) rather than number them, so a file means the same on every
// server. Reading is strict: an unknown field, a value of the wrong type
// or an unknown enum value is an error naming the file, the document and
// the field's path. The canonical form (Canonical) leaves out every value
// equal to the API's default, so what export writes and what a file says
// compare equal whenever the server would store the same.
package manifest

// APIVersion is the only apiVersion documents may have.
const APIVersion = "jobwheel.io/v1"

// SetLabel is the label naming the managed set a document belongs to.
const SetLabel = "jobwheel.io/set"

// Kinds of documents.
const (
	KindJob      = "Job"
	KindWorkflow = "Workflow"
	KindCalendar = "Calendar"
)

// Document is one YAML document, with where it was read from.
type Document struct {
	APIVersion string   `yaml:"apiVersion" json:"apiVersion"`
	Kind       string   `yaml:"kind" json:"kind"`
	Metadata   Metadata `yaml:"metadata" json:"metadata"`
	// Spec is a *JobSpec, *WorkflowSpec or *CalendarSpec, after Kind.
	Spec any `yaml:"spec" json:"spec"`

	// Source is where the document was read; empty for one made by
	// export.
	Source Source `yaml:"-" json:"-"`
}

// Metadata names a document's object.
type Metadata struct {
	App    string            `yaml:"app" json:"app"`
	Name   string            `yaml:"name" json:"name"`
	Labels map[string]string `yaml:"labels,omitempty" json:"labels,omitempty"`
}

// Source is where a document was read: its file, its place among the
// file's documents (from 1) and the line each of its fields starts on, by
// path (e.g. "spec.nodes[2].job").
type Source struct {
	File  string
	Index int
	Line  int
	Lines map[string]int
}

// JobSpec is JobInput without app and name.
type JobSpec struct {
	Description        *string         `yaml:"description,omitempty" json:"description,omitempty"`
	Enabled            *bool           `yaml:"enabled,omitempty" json:"enabled,omitempty"`
	ScheduleType       string          `yaml:"scheduleType" json:"scheduleType"`
	ScheduleExpression *string         `yaml:"scheduleExpression,omitempty" json:"scheduleExpression,omitempty"`
	TimeZone           *string         `yaml:"timeZone,omitempty" json:"timeZone,omitempty"`
	ScheduleWindow     *ScheduleWindow `yaml:"scheduleWindow,omitempty" json:"scheduleWindow,omitempty"`
	Calendar           *string         `yaml:"calendar,omitempty" json:"calendar,omitempty"`
	Lifecycle          *Lifecycle      `yaml:"lifecycle,omitempty" json:"lifecycle,omitempty"`
	ExecutionMode      *string         `yaml:"executionMode,omitempty" json:"executionMode,omitempty"`
	ProcessorType      string          `yaml:"processorType" json:"processorType"`
	Processor          string          `yaml:"processor" json:"processor"`
	Params             *string         `yaml:"params,omitempty" json:"params,omitempty"`
	MaxInstances       *int            `yaml:"maxInstances,omitempty" json:"maxInstances,omitempty"`
	TaskConcurrency    *int            `yaml:"taskConcurrency,omitempty" json:"taskConcurrency,omitempty"`
	TimeoutMs          *int            `yaml:"timeoutMs,omitempty" json:"timeoutMs,omitempty"`
	InstanceRetries    *int            `yaml:"instanceRetries,omitempty" json:"instanceRetries,omitempty"`
	TaskRetries        *int            `yaml:"taskRetries,omitempty" json:"taskRetries,omitempty"`
	WorkerFilter       *WorkerFilter   `yaml:"workerFilter,omitempty" json:"workerFilter,omitempty"`
	DispatchStrategy   *string         `yaml:"dispatchStrategy,omitempty" json:"dispatchStrategy,omitempty"`
	MisfirePolicy      *string         `yaml:"misfirePolicy,omitempty" json:"misfirePolicy,omitempty"`
	Alarm              *Alarm          `yaml:"alarm,omitempty" json:"alarm,omitempty"`
	OverlapPolicy      *string         `yaml:"overlapPolicy,omitempty" json:"overlapPolicy,omitempty"`
	MaxQueued          *int            `yaml:"maxQueued,omitempty" json:"maxQueued,omitempty"`
	Priority           *int            `yaml:"priority,omitempty" json:"priority,omitempty"`
	RetryDelayMs       *int            `yaml:"retryDelayMs,omitempty" json:"retryDelayMs,omitempty"`
	RetryBackoff       *float64        `yaml:"retryBackoff,omitempty" json:"retryBackoff,omitempty"`
	RetryDelayMaxMs    *int            `yaml:"retryDelayMaxMs,omitempty" json:"retryDelayMaxMs,omitempty"`
	Pool               *string         `yaml:"pool,omitempty" json:"pool,omitempty"`
	PoolSlots          *int            `yaml:"poolSlots,omitempty" json:"poolSlots,omitempty"`
}

// ScheduleWindow is ScheduleWindowInput.
type ScheduleWindow struct {
	Start string   `yaml:"start" json:"start"`
	End   string   `yaml:"end" json:"end"`
	Days  []string `yaml:"days,omitempty" json:"days,omitempty"`
}

// Lifecycle is LifecycleInput: RFC 3339 times.
type Lifecycle struct {
	Start *string `yaml:"start,omitempty" json:"start,omitempty"`
	End   *string `yaml:"end,omitempty" json:"end,omitempty"`
}

// WorkerFilter is WorkerFilterInput.
type WorkerFilter struct {
	Designated  []string `yaml:"designated,omitempty" json:"designated,omitempty"`
	Tags        []string `yaml:"tags,omitempty" json:"tags,omitempty"`
	MinCPUCores *int     `yaml:"minCpuCores,omitempty" json:"minCpuCores,omitempty"`
	MinMemoryMB *int     `yaml:"minMemoryMB,omitempty" json:"minMemoryMB,omitempty"`
	MinDiskMB   *int     `yaml:"minDiskMB,omitempty" json:"minDiskMB,omitempty"`
	MaxWorkers  *int     `yaml:"maxWorkers,omitempty" json:"maxWorkers,omitempty"`
}

// Alarm is AlarmInput without its deprecated fields.
type Alarm struct {
	Rules    []AlarmRule    `yaml:"rules,omitempty" json:"rules"`
	Channels []AlarmChannel `yaml:"channels,omitempty" json:"channels"`
}

// AlarmRule is AlarmRuleInput.
type AlarmRule struct {
	Type       string `yaml:"type" json:"type"`
	Threshold  *int   `yaml:"threshold,omitempty" json:"threshold,omitempty"`
	SilenceSec *int   `yaml:"silenceSec,omitempty" json:"silenceSec,omitempty"`
}

// AlarmChannel is AlarmChannelInput.
type AlarmChannel struct {
	Type   string `yaml:"type" json:"type"`
	Target string `yaml:"target" json:"target"`
}

// WorkflowSpec is WorkflowInput without app and name.
type WorkflowSpec struct {
	Description        *string        `yaml:"description,omitempty" json:"description,omitempty"`
	Enabled            *bool          `yaml:"enabled,omitempty" json:"enabled,omitempty"`
	ScheduleType       string         `yaml:"scheduleType" json:"scheduleType"`
	ScheduleExpression *string        `yaml:"scheduleExpression,omitempty" json:"scheduleExpression,omitempty"`
	TimeZone           *string        `yaml:"timeZone,omitempty" json:"timeZone,omitempty"`
	MaxInstances       *int           `yaml:"maxInstances,omitempty" json:"maxInstances,omitempty"`
	OverlapPolicy      *string        `yaml:"overlapPolicy,omitempty" json:"overlapPolicy,omitempty"`
	MisfirePolicy      *string        `yaml:"misfirePolicy,omitempty" json:"misfirePolicy,omitempty"`
	FailFast           *bool          `yaml:"failFast,omitempty" json:"failFast,omitempty"`
	Nodes              []WorkflowNode `yaml:"nodes" json:"nodes"`
	Edges              []WorkflowEdge `yaml:"edges,omitempty" json:"edges"`
	Alarm              *Alarm         `yaml:"alarm,omitempty" json:"alarm,omitempty"`
}

// WorkflowNode is WorkflowNodeInput, its job and nested workflow by name.
type WorkflowNode struct {
	Key            string    `yaml:"key" json:"key"`
	Type           string    `yaml:"type" json:"type"`
	Name           *string   `yaml:"name,omitempty" json:"name,omitempty"`
	Job            *string   `yaml:"job,omitempty" json:"job,omitempty"`
	Workflow       *string   `yaml:"workflow,omitempty" json:"workflow,omitempty"`
	Expression     *string   `yaml:"expression,omitempty" json:"expression,omitempty"`
	Params         *string   `yaml:"params,omitempty" json:"params,omitempty"`
	Enabled        *bool     `yaml:"enabled,omitempty" json:"enabled,omitempty"`
	SkipWhenFailed *bool     `yaml:"skipWhenFailed,omitempty" json:"skipWhenFailed,omitempty"`
	TriggerRule    *string   `yaml:"triggerRule,omitempty" json:"triggerRule,omitempty"`
	Parallelism    *int      `yaml:"parallelism,omitempty" json:"parallelism,omitempty"`
	TimeoutMs      *int      `yaml:"timeoutMs,omitempty" json:"timeoutMs,omitempty"`
	Retries        *int      `yaml:"retries,omitempty" json:"retries,omitempty"`
	Position       *Position `yaml:"position,omitempty" json:"position,omitempty"`
	Pool           *string   `yaml:"pool,omitempty" json:"pool,omitempty"`
	PoolSlots      *int      `yaml:"poolSlots,omitempty" json:"poolSlots,omitempty"`
}

// Position is WorkflowNodePositionInput.
type Position struct {
	X float64 `yaml:"x" json:"x"`
	Y float64 `yaml:"y" json:"y"`
}

// WorkflowEdge is WorkflowEdgeInput.
type WorkflowEdge struct {
	From  string  `yaml:"from" json:"from"`
	To    string  `yaml:"to" json:"to"`
	Label *string `yaml:"label,omitempty" json:"label,omitempty"`
}

// CalendarSpec is CalendarInput without app and name.
type CalendarSpec struct {
	Description *string  `yaml:"description,omitempty" json:"description,omitempty"`
	Dates       []string `yaml:"dates" json:"dates"`
}

// The API's enums (graph/schema; a test keeps them in step), checked
// here so a wrong value is named by its document and field.
var enums = map[string][]string{
	"ScheduleType":     {"CRON", "FIXED_RATE", "FIXED_DELAY", "API", "WORKFLOW"},
	"ExecutionMode":    {"STANDALONE", "BROADCAST", "MAP", "MAP_REDUCE"},
	"ProcessorType":    {"GO", "SHELL", "PYTHON", "HTTP"},
	"DispatchStrategy": {"HEALTH_FIRST", "RANDOM", "ROUND_ROBIN", "CONSISTENT_HASH", "LEAST_RECENTLY_USED"},
	"MisfirePolicy":    {"FIRE_ONCE", "SKIP", "FIRE_ALL"},
	"JobOverlapPolicy": {"CANCEL", "QUEUE", "REPLACE"},
	"OverlapPolicy":    {"CANCEL", "QUEUE"},
	"Weekday":          {"MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY", "SATURDAY", "SUNDAY"},
	"AlarmRuleType":    {"FAILURE", "CONSECUTIVE_FAILURES", "TIMEOUT", "START_LATE", "RECOVERY"},
	"AlarmChannelType": {"WEBHOOK", "EMAIL", "SLACK", "FEISHU", "DINGTALK", "WECOM"},
	"WorkflowNodeType": {"JOB", "DECISION", "NESTED", "FOREACH", "APPROVAL"},
	"TriggerRule": {"ALL_SUCCEEDED", "ALL_DONE", "ONE_SUCCEEDED", "ONE_FAILED", "NONE_FAILED", "ALL_FAILED", "NONE_FAILED_MIN_ONE_SUCCESS",
		"NONE_SKIPPED", "ALL_SKIPPED"},
}

// enumOf names the enum a field holds, by the field's path with indexes
// left out (e.g. "spec.nodes.type" of a Workflow).
var enumOf = map[string]map[string]string{
	KindJob: {
		"spec.scheduleType": "ScheduleType", "spec.executionMode": "ExecutionMode", "spec.processorType": "ProcessorType",
		"spec.dispatchStrategy": "DispatchStrategy", "spec.misfirePolicy": "MisfirePolicy", "spec.overlapPolicy": "JobOverlapPolicy",
		"spec.scheduleWindow.days": "Weekday", "spec.alarm.rules.type": "AlarmRuleType", "spec.alarm.channels.type": "AlarmChannelType",
	},
	KindWorkflow: {
		"spec.scheduleType": "ScheduleType", "spec.overlapPolicy": "OverlapPolicy", "spec.misfirePolicy": "MisfirePolicy",
		"spec.nodes.type": "WorkflowNodeType", "spec.nodes.triggerRule": "TriggerRule",
		"spec.alarm.rules.type": "AlarmRuleType", "spec.alarm.channels.type": "AlarmChannelType",
	},
}

// hints say what to write instead of a field a document may not have.
var hints = map[string]string{
	"spec.app":                  "the app goes in metadata.app",
	"spec.name":                 "the name goes in metadata.name",
	"spec.nodes.jobId":          "name the job (job: <name>): ids differ between servers",
	"spec.nodes.workflowId":     "name the workflow (workflow: <name>): ids differ between servers",
	"spec.alarm.onFailure":      "deprecated in the API: use rules: [{type: FAILURE}]",
	"spec.alarm.onTimeout":      "deprecated in the API: use rules: [{type: TIMEOUT}]",
	"spec.alarm.webhooks":       "deprecated in the API: use channels: [{type: WEBHOOK, target: <url>}]",
	"spec.alarm.emails":         "deprecated in the API: use channels: [{type: EMAIL, target: <address>}]",
	"spec.alarm.silenceSec":     "deprecated in the API: give each rule its silenceSec",
	"metadata.namespace":        "jobwheel has apps, not namespaces: metadata.app",
	"metadata.annotations":      "documents carry no annotations; labels may name the set (" + SetLabel + ")",
	"spec.workerFilter.minCPUs": "the field is minCpuCores",
}
