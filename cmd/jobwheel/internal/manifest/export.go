package manifest

import "fmt"

// The GraphQL selections export reads objects with; the API types below
// decode them.
const (
	JobFields = `name description enabled scheduleType scheduleExpression timeZone
		scheduleWindow { start end days } calendar { name } lifecycle { start end }
		executionMode processorType processor params maxInstances taskConcurrency timeoutMs instanceRetries taskRetries
		workerFilter { designated tags minCpuCores minMemoryMB minDiskMB maxWorkers }
		dispatchStrategy misfirePolicy alarm { rules { type threshold silenceSec } channels { type target } }
		overlapPolicy maxQueued priority retryDelayMs retryBackoff retryDelayMaxMs pool { name } poolSlots managedBy managedSource`
	WorkflowFields = `name description enabled scheduleType scheduleExpression timeZone maxInstances overlapPolicy misfirePolicy failFast
		nodes { key type name jobId job { name } workflowId workflow { name } expression params enabled skipWhenFailed
			triggerRule parallelism timeoutMs retries position { x y } pool poolSlots }
		edges { from to label }
		alarm { rules { type threshold silenceSec } channels { type target } } managedBy managedSource`
	CalendarFields = `name description dates managedBy managedSource`
)

// Managed is who keeps an object (Job.managedBy, managedSource).
type Managed struct {
	ManagedBy     *string `json:"managedBy"`
	ManagedSource *string `json:"managedSource"`
}

// FileSet is the file set managing the object, or "".
func (m Managed) FileSet() string {
	if m.ManagedBy == nil || m.ManagedSource == nil || *m.ManagedSource != "FILES" {
		return ""
	}
	return *m.ManagedBy
}

// InCode says whether the object is declared in a worker's code.
func (m Managed) InCode() bool { return m.ManagedSource != nil && *m.ManagedSource == "CODE" }

// APIJob is a job as JobFields reads it.
type APIJob struct {
	JobSpec
	Name        string                 `json:"name"`
	CalendarRef *struct{ Name string } `json:"calendar"`
	PoolRef     *struct{ Name string } `json:"pool"`
	Managed
}

// APIWorkflow is a workflow as WorkflowFields reads it.
type APIWorkflow struct {
	Name               string  `json:"name"`
	Description        *string `json:"description"`
	Enabled            *bool   `json:"enabled"`
	ScheduleType       string  `json:"scheduleType"`
	ScheduleExpression *string `json:"scheduleExpression"`
	TimeZone           *string `json:"timeZone"`
	MaxInstances       *int    `json:"maxInstances"`
	OverlapPolicy      *string `json:"overlapPolicy"`
	MisfirePolicy      *string `json:"misfirePolicy"`
	FailFast           *bool   `json:"failFast"`
	Nodes              []struct {
		WorkflowNode
		JobID       *string                `json:"jobId"`
		JobRef      *struct{ Name string } `json:"job"`
		WorkflowID  *string                `json:"workflowId"`
		WorkflowRef *struct{ Name string } `json:"workflow"`
	} `json:"nodes"`
	Edges []WorkflowEdge `json:"edges"`
	Alarm *Alarm         `json:"alarm"`
	Managed
}

// APICalendar is a calendar as CalendarFields reads it.
type APICalendar struct {
	CalendarSpec
	Name string `json:"name"`
	Managed
}

func newDocument(kind, app, name string, m Managed, spec any) *Document {
	d := &Document{APIVersion: APIVersion, Kind: kind, Metadata: Metadata{App: app, Name: name}, Spec: spec}
	if set := m.FileSet(); set != "" {
		d.Metadata.Labels = map[string]string{SetLabel: set}
	}
	return Canonical(d)
}

// FromJob is a job of app as a canonical document.
func FromJob(app string, j APIJob) *Document {
	spec := j.JobSpec
	spec.Calendar = nil
	if j.CalendarRef != nil {
		spec.Calendar = &j.CalendarRef.Name
	}
	spec.Pool = nil
	if j.PoolRef != nil {
		spec.Pool = &j.PoolRef.Name
	}
	return newDocument(KindJob, app, j.Name, j.Managed, &spec)
}

// FromWorkflow is a workflow of app as a canonical document; a node
// whose job or nested workflow is gone cannot be written by name, and is
// an error naming it.
func FromWorkflow(app string, w APIWorkflow) (*Document, error) {
	spec := &WorkflowSpec{Description: w.Description, Enabled: w.Enabled, ScheduleType: w.ScheduleType,
		ScheduleExpression: w.ScheduleExpression, TimeZone: w.TimeZone, MaxInstances: w.MaxInstances,
		OverlapPolicy: w.OverlapPolicy, MisfirePolicy: w.MisfirePolicy, FailFast: w.FailFast, Edges: w.Edges, Alarm: w.Alarm}
	for _, n := range w.Nodes {
		node := n.WorkflowNode
		node.Job, node.Workflow = nil, nil
		switch {
		case n.JobRef != nil:
			node.Job = &n.JobRef.Name
		case n.JobID != nil:
			return nil, fmt.Errorf("workflow %q of app %q: node %q runs job %s, which no longer exists; fix the workflow first", w.Name, app, n.Key, *n.JobID)
		}
		switch {
		case n.WorkflowRef != nil:
			node.Workflow = &n.WorkflowRef.Name
		case n.WorkflowID != nil:
			return nil, fmt.Errorf("workflow %q of app %q: node %q nests workflow %s, which no longer exists; fix the workflow first", w.Name, app, n.Key, *n.WorkflowID)
		}
		if node.Type != "FOREACH" {
			node.Parallelism = nil
		}
		spec.Nodes = append(spec.Nodes, node)
	}
	return newDocument(KindWorkflow, app, w.Name, w.Managed, spec), nil
}

// FromCalendar is a calendar of app as a canonical document.
func FromCalendar(app string, c APICalendar) *Document {
	spec := c.CalendarSpec
	return newDocument(KindCalendar, app, c.Name, c.Managed, &spec)
}
