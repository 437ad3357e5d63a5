package db

import (
	"context"
	"errors"
	"time"

	"github.com/uptrace/bun"
)

// InstanceListByWorkflowInstances returns the job instances workflow instances started.
func (s *Store) InstanceListByWorkflowInstances(ctx context.Context, wiIDs []int64) ([]Instance, error) {
	var out []Instance
	if len(wiIDs) == 0 {
		return out, nil
	}
	err := s.idb.NewSelect().Model(&out).Where("workflow_instance_id IN (?)", bun.List(wiIDs)).
		OrderExpr("id").Scan(ctx)
	return out, wrap(err, "reading workflow runs' instances")
}

// InstanceCreate inserts one instance (a workflow node's) and sets its id.
func (s *Store) InstanceCreate(ctx context.Context, in *Instance) error {
	now := Now()
	in.CreatedAt, in.UpdatedAt = now, now
	if in.Attempt == 0 {
		in.Attempt = 1
	}
	_, err := s.idb.NewInsert().Model(in).ExcludeColumn("id").Returning("id").Exec(ctx)
	return wrap(err, "creating instance")
}

// InstanceReleaseMany ends the hold of WAITING instances (FOREACH elements
// waiting for a place): their trigger time becomes at.
func (s *Store) InstanceReleaseMany(ctx context.Context, ids []int64, at time.Time) error {
	if len(ids) == 0 {
		return nil
	}
	_, err := s.idb.NewUpdate().Model((*Instance)(nil)).Set("trigger_at = ?", at).Set("updated_at = ?", Now()).
		Where("id IN (?) AND status = ?", bun.List(ids), StatusWaiting).Exec(ctx)
	return wrap(err, "releasing held instances")
}

// Instance states (docs/design.md §5.6).
const (
	StatusWaiting    = "WAITING"
	StatusDispatched = "DISPATCHED"
	StatusRunning    = "RUNNING"
	StatusSucceeded  = "SUCCEEDED"
	StatusFailed     = "FAILED"
	StatusStopped    = "STOPPED"
	StatusCanceled   = "CANCELED"
)

// Instance is one run of a job.
type Instance struct {
	bun.BaseModel `bun:"table:instances,alias:i"`

	ID                 int64      `bun:"id,pk,autoincrement"`
	AppID              int64      `bun:"app_id,notnull"`
	JobID              int64      `bun:"job_id,notnull"`
	WorkflowInstanceID *int64     `bun:"workflow_instance_id"`
	WorkflowNodeID     *string    `bun:"workflow_node_id"`
	Status             string     `bun:"status,notnull"`
	TriggerType        string     `bun:"trigger_type,notnull"`
	ExpectedTriggerAt  *time.Time `bun:"expected_trigger_at"`
	TriggerAt          time.Time  `bun:"trigger_at,notnull"`
	ActualTriggerAt    *time.Time `bun:"actual_trigger_at"`
	StartedAt          *time.Time `bun:"started_at"`
	FinishedAt         *time.Time `bun:"finished_at"`
	Attempt            int        `bun:"attempt,notnull"`
	Params             string     `bun:"params,notnull"`
	Result             string     `bun:"result,notnull"`
	Reason             string     `bun:"reason,notnull"`
	WorkerID           *string    `bun:"worker_id"`
	Epoch              int64      `bun:"epoch,notnull"`
	LogSeq             int64      `bun:"log_seq,notnull"`
	// A workflow node's instance: the generation of the node it ran for,
	// the FOREACH element it ran, what it was given and what it added to
	// the run's context, and the node's overrides of the job's timeout and
	// retries.
	WorkflowGeneration *int               `bun:"workflow_generation"`
	WorkflowItem       *int               `bun:"workflow_item"`
	WorkflowInput      *WorkflowTaskInput `bun:"workflow_input,type:json,nullzero"`
	WorkflowOutput     map[string]any     `bun:"workflow_output,type:json,nullzero"`
	TimeoutMs          *int64             `bun:"timeout_ms"`
	MaxRetries         *int               `bun:"max_retries"`
	// IdempotencyKey is the key runJob was called with, held for
	// IdempotencyWindow (server/api/jobs); nil for every other instance.
	IdempotencyKey *string `bun:"idempotency_key"`
	// JobVersion is the version of the job the instance ran (nil for
	// instances from before versions were kept, and workflow nodes).
	JobVersion *int `bun:"job_version"`
	// Pool is the pool the instance takes PoolSlots of while it runs (nil:
	// none): its job's, set by the owner when it first decides the
	// instance, or its workflow node's, set when the node creates it
	// (pools.go).
	Pool      *string `bun:"pool"`
	PoolSlots *int    `bun:"pool_slots"`
	// NoWorker is why no connected worker could take it, as last found
	// (nil if it never waited for a worker; noworker.go).
	NoWorker *NoWorker `bun:"no_worker,type:json,nullzero"`
	// TraceParent is the W3C traceparent of the span the instance is
	// traced under: until it fires, the API call or workflow instance that
	// created it (if traced); from its fire on, its dispatch span, the
	// parent of its tasks' spans. "" when it is not traced.
	TraceParent string `bun:"trace_parent,notnull"`
	// BackfillID and LogicalTime: a backfill's run, for the fire time it
	// stands for (unique together; backfills.go).
	BackfillID  *int64     `bun:"backfill_id"`
	LogicalTime *time.Time `bun:"logical_time"`
	CreatedAt   time.Time  `bun:"created_at,notnull"`
	UpdatedAt   time.Time  `bun:"updated_at,notnull"`
}

// InstanceAttempt keeps each attempt's worker, times and outcome.
type InstanceAttempt struct {
	bun.BaseModel `bun:"table:instance_attempts,alias:ia"`

	ID         int64      `bun:"id,pk,autoincrement"`
	InstanceID int64      `bun:"instance_id,notnull"`
	Attempt    int        `bun:"attempt,notnull"`
	Status     string     `bun:"status,notnull"`
	WorkerID   *string    `bun:"worker_id"`
	Result     string     `bun:"result,notnull"`
	Reason     string     `bun:"reason,notnull"`
	StartedAt  *time.Time `bun:"started_at"`
	FinishedAt *time.Time `bun:"finished_at"`
}

// AttemptsWithCurrent is an instance's attempts as the API shows them:
// the rows stored, which record attempts that ended without succeeding,
// and the current attempt from the instance row itself (its worker,
// start, end and outcome) once it runs or ended — started or not, as one
// canceled over maxInstances before it started — unless a row records it.
// The execution actor writes no row for an attempt that runs or succeeds
// — the instance row holds the same facts — which saves every run two
// writes (docs/design.md §6.5); a retry through the API writes the row of
// the attempt it ends, so none goes missing.
func AttemptsWithCurrent(stored []InstanceAttempt, in *Instance) []InstanceAttempt {
	if !IsFinal(in.Status) && (in.Status != StatusRunning || in.StartedAt == nil) {
		return stored
	}
	for _, a := range stored {
		if a.Attempt == in.Attempt {
			return stored
		}
	}
	cur := InstanceAttempt{InstanceID: in.ID, Attempt: in.Attempt, Status: in.Status, StartedAt: in.StartedAt, FinishedAt: in.FinishedAt}
	if in.StartedAt != nil { // a retry clears the start, not the worker, which was the last attempt's
		cur.WorkerID = in.WorkerID
	}
	if in.Status != StatusRunning {
		cur.Result, cur.Reason = in.Result, in.Reason
	}
	return append(stored[:len(stored):len(stored)], cur)
}

// ActiveStatuses are the states of an instance that is not finished.
var ActiveStatuses = []string{StatusWaiting, StatusDispatched, StatusRunning}

// IsFinal reports whether an instance (or task) status is terminal.
func IsFinal(status string) bool {
	switch status {
	case StatusSucceeded, StatusFailed, StatusStopped, StatusCanceled:
		return true
	}
	return false
}

// InstanceCreateMany inserts instances in one statement and sets their
// ids: concurrent runJob calls, group-committed (server/platform/groupcommit).
func (s *Store) InstanceCreateMany(ctx context.Context, list []*Instance) error {
	if len(list) == 0 {
		return nil
	}
	now := Now()
	for _, in := range list {
		in.CreatedAt, in.UpdatedAt = now, now
		if in.Attempt == 0 {
			in.Attempt = 1
		}
	}
	if s.dialect == Postgres {
		var ids []int64
		if err := s.insertRecordset(ctx, "instances", list, []string{"id"}, "RETURNING id", &ids); err != nil {
			return wrap(err, "creating instances")
		}
		for i, in := range list {
			in.ID = ids[i]
		}
		return nil
	}
	_, err := s.idb.NewInsert().Model(&list).ExcludeColumn("id").Returning("id").Exec(ctx)
	return wrap(err, "creating instances")
}

// InstanceCreateIdempotent inserts an instance carrying an idempotency key, in
// one statement, unless an instance of the same job created at or after
// since carries the key already: then that instance is returned and
// created is false. An instance older than since keeps its key no longer:
// it is released (set NULL) and the new one inserted. The unique index on
// (job_id, idempotency_key) makes concurrent calls with one key create
// one instance.
func (s *Store) InstanceCreateIdempotent(ctx context.Context, in *Instance, since time.Time) (_ *Instance, created bool, err error) {
	if in.IdempotencyKey == nil {
		return nil, false, errors.New("creating instance: no idempotency key")
	}
	key := *in.IdempotencyKey
	if in.Attempt == 0 {
		in.Attempt = 1
	}
	for range 3 {
		now := Now()
		in.CreatedAt, in.UpdatedAt = now, now
		res, err := s.idb.NewInsert().Model(in).ExcludeColumn("id").
			On("CONFLICT (job_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING").
			Returning("id").Exec(ctx)
		if err != nil {
			return nil, false, wrap(err, "creating instance")
		}
		if n, _ := res.RowsAffected(); n == 1 {
			return in, true, nil
		}
		old := new(Instance)
		err = s.idb.NewSelect().Model(old).Where("job_id = ? AND idempotency_key = ?", in.JobID, key).Scan(ctx)
		switch {
		case errors.Is(wrap(err, ""), ErrNotFound):
			continue // deleted meanwhile (retention, the job): insert again
		case err != nil:
			return nil, false, wrap(err, "reading instance by idempotency key")
		case !old.CreatedAt.Before(since):
			return old, false, nil
		}
		_, err = s.idb.NewUpdate().Model((*Instance)(nil)).Set("idempotency_key = NULL").
			Where("id = ? AND idempotency_key = ?", old.ID, key).Exec(ctx)
		if err != nil {
			return nil, false, wrap(err, "releasing an expired idempotency key")
		}
	}
	return nil, false, wrap(ErrKeyContended, "creating instance")
}

// InstanceCreateFired inserts scheduled instances in one statement, skipping
// any whose (job, expected trigger time) already exists: that fire was
// already recorded, and recording it twice is what UNIQUE forbids. It
// returns the instances actually created, with their ids.
func (s *Store) InstanceCreateFired(ctx context.Context, list []Instance) ([]Instance, error) {
	var created []Instance
	if len(list) == 0 {
		return created, nil
	}
	now := Now()
	for i := range list {
		list[i].CreatedAt, list[i].UpdatedAt = now, now
		if list[i].Attempt == 0 {
			list[i].Attempt = 1
		}
	}
	var rows []struct {
		ID                int64      `bun:"id"`
		JobID             int64      `bun:"job_id"`
		ExpectedTriggerAt *time.Time `bun:"expected_trigger_at"`
	}
	var err error
	if s.dialect == Postgres {
		err = s.insertRecordset(ctx, "instances", list, []string{"id"},
			"ON CONFLICT (job_id, expected_trigger_at) WHERE expected_trigger_at IS NOT NULL DO NOTHING RETURNING id, job_id, expected_trigger_at", &rows)
	} else {
		err = s.idb.NewInsert().Model(&list).ExcludeColumn("id").
			On("CONFLICT (job_id, expected_trigger_at) DO NOTHING").
			Returning("id, job_id, expected_trigger_at").
			Scan(ctx, &rows)
	}
	if err != nil {
		return nil, wrap(err, "creating instances")
	}
	type key struct {
		job int64
		at  int64
	}
	byKey := make(map[key]*Instance, len(list))
	for i := range list {
		if list[i].ExpectedTriggerAt != nil {
			byKey[key{list[i].JobID, list[i].ExpectedTriggerAt.UnixMilli()}] = &list[i]
		}
	}
	for _, r := range rows {
		if r.ExpectedTriggerAt == nil {
			continue
		}
		if in := byKey[key{r.JobID, r.ExpectedTriggerAt.UnixMilli()}]; in != nil {
			in.ID = r.ID
			created = append(created, *in)
		}
	}
	return created, nil
}

// InstanceGet returns an instance by id.
func (s *Store) InstanceGet(ctx context.Context, id int64) (*Instance, error) {
	in := new(Instance)
	err := s.idb.NewSelect().Model(in).Where("id = ?", id).Scan(ctx)
	return in, wrap(err, "reading instance")
}

// InstanceListByIDs returns the instances with the ids.
func (s *Store) InstanceListByIDs(ctx context.Context, ids []int64) ([]Instance, error) {
	var out []Instance
	if len(ids) == 0 {
		return out, nil
	}
	if err := s.idb.NewSelect().Model(&out).Where("id IN (?)", bun.List(ids)).Scan(ctx); err != nil {
		return out, wrap(err, "reading instances")
	}
	return out, s.InstanceHydrate(ctx, out)
}

// InstanceHydrate gives FOREACH elements' instances their node's stored
// input (WorkflowTaskInput.FromNode): the context and upstream results,
// kept once on the node row rather than in each element.
func (s *Store) InstanceHydrate(ctx context.Context, list []Instance) error {
	type ref struct {
		wi  int64
		key string
	}
	need := map[ref][]*WorkflowTaskInput{}
	var wis []int64
	var keys []string
	for i := range list {
		in := list[i].WorkflowInput
		if in == nil || !in.FromNode || list[i].WorkflowInstanceID == nil || list[i].WorkflowNodeID == nil {
			continue
		}
		r := ref{*list[i].WorkflowInstanceID, *list[i].WorkflowNodeID}
		if need[r] == nil {
			wis, keys = append(wis, r.wi), append(keys, r.key)
		}
		need[r] = append(need[r], in)
	}
	if len(need) == 0 {
		return nil
	}
	var rows []WorkflowNodeRun
	err := s.idb.NewSelect().Model(&rows).Column("workflow_instance_id", "node_key", "input").
		Where("workflow_instance_id IN (?) AND node_key IN (?) AND input IS NOT NULL", bun.List(wis), bun.List(keys)).Scan(ctx)
	if err != nil {
		return wrap(err, "reading FOREACH inputs")
	}
	for _, n := range rows {
		for _, in := range need[ref{n.WorkflowInstanceID, n.NodeKey}] {
			in.Context, in.Upstream = n.Input.Context, n.Input.Upstream
		}
	}
	return nil
}

// Due is a WAITING instance's id and trigger time: what the trigger loop
// needs to put it on the wheel.
type Due struct {
	ID        int64     `bun:"id"`
	TriggerAt time.Time `bun:"trigger_at"`
}

// InstanceListWaitingDue returns an app's WAITING instances due at or before
// until, earliest first, except those held in their job's or pool's queue
// (HeldReasons: the actor starts them). It reads two columns only: the trigger loop calls
// it every pass over every fire of the look-ahead window.
func (s *Store) InstanceListWaitingDue(ctx context.Context, appID int64, until time.Time, limit int) ([]Due, error) {
	var out []Due
	err := s.idb.NewSelect().Model((*Instance)(nil)).Column("id", "trigger_at").
		Where("app_id = ? AND status = ? AND trigger_at <= ? AND reason NOT IN (?)", appID, StatusWaiting, until, bun.List(HeldReasons)).
		OrderExpr("trigger_at, id").Limit(limit).Scan(ctx, &out)
	return out, wrap(err, "reading due instances")
}

// InstanceListWaitingDueAfter is InstanceListWaitingDue from after a
// position (trigger_at, id), exclusive: the trigger loop reads the fires
// its actor had no room for back in pages, oldest first.
func (s *Store) InstanceListWaitingDueAfter(ctx context.Context, appID int64, after Due, until time.Time, limit int) ([]Due, error) {
	var out []Due
	err := s.idb.NewSelect().Model((*Instance)(nil)).Column("id", "trigger_at").
		Where("app_id = ? AND status = ? AND trigger_at <= ? AND reason NOT IN (?)", appID, StatusWaiting, until, bun.List(HeldReasons)).
		Where("(trigger_at > ? OR (trigger_at = ? AND id > ?))", after.TriggerAt, after.TriggerAt, after.ID).
		OrderExpr("trigger_at, id").Limit(limit).Scan(ctx, &out)
	return out, wrap(err, "reading due instances")
}

// InstanceListWaitingDueNotAhead is InstanceListWaitingDue without the
// scheduled fires recorded ahead (SCHEDULE, due after now): the trigger
// loop puts the fires it records on its wheel itself, and reads them back
// only after a take-over. What is left is what others made WAITING (API
// runs, retries, catch-ups, workflow nodes) and whatever is due already:
// two index ranges, instances_active up to now and
// instances_waiting_unscheduled up to until, however many fires the
// window holds.
func (s *Store) InstanceListWaitingDueNotAhead(ctx context.Context, appID int64, now, until time.Time, limit int) ([]Due, error) {
	var out []Due
	err := s.idb.NewRaw(`SELECT id, trigger_at FROM (
		SELECT id, trigger_at FROM instances WHERE app_id = ? AND status = ? AND trigger_at <= ? AND reason <> ?
		UNION
		SELECT id, trigger_at FROM instances WHERE app_id = ? AND status = ? AND trigger_type <> 'SCHEDULE' AND trigger_at <= ? AND reason <> ?
	) AS due ORDER BY trigger_at, id LIMIT ?`, appID, StatusWaiting, now, ReasonQueued, appID, StatusWaiting, until, ReasonQueued, limit).Scan(ctx, &out)
	return out, wrap(err, "reading due instances")
}

// InstanceListActive returns an app's DISPATCHED and RUNNING instances.
func (s *Store) InstanceListActive(ctx context.Context, appID int64) ([]Instance, error) {
	var out []Instance
	err := s.idb.NewSelect().Model(&out).
		Where("app_id = ? AND status IN (?)", appID, bun.List([]string{StatusDispatched, StatusRunning})).
		OrderExpr("id").Scan(ctx)
	if err != nil {
		return out, wrap(err, "reading active instances")
	}
	return out, s.InstanceHydrate(ctx, out)
}

// InstanceCountActive counts, per job, the DISPATCHED and RUNNING instances.
func (s *Store) InstanceCountActive(ctx context.Context, jobIDs []int64) (map[int64]int, error) {
	out := make(map[int64]int, len(jobIDs))
	if len(jobIDs) == 0 {
		return out, nil
	}
	var rows []struct {
		JobID int64 `bun:"job_id"`
		N     int   `bun:"n"`
	}
	err := s.idb.NewSelect().Model((*Instance)(nil)).
		ColumnExpr("job_id, COUNT(*) AS n").
		Where("job_id IN (?) AND status IN (?)", bun.List(jobIDs), bun.List([]string{StatusDispatched, StatusRunning})).
		Group("job_id").Scan(ctx, &rows)
	for _, r := range rows {
		out[r.JobID] = r.N
	}
	return out, wrap(err, "counting active instances")
}

// InstanceCountLimited counts a job's DISPATCHED and RUNNING instances
// that its maxInstances bounds: all but its workflow nodes' (a workflow
// bounds those with its own).
func (s *Store) InstanceCountLimited(ctx context.Context, jobID int64) (int, error) {
	n, err := s.idb.NewSelect().Model((*Instance)(nil)).
		Where("job_id = ? AND status IN (?) AND trigger_type <> ?", jobID,
			bun.List([]string{StatusDispatched, StatusRunning}), TriggerWorkflow).
		Count(ctx)
	return n, wrap(err, "counting a job's running instances")
}

// InstanceTransition moves one instance from one status to another and
// sets the fields given (nil fields keep their value).
type InstanceTransition struct {
	ID              int64      `bun:"instance_id"`
	From            string     `bun:"from_status"`
	To              string     `bun:"to_status"`
	ActualTriggerAt *time.Time `bun:"actual_trigger_at"`
	StartedAt       *time.Time `bun:"started_at"`
	FinishedAt      *time.Time `bun:"finished_at"`
	Result          *string    `bun:"result"`
	Reason          *string    `bun:"reason"`
	WorkerID        *string    `bun:"worker_id"`
	Epoch           *int64     `bun:"epoch"`
	// TraceParent, when set, records the traceparent of the instance's
	// dispatch span (a traced fire).
	TraceParent *string   `bun:"trace_parent"`
	UpdatedAt   time.Time `bun:"updated_at"`
}

// InstanceTransitionMany applies the transitions whose instance is still in
// From, in one statement, and returns the ids that moved. Every change of
// an instance's status goes through a compare-and-set like this, so two
// parties racing (a report and a stop, an old and a new owner) cannot both win.
func (s *Store) InstanceTransitionMany(ctx context.Context, list []InstanceTransition) ([]int64, error) {
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
		err := s.idb.NewRaw(`UPDATE instances AS i SET status = d.to_status,
			actual_trigger_at = COALESCE(d.actual_trigger_at, i.actual_trigger_at),
			started_at = COALESCE(d.started_at, i.started_at), finished_at = COALESCE(d.finished_at, i.finished_at),
			result = COALESCE(d.result, i.result), reason = COALESCE(d.reason, i.reason),
			worker_id = COALESCE(d.worker_id, i.worker_id), epoch = COALESCE(d.epoch, i.epoch), updated_at = d.updated_at
			FROM `+from+` WHERE i.id = d.instance_id AND i.status = d.from_status RETURNING i.id`, arg).Scan(ctx, &ids)
		return ids, wrap(err, "moving instances")
	}
	values := s.idb.NewValues(&list)
	err := s.idb.NewUpdate().
		With("_data", values).
		Model((*Instance)(nil)).
		TableExpr("_data").
		Set("status = _data.to_status").
		Set("actual_trigger_at = COALESCE(_data.actual_trigger_at, i.actual_trigger_at)").
		Set("started_at = COALESCE(_data.started_at, i.started_at)").
		Set("finished_at = COALESCE(_data.finished_at, i.finished_at)").
		Set("result = COALESCE(_data.result, i.result)").
		Set("reason = COALESCE(_data.reason, i.reason)").
		Set("worker_id = COALESCE(_data.worker_id, i.worker_id)").
		Set("epoch = COALESCE(_data.epoch, i.epoch)").
		Set("trace_parent = COALESCE(_data.trace_parent, i.trace_parent)").
		Set("updated_at = _data.updated_at").
		Where("i.id = _data.instance_id AND i.status = _data.from_status").
		Returning("id").
		Scan(ctx, &ids)
	return ids, wrap(err, "moving instances")
}

// InstanceRetry puts an instance whose attempt failed back to WAITING for
// its next attempt at triggerAt, if it is still in from, with the reason
// it waits for; result, if given, replaces the ended attempt's (a retry
// through the API says what it waits for there), else it is kept.
func (s *Store) InstanceRetry(ctx context.Context, id int64, from string, attempt int, triggerAt time.Time, reason string, result *string) (bool, error) {
	q := s.idb.NewUpdate().Model((*Instance)(nil)).
		Set("status = ?", StatusWaiting).
		Set("attempt = ?", attempt).
		Set("trigger_at = ?", triggerAt).
		Set("started_at = NULL").
		Set("finished_at = NULL").
		Set("reason = ?", reason)
	if result != nil {
		q = q.Set("result = ?", *result)
	}
	res, err := q.
		Set("updated_at = ?", Now()).
		Where("id = ? AND status = ?", id, from).Exec(ctx)
	if err != nil {
		return false, wrap(err, "retrying instance")
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// InstanceStopByWorkflowInstances stops every unfinished job instance of
// workflow instances in one statement and returns their ids. On PostgreSQL
// the rows are locked in id order first. (The execution actor's batch
// updates may take the same rows in another order: a deadlock between the
// two is answered by retrying the stop, see IsRetryable.)
func (s *Store) InstanceStopByWorkflowInstances(ctx context.Context, wiIDs []int64, reason string) ([]int64, error) {
	var ids []int64
	if len(wiIDs) == 0 {
		return ids, nil
	}
	now := Now()
	sel := s.idb.NewSelect().Model((*Instance)(nil)).Column("id").
		Where("workflow_instance_id IN (?) AND status IN (?)", bun.List(wiIDs), bun.List(unfinished)).OrderExpr("id")
	if s.dialect == Postgres {
		sel = sel.For("UPDATE")
	}
	err := s.idb.NewUpdate().Model((*Instance)(nil)).
		Set("status = ?", StatusStopped).Set("finished_at = ?", now).Set("reason = ?", reason).Set("updated_at = ?", now).
		Where("id IN (?) AND status IN (?)", sel, bun.List(unfinished)).Returning("id").Scan(ctx, &ids)
	return ids, wrap(err, "stopping workflow instances' job instances")
}

// InstanceAdoptSucceeded moves a FOREACH node's succeeded job instances
// from one generation to the next: a retry keeps them and runs the others
// again.
func (s *Store) InstanceAdoptSucceeded(ctx context.Context, wiID int64, node string, from, to int) error {
	_, err := s.idb.NewUpdate().Model((*Instance)(nil)).Set("workflow_generation = ?", to).
		Where("workflow_instance_id = ? AND workflow_node_id = ? AND workflow_generation = ? AND status = ?", wiID, node, from, StatusSucceeded).
		Exec(ctx)
	return wrap(err, "keeping a FOREACH's succeeded elements")
}

// unfinished are the statuses of an instance not ended.
var unfinished = []string{StatusWaiting, StatusDispatched, StatusRunning}

// InstanceStop moves an unfinished instance to STOPPED and returns it as
// it was before, or ErrNotFound if it was already finished.
func (s *Store) InstanceStop(ctx context.Context, id int64, reason string) (*Instance, error) {
	in, err := s.InstanceGet(ctx, id)
	if err != nil {
		return nil, err
	}
	if IsFinal(in.Status) {
		return in, ErrNotFound
	}
	now := Now()
	res, err := s.idb.NewUpdate().Model((*Instance)(nil)).
		Set("status = ?", StatusStopped).
		Set("finished_at = ?", now).
		Set("reason = ?", reason).
		Set("updated_at = ?", now).
		Where("id = ? AND status = ?", id, in.Status).Exec(ctx)
	if err := expectOne(res, err, "stopping instance"); err != nil {
		return nil, err
	}
	return in, nil
}

// InstanceFilter narrows an instance listing.
type InstanceFilter struct {
	AppID    int64
	JobID    int64
	Statuses []string
	// From and To bound trigger_at.
	From, To *time.Time
	BeforeID int64
	Limit    int
}

// InstanceList returns a page of instances, newest first, and whether
// there are more.
func (s *Store) InstanceList(ctx context.Context, f InstanceFilter) ([]Instance, bool, error) {
	var out []Instance
	q := f.apply(s.idb.NewSelect().Model(&out)).OrderExpr("id DESC").Limit(f.Limit + 1)
	if f.BeforeID > 0 {
		q = q.Where("id < ?", f.BeforeID)
	}
	if err := q.Scan(ctx); err != nil {
		return nil, false, wrap(err, "listing instances")
	}
	if len(out) > f.Limit {
		return out[:f.Limit], true, nil
	}
	return out, false, nil
}

// InstanceListLast returns, per job, its newest instance that has fired
// (actual_trigger_at set), whatever its status; jobs that never fired are
// absent. Each job costs one backward step on instances_by_job, past at
// most the few fires recorded ahead, however long its history.
func (s *Store) InstanceListLast(ctx context.Context, jobIDs []int64) (map[int64]Instance, error) {
	out := map[int64]Instance{}
	if len(jobIDs) == 0 {
		return out, nil
	}
	last := s.idb.NewSelect().TableExpr("jobs AS j").
		ColumnExpr("(SELECT l.id FROM instances AS l WHERE l.job_id = j.id AND l.actual_trigger_at IS NOT NULL ORDER BY l.id DESC LIMIT 1)").
		Where("j.id IN (?)", bun.List(jobIDs))
	var list []Instance
	if err := s.idb.NewSelect().Model(&list).Where("i.id IN (?)", last).Scan(ctx); err != nil {
		return nil, wrap(err, "reading jobs' last runs")
	}
	for _, in := range list {
		out[in.JobID] = in
	}
	return out, nil
}

// InstanceCount counts the instances the filter matches on all pages:
// BeforeID and Limit are ignored.
func (s *Store) InstanceCount(ctx context.Context, f InstanceFilter) (int, error) {
	n, err := f.apply(s.idb.NewSelect().Model((*Instance)(nil))).Count(ctx)
	return n, wrap(err, "counting instances")
}

// apply adds the filter's app, job, status and time conditions.
func (f InstanceFilter) apply(q *bun.SelectQuery) *bun.SelectQuery {
	q = q.Where("app_id = ?", f.AppID)
	if f.JobID != 0 {
		q = q.Where("job_id = ?", f.JobID)
	}
	if len(f.Statuses) > 0 {
		q = q.Where("status IN (?)", bun.List(f.Statuses))
	}
	if f.From != nil {
		q = q.Where("trigger_at >= ?", *f.From)
	}
	if f.To != nil {
		q = q.Where("trigger_at < ?", *f.To)
	}
	return q
}

// InstanceListByJobSince returns a job's instances expected at or after since,
// for checking schedules (tests and benchmarks).
func (s *Store) InstanceListByJobSince(ctx context.Context, jobID int64, since time.Time) ([]Instance, error) {
	var out []Instance
	err := s.idb.NewSelect().Model(&out).Where("job_id = ? AND trigger_at >= ?", jobID, since).OrderExpr("id").Scan(ctx)
	return out, wrap(err, "reading job instances")
}

// AttemptUpsertMany records attempts: new ones are inserted, existing ones
// (same instance and attempt number) get the non-empty fields given.
func (s *Store) AttemptUpsertMany(ctx context.Context, list []InstanceAttempt) error {
	if len(list) == 0 {
		return nil
	}
	if s.dialect == Postgres {
		err := s.insertRecordset(ctx, "instance_attempts AS ia", list, []string{"id"}, `ON CONFLICT (instance_id, attempt) DO UPDATE SET
			status = EXCLUDED.status, worker_id = COALESCE(EXCLUDED.worker_id, ia.worker_id),
			result = CASE WHEN EXCLUDED.result <> '' THEN EXCLUDED.result ELSE ia.result END,
			reason = CASE WHEN EXCLUDED.reason <> '' THEN EXCLUDED.reason ELSE ia.reason END,
			started_at = COALESCE(ia.started_at, EXCLUDED.started_at), finished_at = COALESCE(EXCLUDED.finished_at, ia.finished_at)`)
		return wrap(err, "recording attempts")
	}
	_, err := s.idb.NewInsert().Model(&list).ExcludeColumn("id").
		On("CONFLICT (instance_id, attempt) DO UPDATE").
		Set("status = EXCLUDED.status").
		Set("worker_id = COALESCE(EXCLUDED.worker_id, ia.worker_id)").
		Set("result = CASE WHEN EXCLUDED.result <> '' THEN EXCLUDED.result ELSE ia.result END").
		Set("reason = CASE WHEN EXCLUDED.reason <> '' THEN EXCLUDED.reason ELSE ia.reason END").
		Set("started_at = COALESCE(ia.started_at, EXCLUDED.started_at)").
		Set("finished_at = COALESCE(EXCLUDED.finished_at, ia.finished_at)").
		Exec(ctx)
	return wrap(err, "recording attempts")
}

// AttemptList returns an instance's attempts in order.
func (s *Store) AttemptList(ctx context.Context, instanceID int64) ([]InstanceAttempt, error) {
	var out []InstanceAttempt
	err := s.idb.NewSelect().Model(&out).Where("instance_id = ?", instanceID).OrderExpr("attempt").Scan(ctx)
	return out, wrap(err, "listing attempts")
}

// InstanceListStaleScheduled returns an app's scheduled (SCHEDULE) instances
// still WAITING although their time passed before cutoff: fires recorded
// ahead that no server ran in time (downtime, fail-over). Fires held in
// their job's or pool's queue are not stale: they wait by design.
func (s *Store) InstanceListStaleScheduled(ctx context.Context, appID int64, cutoff time.Time, limit int) ([]Instance, error) {
	var out []Instance
	err := s.idb.NewSelect().Model(&out).
		Where("app_id = ? AND status = ? AND trigger_type = 'SCHEDULE' AND trigger_at < ? AND reason NOT IN (?)", appID, StatusWaiting, cutoff, bun.List(HeldReasons)).
		OrderExpr("trigger_at, id").Limit(limit).Scan(ctx)
	return out, wrap(err, "reading stale scheduled instances")
}

// InstanceListQueued returns an app's instances held in their jobs' queues
// (WAITING with reason QUEUED, overlap policy QUEUE), in fire order: what
// an owner reloads when it takes the app over.
func (s *Store) InstanceListQueued(ctx context.Context, appID int64) ([]Instance, error) {
	var out []Instance
	err := s.idb.NewSelect().Model(&out).
		Where("app_id = ? AND status = ? AND reason = ?", appID, StatusWaiting, ReasonQueued).
		OrderExpr("trigger_at, id").Scan(ctx)
	if err != nil {
		return out, wrap(err, "reading queued instances")
	}
	return out, s.InstanceHydrate(ctx, out)
}

// InstanceRelabelMany sets the trigger type of WAITING instances.
func (s *Store) InstanceRelabelMany(ctx context.Context, ids []int64, triggerType string) error {
	if len(ids) == 0 {
		return nil
	}
	_, err := s.idb.NewUpdate().Model((*Instance)(nil)).
		Set("trigger_type = ?", triggerType).
		Where("id IN (?) AND status = ?", bun.List(ids), StatusWaiting).Exec(ctx)
	return wrap(err, "relabelling instances")
}

// InstanceDeleteFutureScheduled deletes a job's scheduled fires recorded
// ahead and not yet due (after), so a disabled or re-scheduled job leaves
// no phantom runs behind.
func (s *Store) InstanceDeleteFutureScheduled(ctx context.Context, jobID int64, after time.Time) error {
	_, err := s.idb.NewDelete().Model((*Instance)(nil)).
		Where("job_id = ? AND status = ? AND trigger_type = 'SCHEDULE' AND trigger_at > ?", jobID, StatusWaiting, after).
		Exec(ctx)
	return wrap(err, "deleting fires recorded ahead")
}

// FireRecord is a scheduled fire as the benchmarks measure it.
type FireRecord struct {
	JobID             int64      `bun:"job_id"`
	ExpectedTriggerAt *time.Time `bun:"expected_trigger_at"`
	ActualTriggerAt   *time.Time `bun:"actual_trigger_at"`
	StartedAt         *time.Time `bun:"started_at"`
	Status            string     `bun:"status"`
	TriggerType       string     `bun:"trigger_type"`
	Reason            string     `bun:"reason"`
	Epoch             int64      `bun:"epoch"`
}

// FireRecordList returns an app's scheduled fires expected in [from, to).
func (s *Store) FireRecordList(ctx context.Context, appID int64, from, to time.Time) ([]FireRecord, error) {
	var out []FireRecord
	err := s.idb.NewSelect().Model((*Instance)(nil)).
		Column("job_id", "expected_trigger_at", "actual_trigger_at", "started_at", "status", "trigger_type", "reason", "epoch").
		Where("app_id = ? AND expected_trigger_at >= ? AND expected_trigger_at < ?", appID, from, to).
		Scan(ctx, &out)
	return out, wrap(err, "reading fire records")
}

// InstanceStatusCounts counts an app's instances by status.
func (s *Store) InstanceStatusCounts(ctx context.Context, appID int64) (map[string]int, error) {
	var rows []struct {
		Status string `bun:"status"`
		N      int    `bun:"n"`
	}
	err := s.idb.NewSelect().Model((*Instance)(nil)).ColumnExpr("status, COUNT(*) AS n").
		Where("app_id = ?", appID).Group("status").Scan(ctx, &rows)
	out := map[string]int{}
	for _, r := range rows {
		out[r.Status] = r.N
	}
	return out, wrap(err, "counting instances")
}

// InstanceCountRunTwice counts an app's instances that succeeded on more than
// one task of the same kind and attempt: a fire that ran twice. The
// cluster tests assert it stays 0.
func (s *Store) InstanceCountRunTwice(ctx context.Context, appID int64) (int, error) {
	n, err := s.idb.NewSelect().TableExpr("tasks AS tk").
		ColumnExpr("tk.instance_id").
		Join("JOIN instances AS i ON i.id = tk.instance_id").
		Where("i.app_id = ? AND tk.status = ? AND tk.kind = 'ROOT'", appID, StatusSucceeded).
		GroupExpr("tk.instance_id, tk.instance_attempt").
		Having("COUNT(*) > 1").Count(ctx)
	return n, wrap(err, "counting instances run twice")
}

// InstanceDeleteFinishedBefore deletes up to limit of an app's finished
// instances that finished before `before`, with their tasks, attempts and
// log lines (cascade), and returns how many it deleted.
func (s *Store) InstanceDeleteFinishedBefore(ctx context.Context, appID int64, before time.Time, limit int) (int, error) {
	sub := s.idb.NewSelect().Model((*Instance)(nil)).Column("id").
		Where("app_id = ? AND finished_at < ? AND status IN (?)", appID, before,
			bun.List([]string{StatusSucceeded, StatusFailed, StatusStopped, StatusCanceled})).
		Limit(limit)
	res, err := s.idb.NewDelete().Model((*Instance)(nil)).Where("id IN (?)", sub).Exec(ctx)
	if err != nil {
		return 0, wrap(err, "deleting old instances")
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}

// InstanceSetWorkflowOutput records what a workflow node's instance added
// to its run's context so far.
func (s *Store) InstanceSetWorkflowOutput(ctx context.Context, id int64, out map[string]any) error {
	_, err := s.idb.NewUpdate().Model((*Instance)(nil)).Set("workflow_output = ?", out).Set("updated_at = ?", Now()).
		Where("id = ?", id).Exec(ctx)
	return wrap(err, "recording a workflow node's output")
}
