package model

import (
	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/server/api/audit"
	"github.com/jobwheel/jobwheel/server/api/workflows"
)

// JobConnection is a page of an app's jobs. App and Search are what was
// listed, for totalCount, which is counted only when asked for.
type JobConnection struct {
	Edges    []*JobEdge
	PageInfo *PageInfo
	App      string
	Search   string
}

// InstanceConnection is a page of an app's instances. App and Filter are
// what was listed, for totalCount, which is counted only when asked for.
type InstanceConnection struct {
	Edges    []*InstanceEdge
	PageInfo *PageInfo
	App      string
	Filter   db.InstanceFilter
}

// WorkflowConnection is a page of an app's workflows. App and Search are
// what was listed, for totalCount, which is counted only when asked for.
type WorkflowConnection struct {
	Edges    []*WorkflowConnectionEdge
	PageInfo *PageInfo
	App      string
	Search   string
}

// WorkflowInstanceConnection is a page of workflow runs. App and Filter
// are what was listed, for totalCount, which is counted only when asked
// for.
type WorkflowInstanceConnection struct {
	Edges    []*WorkflowInstanceConnectionEdge
	PageInfo *PageInfo
	App      string
	Filter   workflows.RunFilter
}

// TaskConnection is a page of an instance's tasks. Query is what was
// listed, for totalCount, which is counted only when asked for.
type TaskConnection struct {
	Edges    []*TaskEdge
	PageInfo *PageInfo
	Query    db.TaskQuery
}

// AuditEntryConnection is a page of the audit log. Filter is what was
// listed, for totalCount, which is counted only when asked for.
type AuditEntryConnection struct {
	Edges    []*AuditEntryConnectionEdge
	PageInfo *PageInfo
	Filter   audit.Filter
}

// AlarmRecordConnection is a page of a job's or workflow's alarm history.
// Kind and ID are whose, for totalCount, counted only when asked for.
type AlarmRecordConnection struct {
	Edges    []*AlarmRecordEdge
	PageInfo *PageInfo
	Kind     string
	ID       int64
	// Total is the history's size, read with the page (when asked for).
	Total int
}
