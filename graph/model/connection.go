package model

// JobConnection is a page of an app's jobs. App and Search are what was
// listed, for totalCount, which is counted only when asked for.
type JobConnection struct {
	Edges    []*JobEdge
	PageInfo *PageInfo
	App      string
	Search   string
}
