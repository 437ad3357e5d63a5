package graph

import (
	"fmt"
	"strconv"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/graph/model"
	"github.com/jobwheel/jobwheel/server/api/workflows"
)

// workflowInput converts the API's WorkflowInput to the workflow
// service's; a malformed id is BAD_INPUT naming the node's field.
func workflowInput(in model.WorkflowInput) (workflows.Input, error) {
	out := workflows.Input{App: in.App, Name: in.Name, Description: in.Description, Enabled: in.Enabled,
		ScheduleType: in.ScheduleType, ScheduleExpression: in.ScheduleExpression, TimeZone: in.TimeZone,
		MaxInstances: in.MaxInstances, OverlapPolicy: in.OverlapPolicy, MisfirePolicy: in.MisfirePolicy, FailFast: in.FailFast,
		Nodes: make([]workflows.NodeInput, len(in.Nodes)), Edges: make([]workflows.EdgeInput, len(in.Edges))}
	if in.Alarm != nil {
		a := alarmInput(in.Alarm)
		out.Alarm = &a
	}
	for i, n := range in.Nodes {
		ni := workflows.NodeInput{Key: n.Key, Type: n.Type, Name: n.Name, Expression: n.Expression, Params: n.Params,
			Enabled: n.Enabled, SkipWhenFailed: n.SkipWhenFailed, TriggerRule: n.TriggerRule, Parallelism: n.Parallelism,
			Retries: n.Retries, Position: n.Position, JobName: n.Job, WorkflowName: n.Workflow,
			Pool: n.Pool, PoolSlots: n.PoolSlots}
		if n.JobID != nil {
			id, err := parseID(fmt.Sprintf("nodes[%d].jobId", i), *n.JobID)
			if err != nil {
				return out, err
			}
			ni.JobID = &id
		}
		if n.WorkflowID != nil {
			id, err := parseID(fmt.Sprintf("nodes[%d].workflowId", i), *n.WorkflowID)
			if err != nil {
				return out, err
			}
			ni.WorkflowID = &id
		}
		if n.TimeoutMs != nil {
			t := int64(*n.TimeoutMs)
			ni.TimeoutMs = &t
		}
		out.Nodes[i] = ni
	}
	for j, e := range in.Edges {
		out.Edges[j] = workflows.EdgeInput{From: e.From, To: e.To, Label: e.Label}
	}
	return out, nil
}

// versionDefinition is a saved version in WorkflowInput's shape (without
// app), so a client can show it, compare it, or send it back.
type versionDefinition struct {
	Name               string            `json:"name"`
	Description        string            `json:"description"`
	Enabled            bool              `json:"enabled"`
	ScheduleType       string            `json:"scheduleType"`
	ScheduleExpression string            `json:"scheduleExpression"`
	TimeZone           string            `json:"timeZone"`
	MaxInstances       int               `json:"maxInstances"`
	OverlapPolicy      string            `json:"overlapPolicy"`
	MisfirePolicy      string            `json:"misfirePolicy"`
	FailFast           bool              `json:"failFast"`
	Nodes              []versionNode     `json:"nodes"`
	Edges              []db.WorkflowEdge `json:"edges"`
}

type versionNode struct {
	Key            string           `json:"key"`
	Type           string           `json:"type"`
	Name           string           `json:"name,omitempty"`
	JobID          string           `json:"jobId,omitempty"`
	WorkflowID     string           `json:"workflowId,omitempty"`
	Expression     string           `json:"expression,omitempty"`
	Params         *string          `json:"params,omitempty"`
	Enabled        bool             `json:"enabled"`
	SkipWhenFailed bool             `json:"skipWhenFailed"`
	TriggerRule    string           `json:"triggerRule"`
	Parallelism    *int             `json:"parallelism,omitempty"`
	TimeoutMs      *int64           `json:"timeoutMs,omitempty"`
	Retries        *int             `json:"retries,omitempty"`
	Position       *db.NodePosition `json:"position,omitempty"`
}

func definitionOf(s db.WorkflowSpec) versionDefinition {
	d := versionDefinition{Name: s.Name, Description: s.Description, Enabled: s.Enabled, ScheduleType: s.ScheduleType,
		ScheduleExpression: s.ScheduleExpression, TimeZone: s.TimeZone, MaxInstances: s.MaxInstances,
		OverlapPolicy: s.OverlapPolicy, MisfirePolicy: s.MisfirePolicy, FailFast: s.FailFast,
		Nodes: make([]versionNode, len(s.Graph.Nodes)), Edges: s.Graph.Edges}
	if d.Edges == nil {
		d.Edges = []db.WorkflowEdge{}
	}
	for i, n := range s.Graph.Nodes {
		vn := versionNode{Key: n.Key, Type: n.Type, Name: n.Name, Expression: n.Expression, Params: n.Params, Enabled: n.Enabled,
			SkipWhenFailed: n.SkipWhenFailed, TriggerRule: n.Rule(), TimeoutMs: n.TimeoutMs, Retries: n.Retries, Position: n.Position}
		if n.JobID != 0 {
			vn.JobID = strconv.FormatInt(n.JobID, 10)
		}
		if n.WorkflowID != 0 {
			vn.WorkflowID = strconv.FormatInt(n.WorkflowID, 10)
		}
		if n.Type == db.NodeForeach {
			p := n.Parallelism
			vn.Parallelism = &p
		}
		d.Nodes[i] = vn
	}
	return d
}

// idString is an id as the API's ID, or nil for none (0).
func idString(id int64) *string {
	if id == 0 {
		return nil
	}
	s := strconv.FormatInt(id, 10)
	return &s
}

func stringOrNil(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
