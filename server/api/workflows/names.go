package workflows

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/server/platform/fault"
)

// namedNodes are the nodes whose job or nested workflow was given by name
// (by index), so errors about them name the field the caller wrote.
type namedNodes map[int]bool

// resolveNodeNames turns the nodes' JobName and WorkflowName into
// JobID and WorkflowID, looking them up in the app in tx (all are the
// app's workflows). A node naming its job both ways, or a name the app
// does not have, is BAD_INPUT naming the node's field.
func resolveNodeNames(ctx context.Context, tx *db.Store, appID int64, all []db.Workflow, in *Input) (namedNodes, error) {
	named := namedNodes{}
	var jobNames []string
	for i, n := range in.Nodes {
		f := fmt.Sprintf("nodes[%d]", i)
		if n.JobName != nil && n.JobID != nil {
			return nil, fault.BadInput(f+".job", "give the job by id (jobId) or by name (job), not both")
		}
		if n.WorkflowName != nil && n.WorkflowID != nil {
			return nil, fault.BadInput(f+".workflow", "give the workflow by id (workflowId) or by name (workflow), not both")
		}
		if n.JobName != nil {
			jobNames = append(jobNames, strings.TrimSpace(*n.JobName))
		}
	}
	if len(jobNames) == 0 && !namesWorkflow(in.Nodes) {
		return named, nil
	}
	jobs, err := tx.JobListByNames(ctx, appID, jobNames)
	if err != nil {
		return nil, err
	}
	jobID := make(map[string]int64, len(jobs))
	for _, j := range jobs {
		jobID[j.Name] = j.ID
	}
	wfID := make(map[string]int64, len(all))
	for _, w := range all {
		wfID[w.Name] = w.ID
	}
	for i := range in.Nodes {
		n := &in.Nodes[i]
		f := fmt.Sprintf("nodes[%d]", i)
		if n.JobName != nil {
			id, ok := jobID[strings.TrimSpace(*n.JobName)]
			if !ok {
				return nil, fault.BadInput(f+".job", "the app has no job named %q", *n.JobName)
			}
			n.JobID, named[i] = &id, true
		}
		if n.WorkflowName != nil {
			id, ok := wfID[strings.TrimSpace(*n.WorkflowName)]
			if !ok {
				return nil, fault.BadInput(f+".workflow", "the app has no workflow named %q", *n.WorkflowName)
			}
			n.WorkflowID, named[i] = &id, true
		}
	}
	return named, nil
}

func namesWorkflow(nodes []NodeInput) bool {
	for _, n := range nodes {
		if n.WorkflowName != nil {
			return true
		}
	}
	return false
}

var nodeIDField = regexp.MustCompile(`^nodes\[(\d+)\]\.(jobId|workflowId)$`)

// rename makes an error about nodes[i].jobId (workflowId) of a node given
// by name one about nodes[i].job (workflow).
func (named namedNodes) rename(err error) error {
	var bad *fault.Input
	if len(named) == 0 || !errors.As(err, &bad) {
		return err
	}
	m := nodeIDField.FindStringSubmatch(bad.Field)
	if m == nil {
		return err
	}
	if i, _ := strconv.Atoi(m[1]); !named[i] {
		return err
	}
	return &fault.Input{Field: strings.TrimSuffix(bad.Field, "Id"), Reason: bad.Reason}
}
