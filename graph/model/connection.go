package model

import "github.com/jobwheel/jobwheel/db"

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
