package graph

import (
	"context"

	"github.com/vikstrous/dataloadgen"

	"github.com/jobwheel/jobwheel/db"
)

// workflowLoaders batch the reads around workflows and their instances: a page
// of 50 runs with their nodes, the nodes' job instances and those
// instances' jobs costs one query per kind, as a page of instances does.
// Workflows and runs load through the service's rights checks; nodes,
// instances, versions and last runs belong to workflows or runs the caller
// has already read.
type workflowLoaders struct {
	workflows *dataloadgen.Loader[int64, *db.Workflow]
	wis       *dataloadgen.Loader[int64, *db.WorkflowInstance]
	nodes     *dataloadgen.Loader[int64, []db.WorkflowNodeRun] // by run
	instances *dataloadgen.Loader[int64, []db.Instance]        // by run
	versions  *dataloadgen.Loader[int64, []db.WorkflowVersion] // by workflow
	lastRuns  *dataloadgen.Loader[int64, *db.WorkflowInstance] // by workflow
}

func (r *Resolver) newWorkflowLoaders(opt dataloadgen.Option) *workflowLoaders {
	if r.workflows == nil {
		return &workflowLoaders{}
	}
	w := r.workflows
	return &workflowLoaders{
		workflows: dataloadgen.NewMappedLoader(func(ctx context.Context, ids []int64) (map[int64]*db.Workflow, error) {
			return w.GetMany(ctx, ids, db.RoleViewer)
		}, opt),
		wis: dataloadgen.NewMappedLoader(w.RunsMany, opt),
		nodes: dataloadgen.NewMappedLoader(func(ctx context.Context, ids []int64) (map[int64][]db.WorkflowNodeRun, error) {
			m, err := w.NodeRowsMany(ctx, ids)
			return withEmpty(ids, m, err)
		}, opt),
		instances: dataloadgen.NewMappedLoader(func(ctx context.Context, ids []int64) (map[int64][]db.Instance, error) {
			m, err := w.InstancesMany(ctx, ids)
			return withEmpty(ids, m, err)
		}, opt),
		versions: dataloadgen.NewMappedLoader(func(ctx context.Context, ids []int64) (map[int64][]db.WorkflowVersion, error) {
			m, err := w.VersionsMany(ctx, ids)
			return withEmpty(ids, m, err)
		}, opt),
		lastRuns: dataloadgen.NewMappedLoader(w.LastRunsMany, opt),
	}
}

// withEmpty fills an empty list in for each id a batch read found nothing
// for: "none" is an answer, not a missing key.
func withEmpty[T any](ids []int64, m map[int64][]T, err error) (map[int64][]T, error) {
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		if _, ok := m[id]; !ok {
			m[id] = []T{}
		}
	}
	return m, nil
}

func (l *loaders) workflow(ctx context.Context, id int64) (*db.Workflow, error) {
	return load(ctx, l.wf.workflows, id)
}

func (l *loaders) workflowRun(ctx context.Context, id int64) (*db.WorkflowInstance, error) {
	return load(ctx, l.wf.wis, id)
}

func (l *loaders) nodeRows(ctx context.Context, wiID int64) ([]db.WorkflowNodeRun, error) {
	return l.wf.nodes.Load(ctx, wiID)
}

func (l *loaders) runInstances(ctx context.Context, wiID int64) ([]db.Instance, error) {
	return l.wf.instances.Load(ctx, wiID)
}

func (l *loaders) workflowVersions(ctx context.Context, id int64) ([]db.WorkflowVersion, error) {
	return l.wf.versions.Load(ctx, id)
}

func (l *loaders) workflowLastRun(ctx context.Context, id int64) (*db.WorkflowInstance, error) {
	return load(ctx, l.wf.lastRuns, id)
}

// primeWorkflowInstances loads, for a page of runs, what the query selects on them and
// their nodes, one query per kind: the node rows, the nodes' job instances
// and those instances' jobs, the nested instances, the workflows, the parents.
func (l *loaders) primeWorkflowInstances(ctx context.Context, list []db.WorkflowInstance, path ...string) error {
	if len(list) == 0 {
		return nil
	}
	sel := selectedFields(ctx, path...)
	onNodes := selectedFields(ctx, append(path, "nodes")...)
	ids := make([]int64, len(list))
	for i, r := range list {
		ids[i] = r.ID
	}
	if sel["nodes"] || sel["context"] {
		m, err := l.r.workflows.NodeRowsMany(ctx, ids)
		if err != nil {
			return err
		}
		var children []int64
		for _, id := range ids {
			l.wf.nodes.Prime(id, append([]db.WorkflowNodeRun{}, m[id]...))
			for _, n := range m[id] {
				if n.ChildInstanceID != nil {
					children = append(children, *n.ChildInstanceID)
				}
			}
		}
		if onNodes["child"] {
			if err := l.primeWorkflowInstancesByID(ctx, children); err != nil {
				return err
			}
		}
	}
	if onNodes["instances"] {
		m, err := l.r.workflows.InstancesMany(ctx, ids)
		if err != nil {
			return err
		}
		var jobIDs []int64
		for _, id := range ids {
			l.wf.instances.Prime(id, append([]db.Instance{}, m[id]...))
			for _, in := range m[id] {
				jobIDs = append(jobIDs, in.JobID)
			}
		}
		if selectedFields(ctx, append(path, "nodes", "instances")...)["job"] {
			if err := l.primeJobIDs(ctx, jobIDs); err != nil {
				return err
			}
		}
	}
	if sel["workflow"] {
		seen := map[int64]bool{}
		var wids []int64
		for _, r := range list {
			if !seen[r.WorkflowID] {
				seen[r.WorkflowID] = true
				wids = append(wids, r.WorkflowID)
			}
		}
		m, err := l.r.workflows.GetMany(ctx, wids, db.RoleViewer)
		if err != nil {
			return err
		}
		for _, id := range wids {
			l.wf.workflows.Prime(id, m[id])
		}
	}
	if sel["parent"] {
		var parents []int64
		for _, r := range list {
			if r.ParentInstanceID != nil {
				parents = append(parents, *r.ParentInstanceID)
			}
		}
		if err := l.primeWorkflowInstancesByID(ctx, parents); err != nil {
			return err
		}
	}
	return nil
}

func (l *loaders) primeWorkflowInstancesByID(ctx context.Context, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	m, err := l.r.workflows.RunsMany(ctx, ids)
	if err != nil {
		return err
	}
	for _, id := range ids {
		l.wf.wis.Prime(id, m[id])
	}
	return nil
}

// primeJobIDs loads jobs in one query.
func (l *loaders) primeJobIDs(ctx context.Context, all []int64) error {
	seen := map[int64]bool{}
	var ids []int64
	for _, id := range all {
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	m, err := l.r.jobs.GetMany(ctx, ids, db.RoleViewer)
	if err != nil {
		return err
	}
	for _, id := range ids {
		l.jobs.Prime(id, m[id])
	}
	return nil
}

// primeWorkflows loads, for a page of workflows, the last runs and
// versions the query selects, and the jobs and nested workflows of their
// nodes, one query per kind.
func (l *loaders) primeWorkflows(ctx context.Context, list []db.Workflow) error {
	if len(list) == 0 {
		return nil
	}
	sel := selectedFields(ctx, "edges", "node")
	ids := make([]int64, len(list))
	for i, w := range list {
		ids[i] = w.ID
	}
	if sel["lastRun"] {
		m, err := l.r.workflows.LastRunsMany(ctx, ids)
		if err != nil {
			return err
		}
		for _, id := range ids {
			l.wf.lastRuns.Prime(id, m[id])
		}
	}
	if sel["versions"] {
		m, err := l.r.workflows.VersionsMany(ctx, ids)
		if err != nil {
			return err
		}
		for _, id := range ids {
			l.wf.versions.Prime(id, append([]db.WorkflowVersion{}, m[id]...))
		}
	}
	onNodes := selectedFields(ctx, "edges", "node", "nodes")
	if onNodes["job"] {
		var nodeJobs []int64
		for _, w := range list {
			for _, n := range w.Graph.Nodes {
				if n.JobID != 0 {
					nodeJobs = append(nodeJobs, n.JobID)
				}
			}
		}
		if err := l.primeJobIDs(ctx, nodeJobs); err != nil {
			return err
		}
	}
	if onNodes["workflow"] {
		seen := map[int64]bool{}
		var wids []int64
		for _, w := range list {
			for _, n := range w.Graph.Nodes {
				if n.WorkflowID != 0 && !seen[n.WorkflowID] {
					seen[n.WorkflowID] = true
					wids = append(wids, n.WorkflowID)
				}
			}
		}
		if len(wids) > 0 {
			m, err := l.r.workflows.GetMany(ctx, wids, db.RoleViewer)
			if err != nil {
				return err
			}
			for _, id := range wids {
				l.wf.workflows.Prime(id, m[id])
			}
		}
	}
	return nil
}
