package manifest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// The API's defaults (graph/schema: JobInput, WorkflowInput), which the
// canonical form leaves out.
const (
	defTimeZone         = "UTC"
	defExecutionMode    = "STANDALONE"
	defMaxInstances     = 1
	defTaskConcurrency  = 5
	defDispatchStrategy = "HEALTH_FIRST"
	defMisfirePolicy    = "FIRE_ONCE"
	defOverlapPolicy    = "CANCEL"
	defMaxQueued        = 10
	defRetryBackoff     = 1.0
	defTriggerRule      = "ALL_SUCCEEDED"
	defParallelism      = 1
)

// Canonical returns a copy of d with every value equal to the API's
// default left out, text the server trims trimmed, calendar dates sorted
// once each and times in UTC: two documents the server would store alike
// have equal canonical forms, so their YAML compares equal.
func Canonical(d *Document) *Document {
	c := *d
	c.Metadata.Name = strings.TrimSpace(d.Metadata.Name)
	c.Metadata.Labels = nil
	if set := d.Metadata.Labels[SetLabel]; set != "" {
		c.Metadata.Labels = map[string]string{SetLabel: set}
	}
	c.Source = Source{}
	switch s := d.Spec.(type) {
	case *JobSpec:
		c.Spec = canonicalJob(*s)
	case *WorkflowSpec:
		c.Spec = canonicalWorkflow(*s)
	case *CalendarSpec:
		cs := *s
		dropString(&cs.Description, "")
		dates := slices.Clone(s.Dates)
		for i := range dates {
			dates[i] = strings.TrimSpace(dates[i])
		}
		slices.Sort(dates)
		cs.Dates = slices.Compact(dates)
		if cs.Dates == nil {
			cs.Dates = []string{}
		}
		c.Spec = &cs
	}
	return &c
}

func canonicalJob(s JobSpec) *JobSpec {
	dropString(&s.Description, "")
	dropBool(&s.Enabled, true)
	if s.ScheduleExpression != nil {
		s.ScheduleExpression = new(strings.TrimSpace(*s.ScheduleExpression))
	}
	dropString(&s.ScheduleExpression, "")
	dropString(&s.TimeZone, defTimeZone)
	dropString(&s.TimeZone, "")
	if w := s.ScheduleWindow; w != nil {
		cw := ScheduleWindow{Start: strings.TrimSpace(w.Start), End: strings.TrimSpace(w.End), Days: nilIfEmpty(w.Days)}
		s.ScheduleWindow = &cw
	}
	if s.Calendar != nil {
		s.Calendar = new(strings.TrimSpace(*s.Calendar))
	}
	dropString(&s.Calendar, "")
	if l := s.Lifecycle; l != nil {
		cl := Lifecycle{Start: utc(l.Start), End: utc(l.End)}
		s.Lifecycle = &cl
		if cl.Start == nil && cl.End == nil {
			s.Lifecycle = nil
		}
	}
	dropString(&s.ExecutionMode, defExecutionMode)
	dropString(&s.Params, "")
	dropInt(&s.MaxInstances, defMaxInstances)
	dropInt(&s.TaskConcurrency, defTaskConcurrency)
	dropInt(&s.TimeoutMs, 0)
	dropInt(&s.InstanceRetries, 0)
	dropInt(&s.TaskRetries, 0)
	if f := s.WorkerFilter; f != nil {
		cf := WorkerFilter{Designated: nilIfEmpty(f.Designated), Tags: nilIfEmpty(f.Tags), MinCPUCores: f.MinCPUCores,
			MinMemoryMB: f.MinMemoryMB, MinDiskMB: f.MinDiskMB, MaxWorkers: f.MaxWorkers}
		for _, p := range []**int{&cf.MinCPUCores, &cf.MinMemoryMB, &cf.MinDiskMB, &cf.MaxWorkers} {
			dropInt(p, 0)
		}
		s.WorkerFilter = &cf
		if cf.Designated == nil && cf.Tags == nil && cf.MinCPUCores == nil && cf.MinMemoryMB == nil && cf.MinDiskMB == nil && cf.MaxWorkers == nil {
			s.WorkerFilter = nil
		}
	}
	dropString(&s.DispatchStrategy, defDispatchStrategy)
	dropString(&s.MisfirePolicy, defMisfirePolicy)
	s.Alarm = canonicalAlarm(s.Alarm)
	dropString(&s.OverlapPolicy, defOverlapPolicy)
	dropInt(&s.MaxQueued, defMaxQueued)
	dropInt(&s.Priority, 0)
	dropInt(&s.RetryDelayMs, 0)
	if s.RetryBackoff != nil && *s.RetryBackoff == defRetryBackoff {
		s.RetryBackoff = nil
	}
	dropInt(&s.RetryDelayMaxMs, 0)
	dropString(&s.Pool, "")
	if s.Pool == nil {
		s.PoolSlots = nil
	}
	dropInt(&s.PoolSlots, 1)
	return &s
}

func canonicalWorkflow(s WorkflowSpec) *WorkflowSpec {
	dropString(&s.Description, "")
	dropBool(&s.Enabled, true)
	if s.ScheduleExpression != nil {
		s.ScheduleExpression = new(strings.TrimSpace(*s.ScheduleExpression))
	}
	dropString(&s.ScheduleExpression, "")
	dropString(&s.TimeZone, defTimeZone)
	dropString(&s.TimeZone, "")
	dropInt(&s.MaxInstances, defMaxInstances)
	dropString(&s.OverlapPolicy, defOverlapPolicy)
	dropString(&s.MisfirePolicy, defMisfirePolicy)
	dropBool(&s.FailFast, false)
	nodes := make([]WorkflowNode, len(s.Nodes))
	for i, n := range s.Nodes {
		if n.Name != nil {
			n.Name = new(strings.TrimSpace(*n.Name))
		}
		dropString(&n.Name, "")
		if n.Expression != nil {
			n.Expression = new(strings.TrimSpace(*n.Expression))
		}
		dropString(&n.Expression, "")
		dropBool(&n.Enabled, true)
		dropBool(&n.SkipWhenFailed, false)
		dropString(&n.TriggerRule, defTriggerRule)
		dropString(&n.TriggerRule, "")
		if n.Type == "FOREACH" {
			dropInt(&n.Parallelism, defParallelism)
		}
		dropString(&n.Pool, "")
		if n.Pool == nil {
			n.PoolSlots = nil
		}
		dropInt(&n.PoolSlots, 1)
		nodes[i] = n
	}
	s.Nodes = nodes
	s.Edges = nilIfEmpty(s.Edges)
	s.Alarm = canonicalAlarm(s.Alarm)
	return &s
}

func canonicalAlarm(a *Alarm) *Alarm {
	if a == nil || (len(a.Rules) == 0 && len(a.Channels) == 0) {
		return nil
	}
	out := &Alarm{Channels: nilIfEmpty(a.Channels)}
	for _, r := range a.Rules {
		dropInt(&r.Threshold, 0)
		dropInt(&r.SilenceSec, 0)
		out.Rules = append(out.Rules, r)
	}
	return out
}

func dropString(p **string, def string) {
	if *p != nil && **p == def {
		*p = nil
	}
}

func dropInt(p **int, def int) {
	if *p != nil && **p == def {
		*p = nil
	}
}

func dropBool(p **bool, def bool) {
	if *p != nil && **p == def {
		*p = nil
	}
}

func nilIfEmpty[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return s
}

// utc is an RFC 3339 time in UTC, whole seconds shown as such.
func utc(s *string) *string {
	if s == nil {
		return nil
	}
	t, err := time.Parse(time.RFC3339Nano, *s)
	if err != nil {
		return s
	}
	return new(t.UTC().Format(time.RFC3339Nano))
}

// Encode writes documents as one YAML stream, each after "---".
func Encode(w io.Writer, docs []*Document) error {
	for _, d := range docs {
		b, err := Marshal(d)
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(w, "---\n%s", b); err != nil {
			return err
		}
	}
	return nil
}

// Marshal is one document as YAML, its fields in the API's order.
func Marshal(d *Document) ([]byte, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(d); err != nil {
		return nil, fmt.Errorf("writing %s as YAML: %w", d.Object(), err)
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Input is the managed set's documents as applyConfig's ConfigInput, by
// kind in the order given; Index maps each list's entries back to their
// documents ("jobs[3]" to the fourth Job document).
type Input struct {
	Calendars []map[string]any `json:"calendars"`
	Jobs      []map[string]any `json:"jobs"`
	Workflows []map[string]any `json:"workflows"`
	Index     map[string]*Document
}

// ToInput turns documents into applyConfig's lists of CalendarInput,
// JobInput and WorkflowInput.
func ToInput(docs []*Document) (*Input, error) {
	in := &Input{Calendars: []map[string]any{}, Jobs: []map[string]any{}, Workflows: []map[string]any{}, Index: map[string]*Document{}}
	for _, d := range docs {
		spec := d.Spec
		if w, ok := spec.(*WorkflowSpec); ok {
			// Required lists are sent empty rather than null; an omitted
			// alarm is sent as none (declarative: the file is the whole).
			cw := *w
			if cw.Edges == nil {
				cw.Edges = []WorkflowEdge{}
			}
			if cw.Alarm == nil {
				cw.Alarm = &Alarm{}
			}
			spec = &cw
		}
		b, err := json.Marshal(spec)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", d.Object(), err)
		}
		m := map[string]any{}
		if err := json.Unmarshal(b, &m); err != nil {
			return nil, err
		}
		m["app"], m["name"] = d.Metadata.App, d.Metadata.Name
		switch d.Kind {
		case KindCalendar:
			in.Index[fmt.Sprintf("calendars[%d]", len(in.Calendars))] = d
			in.Calendars = append(in.Calendars, m)
		case KindJob:
			in.Index[fmt.Sprintf("jobs[%d]", len(in.Jobs))] = d
			in.Jobs = append(in.Jobs, m)
		case KindWorkflow:
			in.Index[fmt.Sprintf("workflows[%d]", len(in.Workflows))] = d
			in.Workflows = append(in.Workflows, m)
		}
	}
	return in, nil
}

// Apps are the apps documents name, in the order first named.
func Apps(docs []*Document) []string {
	var out []string
	for _, d := range docs {
		if !slices.Contains(out, d.Metadata.App) {
			out = append(out, d.Metadata.App)
		}
	}
	return out
}
