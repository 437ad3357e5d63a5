package db

import (
	"context"
	"time"

	"github.com/uptrace/bun"
)

// Task is a durable unit of an instance's work on one worker: the root task
// of a STANDALONE instance, one per worker for BROADCAST, or a map subtask.
type Task struct {
	bun.BaseModel `bun:"table:tasks,alias:tk"`

	ID              int64      `bun:"id,pk,autoincrement"`
	InstanceID      int64      `bun:"instance_id,notnull"`
	ParentID        *int64     `bun:"parent_id"`
	Name            string     `bun:"name,notnull"`
	Kind            string     `bun:"kind,notnull"`
	Status          string     `bun:"status,notnull"`
	Payload         string     `bun:"payload,notnull"`
	Result          string     `bun:"result,notnull"`
	WorkerID        *string    `bun:"worker_id"`
	InstanceAttempt int        `bun:"instance_attempt,notnull"`
	Retries         int        `bun:"retries,notnull"`
	CreatedAt       time.Time  `bun:"created_at,notnull"`
	DispatchedAt    *time.Time `bun:"dispatched_at"`
	FinishedAt      *time.Time `bun:"finished_at"`
	UpdatedAt       time.Time  `bun:"updated_at,notnull"`
	// NotBefore is when a WAITING task waiting for its retry may be
	// dispatched (nil: at once): the retry back-off, kept on the row so a
	// new owner waits too.
	NotBefore *time.Time `bun:"not_before"`
}

// TaskCreateMany inserts tasks in one statement and sets their ids.
func (s *Store) TaskCreateMany(ctx context.Context, list []Task) error {
	if len(list) == 0 {
		return nil
	}
	now := Now()
	for i := range list {
		list[i].CreatedAt, list[i].UpdatedAt = now, now
	}
	if s.dialect == Postgres {
		var ids []int64
		if err := s.insertRecordset(ctx, "tasks", list, []string{"id"}, "RETURNING id", &ids); err != nil {
			return wrap(err, "creating tasks")
		}
		for i := range list {
			list[i].ID = ids[i]
		}
		return nil
	}
	_, err := s.idb.NewInsert().Model(&list).ExcludeColumn("id").Returning("id").Exec(ctx)
	return wrap(err, "creating tasks")
}

// TaskTransition moves a task between statuses (compare-and-set on From).
type TaskTransition struct {
	ID int64 `bun:"task_id"`
	// InstanceID is the task's instance: on PostgreSQL, the partition
	// key, so the statement goes to its instance's partition only.
	InstanceID   int64      `bun:"instance_id"`
	From         string     `bun:"from_status"`
	To           string     `bun:"to_status"`
	WorkerID     *string    `bun:"worker_id"`
	Result       *string    `bun:"result"`
	DispatchedAt *time.Time `bun:"dispatched_at"`
	FinishedAt   *time.Time `bun:"finished_at"`
	// Retries, when set, replaces the task's retry count.
	Retries *int `bun:"retries"`
	// NotBefore is the retry back-off's time of a task going back to
	// WAITING; it is cleared by every other transition.
	NotBefore *time.Time `bun:"not_before"`
	UpdatedAt time.Time  `bun:"updated_at"`
}

// TaskTransitionMany applies the transitions whose task is still in From,
// in one statement, and returns the ids that moved.
func (s *Store) TaskTransitionMany(ctx context.Context, list []TaskTransition) ([]int64, error) {
	var ids []int64
	if len(list) == 0 {
		return ids, nil
	}
	now := Now()
	for i := range list {
		list[i].UpdatedAt = now
	}
	if s.dialect == Postgres {
		from, arg, _ := s.recordset("?", list)
		err := s.idb.NewRaw(`UPDATE tasks AS tk SET status = d.to_status,
			worker_id = CASE WHEN d.to_status = 'WAITING' THEN NULL ELSE COALESCE(d.worker_id, tk.worker_id) END,
			result = COALESCE(d.result, tk.result), dispatched_at = COALESCE(d.dispatched_at, tk.dispatched_at),
			finished_at = COALESCE(d.finished_at, tk.finished_at), retries = COALESCE(d.retries, tk.retries),
			not_before = d.not_before, updated_at = d.updated_at
			FROM `+from+` WHERE tk.instance_id = d.instance_id AND tk.id = d.task_id AND tk.status = d.from_status RETURNING tk.id`, arg).Scan(ctx, &ids)
		return ids, wrap(err, "moving tasks")
	}
	values := s.idb.NewValues(&list)
	err := s.idb.NewUpdate().
		With("_data", values).
		Model((*Task)(nil)).
		TableExpr("_data").
		Set("status = _data.to_status").
		Set("worker_id = CASE WHEN _data.to_status = 'WAITING' THEN NULL ELSE COALESCE(_data.worker_id, tk.worker_id) END").
		Set("result = COALESCE(_data.result, tk.result)").
		Set("dispatched_at = COALESCE(_data.dispatched_at, tk.dispatched_at)").
		Set("finished_at = COALESCE(_data.finished_at, tk.finished_at)").
		Set("retries = COALESCE(_data.retries, tk.retries)").
		Set("not_before = _data.not_before").
		Set("updated_at = _data.updated_at").
		Where("tk.instance_id = _data.instance_id AND tk.id = _data.task_id AND tk.status = _data.from_status").
		Returning("id").
		Scan(ctx, &ids)
	return ids, wrap(err, "moving tasks")
}

// TaskStopByInstance stops every unfinished task of an instance attempt
// and returns the ones that were on a worker (to tell the worker). An
// attempt's tasks are stopped when it ends, so only the current attempt
// can have any.
func (s *Store) TaskStopByInstance(ctx context.Context, instanceID int64, attempt int, status string) ([]Task, error) {
	var onWorkers []Task
	err := s.idb.NewSelect().Model(&onWorkers).
		Where("instance_id = ? AND instance_attempt = ? AND status IN (?)", instanceID, attempt, bun.List([]string{StatusDispatched, StatusRunning})).
		Scan(ctx)
	if err != nil {
		return nil, wrap(err, "reading tasks to stop")
	}
	now := Now()
	_, err = s.idb.NewUpdate().Model((*Task)(nil)).
		Set("status = ?", status).Set("finished_at = ?", now).Set("updated_at = ?", now).
		Where("instance_id = ? AND instance_attempt = ? AND status IN (?)", instanceID, attempt, bun.List(ActiveStatuses)).Exec(ctx)
	return onWorkers, wrap(err, "stopping tasks")
}

// TaskCreateManyChunked inserts tasks whose ids the caller does not need (map
// subtasks beyond what the owner holds in memory), in statements of
// taskInsertChunk rows.
func (s *Store) TaskCreateManyChunked(ctx context.Context, list []Task) error {
	if len(list) == 0 {
		return nil
	}
	now := Now()
	for i := range list {
		list[i].CreatedAt, list[i].UpdatedAt = now, now
	}
	for from := 0; from < len(list); from += taskInsertChunk {
		chunk := list[from:min(from+taskInsertChunk, len(list))]
		var err error
		if s.dialect == Postgres {
			err = s.insertRecordset(ctx, "tasks", chunk, []string{"id"}, "")
		} else {
			_, err = s.idb.NewInsert().Model(&chunk).ExcludeColumn("id").Exec(ctx)
		}
		if err != nil {
			return wrap(err, "creating tasks")
		}
	}
	return nil
}

// taskInsertChunk bounds the rows of one insert: 15 columns each stay well
// under PostgreSQL's 65,535 parameters and SQLite's 32,766.
const taskInsertChunk = 2000

// TaskListWaitingAfter returns up to limit WAITING tasks of an instance
// attempt with ids above afterID, in id order: the owner's next window
// of an instance with more tasks than it holds in memory. The index
// tasks_by_attempt (instance_id, instance_attempt, status, id) serves it
// whatever the instance's size.
func (s *Store) TaskListWaitingAfter(ctx context.Context, instanceID int64, attempt int, afterID int64, limit int) ([]Task, error) {
	var out []Task
	err := s.idb.NewSelect().Model(&out).
		Where("instance_id = ? AND status = ? AND id > ? AND instance_attempt = ?", instanceID, StatusWaiting, afterID, attempt).
		OrderExpr("id").Limit(limit).Scan(ctx)
	return out, wrap(err, "reading waiting tasks")
}

// TaskListOnWorkers returns the DISPATCHED and RUNNING tasks of the
// instances' current attempts (an attempt's tasks are stopped when it
// ends).
func (s *Store) TaskListOnWorkers(ctx context.Context, instanceIDs []int64) ([]Task, error) {
	return s.taskListOfCurrentAttempts(ctx, instanceIDs, []string{StatusDispatched, StatusRunning}, "reading tasks on workers")
}

// taskListOfCurrentAttempts reads the tasks of some statuses of the
// instances' current attempts: per instance one range of tasks_by_attempt.
func (s *Store) taskListOfCurrentAttempts(ctx context.Context, instanceIDs []int64, statuses []string, what string) ([]Task, error) {
	var out []Task
	if len(instanceIDs) == 0 {
		return out, nil
	}
	err := s.idb.NewSelect().Model(&out).
		Join("JOIN instances AS i ON i.id = tk.instance_id AND i.attempt = tk.instance_attempt").
		Where("i.id IN (?) AND tk.status IN (?)", bun.List(instanceIDs), bun.List(statuses)).
		OrderExpr("tk.id").Scan(ctx)
	return out, wrap(err, what)
}

// TaskStopWaiting stops an instance attempt's WAITING tasks (those its
// owner does not hold in memory when the attempt ends).
func (s *Store) TaskStopWaiting(ctx context.Context, instanceID int64, attempt int, at time.Time) error {
	_, err := s.idb.NewUpdate().Model((*Task)(nil)).
		Set("status = ?", StatusStopped).Set("finished_at = ?", at).Set("updated_at = ?", Now()).
		Where("instance_id = ? AND instance_attempt = ? AND status = ?", instanceID, attempt, StatusWaiting).Exec(ctx)
	return wrap(err, "stopping waiting tasks")
}

// TaskListUnfinished returns the unfinished tasks of the instances'
// current attempts.
func (s *Store) TaskListUnfinished(ctx context.Context, instanceIDs []int64) ([]Task, error) {
	return s.taskListOfCurrentAttempts(ctx, instanceIDs, ActiveStatuses, "reading unfinished tasks")
}

// TaskListResults returns the finished tasks of an instance attempt of the
// kinds given, for post-processing and reduce.
func (s *Store) TaskListResults(ctx context.Context, instanceID int64, attempt int, kinds []string) ([]Task, error) {
	var out []Task
	err := s.idb.NewSelect().Model(&out).
		Column("id", "name", "kind", "status", "result").
		Where("instance_id = ? AND instance_attempt = ? AND kind IN (?)", instanceID, attempt, bun.List(kinds)).
		OrderExpr("id").Scan(ctx)
	return out, wrap(err, "reading task results")
}

// TaskListResultsAfter returns a page of TaskResults: the tasks with ids
// above afterID, in id order, at most limit. A reduce over millions of
// subtasks reads them a page at a time, walking the primary key.
func (s *Store) TaskListResultsAfter(ctx context.Context, instanceID int64, attempt int, kinds []string, afterID int64, limit int) ([]Task, error) {
	var out []Task
	err := s.idb.NewSelect().Model(&out).
		Column("id", "name", "kind", "status", "result").
		Where("instance_id = ? AND instance_attempt = ? AND kind IN (?) AND id > ?", instanceID, attempt, bun.List(kinds), afterID).
		OrderExpr("id").Limit(limit).Scan(ctx)
	return out, wrap(err, "reading a page of task results")
}

// TaskGetInApp returns an instance's task if the instance belongs to the
// app; sql.ErrNoRows (wrapped) when it does not exist or belongs to another
// instance or app.
func (s *Store) TaskGetInApp(ctx context.Context, appID, instanceID, taskID int64) (*Task, error) {
	t := new(Task)
	err := s.idb.NewSelect().Model(t).
		Where("tk.instance_id = ? AND tk.id = ? AND EXISTS (SELECT 1 FROM instances i WHERE i.id = tk.instance_id AND i.app_id = ?)", instanceID, taskID, appID).
		Scan(ctx)
	if err != nil {
		return nil, wrap(err, "reading a task")
	}
	return t, nil
}

// TaskCounts are an instance's tasks by status.
type TaskCounts struct {
	InstanceID int64 `bun:"instance_id"`
	Total      int   `bun:"total"`
	Waiting    int   `bun:"waiting"`
	Running    int   `bun:"running"`
	Succeeded  int   `bun:"succeeded"`
	// Failed counts every task that ended without success: FAILED,
	// STOPPED or CANCELED (the execution engine's notion of "not
	// succeeded"); Stopped counts the STOPPED or CANCELED among them.
	Failed  int `bun:"failed"`
	Stopped int `bun:"stopped"`
}

// Counting an attempt's tasks by status costs a few rows per instance,
// whatever its size: the kinds an instance has many of (MAP, BROADCAST)
// are counted in task_counts, which triggers keep in step with the tasks
// (migrations 20261127000100, 20261128100000), and the kinds an attempt
// has one of each (ROOT, PRE, POST, REDUCE) are counted from their rows
// through the index tasks_singles. A STANDALONE instance's one task thus
// costs no task_counts write.

// singleKinds are the task kinds of which an attempt has at most one.
const singleKinds = "'ROOT', 'PRE', 'POST', 'REDUCE'"

// taskCountRows are the counts (instance_id, status, n) of the current
// attempts of the instances a where clause on instances AS i picks.
func (s *Store) taskCountRows(where string, args ...any) string {
	return s.idb.NewRaw(`SELECT tc.instance_id, tc.status, tc.n FROM task_counts AS tc
		JOIN instances AS i ON i.id = tc.instance_id AND i.attempt = tc.instance_attempt WHERE `+where+`
		UNION ALL
		SELECT tk.instance_id, tk.status, COUNT(*) AS n FROM tasks AS tk
		JOIN instances AS i ON i.id = tk.instance_id AND i.attempt = tk.instance_attempt
		WHERE tk.kind IN (`+singleKinds+`) AND `+where+`
		GROUP BY tk.instance_id, tk.status`, append(append([]any{}, args...), args...)...).String()
}

// TaskCountsByInstance summarises the tasks of each instance's current
// attempt.
func (s *Store) TaskCountsByInstance(ctx context.Context, instanceIDs []int64) (map[int64]TaskCounts, error) {
	out := make(map[int64]TaskCounts, len(instanceIDs))
	if len(instanceIDs) == 0 {
		return out, nil
	}
	var rows []TaskCounts
	err := s.idb.NewSelect().TableExpr("("+s.taskCountRows("i.id IN (?)", bun.List(instanceIDs))+") AS c").
		ColumnExpr("c.instance_id, SUM(c.n) AS total").
		ColumnExpr("SUM(CASE WHEN c.status = 'WAITING' THEN c.n ELSE 0 END) AS waiting").
		ColumnExpr("SUM(CASE WHEN c.status IN ('DISPATCHED', 'RUNNING') THEN c.n ELSE 0 END) AS running").
		ColumnExpr("SUM(CASE WHEN c.status = 'SUCCEEDED' THEN c.n ELSE 0 END) AS succeeded").
		ColumnExpr("SUM(CASE WHEN c.status IN ('FAILED', 'STOPPED', 'CANCELED') THEN c.n ELSE 0 END) AS failed").
		ColumnExpr("SUM(CASE WHEN c.status IN ('STOPPED', 'CANCELED') THEN c.n ELSE 0 END) AS stopped").
		Group("c.instance_id").Scan(ctx, &rows)
	for _, r := range rows {
		if r.Total > 0 {
			out[r.InstanceID] = r
		}
	}
	return out, wrap(err, "counting tasks")
}

// TaskList returns a page of an instance's tasks by id.
func (s *Store) TaskList(ctx context.Context, instanceID int64, afterID int64, limit int) ([]Task, bool, error) {
	var out []Task
	err := s.idb.NewSelect().Model(&out).
		Where("instance_id = ? AND id > ?", instanceID, afterID).
		OrderExpr("id").Limit(limit + 1).Scan(ctx)
	if err != nil {
		return nil, false, wrap(err, "listing tasks")
	}
	if len(out) > limit {
		return out[:limit], true, nil
	}
	return out, false, nil
}

// MapRequest records a map message whose subtasks were stored.
type MapRequest struct {
	bun.BaseModel `bun:"table:map_requests,alias:mr"`

	InstanceID int64     `bun:"instance_id,pk"`
	Key        string    `bun:"key,pk"`
	CreatedAt  time.Time `bun:"created_at,notnull"`
}

// MapRequestCreateMany records map messages as applied.
func (s *Store) MapRequestCreateMany(ctx context.Context, list []MapRequest) error {
	if len(list) == 0 {
		return nil
	}
	now := Now()
	for i := range list {
		list[i].CreatedAt = now
	}
	_, err := s.idb.NewInsert().Model(&list).On("CONFLICT (instance_id, key) DO NOTHING").Exec(ctx)
	return wrap(err, "recording map requests")
}

// MapRequestApplied reports whether a map message was already stored.
func (s *Store) MapRequestApplied(ctx context.Context, instanceID int64, key string) (bool, error) {
	n, err := s.idb.NewSelect().Model((*MapRequest)(nil)).Where("instance_id = ? AND key = ?", instanceID, key).Count(ctx)
	return n > 0, wrap(err, "reading map requests")
}
