// Package workertest runs jobwheel processors without a server: Context
// implements worker.TaskContext, records log lines, Map calls and workflow
// additions, and lets a test watch log lines as they are written.
//
//	ctx := workertest.New(t.Context(), protocol.Task{TaskID: 1, Kind: protocol.KindRoot, JobParams: "x"})
//	res, err := myProcessor.Process(ctx)
//	lines := ctx.Lines()
package workertest

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"strings"
	"sync"

	"github.com/jobwheel/jobwheel/worker"
	"github.com/jobwheel/jobwheel/worker/protocol"
)

// Line is a recorded log line.
type Line struct {
	Level string // DEBUG, INFO, WARN, ERROR
	Text  string
}

func (l Line) String() string { return l.Level + " " + l.Text }

// MapCall is a recorded Map call.
type MapCall struct {
	Name     string
	Payloads []string // JSON, as the server would store them
}

// Context is a worker.TaskContext for tests. Set the exported fields
// before running a processor.
type Context struct {
	context.Context
	Task protocol.Task
	// Dir is what WorkDir returns (default os.TempDir()).
	Dir string
	// OnLine, if set, is called with each log line as it is written, on the
	// goroutine that writes it (so possibly on several at once).
	OnLine func(Line)
	// MapFunc, if set, decides what Map returns (after recording).
	MapFunc func(subtasks []any, name string) error

	logger *slog.Logger
	mu     sync.Mutex
	lines  []Line
	maps   []MapCall
	add    map[string]any
}

var _ worker.TaskContext = (*Context)(nil)

// New makes a Context for task, cancelled with ctx.
func New(ctx context.Context, task protocol.Task) *Context {
	c := &Context{Context: ctx, Task: task, Dir: os.TempDir()}
	c.logger = slog.New(&handler{c: c})
	return c
}

// Lines returns the log lines written so far.
func (c *Context) Lines() []Line {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Line(nil), c.lines...)
}

// Maps returns the Map calls made so far.
func (c *Context) Maps() []MapCall {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]MapCall(nil), c.maps...)
}

// WorkflowValues returns what SetWorkflowValue added.
func (c *Context) WorkflowValues() map[string]any {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.add)
}

func (c *Context) Logger() *slog.Logger        { return c.logger }
func (c *Context) WorkerID() string            { return "workertest" }
func (c *Context) InstanceID() int64           { return c.Task.InstanceID }
func (c *Context) JobID() int64                { return c.Task.JobID }
func (c *Context) TaskID() int64               { return c.Task.TaskID }
func (c *Context) TaskName() string            { return c.Task.Name }
func (c *Context) Kind() string                { return c.Task.Kind }
func (c *Context) Attempt() int                { return c.Task.Attempt }
func (c *Context) ExecutionMode() string       { return c.Task.ExecutionMode }
func (c *Context) ProcessorType() string       { return c.Task.ProcessorType }
func (c *Context) ProcessorSpec() string       { return c.Task.Processor }
func (c *Context) JobParams() string           { return c.Task.JobParams }
func (c *Context) InstanceParams() string      { return c.Task.Params }
func (c *Context) Payload() string             { return c.Task.Payload }
func (c *Context) IsRoot() bool                { return c.Task.Kind == protocol.KindRoot }
func (c *Context) Shard() (int, int)           { return c.Task.ShardIndex, c.Task.ShardTotal }
func (c *Context) WorkDir() string             { return c.Dir }
func (c *Context) Upstream() map[string]string { return maps.Clone(c.Task.Upstream) }

// Traceparent is Task.Traceparent (the server's span: tests run no
// processor span of their own).
func (c *Context) Traceparent() string { return c.Task.Traceparent }

func (c *Context) DecodePayload(v any) error { return json.Unmarshal([]byte(c.Task.Payload), v) }

func (c *Context) WorkflowNode() (int64, string) { return c.Task.WorkflowRunID, c.Task.WorkflowNode }

func (c *Context) WorkflowContext() map[string]any {
	m := maps.Clone(c.Task.WorkflowContext)
	if m == nil {
		m = map[string]any{}
	}
	c.mu.Lock()
	maps.Copy(m, c.add)
	c.mu.Unlock()
	return m
}

func (c *Context) SetWorkflowValue(key string, value any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.add == nil {
		c.add = map[string]any{}
	}
	c.add[key] = value
}

func (c *Context) Map(subtasks []any, name string) error {
	call := MapCall{Name: name}
	for i, s := range subtasks {
		b, err := json.Marshal(s)
		if err != nil {
			return fmt.Errorf("map: subtask %d: %w", i, err)
		}
		call.Payloads = append(call.Payloads, string(b))
	}
	c.mu.Lock()
	c.maps = append(c.maps, call)
	c.mu.Unlock()
	if c.MapFunc != nil {
		return c.MapFunc(subtasks, name)
	}
	return nil
}

// handler records slog records as Lines: the message, then " key=value".
type handler struct {
	c     *Context
	attrs string
}

func (h *handler) Enabled(context.Context, slog.Level) bool { return true }

func (h *handler) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString(r.Message)
	b.WriteString(h.attrs)
	r.Attrs(func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
		return true
	})
	level := "ERROR"
	switch {
	case r.Level < slog.LevelInfo:
		level = "DEBUG"
	case r.Level < slog.LevelWarn:
		level = "INFO"
	case r.Level < slog.LevelError:
		level = "WARN"
	}
	l := Line{Level: level, Text: b.String()}
	h.c.mu.Lock()
	h.c.lines = append(h.c.lines, l)
	onLine := h.c.OnLine
	h.c.mu.Unlock()
	if onLine != nil {
		onLine(l)
	}
	return nil
}

func (h *handler) WithAttrs(as []slog.Attr) slog.Handler {
	h2 := *h
	for _, a := range as {
		h2.attrs += fmt.Sprintf(" %s=%v", a.Key, a.Value)
	}
	return &h2
}

func (h *handler) WithGroup(string) slog.Handler { return h }
