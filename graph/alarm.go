package graph

import (
	"context"
	"errors"

	"github.com/jobwheel/jobwheel/db"
	"github.com/jobwheel/jobwheel/graph/model"
	"github.com/jobwheel/jobwheel/server/api/alarm"
	"github.com/jobwheel/jobwheel/server/api/auth"
	"github.com/jobwheel/jobwheel/server/platform/fault"
)

// alarmHistory is a page of a job's or workflow's alarm history; the
// caller resolved the job or workflow, with the reader's rights checked.
func (r *Resolver) alarmHistory(ctx context.Context, kind string, id int64, first *int, after *string) (*model.AlarmRecordConnection, error) {
	limit, err := pageSize(first, 20, 200)
	if err != nil {
		return nil, err
	}
	before, err := decodeCursor("after", after)
	if err != nil {
		return nil, err
	}
	conn := &model.AlarmRecordConnection{Edges: []*model.AlarmRecordEdge{}, PageInfo: &model.PageInfo{}, Kind: kind, ID: id}
	if r.alarms == nil {
		return conn, nil
	}
	page, err := r.alarms.History(ctx, kind, id, before, limit, selectedFields(ctx)["totalCount"])
	if err != nil {
		return nil, err
	}
	conn.Total = page.Total
	conn.PageInfo.HasNextPage = page.More
	for i := range page.Records {
		conn.Edges = append(conn.Edges, &model.AlarmRecordEdge{Cursor: encodeCursor(page.Records[i].ID), Node: &page.Records[i]})
	}
	if n := len(conn.Edges); n > 0 {
		conn.PageInfo.EndCursor = &conn.Edges[n-1].Cursor
	}
	return conn, nil
}

// alarmHistoryCount is the total alarmHistory read with its page.
func (r *Resolver) alarmHistoryCount(_ context.Context, obj *model.AlarmRecordConnection) (int, error) {
	return max(obj.Total, 0), nil
}

// sendTestAlarm sends a test alarm to a job's or a workflow's channels; the
// caller needs EDITOR on its app.
func (r *Resolver) sendTestAlarm(ctx context.Context, jobID, workflowID *string) ([]*alarm.Answer, error) {
	if (jobID == nil) == (workflowID == nil) {
		return nil, fault.BadInput("jobId", "give exactly one of jobId and workflowId")
	}
	t := alarm.Test{}
	if jobID != nil {
		id, err := parseID("jobId", *jobID)
		if err != nil {
			return nil, err
		}
		j, err := r.jobs.Get(ctx, id, db.RoleEditor)
		if err != nil {
			return nil, err
		}
		t = alarm.Test{AppID: j.AppID, Kind: db.SubjectJob, ID: j.ID, Name: j.Name, Alarm: j.Alarm}
	} else {
		id, err := parseID("workflowId", *workflowID)
		if err != nil {
			return nil, err
		}
		w, err := r.workflows.Get(ctx, id, db.RoleEditor)
		if err != nil {
			return nil, err
		}
		t = alarm.Test{AppID: w.AppID, Kind: db.SubjectWorkflow, ID: w.ID, Name: w.Name, Alarm: w.Alarm}
	}
	apps, err := r.apps.ByIDs(ctx, []int64{t.AppID}, db.RoleEditor)
	if err != nil {
		return nil, err
	}
	if a := apps[t.AppID]; a != nil {
		t.App = a.Name
	}
	if p := auth.FromContext(ctx); p != nil {
		t.By = p.User.Username
	}
	if r.alarms == nil {
		return nil, errors.New("this server sends no alarms")
	}
	answers, err := r.alarms.SendTest(ctx, t)
	if err != nil {
		return nil, err
	}
	out := make([]*alarm.Answer, len(answers))
	for i := range answers {
		out[i] = &answers[i]
	}
	return out, nil
}

// nonZero is a number as the API shows an absent one: null for 0.
func nonZero(n int) *int {
	if n == 0 {
		return nil
	}
	return &n
}
