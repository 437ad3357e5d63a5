package protocol

import (
	"fmt"
	"math"
	"strings"
	"time"
	"unicode/utf8"
)

// Bounds of what a worker may send, beyond MaxFrameBytes and MaxBatch.
// A server refuses a frame outside them (see Validate) instead of storing
// part of it or failing to.
const (
	MaxAppBytes       = 64   // hello.app
	MaxWorkerIDBytes  = 128  // hello.workerId
	MaxHostBytes      = 255  // hello.host
	MaxVersionBytes   = 64   // hello.version
	MaxTagBytes       = 128  // each tag
	MaxTags           = 64   // tags per worker
	MaxProcessorBytes = 255  // each GO processor name
	MaxProcessors     = 1000 // processors per worker
	MaxSlots          = 10000
	MaxRunning        = 10000 // task ids in hello.running and heartbeat.running
	MaxAuthBytes      = 512
	MaxReasonBytes    = 32   // report.reason
	MaxMessageBytes   = 4096 // error messages, rejection reasons
	MaxMapNameBytes   = 255
	MaxMapKeyBytes    = 200
	// MaxLogTextBytes bounds a log line as received. Lines are cut to
	// MaxLogLineBytes when stored; the slack covers invalid UTF-8 that JSON
	// encoding turned into U+FFFD (three bytes for one).
	MaxLogTextBytes = 4 * MaxLogLineBytes
)

// Times a worker sends must lie in this range (a server's database may
// not store the year 0, and nothing real happens before 2000).
var (
	minTime = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	maxTime = time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)
)

// Log levels a worker may send (any case); WARNING is WARN.
var logLevels = []string{"DEBUG", "INFO", "WARN", "WARNING", "ERROR"}

// FieldError says which field of a frame's body is wrong and why.
type FieldError struct {
	Field  string // e.g. "lines[3].time"
	Reason string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Reason }

func bad(field, format string, args ...any) error {
	return &FieldError{Field: field, Reason: fmt.Sprintf(format, args...)}
}

// Validate checks the fields of a decoded body against the protocol's
// bounds (Decode checks only its shape). Bodies a worker sends (hello,
// heartbeat, report, logs, map, ack, error) are checked; others pass.
// The error is a *FieldError naming the field.
func Validate(body any) error {
	if v, ok := body.(interface{ Validate() error }); ok {
		return v.Validate()
	}
	return nil
}

// Validate checks a hello: every field within the bounds the server can
// store, names on one line.
func (h *Hello) Validate() error {
	for _, f := range []struct {
		name, v  string
		min, max int
	}{
		{"app", h.App, 1, MaxAppBytes},
		{"workerId", h.WorkerID, 1, MaxWorkerIDBytes},
		{"host", h.Host, 0, MaxHostBytes},
		{"version", h.Version, 0, MaxVersionBytes},
		{"protocol", h.Protocol, 0, 16},
		{"auth", h.Auth, 0, MaxAuthBytes},
	} {
		if err := line(f.name, f.v, f.min, f.max); err != nil {
			return err
		}
	}
	if err := lines("tags", h.Tags, MaxTags, MaxTagBytes); err != nil {
		return err
	}
	if err := lines("processors", h.Processors, MaxProcessors, MaxProcessorBytes); err != nil {
		return err
	}
	if err := lines("types", h.Types, 64, 32); err != nil {
		return err
	}
	if h.Slots < 1 || h.Slots > MaxSlots {
		return bad("slots", "%d is not between 1 and %d", h.Slots, MaxSlots)
	}
	if err := ids("running", h.Running, MaxRunning); err != nil {
		return err
	}
	if err := lines("features", h.Features, 64, 64); err != nil {
		return err
	}
	if err := h.validateJobs(); err != nil {
		return err
	}
	return h.Metrics.validate("metrics")
}

// MaxDeclaredJobs bounds the jobs one hello declares.
const MaxDeclaredJobs = 1000

// validateJobs checks the declared jobs' shape; the server checks their
// meaning (schedules, limits) as it checks the API's.
func (h *Hello) validateJobs() error {
	if err := line("jobSet", h.JobSet, 0, 128); err != nil {
		return err
	}
	if h.JobSet == "" && (len(h.Jobs) > 0 || h.JobsDryRun) {
		return bad("jobSet", "must name the set the jobs belong to")
	}
	if len(h.Jobs) > MaxDeclaredJobs {
		return bad("jobs", "%d jobs; at most %d", len(h.Jobs), MaxDeclaredJobs)
	}
	seen := make(map[string]bool, len(h.Jobs))
	for i, j := range h.Jobs {
		field := fmt.Sprintf("jobs[%d]", i)
		if err := line(field+".name", j.Name, 1, 128); err != nil {
			return err
		}
		if seen[j.Name] {
			return bad(field+".name", "%q is declared twice", j.Name)
		}
		seen[j.Name] = true
		if err := line(field+".processor", j.Processor, 1, MaxProcessorBytes); err != nil {
			return err
		}
		if err := line(field+".overlapPolicy", j.OverlapPolicy, 0, 16); err != nil {
			return err
		}
		if math.IsNaN(j.RetryBackoff) || math.IsInf(j.RetryBackoff, 0) {
			return bad(field+".retryBackoff", "must be a number")
		}
	}
	return nil
}

// Validate checks a heartbeat.
func (h *Heartbeat) Validate() error {
	if err := ids("running", h.Running, MaxRunning); err != nil {
		return err
	}
	return h.Metrics.validate("metrics")
}

func (m *Metrics) validate(field string) error {
	switch {
	case m.CPUCores < 0 || m.CPUCores > 1<<16:
		return bad(field+".cpuCores", "%d is out of range", m.CPUCores)
	case math.IsNaN(m.Load1) || math.IsInf(m.Load1, 0) || m.Load1 < 0 || m.Load1 > 1e9:
		return bad(field+".load1", "%v is out of range", m.Load1)
	case m.FreeMemoryMB < 0:
		return bad(field+".freeMemoryMB", "must not be negative")
	case m.FreeDiskMB < 0:
		return bad(field+".freeDiskMB", "must not be negative")
	}
	return nil
}

// Validate checks a report.
func (r *Report) Validate() error {
	if len(r.Items) > MaxBatch {
		return bad("items", "%d items; at most %d per message", len(r.Items), MaxBatch)
	}
	for i, it := range r.Items {
		f := fmt.Sprintf("items[%d]", i)
		switch {
		case it.TaskID < 1:
			return bad(f+".taskId", "must be positive")
		case it.InstanceID < 0:
			return bad(f+".instanceId", "must not be negative")
		case len(it.Result) > MaxResultBytes*4:
			return bad(f+".result", "%d bytes; at most %d", len(it.Result), MaxResultBytes)
		}
		switch it.Status {
		case TaskRunning, TaskSucceeded, TaskFailed, TaskStopped:
		default:
			return bad(f+".status", "unknown status %q", it.Status)
		}
		if err := line(f+".reason", it.Reason, 0, MaxReasonBytes); err != nil {
			return err
		}
		if !it.At.IsZero() {
			if err := sane(f+".at", it.At); err != nil {
				return err
			}
		}
	}
	return nil
}

// Validate checks a logs message: positive instance ids and sequence
// numbers (a worker's lines are numbered from 1; lines without a number
// are the server's own), times a database can store, known levels, and
// bounded text.
func (l *Logs) Validate() error {
	if len(l.Lines) > MaxBatch {
		return bad("lines", "%d lines; at most %d per message", len(l.Lines), MaxBatch)
	}
	for i, ln := range l.Lines {
		f := fmt.Sprintf("lines[%d]", i)
		switch {
		case ln.InstanceID < 1:
			return bad(f+".instanceId", "must be positive")
		case ln.TaskID < 0:
			return bad(f+".taskId", "must not be negative")
		case ln.Seq < 1:
			return bad(f+".seq", "%d: a worker numbers its lines from 1", ln.Seq)
		case len(ln.Text) > MaxLogTextBytes:
			return bad(f+".text", "%d bytes; at most %d", len(ln.Text), MaxLogLineBytes)
		}
		if err := sane(f+".time", ln.Time); err != nil {
			return err
		}
		if !knownLevel(ln.Level) {
			return bad(f+".level", "%q is not one of %s", ln.Level, strings.Join(logLevels, ", "))
		}
	}
	if len(l.Dropped) > MaxBatch {
		return bad("dropped", "%d instances; at most %d per message", len(l.Dropped), MaxBatch)
	}
	for id, n := range l.Dropped {
		if id < 1 || n < 0 || n > 1<<40 {
			return bad(fmt.Sprintf("dropped[%d]", id), "instance ids must be positive and counts between 0 and 2^40")
		}
	}
	return nil
}

func knownLevel(l string) bool {
	for _, k := range logLevels {
		if strings.EqualFold(l, k) {
			return true
		}
	}
	return false
}

// Validate checks a map request.
func (m *Map) Validate() error {
	switch {
	case m.InstanceID < 1:
		return bad("instanceId", "must be positive")
	case m.ParentTaskID < 1:
		return bad("parentTaskId", "must be positive")
	case len(m.Payloads) > MaxBatch:
		return bad("payloads", "%d subtasks; at most %d per message", len(m.Payloads), MaxBatch)
	}
	for i, p := range m.Payloads {
		if len(p) > MaxPayloadBytes {
			return bad(fmt.Sprintf("payloads[%d]", i), "%d bytes; a subtask's payload is at most %d", len(p), MaxPayloadBytes)
		}
	}
	if err := line("name", m.Name, 1, MaxMapNameBytes); err != nil {
		return err
	}
	return line("key", m.Key, 0, MaxMapKeyBytes)
}

// Validate checks a request for a page of results.
func (r *Results) Validate() error {
	switch {
	case r.InstanceID < 1:
		return bad("instanceId", "must be positive")
	case r.TaskID < 1:
		return bad("taskId", "must be positive")
	case r.After < 0:
		return bad("after", "must not be negative")
	case r.Limit < 1 || r.Limit > MaxBatch:
		return bad("limit", "%d is not between 1 and %d", r.Limit, MaxBatch)
	}
	return nil
}

// Validate checks a worker's answer to a dispatch.
func (a *Ack) Validate() error {
	if len(a.Accepted)+len(a.Rejected) > MaxSlots*10 {
		return bad("accepted", "too many task ids")
	}
	if len(a.Error) > MaxMessageBytes {
		return bad("error", "%d bytes; at most %d", len(a.Error), MaxMessageBytes)
	}
	for i, r := range a.Rejected {
		if len(r.Reason) > MaxMessageBytes {
			return bad(fmt.Sprintf("rejected[%d].reason", i), "%d bytes; at most %d", len(r.Reason), MaxMessageBytes)
		}
	}
	return nil
}

// Validate checks an error frame.
func (e *Error) Validate() error {
	if err := line("code", e.Code, 0, 64); err != nil {
		return err
	}
	if len(e.Message) > MaxMessageBytes {
		return bad("message", "%d bytes; at most %d", len(e.Message), MaxMessageBytes)
	}
	return nil
}

// line checks a single-line string of min to max bytes: valid UTF-8 and
// no control characters.
func line(field, s string, minBytes, maxBytes int) error {
	switch {
	case len(s) < minBytes:
		return bad(field, "must not be empty")
	case len(s) > maxBytes:
		return bad(field, "%d bytes; at most %d", len(s), maxBytes)
	case !utf8.ValidString(s):
		return bad(field, "is not valid UTF-8")
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) || r == '\u2028' || r == '\u2029' {
			return bad(field, "must not contain control characters")
		}
	}
	return nil
}

func lines(field string, list []string, maxItems, maxBytes int) error {
	if len(list) > maxItems {
		return bad(field, "%d items; at most %d", len(list), maxItems)
	}
	for i, s := range list {
		if err := line(fmt.Sprintf("%s[%d]", field, i), s, 1, maxBytes); err != nil {
			return err
		}
	}
	return nil
}

func ids(field string, list []int64, maxItems int) error {
	if len(list) > maxItems {
		return bad(field, "%d ids; at most %d", len(list), maxItems)
	}
	for i, id := range list {
		if id < 1 {
			return bad(fmt.Sprintf("%s[%d]", field, i), "task ids are positive")
		}
	}
	return nil
}

func sane(field string, t time.Time) error {
	if t.Before(minTime) || t.After(maxTime) {
		return bad(field, "%s is not between the years 2000 and 9999", t.Format(time.RFC3339))
	}
	return nil
}

// ValidTraceparent reports whether s is a W3C traceparent a worker may
// start its processor's span under: version 00's four fields
// (00-<32 hex trace id>-<16 hex parent id>-<2 hex flags>, lower case,
// neither id all zeros), or a later version's first four fields followed
// by nothing or by "-" (the specification's rule for versions it does not
// know yet); version ff is invalid.
func ValidTraceparent(s string) bool {
	if len(s) < 55 || (len(s) > 55 && (s[:2] == "00" || s[55] != '-')) {
		return false
	}
	if s[2] != '-' || s[35] != '-' || s[52] != '-' || s[:2] == "ff" {
		return false
	}
	for _, f := range []string{s[:2], s[3:35], s[36:52], s[53:55]} {
		for i := 0; i < len(f); i++ {
			if c := f[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
				return false
			}
		}
	}
	return strings.Trim(s[3:35], "0") != "" && strings.Trim(s[36:52], "0") != ""
}
