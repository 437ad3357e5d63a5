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
	// DispatchConsistentHash sends one key (the instance params' "key",
	// else the job) to the same worker while the worker set is stable.
	DispatchConsistentHash = "CONSISTENT_HASH"
	// DispatchLeastRecentlyUsed picks the free worker picked longest ago.
	DispatchLeastRecentlyUsed = "LEAST_RECENTLY_USED"
)

// DispatchStrategies lists the dispatch strategies.
var DispatchStrategies = []string{DispatchHealthFirst, DispatchRandom, DispatchRoundRobin, DispatchConsistentHash, DispatchLeastRecentlyUsed}

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
	// ReasonQueued marks a WAITING instance held in its job's queue
	// (overlap policy QUEUE) until a running instance ends: the trigger
	// loop leaves it alone and the owner's actor starts it, in fire order.
	ReasonQueued = "QUEUED"
	// ReasonQueueFull cancels a fire of a QUEUE job whose queue holds
	// maxQueued fires already.
	ReasonQueueFull = "QUEUE_FULL"
	// ReasonReplaced stops the oldest running instance of a REPLACE job
	// for a new fire over maxInstances.
	ReasonReplaced = "REPLACED"
	// ReasonPoolFull marks a WAITING instance held in its pool's queue
	// until the pool has the slots it takes: the trigger loop leaves it
	// alone and the owner's actor starts it, by priority then fire time.
	ReasonPoolFull = "POOL_FULL"
	// ReasonPoolTooSmall fails an instance that takes more slots than its
	// pool has (the pool shrank after the job was saved).
	ReasonPoolTooSmall = "POOL_TOO_SMALL"
	// ReasonNoPool fails an instance whose pool was deleted (a running
	// workflow's node named it).
	ReasonNoPool = "NO_POOL"
)

// HeldReasons mark WAITING instances the owner's actor holds in memory
// (a job's queue, a pool's queue) and starts itself: the trigger loop
// neither fires them nor counts them as missed.
var HeldReasons = []string{ReasonQueued, ReasonPoolFull}

// Reasons lists every reason an instance can carry (the API documents each
// one on Instance.reason).
var Reasons = []string{ReasonNoWorker, ReasonTimeout, ReasonMaxInstances, ReasonWorkerLost, ReasonFailed,
	ReasonStopped, ReasonRejected, ReasonJobDisabled, ReasonMisfire, ReasonQueued, ReasonQueueFull, ReasonReplaced,
	ReasonPoolFull, ReasonPoolTooSmall, ReasonNoPool}

// Workflow node types.
const (
	NodeJob      = "JOB"
	NodeDecision = "DECISION"
	NodeNested   = "NESTED"
	NodeForeach  = "FOREACH"
	NodeApproval = "APPROVAL"
)

// NodeTypes lists the workflow node types.
var NodeTypes = []string{NodeJob, NodeDecision, NodeNested, NodeForeach, NodeApproval}

// Trigger rules: when a workflow node runs, given how its upstream nodes
// ended.
const (
	RuleAllSucceeded = "ALL_SUCCEEDED" // every upstream succeeded (the default)
	RuleAllDone      = "ALL_DONE"      // every upstream ended, however
	RuleOneSucceeded = "ONE_SUCCEEDED" // at least one upstream succeeded
	RuleOneFailed    = "ONE_FAILED"    // at least one upstream failed
	RuleNoneFailed   = "NONE_FAILED"   // every upstream ended and none failed (skipped is fine)
	// The four below are Airflow's of the same names (lower case there).
	RuleAllFailed               = "ALL_FAILED"                  // every upstream failed
	RuleNoneFailedMinOneSuccess = "NONE_FAILED_MIN_ONE_SUCCESS" // none failed and at least one succeeded
	RuleNoneSkipped             = "NONE_SKIPPED"                // every upstream ended and none was skipped (failed is fine)
	RuleAllSkipped              = "ALL_SKIPPED"                 // every upstream was skipped
)

// TriggerRules lists the trigger rules.
var TriggerRules = []string{RuleAllSucceeded, RuleAllDone, RuleOneSucceeded, RuleOneFailed, RuleNoneFailed,
	RuleAllFailed, RuleNoneFailedMinOneSuccess, RuleNoneSkipped, RuleAllSkipped}

// Overlap policies: what a fire of a workflow (or job) over maxInstances
// does.
const (
	OverlapCancel = "CANCEL" // it is recorded as CANCELED (the default)
	OverlapQueue  = "QUEUE"  // it waits, and starts when an earlier run ends, in fire order
	// OverlapReplace (jobs only) stops the oldest running instance and
	// starts the new fire.
	OverlapReplace = "REPLACE"
)

// OverlapPolicies lists the overlap policies of workflows.
var OverlapPolicies = []string{OverlapCancel, OverlapQueue}

// JobOverlapPolicies lists the overlap policies of jobs.
var JobOverlapPolicies = []string{OverlapCancel, OverlapQueue, OverlapReplace}

// Workflow run states (workflow_instances.status).
const (
	WorkflowWaiting   = "WAITING" // recorded; not started yet (due later, or queued behind maxInstances)
	WorkflowRunning   = "RUNNING"
	WorkflowPaused    = "PAUSED" // no new node starts; running ones go on
	WorkflowSucceeded = "SUCCEEDED"
	WorkflowFailed    = "FAILED"
	WorkflowStopped   = "STOPPED"
	WorkflowCanceled  = "CANCELED"
)

// Workflow node run states (workflow_node_runs.status).
const (
	NodeWaiting          = "WAITING"
	NodeRunning          = "RUNNING"
	NodeSucceeded        = "SUCCEEDED"
	NodeFailed           = "FAILED"
	NodeSkipped          = "SKIPPED"
	NodeStopped          = "STOPPED"
	NodeAwaitingApproval = "AWAITING_APPROVAL"
)

// Reasons a workflow node was skipped or failed.
const (
	NodeReasonDisabled        = "DISABLED"          // the node is disabled: skipped, and its successors run as if it succeeded
	NodeReasonBranchNotTaken  = "BRANCH_NOT_TAKEN"  // a decision chose another branch
	NodeReasonUpstreamFailed  = "UPSTREAM_FAILED"   // an upstream failure blocks it
	NodeReasonUpstreamSkipped = "UPSTREAM_SKIPPED"  // its upstream was skipped
	NodeReasonTriggerRule     = "TRIGGER_RULE"      // its trigger rule can no longer be met
	NodeReasonFailFast        = "FAIL_FAST"         // another node failed in a failFast workflow
	NodeReasonRejected        = "REJECTED"          // an approval was rejected
	NodeReasonTimeout         = "TIMEOUT"           // an approval was not given in time
	NodeReasonContextTooLarge = "CONTEXT_TOO_LARGE" // what it added would take the context over its limit
	NodeReasonExpression      = "EXPRESSION"        // its expression failed to evaluate
	// NodeReasonExpressionTimeout: its expression used its CPU budget (or
	// its evaluation was cut short by restarts too often).
	NodeReasonExpressionTimeout = "EXPRESSION_TIMEOUT"
	// NodeReasonExpressionTooLarge: its expression would allocate more than
	// its byte budget, or returned more than a node may keep.
	NodeReasonExpressionTooLarge = "EXPRESSION_TOO_LARGE"
	// NodeReasonBudget: what it would create (a nested instance's nodes, a
	// FOREACH's elements) would take its top instance over the app's
	// workflow budget; also the reason of an instance that cannot start.
	NodeReasonBudget       = "BUDGET_EXCEEDED"
	NodeReasonJobFailed    = "JOB_FAILED"    // its job instance (or one FOREACH element) failed
	NodeReasonNestedFailed = "NESTED_FAILED" // its nested run did not succeed
	NodeReasonStopped      = "STOPPED"       // stopped by a person or the API
)

// Where a managed object's definition lives (jobs, workflows and calendars
// .managed_source, with the set's name in managed_by): whoever manages it
// overwrites a change made elsewhere, and one kind never takes over the
// other's objects.
const (
	ManagedCode  = "CODE"  // declared in a worker's code (the SDK's job set)
	ManagedFiles = "FILES" // applied from YAML files (jobwheel apply, applyConfig)
)
