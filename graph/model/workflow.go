package model

import "github.com/jobwheel/jobwheel/db"

// WorkflowNodeRun is one node of one run as the API shows it: the node's
// row (or a WAITING stand-in for a node the run has not reached), with the
// run and the node's definition in the version the run runs.
type WorkflowNodeRun struct {
	db.WorkflowNodeRun
	Run *db.WorkflowInstance
	// Node is nil if the run's graph has no node of the key (never
	// expected).
	Node *db.WorkflowNode
}

// Name is the node's name in the run's version.
func (n *WorkflowNodeRun) Name() string {
	if n.Node == nil {
		return ""
	}
	return n.Node.Name
}
