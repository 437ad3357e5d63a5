// Package protocol holds the messages of the channel between jobwheel
// workers and servers: their types, limits and validation. Both sides
// import it. The specification, with the ordering and acknowledgement rules
// another language needs, is docs/protocol.md (summary: docs/design.md §8).
//
// # Transport
//
// A worker asks any server which server owns its app, showing the app's
// secret (an unknown app and a wrong secret get the same 403, so discovery
// tells nobody else which apps exist):
//
//	GET /worker/discover?app=<name>       →  200 {"server": "<url>", "servers": ["<url>", …]}
//	Authorization: Bearer <app secret>        403 {"code": "AUTH", "error": "…"}
//
// then opens a websocket to <url>/worker/connect. Every message is one JSON
// text frame:
//
//	{"id": N, "type": "<type>", "body": {…}}   a message; id > 0 if it wants a reply
//	{"re": N, "type": "ack", "body": {…}}      the reply to message N
//
// Ids are per sender and increase. Websocket ping/pong keeps idle
// connections alive; heartbeats carry the worker's state. A frame that is
// not valid JSON, has an unknown type or a body of the wrong shape, or is
// larger than MaxFrameBytes makes the receiver send an error frame and close
// that one connection; nothing else is affected.
//
// A server also checks what every field a worker sends holds (Validate:
// lengths, ranges, times, levels, names on one line). A hello or heartbeat
// outside the bounds is answered with an error frame (BAD_FRAME, naming the
// field) and the connection closes; a report, logs or map message outside
// them is refused as a whole by its ack (ok false, code BAD_FRAME), and
// the connection stays. Acks that refuse carry a code: BAD_FRAME, REFUSED
// (e.g. log lines for an instance this worker was not given) or INTERNAL
// (the server failed; its log has the details, the worker is told none).
//
// # Session
//
//  1. worker → hello (with the app secret). The server answers welcome, or an
//     error frame (code AUTH, NOT_OWNER, BAD_FRAME, …) and closes.
//  2. worker → heartbeat every welcome.heartbeatMs; a worker silent for
//     LostAfterBeats intervals is lost and its tasks are re-dispatched.
//  3. server → dispatch (tasks, never more than the worker's free slots);
//     worker → ack with the task ids it accepted and rejected.
//  4. worker → report (batched task status changes), logs (batched lines),
//     map (new subtasks); the server acks each once it is durable, and the
//     worker keeps it (bounded) and re-sends it after a reconnect until it
//     is acked. Re-sent items are de-duplicated by the server.
//  5. server → stop (cancel tasks), redirect (the app moved to another
//     server: reconnect there).
//
// # Fencing
//
// Each app's lease has an epoch that grows with every change of owner.
// Welcome and every dispatch carry it; a worker rejects a dispatch whose
// epoch is older than the newest it has seen for the app, so a server that
// lost its lease cannot start work behind the new owner's back.
package protocol

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Version is the protocol version a worker states in hello.
const Version = "1"

// Limits of the channel.
const (
	// MaxFrameBytes bounds a frame in either direction.
	MaxFrameBytes = 4 << 20
	// MaxResultBytes bounds a task's result text; longer results are cut and
	// marked as cut.
	MaxResultBytes = 64 << 10
	// MaxLogLineBytes bounds one log line; longer lines are cut.
	MaxLogLineBytes = 16 << 10
	// MaxBatch bounds the items of one report, logs or map message, and the
	// results of one page.
	MaxBatch = 1000
	// MaxPayloadBytes bounds one subtask's payload as given to map: a map
	// message holding a longer one is refused, naming the subtask.
	MaxPayloadBytes = 64 << 10
	// LostAfterBeats is how many heartbeat intervals of silence make a worker lost.
	LostAfterBeats = 3
)

// Paths on every server.
const (
	DiscoverPath = "/worker/discover"
	ConnectPath  = "/worker/connect"
)

// Message types.
const (
	TypeHello     = "hello"
	TypeWelcome   = "welcome"
	TypeError     = "error"
	TypeHeartbeat = "heartbeat"
	TypeDispatch  = "dispatch"
	TypeStop      = "stop"
	TypeReport    = "report"
	TypeLogs      = "logs"
	TypeMap       = "map"
	TypeRedirect  = "redirect"
	TypeAck       = "ack"
	// TypeResults asks for a page of the results a POST or REDUCE task
	// reduces (see Results).
	TypeResults = "results"
)

// Frame is one websocket message.
type Frame struct {
	ID   int64           `json:"id,omitempty"`
	Re   int64           `json:"re,omitempty"`
	Type string          `json:"type"`
	Body json.RawMessage `json:"body,omitempty"`
}

// DiscoverResponse answers GET /worker/discover.
type DiscoverResponse struct {
	// Server is the URL of the server that owns the app: connect there.
	Server string `json:"server"`
	// Servers lists every live server, for later discovery.
	Servers []string `json:"servers"`
}

// Hello opens a session. Running lists the tasks the worker is still
// running from an earlier connection, so a server adopts them instead of
// running them twice.
type Hello struct {
	App      string   `json:"app"`
	WorkerID string   `json:"workerId"`
	Host     string   `json:"host"`
	Version  string   `json:"version"`
	Protocol string   `json:"protocol"`
	Tags     []string `json:"tags"`
	// Processors are the names of the GO processors registered; Types the
	// script and HTTP processor types the worker runs (SHELL, PYTHON, HTTP).
	Processors []string `json:"processors"`
	Types      []string `json:"types"`
	Slots      int      `json:"slots"`
	Auth       string   `json:"auth"`
	Running    []int64  `json:"running,omitempty"`
	Metrics    Metrics  `json:"metrics"`
	// Features are the optional parts of the protocol the worker speaks
	// (FeaturePagedResults, FeatureStartAt); a server uses none the worker
	// did not name.
	Features []string `json:"features,omitempty"`
	// JobSet names the set of jobs this worker declares in code; empty:
	// it declares none (and Jobs must be empty). Jobs is the whole set:
	// the server creates or updates each job and disables the set's jobs
	// no longer in it. With JobsDryRun it changes nothing and only says
	// what it would do (Welcome.JobChanges).
	JobSet     string        `json:"jobSet,omitempty"`
	Jobs       []DeclaredJob `json:"jobs,omitempty"`
	JobsDryRun bool          `json:"jobsDryRun,omitempty"`
}

// DeclaredJob is a job declared in a worker's code, run by one of its GO
// processors. Omitted fields take the API's defaults (JobInput).
type DeclaredJob struct {
	Name               string `json:"name"`
	Description        string `json:"description,omitempty"`
	ScheduleType       string `json:"scheduleType"`
	ScheduleExpression string `json:"scheduleExpression,omitempty"`
	TimeZone           string `json:"timeZone,omitempty"`
	ExecutionMode      string `json:"executionMode,omitempty"`
	// Processor is the name of the GO processor that runs it.
	Processor       string `json:"processor"`
	Params          string `json:"params,omitempty"`
	MaxInstances    int    `json:"maxInstances,omitempty"`
	TaskConcurrency int    `json:"taskConcurrency,omitempty"`
	TimeoutMs       int    `json:"timeoutMs,omitempty"`
	InstanceRetries int    `json:"instanceRetries,omitempty"`
	TaskRetries     int    `json:"taskRetries,omitempty"`
	// OverlapPolicy (CANCEL, QUEUE, REPLACE) and MaxQueued: what a fire
	// over MaxInstances does. Priority orders dispatch when workers are
	// short of slots. RetryDelayMs, RetryBackoff and RetryDelayMaxMs are
	// the retry back-off. As JobInput's fields of the same names.
	OverlapPolicy   string  `json:"overlapPolicy,omitempty"`
	MaxQueued       int     `json:"maxQueued,omitempty"`
	Priority        int     `json:"priority,omitempty"`
	RetryDelayMs    int     `json:"retryDelayMs,omitempty"`
	RetryBackoff    float64 `json:"retryBackoff,omitempty"`
	RetryDelayMaxMs int     `json:"retryDelayMaxMs,omitempty"`
}

// Job change actions (JobChange.Action).
const (
	JobCreate    = "CREATE"
	JobUpdate    = "UPDATE"
	JobUnchanged = "UNCHANGED"
	JobDisable   = "DISABLE"
	// JobRefused: a job of that name exists and this set may not take it
	// over (people made it, or another set manages it); Error says why.
	// Nothing of it changed. Older workers log it as any other action.
	JobRefused = "REFUSED"
)

// JobChange is what the server did (or, in a dry run, would do) with one
// job of a declared set.
type JobChange struct {
	Name   string `json:"name"`
	Action string `json:"action"`
	// Fields are the definition's fields an UPDATE changes.
	Fields []string `json:"fields,omitempty"`
	// Error says why a job was REFUSED (optional: absent otherwise).
	Error string `json:"error,omitempty"`
}

// FeaturePagedResults: the worker asks for a POST or REDUCE task's
// results in pages (Results) when the task says ResultsPaged, instead of
// getting them all inside the dispatch.
const FeaturePagedResults = "results.paged"

// FeatureStartAt: the worker holds a task dispatched with a StartAt in the
// future and starts it then, by its own clock, and it takes back tasks it
// has not started (Stop.Unstarted). A server dispatches a scheduled fire
// ahead of its time only to a worker that names it, so that the tasks of
// a large burst start on time instead of after the burst's commit
// (dispatch ahead, issue 24).
const FeatureStartAt = "start.at"

// Welcome accepts a session.
type Welcome struct {
	ServerID    string   `json:"serverId"`
	Epoch       int64    `json:"epoch"`
	Servers     []string `json:"servers"`
	HeartbeatMs int      `json:"heartbeatMs"`
	// JobChanges answer a hello that declared jobs (JobSet).
	JobChanges []JobChange `json:"jobChanges,omitempty"`
}

// Error codes of an error frame.
const (
	CodeAuth     = "AUTH"      // wrong app secret or unknown app
	CodeNotOwner = "NOT_OWNER" // this server does not own the app; discover again
	CodeBadFrame = "BAD_FRAME" // malformed, unknown or oversized frame
	CodeProtocol = "PROTOCOL"  // a frame out of order, e.g. anything before hello
	CodeInternal = "INTERNAL"  // the server failed; reconnect later
	// CodeRefused refuses what a worker may not do, e.g. write log lines
	// into an instance it was not given (in acks).
	CodeRefused = "REFUSED"
)

// Error is sent before the sender closes the connection.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Metrics describe a worker's capacity and load.
type Metrics struct {
	CPUCores     int     `json:"cpuCores"`
	Load1        float64 `json:"load1"`
	FreeMemoryMB int64   `json:"freeMemoryMB"`
	FreeDiskMB   int64   `json:"freeDiskMB"`
}

// Heartbeat is the worker's periodic state. Running is every task id it is
// running, so the server can notice tasks it thinks are there but are not.
type Heartbeat struct {
	Metrics Metrics `json:"metrics"`
	Running []int64 `json:"running"`
	// Draining says the worker is stopping gracefully: it takes no new
	// tasks, lets running ones finish for a grace period, then hands back
	// the rest (ReasonHandedBack).
	Draining bool `json:"draining,omitempty"`
}

// Task kinds.
const (
	KindRoot      = "ROOT"      // the one task of a STANDALONE instance, or the root of MAP/MAP_REDUCE
	KindPre       = "PRE"       // BROADCAST: pre-process, once before the broadcast
	KindBroadcast = "BROADCAST" // BROADCAST: one per selected worker
	KindPost      = "POST"      // BROADCAST: post-process, once after, with every result
	KindMap       = "MAP"       // a subtask emitted by map()
	KindReduce    = "REDUCE"    // MAP_REDUCE: reduce over every subtask result
)

// Task is one unit of work sent to a worker.
type Task struct {
	TaskID     int64  `json:"taskId"`
	InstanceID int64  `json:"instanceId"`
	JobID      int64  `json:"jobId"`
	Attempt    int    `json:"attempt"` // the instance attempt, from 1
	Kind       string `json:"kind"`
	Name       string `json:"name"` // the task name given to map(); "ROOT" for roots
	// ExecutionMode is STANDALONE, BROADCAST, MAP or MAP_REDUCE.
	ExecutionMode string `json:"executionMode"`
	// ProcessorType is GO, SHELL, PYTHON or HTTP; Processor is the GO
	// processor's name, the script, or the HTTP request as JSON.
	ProcessorType string `json:"processorType"`
	Processor     string `json:"processor"`
	JobParams     string `json:"jobParams,omitempty"`
	Params        string `json:"params,omitempty"` // the instance's parameters
	Payload       string `json:"payload,omitempty"`
	// Deadline is when the instance times out; zero for none.
	Deadline time.Time `json:"deadline,omitzero"`
	// StartAt is when the task may start, by the worker's clock; zero (or
	// not in the future) to start at once. Only a worker that named
	// FeatureStartAt gets it: the server sends a scheduled fire's task
	// ahead of its time, committed already, so that starting on time does
	// not wait for the rest of the second's burst. Until then the worker
	// holds it: it takes a slot and is listed as running (so a new owner
	// adopts it rather than dispatching it again), but its processor is not
	// called and nothing is reported.
	StartAt time.Time `json:"startAt,omitzero"`
	// Results are the finished subtasks' results, for POST and REDUCE —
	// unless ResultsPaged, when the worker asks for them in pages
	// (Results); ResultCount is then how many there are.
	Results      []TaskResult `json:"results,omitempty"`
	ResultsPaged bool         `json:"resultsPaged,omitempty"`
	ResultCount  int          `json:"resultCount,omitempty"`
	// ShardIndex and ShardTotal tell a BROADCAST task which of the
	// instance's broadcast tasks it is (0 ≤ ShardIndex < ShardTotal), so
	// each worker can take its share of the work.
	ShardIndex int `json:"shardIndex,omitempty"`
	ShardTotal int `json:"shardTotal,omitempty"`
	// WorkflowRunID and WorkflowNode are the workflow run and node key the
	// instance runs for; zero and "" outside workflows.
	WorkflowRunID int64  `json:"workflowRunId,omitempty"`
	WorkflowNode  string `json:"workflowNode,omitempty"`
	// WorkflowContext is the workflow's shared context when the instance is
	// a workflow node.
	WorkflowContext map[string]any `json:"workflowContext,omitempty"`
	// Upstream are the results of the node's upstream workflow nodes.
	Upstream map[string]string `json:"upstream,omitempty"`
	// Traceparent is the W3C trace context (https://www.w3.org/TR/trace-context/)
	// of the server's span for this task, when the fire is traced: the
	// worker starts the processor's span as its child. Empty when not
	// traced; a worker ignores a value that is not a valid traceparent
	// (ValidTraceparent).
	Traceparent string `json:"traceparent,omitempty"`
}

// TaskResult is a finished task's outcome, as given to post and reduce.
type TaskResult struct {
	TaskID  int64  `json:"taskId"`
	Name    string `json:"name"`
	Success bool   `json:"success"`
	Result  string `json:"result"`
}

// Dispatch hands tasks to a worker. The worker acks with Accepted and
// Rejected task ids.
type Dispatch struct {
	App   string `json:"app"`
	Epoch int64  `json:"epoch"`
	Tasks []Task `json:"tasks"`
}

// Stop cancels tasks: every task of the instance when TaskIDs is empty.
type Stop struct {
	InstanceID int64   `json:"instanceId"`
	TaskIDs    []int64 `json:"taskIds,omitempty"`
	Reason     string  `json:"reason"`
	// Unstarted takes tasks back rather than stopping them (FeatureStartAt):
	// it ends only the named tasks still held for their StartAt, each
	// FAILED with ReasonHandedBack so that the server dispatches it again
	// (to a worker of the job's new definition, say), and leaves those
	// already started running: a server that changed its mind about a task
	// not yet begun must not cut short one that has.
	Unstarted bool `json:"unstarted,omitempty"`
}

// Task statuses in reports.
const (
	TaskRunning   = "RUNNING"
	TaskSucceeded = "SUCCEEDED"
	TaskFailed    = "FAILED"
	TaskStopped   = "STOPPED"
)

// ReasonTimeout marks a task that failed because its deadline passed.
const ReasonTimeout = "TIMEOUT"

// ReasonHandedBack marks a task a draining worker gave back unfinished,
// or one it gave back before it started (a held task taken back by
// Stop.Unstarted, or held when the worker began draining), FAILED with
// this reason: the server runs it again elsewhere without counting a
// retry.
const ReasonHandedBack = "HANDED_BACK"

// TaskReport is a task's change of status.
type TaskReport struct {
	TaskID     int64  `json:"taskId"`
	InstanceID int64  `json:"instanceId"`
	Status     string `json:"status"`
	Result     string `json:"result,omitempty"`
	// Reason qualifies a FAILED status: ReasonTimeout when the task's
	// deadline passed on the worker.
	Reason string    `json:"reason,omitempty"`
	At     time.Time `json:"at"`
	// WorkflowContext carries additions to the workflow context.
	WorkflowContext map[string]any `json:"workflowContext,omitempty"`
}

// Report carries task status changes; the server acks once they are durable.
type Report struct {
	Items []TaskReport `json:"items"`
}

// LogLine is one line of an instance's log. Seq increases per worker
// process and, with the worker id, de-duplicates re-sent lines.
type LogLine struct {
	InstanceID int64     `json:"instanceId"`
	TaskID     int64     `json:"taskId,omitempty"`
	Seq        int64     `json:"seq"`
	Time       time.Time `json:"time"`
	Level      string    `json:"level"`
	Text       string    `json:"text"`
}

// Logs carries log lines. Dropped counts lines the worker had to discard
// since its last logs message because its buffer was full while
// disconnected; the server records that in the instance's log.
type Logs struct {
	Lines   []LogLine       `json:"lines"`
	Dropped map[int64]int64 `json:"dropped,omitempty"` // instance id → lines dropped
}

// Map asks for new subtasks of an instance, emitted by a running task. The
// ack comes once the subtasks are stored; map() returns then. Key is unique
// per worker process and message: a map re-sent after a lost ack carries
// the same key, and the server stores its subtasks only once.
type Map struct {
	InstanceID   int64    `json:"instanceId"`
	ParentTaskID int64    `json:"parentTaskId"`
	Name         string   `json:"name"`
	Payloads     []string `json:"payloads"`
	Key          string   `json:"key,omitempty"`
}

// Results asks for the next page of the results of a POST or REDUCE task
// the worker runs: those of tasks with ids above After, in id order, at
// most Limit. The ack carries them (Ack.Results) and says whether more
// follow (Ack.More). Reading is idempotent: a request re-sent after a
// reconnect is answered again.
type Results struct {
	InstanceID int64 `json:"instanceId"`
	TaskID     int64 `json:"taskId"`
	After      int64 `json:"after"`
	Limit      int   `json:"limit"`
}

// Redirect tells the worker its app moved; it reconnects to Server.
type Redirect struct {
	Server string `json:"server"`
	Reason string `json:"reason"`
}

// Rejection says why a dispatched task was not accepted.
type Rejection struct {
	TaskID int64  `json:"taskId"`
	Reason string `json:"reason"`
	// Code is RejectFull when the worker had no free slot: the task is
	// not at fault, and the server sends it again (to any worker) without
	// counting a retry.
	Code string `json:"code,omitempty"`
}

// RejectFull: a dispatched task found the worker without a free slot.
const RejectFull = "FULL"

// Ack answers a message that asked for a reply.
type Ack struct {
	OK bool `json:"ok"`
	// Code says why a message was refused (an error code, e.g. BAD_FRAME).
	Code     string      `json:"code,omitempty"`
	Error    string      `json:"error,omitempty"`
	Accepted []int64     `json:"accepted,omitempty"`
	Rejected []Rejection `json:"rejected,omitempty"`
	// Results and More answer a Results request.
	Results []TaskResult `json:"results,omitempty"`
	More    bool         `json:"more,omitempty"`
}

// bodies maps each type to a fresh body value, for Decode.
var bodies = map[string]func() any{
	TypeHello:     func() any { return new(Hello) },
	TypeWelcome:   func() any { return new(Welcome) },
	TypeError:     func() any { return new(Error) },
	TypeHeartbeat: func() any { return new(Heartbeat) },
	TypeDispatch:  func() any { return new(Dispatch) },
	TypeStop:      func() any { return new(Stop) },
	TypeReport:    func() any { return new(Report) },
	TypeLogs:      func() any { return new(Logs) },
	TypeMap:       func() any { return new(Map) },
	TypeRedirect:  func() any { return new(Redirect) },
	TypeResults:   func() any { return new(Results) },
	TypeAck:       func() any { return new(Ack) },
}

// ErrBadFrame wraps every decoding failure.
var ErrBadFrame = errors.New("bad frame")

// Encode makes a frame of a body.
func Encode(id, re int64, typ string, body any) ([]byte, error) {
	raw, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("encoding %s body: %w", typ, err)
	}
	b, err := json.Marshal(Frame{ID: id, Re: re, Type: typ, Body: raw})
	if err != nil {
		return nil, fmt.Errorf("encoding %s frame: %w", typ, err)
	}
	if len(b) > MaxFrameBytes {
		return nil, fmt.Errorf("encoding %s frame: %d bytes is over the %d-byte limit", typ, len(b), MaxFrameBytes)
	}
	return b, nil
}

// Decode parses a frame and its body. The body is a pointer to the type's
// struct (e.g. *Hello). Every failure wraps ErrBadFrame and says what is
// wrong. Decode checks the frame's shape; Validate checks what its fields
// hold.
func Decode(data []byte) (Frame, any, error) {
	var f Frame
	if len(data) > MaxFrameBytes {
		return f, nil, fmt.Errorf("%w: %d bytes is over the %d-byte limit", ErrBadFrame, len(data), MaxFrameBytes)
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return f, nil, fmt.Errorf("%w: not a JSON frame: %w", ErrBadFrame, err)
	}
	mk, ok := bodies[f.Type]
	if !ok {
		return f, nil, fmt.Errorf("%w: unknown type %q", ErrBadFrame, f.Type)
	}
	if f.ID < 0 || f.Re < 0 {
		return f, nil, fmt.Errorf("%w: negative id or re", ErrBadFrame)
	}
	body := mk()
	if len(f.Body) > 0 && string(f.Body) != "null" {
		if err := json.Unmarshal(f.Body, body); err != nil {
			return f, nil, fmt.Errorf("%w: %s body: %w", ErrBadFrame, f.Type, err)
		}
	}
	return f, body, nil
}

// CutMark ends a text Truncate cut; CutHeadMark begins a result whose
// beginning was left out (a script's result is the end of its output).
// Whoever reads a result (a workflow's next node, the console) can tell it
// is not whole (IsCut).
const (
	CutMark     = "…[cut]"
	CutHeadMark = "[cut: earlier output left out; the task's log has it all]…\n"
)

// IsCut says whether a result was cut.
func IsCut(s string) bool { return strings.HasSuffix(s, CutMark) || strings.HasPrefix(s, CutHeadMark) }

// Truncate cuts s to at most n bytes on a rune boundary, saying so.
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	const mark = CutMark
	cut := n - len(mark)
	for cut > 0 && cut < len(s) && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:max(cut, 0)] + mark
}
