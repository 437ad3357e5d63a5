package workflows

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/server/platform/fault"
)

// Format names the export format; an import accepts it, or none.
const Format = "jobwheel.workflow/v1"

// MaxDefinitionBytes bounds an imported definition.
const MaxDefinitionBytes = 1 << 20

// Definition is a workflow as exported and imported: its current
// version's definition, with jobs and nested workflows named rather than
// numbered, so it means the same in another environment (another server,
// another app) whose jobs and workflows have the same names. Node keys
// are kept as they are. Omitted fields take WorkflowInput's defaults.
type Definition struct {
	Format             string           `json:"format,omitempty"`
	Name               string           `json:"name"`
	Description        string           `json:"description,omitempty"`
	Enabled            *bool            `json:"enabled,omitempty"`
	ScheduleType       string           `json:"scheduleType"`
	ScheduleExpression string           `json:"scheduleExpression,omitempty"`
	TimeZone           string           `json:"timeZone,omitempty"`
	MaxInstances       *int             `json:"maxInstances,omitempty"`
	OverlapPolicy      string           `json:"overlapPolicy,omitempty"`
	MisfirePolicy      string           `json:"misfirePolicy,omitempty"`
	FailFast           bool             `json:"failFast,omitempty"`
	Nodes              []DefinitionNode `json:"nodes"`
	Edges              []DefinitionEdge `json:"edges"`
}

// DefinitionNode is a node of a Definition: Job and Workflow are names.
type DefinitionNode struct {
	Key            string           `json:"key"`
	Type           string           `json:"type"`
	Name           string           `json:"name,omitempty"`
	Job            string           `json:"job,omitempty"`
	Workflow       string           `json:"workflow,omitempty"`
	Expression     string           `json:"expression,omitempty"`
	Params         *string          `json:"params,omitempty"`
	Enabled        *bool            `json:"enabled,omitempty"`
	SkipWhenFailed bool             `json:"skipWhenFailed,omitempty"`
	TriggerRule    string           `json:"triggerRule,omitempty"`
	Parallelism    *int             `json:"parallelism,omitempty"`
	TimeoutMs      *int64           `json:"timeoutMs,omitempty"`
	Retries        *int             `json:"retries,omitempty"`
	Position       *db.NodePosition `json:"position,omitempty"`
	Pool           string           `json:"pool,omitempty"`
	PoolSlots      *int             `json:"poolSlots,omitempty"`
}

// DefinitionEdge is an edge of a Definition, by node keys.
type DefinitionEdge struct {
	From  string `json:"from"`
	To    string `json:"to"`
	Label string `json:"label,omitempty"`
}

// Export returns a workflow's current definition in the export format.
func (s *Service) Export(ctx context.Context, id int64) (*Definition, error) {
	w, err := s.Get(ctx, id, db.RoleViewer)
	if err != nil {
		return nil, err
	}
	var jobIDs, wfIDs []int64
	for _, n := range w.Graph.Nodes {
		if n.JobID != 0 {
			jobIDs = append(jobIDs, n.JobID)
		}
		if n.WorkflowID != 0 {
			wfIDs = append(wfIDs, n.WorkflowID)
		}
	}
	jobs, err := s.store.JobListByIDs(ctx, jobIDs)
	if err != nil {
		return nil, err
	}
	wfs, err := s.store.WorkflowListByIDs(ctx, wfIDs)
	if err != nil {
		return nil, err
	}
	jobName := map[int64]string{}
	for _, j := range jobs {
		if j.AppID == w.AppID {
			jobName[j.ID] = j.Name
		}
	}
	wfName := map[int64]string{}
	for _, o := range wfs {
		if o.AppID == w.AppID {
			wfName[o.ID] = o.Name
		}
	}
	d := &Definition{Format: Format, Name: w.Name, Description: w.Description, Enabled: &w.Enabled, ScheduleType: w.ScheduleType,
		ScheduleExpression: w.ScheduleExpression, TimeZone: w.TimeZone, MaxInstances: &w.MaxInstances,
		OverlapPolicy: w.OverlapPolicy, MisfirePolicy: w.MisfirePolicy, FailFast: w.FailFast,
		Nodes: make([]DefinitionNode, len(w.Graph.Nodes)), Edges: make([]DefinitionEdge, len(w.Graph.Edges))}
	for i, n := range w.Graph.Nodes {
		dn := DefinitionNode{Key: n.Key, Type: n.Type, Name: n.Name, Expression: n.Expression, Params: n.Params,
			Enabled: &n.Enabled, SkipWhenFailed: n.SkipWhenFailed, TriggerRule: n.TriggerRule, TimeoutMs: n.TimeoutMs,
			Retries: n.Retries, Position: n.Position}
		if n.Type == db.NodeForeach {
			dn.Parallelism = &n.Parallelism
		}
		if n.Pool != "" {
			dn.Pool, dn.PoolSlots = n.Pool, new(max(n.PoolSlots, 1))
		}
		if n.JobID != 0 {
			if dn.Job = jobName[n.JobID]; dn.Job == "" {
				return nil, fault.Conflict("node %q runs job %d, which no longer exists; fix the workflow before exporting it", n.Key, n.JobID)
			}
		}
		if n.WorkflowID != 0 {
			if dn.Workflow = wfName[n.WorkflowID]; dn.Workflow == "" {
				return nil, fault.Conflict("node %q nests workflow %d, which no longer exists; fix the workflow before exporting it", n.Key, n.WorkflowID)
			}
		}
		d.Nodes[i] = dn
	}
	for j, e := range w.Graph.Edges {
		d.Edges[j] = DefinitionEdge(e)
	}
	return d, nil
}

// Import saves a definition in the export format into an app: as a new
// workflow, or, with replace, as the next version of the app's workflow
// of the same name (without replace, an existing name is refused). Jobs
// and nested workflows are found by name in the app; errors name the
// field within the definition (e.g. definition.nodes[2].job).
func (s *Service) Import(ctx context.Context, appName string, definition any, replace bool) (*db.Workflow, error) {
	app, err := s.apps.ByName(ctx, appName, db.RoleEditor)
	if err != nil {
		return nil, asInput("app", err)
	}
	d, err := decodeDefinition(definition)
	if err != nil {
		return nil, err
	}
	var w *db.Workflow
	err = s.store.InTx(ctx, func(ctx context.Context, tx *db.Store) error {
		if err := tx.AppLock(ctx, app.ID); err != nil {
			return err
		}
		in, err := resolveNames(ctx, tx, app, d)
		if err != nil {
			return err
		}
		cur, err := tx.WorkflowGetByName(ctx, app.ID, strings.TrimSpace(d.Name))
		switch {
		case errors.Is(err, db.ErrNotFound):
			spec, sch, err := s.check(ctx, tx, app.ID, 0, in)
			if err != nil {
				return inDefinition(err)
			}
			w = &db.Workflow{AppID: app.ID}
			w.Apply(*spec)
			w.NextTriggerAt = s.firstTrigger(spec.Enabled, sch)
			return tx.WorkflowCreate(ctx, w, by(ctx))
		case err != nil:
			return err
		case !replace:
			return fault.BadInput("definition.name", "the app already has a workflow named %q; pass replace: true to save this as its next version", cur.Name)
		}
		w, err = s.save(ctx, tx, cur, in)
		return inDefinition(err)
	})
	if err != nil {
		return nil, err
	}
	s.notify.JobsChanged(app.ID)
	return w, nil
}

// decodeDefinition reads an imported definition strictly: an unknown
// field is an error, not something silently dropped.
func decodeDefinition(v any) (*Definition, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, fault.BadInput("definition", "is not JSON: %v", err)
	}
	if len(raw) > MaxDefinitionBytes {
		return nil, fault.BadInput("definition", "is %d bytes; at most %d", len(raw), MaxDefinitionBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	d := new(Definition)
	if err := dec.Decode(d); err != nil {
		return nil, fault.BadInput("definition", "is not a workflow definition (exportWorkflow's format): %v", err)
	}
	if d.Format != "" && d.Format != Format {
		return nil, fault.BadInput("definition.format", "%q is not a format this server reads (%s)", d.Format, Format)
	}
	return d, nil
}

// resolveNames turns a definition into an Input, finding its jobs and
// nested workflows by name in the app.
func resolveNames(ctx context.Context, tx *db.Store, app *db.App, d *Definition) (Input, error) {
	var jobNames []string
	for _, n := range d.Nodes {
		if n.Job != "" {
			jobNames = append(jobNames, n.Job)
		}
	}
	jobs, err := tx.JobListByNames(ctx, app.ID, jobNames)
	if err != nil {
		return Input{}, err
	}
	jobID := make(map[string]int64, len(jobs))
	for _, j := range jobs {
		jobID[j.Name] = j.ID
	}
	wfs, err := tx.WorkflowListByApp(ctx, app.ID)
	if err != nil {
		return Input{}, err
	}
	wfID := make(map[string]int64, len(wfs))
	for _, w := range wfs {
		wfID[w.Name] = w.ID
	}
	in := Input{App: app.Name, Name: d.Name, Description: &d.Description, Enabled: d.Enabled, ScheduleType: d.ScheduleType,
		ScheduleExpression: &d.ScheduleExpression, TimeZone: &d.TimeZone, MaxInstances: d.MaxInstances,
		OverlapPolicy: nonEmpty(d.OverlapPolicy), MisfirePolicy: nonEmpty(d.MisfirePolicy), FailFast: &d.FailFast,
		Nodes: make([]NodeInput, len(d.Nodes)), Edges: make([]EdgeInput, len(d.Edges))}
	for i, n := range d.Nodes {
		ni := NodeInput{Key: n.Key, Type: n.Type, Name: &n.Name, Expression: &n.Expression, Params: n.Params,
			Enabled: n.Enabled, SkipWhenFailed: &n.SkipWhenFailed, TriggerRule: nonEmpty(n.TriggerRule),
			Parallelism: n.Parallelism, TimeoutMs: n.TimeoutMs, Retries: n.Retries, Position: n.Position,
			Pool: nonEmpty(n.Pool), PoolSlots: n.PoolSlots}
		if n.Job != "" {
			id, ok := jobID[n.Job]
			if !ok {
				return Input{}, fault.BadInput(fmt.Sprintf("definition.nodes[%d].job", i), "app %q has no job named %q", app.Name, n.Job)
			}
			ni.JobID = &id
		}
		if n.Workflow != "" {
			id, ok := wfID[n.Workflow]
			if !ok {
				return Input{}, fault.BadInput(fmt.Sprintf("definition.nodes[%d].workflow", i), "app %q has no workflow named %q (import the workflows it nests first)", app.Name, n.Workflow)
			}
			ni.WorkflowID = &id
		}
		in.Nodes[i] = ni
	}
	for j, e := range d.Edges {
		in.Edges[j] = EdgeInput{From: e.From, To: e.To, Label: nonEmpty(e.Label)}
	}
	return in, nil
}

// inDefinition renames a validation error's field to the definition's:
// nodes[2].jobId is definition.nodes[2].job.
func inDefinition(err error) error {
	var bad *fault.Input
	if !errors.As(err, &bad) {
		return err
	}
	f := bad.Field
	f = strings.Replace(f, ".jobId", ".job", 1)
	f = strings.Replace(f, ".workflowId", ".workflow", 1)
	return &fault.Input{Field: "definition." + f, Reason: bad.Reason}
}

// inputOf turns a saved spec back into an Input (restoring a version).
func inputOf(spec db.WorkflowSpec) Input {
	in := Input{Name: spec.Name, Description: &spec.Description, Enabled: &spec.Enabled, ScheduleType: spec.ScheduleType,
		ScheduleExpression: &spec.ScheduleExpression, TimeZone: &spec.TimeZone, MaxInstances: &spec.MaxInstances,
		OverlapPolicy: &spec.OverlapPolicy, MisfirePolicy: &spec.MisfirePolicy, FailFast: &spec.FailFast, Alarm: &spec.Alarm,
		Nodes: make([]NodeInput, len(spec.Graph.Nodes)), Edges: make([]EdgeInput, len(spec.Graph.Edges))}
	for i, n := range spec.Graph.Nodes {
		in.Nodes[i] = NodeInputOf(n)
	}
	for j, e := range spec.Graph.Edges {
		in.Edges[j] = EdgeInput{From: e.From, To: e.To, Label: nonEmpty(e.Label)}
	}
	return in
}

// NodeInputOf is a saved node as the input that saves it again.
func NodeInputOf(n db.WorkflowNode) NodeInput {
	ni := NodeInput{Key: n.Key, Type: n.Type, Name: &n.Name, Expression: nonEmpty(n.Expression), Params: n.Params,
		Enabled: &n.Enabled, SkipWhenFailed: &n.SkipWhenFailed, TriggerRule: nonEmpty(n.TriggerRule),
		TimeoutMs: n.TimeoutMs, Retries: n.Retries, Position: n.Position}
	if n.JobID != 0 {
		ni.JobID = &n.JobID
	}
	if n.WorkflowID != 0 {
		ni.WorkflowID = &n.WorkflowID
	}
	if n.Type == db.NodeForeach {
		ni.Parallelism = &n.Parallelism
	}
	if n.Pool != "" {
		ni.Pool, ni.PoolSlots = &n.Pool, new(max(n.PoolSlots, 1))
	}
	return ni
}

func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
