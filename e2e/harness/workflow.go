package harness

import (
	"fmt"
	"slices"
	"time"

	"github.com/jobwheel/jobwheel/internal/testkit"
)

// WorkflowRun is a workflow run as tests read it.
type WorkflowRun struct {
	ID           string
	Status       string
	Reason       string
	Result       string
	Context      map[string]any
	StartedTime  *time.Time
	FinishedTime *time.Time
	Nodes        []WorkflowNode
}

// WorkflowNode is one node of a run as tests read it.
type WorkflowNode struct {
	Key            string
	Status         string
	Reason         string
	Message        string
	Result         string
	Output         map[string]any
	FailureIgnored bool
	Generation     int
	Child          *struct{ ID string }
	Instances      []struct {
		ID     string
		Status string
		Result string
	}
}

// Node returns the node of a key, or nil.
func (r *WorkflowRun) Node(key string) *WorkflowNode {
	for i := range r.Nodes {
		if r.Nodes[i].Key == key {
			return &r.Nodes[i]
		}
	}
	return nil
}

// CreateWorkflow creates a workflow from a WorkflowInput given as a map and
// returns its id.
func (c *Client) CreateWorkflow(input map[string]any) (string, error) {
	var out struct{ CreateWorkflow struct{ ID string } }
	err := c.Do(`mutation($in: WorkflowInput!) { createWorkflow(input: $in) { id } }`, map[string]any{"in": input}, &out)
	return out.CreateWorkflow.ID, err
}

// RunWorkflow runs a workflow now with a context and returns the run's id.
func (c *Client) RunWorkflow(id string, context map[string]any) (string, error) {
	var out struct{ RunWorkflow struct{ ID string } }
	err := c.Do(`mutation($id: ID!, $ctx: JSON) { runWorkflow(id: $id, context: $ctx) { id } }`,
		map[string]any{"id": id, "ctx": context}, &out)
	return out.RunWorkflow.ID, err
}

const workflowRunFields = `id status reason result context startedTime finishedTime
	nodes { key status reason message result output failureIgnored generation child { id } instances { id status result } }`

// WorkflowRun reads a run with its nodes.
func (c *Client) WorkflowRun(id string) (*WorkflowRun, error) {
	var out struct{ WorkflowInstance *WorkflowRun }
	err := c.Do(`query($id: ID!) { workflowInstance(id: $id) { `+workflowRunFields+` } }`, map[string]any{"id": id}, &out)
	if err == nil && out.WorkflowInstance == nil {
		err = fmt.Errorf("workflow run %s not found", id)
	}
	return out.WorkflowInstance, err
}

// WaitWorkflowInstance polls a run until its status is one of want.
func (c *Client) WaitWorkflowInstance(id string, timeout time.Duration, want ...string) (*WorkflowRun, error) {
	return c.WaitWorkflow(id, timeout, fmt.Sprintf("status in %v", want), func(r *WorkflowRun) bool { return slices.Contains(want, r.Status) })
}

// WaitWorkflowNode polls a run until one of its nodes has a status in want.
func (c *Client) WaitWorkflowNode(id, key string, timeout time.Duration, want ...string) (*WorkflowRun, error) {
	return c.WaitWorkflow(id, timeout, fmt.Sprintf("node %s in %v", key, want), func(r *WorkflowRun) bool {
		n := r.Node(key)
		return n != nil && slices.Contains(want, n.Status)
	})
}

// WaitWorkflow polls a run until cond holds.
func (c *Client) WaitWorkflow(id string, timeout time.Duration, what string, cond func(*WorkflowRun) bool) (*WorkflowRun, error) {
	var last *WorkflowRun
	var lastErr error
	if testkit.Poll(timeout, func() bool {
		last, lastErr = c.WorkflowRun(id)
		return lastErr == nil && cond(last)
	}) {
		return last, nil
	}
	if lastErr != nil {
		return last, lastErr
	}
	states := ""
	for _, n := range last.Nodes {
		states += fmt.Sprintf(" %s=%s(%s %s)", n.Key, n.Status, n.Reason, n.Message)
	}
	return last, fmt.Errorf("workflow run %s is %s after %s; want %s; nodes:%s", id, last.Status, timeout, what, states)
}
