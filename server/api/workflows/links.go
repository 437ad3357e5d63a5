package workflows

import (
	"context"
	"fmt"
	"strings"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/server/platform/fault"
)

// MaxUpstream bounds the workflows and jobs one workflow follows.
const MaxUpstream = 50

// Upstream is one thing a workflow follows: a workflow or a job of its app
// (one of the two ids).
type Upstream struct {
	WorkflowID, JobID int64
}

// SetUpstream makes a workflow start each time a top-level run of one of
// the upstream workflows, or an instance of one of the upstream jobs,
// succeeds (docs/workflows.md#dependencies-between-workflows); it replaces
// what the workflow followed. A link that would close a cycle of workflows
// is refused naming the cycle. EDITOR on the app.
func (s *Service) SetUpstream(ctx context.Context, id int64, list []Upstream) (*db.Workflow, error) {
	w, err := s.Get(ctx, id, db.RoleEditor)
	if err != nil {
		return nil, err
	}
	if len(list) > MaxUpstream {
		return nil, fault.BadInput("upstream", "at most %d workflows and jobs", MaxUpstream)
	}
	err = s.store.InTx(ctx, func(ctx context.Context, tx *db.Store) error {
		// One change of an app's links at a time, so two cannot together
		// close a cycle that neither closes alone.
		if err := tx.AppLock(ctx, w.AppID); err != nil {
			return err
		}
		links, err := tx.WorkflowLinkListByApp(ctx, w.AppID)
		if err != nil {
			return err
		}
		all, err := tx.WorkflowListByApp(ctx, w.AppID)
		if err != nil {
			return err
		}
		names := make(map[int64]string, len(all))
		for _, x := range all {
			names[x.ID] = x.Name
		}
		// downstream[a] are the workflows a success of a starts.
		downstream := map[int64][]int64{}
		for _, l := range links {
			if l.UpstreamWorkflowID != nil && l.WorkflowID != id {
				downstream[*l.UpstreamWorkflowID] = append(downstream[*l.UpstreamWorkflowID], l.WorkflowID)
			}
		}
		rows := make([]db.WorkflowLink, 0, len(list))
		seen := map[Upstream]bool{}
		for i, u := range list {
			f := fmt.Sprintf("upstream[%d]", i)
			switch {
			case (u.WorkflowID == 0) == (u.JobID == 0):
				return fault.BadInput(f, "give either workflowId or jobId")
			case seen[u]:
				return fault.BadInput(f, "is listed twice")
			}
			seen[u] = true
			if u.JobID != 0 {
				jobs, err := tx.JobListByIDs(ctx, []int64{u.JobID})
				if err != nil {
					return err
				}
				if len(jobs) == 0 || jobs[0].AppID != w.AppID {
					return fault.BadInput(f+".jobId", "no job %d in the workflow's app", u.JobID)
				}
				rows = append(rows, db.WorkflowLink{UpstreamJobID: &u.JobID})
				continue
			}
			if _, ok := names[u.WorkflowID]; !ok {
				return fault.BadInput(f+".workflowId", "no workflow %d in the workflow's app", u.WorkflowID)
			}
			if path := pathBetween(downstream, id, u.WorkflowID); path != nil {
				cycle := make([]string, 0, len(path)+1)
				for _, p := range path {
					cycle = append(cycle, fmt.Sprintf("%q", names[p]))
				}
				cycle = append(cycle, fmt.Sprintf("%q", w.Name))
				return fault.BadInput(f+".workflowId", "would close a cycle of workflows: %s", strings.Join(cycle, " → "))
			}
			rows = append(rows, db.WorkflowLink{UpstreamWorkflowID: &u.WorkflowID})
			downstream[u.WorkflowID] = append(downstream[u.WorkflowID], id)
		}
		return tx.WorkflowLinkSet(ctx, w.AppID, id, rows)
	})
	if err != nil {
		return nil, err
	}
	// The owner's actor re-reads its jobs (which of them start workflows).
	s.notify.JobsChanged(w.AppID)
	return s.store.WorkflowGet(ctx, id)
}

// pathBetween returns the workflows from `from` to `to` along downstream
// links (from first, to last; [from] when they are the same), or nil if
// to is not reached.
func pathBetween(downstream map[int64][]int64, from, to int64) []int64 {
	parent := map[int64]int64{from: from}
	queue := []int64{from}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		if n == to {
			var path []int64
			for ; n != from; n = parent[n] {
				path = append(path, n)
			}
			path = append(path, from)
			for i, j := 0, len(path)-1; i < j; i, j = i+1, j-1 {
				path[i], path[j] = path[j], path[i]
			}
			return path
		}
		for _, next := range downstream[n] {
			if _, ok := parent[next]; !ok {
				parent[next] = n
				queue = append(queue, next)
			}
		}
	}
	return nil
}

// LinksMany returns the links into and out of workflows the caller has
// read, by workflow: upstream (what starts it) and downstream (what it
// starts).
func (s *Service) LinksMany(ctx context.Context, ids []int64) (up, down map[int64][]db.WorkflowLink, err error) {
	links, err := s.store.WorkflowLinkListByWorkflows(ctx, ids)
	if err != nil {
		return nil, nil, err
	}
	want := make(map[int64]bool, len(ids))
	for _, id := range ids {
		want[id] = true
	}
	up, down = map[int64][]db.WorkflowLink{}, map[int64][]db.WorkflowLink{}
	for _, l := range links {
		if want[l.WorkflowID] {
			up[l.WorkflowID] = append(up[l.WorkflowID], l)
		}
		if l.UpstreamWorkflowID != nil && want[*l.UpstreamWorkflowID] {
			down[*l.UpstreamWorkflowID] = append(down[*l.UpstreamWorkflowID], l)
		}
	}
	return up, down, nil
}

// JobDownstream returns the workflows a success of a job's instances
// starts (the job read with the caller's rights).
func (s *Service) JobDownstream(ctx context.Context, job *db.Job) ([]db.Workflow, error) {
	links, err := s.store.WorkflowLinkListByJob(ctx, job.ID)
	if err != nil || len(links) == 0 {
		return nil, err
	}
	ids := make([]int64, len(links))
	for i, l := range links {
		ids[i] = l.WorkflowID
	}
	return s.store.WorkflowListByIDs(ctx, ids)
}
