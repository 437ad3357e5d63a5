package db

// The job model's vocabulary, in one place: the values stored in the
// tables, validated by the job API and matched by the scheduler and the
// execution engine. The GraphQL enums of the same names carry the same
// strings.

// Schedule types (jobs.schedule_type).
const (
	ScheduleCron       = "CRON"
	ScheduleFixedRate  = "FIXED_RATE"
	ScheduleFixedDelay = "FIXED_DELAY"
	ScheduleAPI        = "API"
	ScheduleWorkflow   = "WORKFLOW"
)

// ScheduleTypes lists the schedule types.
var ScheduleTypes = []string{ScheduleCron, ScheduleFixedRate, ScheduleFixedDelay, ScheduleAPI, ScheduleWorkflow}

// Execution modes (jobs.execution_mode).
const (
	ModeStandalone = "STANDALONE"
	ModeBroadcast  = "BROADCAST"
	ModeMap        = "MAP"
	ModeMapReduce  = "MAP_REDUCE"
)

// ExecutionModes lists the execution modes.
var ExecutionModes = []string{ModeStandalone, ModeBroadcast, ModeMap, ModeMapReduce}

// Processor types (jobs.processor_type).
const (
	ProcessorGo     = "GO"
	ProcessorShell  = "SHELL"
	ProcessorPython = "PYTHON"
	ProcessorHTTP   = "HTTP"
)

// ProcessorTypes lists the processor types.
var ProcessorTypes = []string{ProcessorGo, ProcessorShell, ProcessorPython, ProcessorHTTP}

// Misfire policies (jobs.misfire_policy; docs/design.md §5.4): what happens to fires missed
// while no server ran the app.
const (
	MisfireFireOnce = "FIRE_ONCE" // one catch-up run, for the latest missed fire
	MisfireSkip     = "SKIP"      // none
	MisfireFireAll  = "FIRE_ALL"  // every missed fire, bounded
)

// MisfirePolicies lists the misfire policies.
var MisfirePolicies = []string{MisfireFireOnce, MisfireSkip, MisfireFireAll}

// Dispatch strategies (jobs.dispatch_strategy): how a worker is chosen
// among the eligible ones.
const (
	DispatchHealthFirst = "HEALTH_FIRST"
	DispatchRandom      = "RANDOM"
	DispatchRoundRobin  = "ROUND_ROBIN"
)

// DispatchStrategies lists the dispatch strategies.
var DispatchStrategies = []string{DispatchHealthFirst, DispatchRandom, DispatchRoundRobin}

// Trigger types (instances.trigger_type): why an instance exists.
const (
	TriggerSchedule = "SCHEDULE" // a fire of the job's schedule, on time
	TriggerMisfire  = "MISFIRE"  // a fire the misfire policy caught up
	TriggerAPI      = "API"      // runJob
	TriggerWorkflow = "WORKFLOW" // a workflow node
)

// Reasons recorded on instances and attempts that did not succeed.
const (
	ReasonNoWorker     = "NO_WORKER"
	ReasonTimeout      = "TIMEOUT"
	ReasonMaxInstances = "MAX_INSTANCES"
	ReasonWorkerLost   = "WORKER_LOST"
	ReasonFailed       = "FAILED"
	ReasonStopped      = "STOPPED"
	ReasonRejected     = "REJECTED"
	ReasonJobDisabled  = "JOB_DISABLED"
	ReasonMisfire      = "MISFIRE"
)
