package db

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/uptrace/bun"
)

// The API's view of an instance's tasks: pages of one attempt's tasks by id,
// optionally of some statuses, and one task. Every query here is bounded by
// the page, whatever the instance's size: they run on the index
// tasks_by_attempt (instance_id, instance_attempt, status, id), one range
// per status, so neither paging nor counting reads a row of another status
// or attempt (docs/design.md §9.3).

// TaskPreviewChars bounds the payload and result the API returns of a task:
// the first this many characters, with the whole size in bytes alongside.
// Payloads and results can be large, and a page of tasks must stay small.
const TaskPreviewChars = 4096

// TaskStatuses lists the task states (docs/design.md §5.6).
var TaskStatuses = []string{StatusWaiting, StatusDispatched, StatusRunning, StatusSucceeded, StatusFailed, StatusStopped, StatusCanceled}

// TaskView is a task as the API shows it: its payload and result cut to
// TaskPreviewChars characters, with their sizes.
type TaskView struct {
	bun.BaseModel `bun:"table:tasks,alias:tk"`

	ID              int64      `bun:"id"`
	InstanceID      int64      `bun:"instance_id"`
	ParentID        *int64     `bun:"parent_id"`
	Name            string     `bun:"name"`
	Kind            string     `bun:"kind"`
	Status          string     `bun:"status"`
	Payload         string     `bun:"payload"`
	PayloadSize     int        `bun:"payload_size"`
	Result          string     `bun:"result"`
	ResultSize      int        `bun:"result_size"`
	WorkerID        *string    `bun:"worker_id"`
	InstanceAttempt int        `bun:"instance_attempt"`
	Retries         int        `bun:"retries"`
	CreatedAt       time.Time  `bun:"created_at"`
	DispatchedAt    *time.Time `bun:"dispatched_at"`
	FinishedAt      *time.Time `bun:"finished_at"`
	UpdatedAt       time.Time  `bun:"updated_at"`
	// NotBefore is when a task waiting for its retry is due (nil: at once).
	NotBefore *time.Time `bun:"not_before"`
	// AppID is the instance's app, set by the caller (for the worker
	// lookup, which is per app); not a column.
	AppID int64 `bun:"-"`
}

// taskViewColumns selects a TaskView from tasks AS tk. octet_length is the
// size in bytes in both dialects (SQLite has it since 3.43); substr counts
// characters in both, so a preview never splits one.
var taskViewColumns = `tk.id, tk.instance_id, tk.parent_id, tk.name, tk.kind, tk.status,
	substr(tk.payload, 1, ` + strconv.Itoa(TaskPreviewChars) + `) AS payload, octet_length(tk.payload) AS payload_size,
	substr(tk.result, 1, ` + strconv.Itoa(TaskPreviewChars) + `) AS result, octet_length(tk.result) AS result_size,
	tk.worker_id, tk.instance_attempt, tk.retries, tk.created_at, tk.dispatched_at, tk.finished_at, tk.updated_at,
	tk.not_before`

// TaskQuery picks tasks of one attempt of an instance.
type TaskQuery struct {
	InstanceID int64
	Attempt    int
	// Statuses filters; empty means every status.
	Statuses []string
	// AfterID continues a page after this task id (0: from the start).
	AfterID int64
	// Limit is the page size.
	Limit int
}

func (q TaskQuery) statuses() []string {
	if len(q.Statuses) == 0 {
		return TaskStatuses
	}
	seen := make(map[string]bool, len(q.Statuses))
	out := make([]string, 0, len(q.Statuses))
	for _, s := range q.Statuses {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// TaskViewList returns a page of an instance attempt's tasks by id, and
// whether more follow. A page is the first Limit+1 ids of each status
// after AfterID, merged: each is one index range read (no OFFSET, no
// scan of the instance's other tasks), and the rows themselves are read
// only for the page.
func (s *Store) TaskViewList(ctx context.Context, q TaskQuery) ([]TaskView, bool, error) {
	var (
		parts []string
		args  []any
	)
	// On PostgreSQL the status is matched as a range of one value, and the
	// order named (status, id): with `status = ?` the planner may walk the
	// primary key in id order and filter, which it costs as cheap when the
	// status is common, and which reads every row of other statuses up to
	// the next match (2.7 s at 10M tasks, measured). The range keeps the
	// order unsatisfiable by the primary key, and nbtree still positions
	// at (instance, attempt, status, after id) since the keys before id
	// are = and >=. SQLite seeks on id only after equalities.
	statusCond := "status = ?"
	if s.dialect == Postgres {
		statusCond = "status >= ? AND status <= ?"
	}
	for i, st := range q.statuses() {
		// Each member is wrapped in a subquery: SQLite allows ORDER BY and
		// LIMIT only on a whole compound select, not on one of its members.
		parts = append(parts, `SELECT id FROM (SELECT id FROM tasks
			WHERE instance_id = ? AND instance_attempt = ? AND `+statusCond+` AND id > ?
			ORDER BY status, id LIMIT ?) AS s`+strconv.Itoa(i))
		args = append(args, q.InstanceID, q.Attempt, st)
		if s.dialect == Postgres {
			args = append(args, st)
		}
		args = append(args, q.AfterID, q.Limit+1)
	}
	args = append(args, q.Limit+1, q.InstanceID)
	query := `SELECT ` + taskViewColumns + ` FROM tasks AS tk JOIN (` +
		strings.Join(parts, " UNION ALL ") + ` ORDER BY id LIMIT ?) AS pg ON tk.instance_id = ? AND pg.id = tk.id ORDER BY tk.id`
	var out []TaskView
	if err := s.idb.NewRaw(query, args...).Scan(ctx, &out); err != nil {
		return nil, false, wrap(err, "listing tasks")
	}
	if len(out) > q.Limit {
		return out[:q.Limit], true, nil
	}
	return out, false, nil
}

// TaskCount counts an instance attempt's tasks of the query's statuses
// (AfterID and Limit are ignored): from task_counts, one row per status,
// and the few tasks of the kinds it does not count (tasks.go).
func (s *Store) TaskCount(ctx context.Context, q TaskQuery) (int, error) {
	var n int
	err := s.idb.NewRaw(`SELECT COALESCE(SUM(n), 0) FROM (
		SELECT n FROM task_counts WHERE instance_id = ? AND instance_attempt = ? AND status IN (?)
		UNION ALL
		SELECT COUNT(*) AS n FROM tasks WHERE instance_id = ? AND instance_attempt = ? AND status IN (?) AND kind IN (`+singleKinds+`)
	) AS c`, q.InstanceID, q.Attempt, bun.List(q.statuses()), q.InstanceID, q.Attempt, bun.List(q.statuses())).Scan(ctx, &n)
	return n, wrap(err, "counting tasks")
}

// TaskViewGet returns one task of an instance (of any attempt), or
// ErrNotFound.
func (s *Store) TaskViewGet(ctx context.Context, instanceID, taskID int64) (*TaskView, error) {
	var out TaskView
	err := s.idb.NewRaw(`SELECT `+taskViewColumns+` FROM tasks AS tk WHERE tk.id = ? AND tk.instance_id = ?`, taskID, instanceID).
		Scan(ctx, &out)
	if err != nil {
		return nil, wrap(err, "reading a task")
	}
	return &out, nil
}
